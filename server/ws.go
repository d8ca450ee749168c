package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/internal/batchconn"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/schema"
)

// serveWS upgrades to the LMP WebSocket (T-1) and runs the connection's
// reader until the connection ends.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if !s.hostAllowed(r.Host) {
		refuseHost(w, r) // DNS rebinding: the Origin check alone passes it
		return
	}
	s.mu.Lock()
	admitted := s.admitLocked(w, r)
	s.mu.Unlock()
	if !admitted {
		return
	}
	out := &batchconn.Hijacked{ResponseWriter: w} // the writer's bursts leave together (conn.hold)
	// coder/websocket refuses an Origin whose host is not r.Host.
	ws, err := websocket.Accept(out, r, nil)
	if err != nil {
		s.mu.Lock()
		s.upgrading--
		s.mu.Unlock()
		s.log.Debug("websocket upgrade failed", "err", err)
		return
	}
	// Read limit: 1 MiB per frame; coder/websocket closes a larger frame
	// with 1009 itself.
	ws.SetReadLimit(lmp.MaxFrameBytes)
	c := newConn(s, ws)
	c.out = out.Conn

	s.mu.Lock()
	s.upgrading--
	if s.closing {
		s.mu.Unlock()
		_ = ws.Close(websocket.StatusGoingAway, lmp.CodeShuttingDown)
		return
	}
	s.conns[c] = struct{}{}
	s.handlers.Add(1)
	s.mu.Unlock()
	defer s.handlers.Done()

	opened := time.Now()
	c.log.Debug("connection opened", "remote", r.RemoteAddr)
	go c.writeLoop()
	go c.serveRequests()
	stopAuth := c.startAuthTimer()
	tooBig := c.readLoop()
	stopAuth()
	close(c.requests)

	s.mu.Lock()
	delete(s.conns, c)
	delete(s.live, c)
	s.mu.Unlock()
	c.dead.Store(true)
	close(c.gone)
	<-c.wrote
	if tooBig {
		// coder/websocket has sent the 1009 close frame, but the rest of
		// the oversized frame is still arriving: closing the socket with it
		// unread would make the kernel reset the connection, and the peer
		// could lose the 1009. Close reads and discards it while waiting
		// for the peer's close frame (at most 5 s), then closes.
		_ = c.ws.Close(websocket.StatusMessageTooBig, "")
	}
	c.ws.CloseNow()
	c.end()
	c.logEnd(time.Since(opened))
	// A request still waiting on Hermes finishes, so that its result is
	// kept for the device's retry (I-1); Shutdown waits for it too.
	<-c.served
}

// startAuthTimer closes the connection when it has not authenticated
// within AuthTimeout of the upgrade (S-4, note 10).
func (c *conn) startAuthTimer() (stop func()) {
	// Enforces S-4: a connection without a successful hello is closed after AuthTimeout.
	t := time.AfterFunc(c.s.cfg.AuthTimeout, func() {
		if !c.authed.Load() {
			c.fail(lmp.ClosePolicyViolation, lmp.CodeAuthTimeout, "no successful hello within "+c.s.cfg.AuthTimeout.String())
		}
	})
	return func() { t.Stop() }
}

// readLoop reads frames until the connection ends, and reports whether it
// ended on a frame over the read limit. After a fatal error it keeps
// reading, discarding frames, so that the close handshake completes.
func (c *conn) readLoop() (tooBig bool) {
	defer c.readBuf.release()
	for {
		var typ websocket.MessageType
		var data []byte
		var err error
		c.readBuf.release()
		if c.authed.Load() {
			typ, data, err = c.readBuf.read(c.ws)
		} else {
			typ, data, err = c.readPreAuth(context.Background())
		}
		if errors.Is(err, errHelloTooLarge) {
			c.log.Info("frame before hello over the hello budget, closing with 1009", "limit", MaxHelloBytes)
			c.fail(lmp.CloseMessageTooBig, lmp.CodeHelloTooLarge, "before hello succeeds a frame may be at most "+strconv.Itoa(MaxHelloBytes)+" bytes")
			continue
		}
		if err != nil {
			if errors.Is(err, websocket.ErrMessageTooBig) {
				c.log.Info("frame over the read limit, closed with 1009", "limit", lmp.MaxFrameBytes)
				return true
			}
			return false
		}
		// The observer sees every frame read, before anything answers it;
		// take shows the frames it serves with the envelope it decodes.
		dead := c.dead.Load()
		if dead || typ == websocket.MessageBinary || !c.authed.Load() {
			c.observe(false, data, Envelope{})
		}
		if dead {
			continue
		}
		if typ == websocket.MessageBinary {
			// Enforces T-3: a binary frame is refused (1003); only text JSON frames are served.
			// Binary frames are reserved in v1 (note 12); writeRaw writes text frames only.
			c.fail(lmp.CloseUnsupportedData, lmp.CodeBinaryFrame, "binary frames are reserved in LMP v1: send text JSON")
			continue
		}
		if !utf8.Valid(data) {
			if c.authed.Load() {
				c.observe(false, data, Envelope{}) // not shown above
			}
			// A text frame holds UTF-8 (T-3); RFC 6455 §8.1 says to fail
			// the connection with 1007, before hello and after it.
			c.fail(lmp.CloseInvalidData, lmp.CodeInvalidUTF8, "text frames must hold valid UTF-8 (RFC 6455 §8.1)")
			continue
		}
		if !c.authed.Load() {
			c.handleHello(data)
			continue
		}
		c.take(data)
	}
}

// handleFrame serves one frame of an authenticated connection, on its
// request goroutine (take says why pong is not among them).
func (c *conn) handleFrame(r request) {
	f := r.frame
	if r.bad {
		// Malformed frames after hello are not fatal.
		c.sendError(lmp.CodeBadFrame, "frame is not a JSON object with v, type and payload", "")
		return
	}
	if r.invalid != "" {
		c.sendError(lmp.CodeInvalidPayload, r.invalid, r.requestID)
		return
	}
	ctx := context.Background()
	switch f.Type {
	case lmp.TypePing:
		// Enforces T-6: a client ping is answered with pong.
		c.send(lmp.Pong{}, nil, nil)
	case lmp.TypeHello:
		// note 16: no re-authentication on a live connection.
		c.sendError(lmp.CodeAlreadyAuthenticated, "this connection is already authenticated", "")
	case lmp.TypeSessionSend:
		c.logMessage(f)
		c.cmdSessionSend(ctx, f)
	case lmp.TypeRunCancel, lmp.TypeRunPause:
		c.cmdInterrupt(ctx, f)
	case lmp.TypeRunResume:
		c.cmdResume(ctx, f)
	case lmp.TypeApprovalResolve:
		c.cmdApprovalResolve(ctx, f)
	case lmp.TypeTaskList:
		c.cmdTaskList(ctx, f)
	default:
		// Enforces V-1: an unknown client frame type is ignored, never refused.
		// Unknown fields pass validateClientFrame's schemas.
		c.log.Debug("ignoring unknown frame type", "type", lmp.Shorten(f.Type))
	}
}

// requestIDOf digs request_id out of a payload that failed to decode, so
// that the error can name the request; "" when it is over its limit, which
// an error must not echo.
func requestIDOf(r *schema.Request) string {
	s := r.RequestID()
	if lmp.CheckLength("request_id", s, lmp.MaxIDLength) != nil {
		return ""
	}
	return s
}
