package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/schema"
)

// inFrame is one frame the app sent.
type inFrame struct {
	at      time.Time
	typ     string
	payload json.RawMessage
}

// appConn is one WebSocket connection of the app, as the judge holds it.
// Its reader answers the app's own pings (T-6), notes each pong's arrival
// and hands every other frame on, in order; it validates everything the
// app sends (C-4).
type appConn struct {
	id     int
	tls    bool
	ws     *websocket.Conn
	j      *judgeRun
	frames chan inFrame
	pongs  chan time.Time
	done   chan struct{}
	// closeText says how the connection ended, once done is closed.
	closeText string

	wmu sync.Mutex
}

// frameBuffer is how many frames the app may send that no scenario has
// taken yet; the reader waits beyond it (the app's sends are slowed by
// TCP, nothing is lost).
const frameBuffer = 4096

func newAppConn(j *judgeRun, id int, ws *websocket.Conn, tls bool) *appConn {
	ws.SetReadLimit(lmp.MaxFrameBytes)
	c := &appConn{id: id, tls: tls, ws: ws, j: j, frames: make(chan inFrame, frameBuffer),
		pongs: make(chan time.Time, 64), done: make(chan struct{})}
	return c
}

// read runs until the connection ends.
func (c *appConn) read(ctx context.Context) {
	defer close(c.done)
	for {
		typ, data, err := c.ws.Read(ctx)
		if err != nil {
			c.closeText = closeText(err)
			c.j.log.add(c.id, dirClosed, []byte(c.closeText))
			return
		}
		now := time.Now()
		c.j.log.add(c.id, dirFromApp, data)
		if typ == websocket.MessageBinary {
			c.j.violation("conn %d: a binary frame (%d bytes): T-3 reserves binary frames", c.id, len(data))
			continue
		}
		for _, e := range schema.ValidateFrame(schema.ClientToServer, data) {
			c.j.violation("conn %d: %s", c.id, e.String())
		}
		var f lmp.ClientFrame
		if err := json.Unmarshal(data, &f); err != nil {
			continue // reported by the validator
		}
		switch f.Type {
		case lmp.TypePong:
			select {
			case c.pongs <- now:
			default:
			}
		case lmp.TypePing:
			_ = c.send(ctx, lmp.Pong{})
		default:
			switch f.Type {
			case lmp.TypeSessionSend, lmp.TypeApprovalResolve, lmp.TypeTaskList:
				c.j.noteRequest(f.Type, f.Payload)
			}
			select {
			case c.frames <- inFrame{at: now, typ: f.Type, payload: f.Payload}:
			case <-ctx.Done():
				return
			}
		}
	}
}

// send writes one connection-scoped frame: it carries the device's
// current seq without advancing it.
func (c *appConn) send(ctx context.Context, p lmp.Payload) error {
	f, err := lmp.NewFrame(c.j.seq.Load(), time.Now(), nil, nil, p)
	if err != nil {
		return err
	}
	return c.writeFrame(ctx, f)
}

func (c *appConn) writeFrame(ctx context.Context, f lmp.Frame) error {
	raw, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return c.writeRaw(ctx, raw)
}

func (c *appConn) writeRaw(ctx context.Context, raw []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c.j.log.add(c.id, dirToApp, raw)
	return c.ws.Write(ctx, websocket.MessageText, raw)
}

// fatal ends the connection as a server does after a fatal error: the
// error frame, then the close.
func (c *appConn) fatal(ctx context.Context, code, message string, status websocket.StatusCode) {
	_ = c.send(ctx, lmp.Error{Code: code, Message: message, Fatal: true})
	_ = c.ws.Close(status, code)
}

// drop ends the connection without a close frame, as a network loss does.
func (c *appConn) drop() { _ = c.ws.CloseNow() }

// closed reports whether the connection has ended.
func (c *appConn) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// next returns the next frame the app sent that match accepts, within d;
// frames it passes over are dropped. It fails when the connection ends.
func (c *appConn) next(ctx context.Context, d time.Duration, match func(inFrame) bool) (inFrame, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case f := <-c.frames:
			if match == nil || match(f) {
				return f, nil
			}
		case <-c.done:
			// Frames read before the end are still taken.
			select {
			case f := <-c.frames:
				if match == nil || match(f) {
					return f, nil
				}
				continue
			default:
			}
			return inFrame{}, fmt.Errorf("the connection ended (%s)", c.closeText)
		case <-t.C:
			return inFrame{}, errTimeout
		case <-ctx.Done():
			return inFrame{}, ctx.Err()
		}
	}
}

// ofType matches frames of the given types.
func ofType(types ...string) func(inFrame) bool {
	return func(f inFrame) bool {
		for _, t := range types {
			if f.typ == t {
				return true
			}
		}
		return false
	}
}

func closeText(err error) string {
	if s := websocket.CloseStatus(err); s != -1 {
		var ce websocket.CloseError
		if ok := asCloseError(err, &ce); ok && ce.Reason != "" {
			return fmt.Sprintf("close %d %q", int(s), ce.Reason)
		}
		return fmt.Sprintf("close %d", int(s))
	}
	return err.Error()
}
