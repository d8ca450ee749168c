package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/internal/fault"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// writeTimeout bounds one frame write; a peer that cannot take a frame in
// that time is dropped.
const writeTimeout = 10 * time.Second

// fatalWriteTimeout bounds the write of the error that precedes a close.
const fatalWriteTimeout = time.Second

// killGrace bounds how long a fatal close may take before the TCP
// connection is dropped.
const killGrace = 2 * time.Second

var connCounter atomic.Uint64

// conn is one WebSocket. Its reader runs on the HTTP handler's goroutine;
// one writer goroutine owns every write, so frames leave in queue order.
type conn struct {
	s   *Server
	ws  *websocket.Conn
	id  uint64
	log *slog.Logger

	out      chan outItem  // bounded send queue (slow consumers)
	kill     chan killReq  // at most one fatal close
	killOnce sync.Once     //
	gone     chan struct{} // closed when the reader ends
	wrote    chan struct{} // closed when the writer ends
	dead     atomic.Bool   // failing or gone: queue nothing more
	authed   atomic.Bool
	lastPong atomic.Int64 // unix nanos of the last client pong (note 8)

	// dev is set once, under Server.mu, when hello succeeds.
	dev *device

	// Writer-only: the device's seq of the last durable frame written, which
	// connection-scoped frames carry (note 2), and the device's base.
	seq, base int64
	// written counts durable frames written; used only under
	// fault.SeqRestartsOnReconnect.
	written int64
}

// scoped is a connection-scoped frame (note 2): rendered by the writer with
// the connection's current seq.
type scoped struct {
	typ           string
	taskID, runID *string
	payload       json.RawMessage
}

// outItem is one entry of the send queue: a durable event, a scoped frame,
// or the preamble of an authenticated connection.
type outItem struct {
	ev    *event
	frame *scoped
	intro *preamble
}

// preamble is what hello starts: the writer's position, hello.ok, then the
// replayed gap in order (E-5, E-7), all before any live event.
type preamble struct {
	base, seq int64
	helloOK   scoped
	replay    []*event
}

type killReq struct {
	code    websocket.StatusCode
	errCode string
	msg     string
	extra   func(*lmp.Error)
}

func newConn(s *Server, ws *websocket.Conn) *conn {
	id := connCounter.Add(1)
	return &conn{
		s: s, ws: ws, id: id,
		log:   s.log.With("conn", id),
		out:   make(chan outItem, s.cfg.SendQueue),
		kill:  make(chan killReq, 1),
		gone:  make(chan struct{}),
		wrote: make(chan struct{}),
	}
}

// enqueue queues an item without ever blocking: a full queue means the
// device cannot keep up, so it is disconnected with 1013 and its events wait
// in the replay log for its next hello (slow consumers).
func (c *conn) enqueue(it outItem) {
	if c.dead.Load() {
		return
	}
	select {
	case c.out <- it:
	default:
		c.log.Warn("send queue full, disconnecting slow consumer", "queue", cap(c.out))
		c.fail(lmp.CloseTryAgainLater, lmp.CodeSlowConsumer, "send queue overflowed: reconnect with last_seq to get the rest")
	}
}

// send queues a connection-scoped frame.
func (c *conn) send(p lmp.Payload, taskID, runID *string) {
	raw, err := json.Marshal(p)
	if err != nil {
		c.log.Error("encode frame", "type", p.FrameType(), "err", err)
		return
	}
	c.enqueue(outItem{frame: &scoped{typ: p.FrameType(), taskID: taskID, runID: runID, payload: raw}})
}

// sendError queues a non-fatal error frame.
func (c *conn) sendError(code, msg, requestID string) {
	c.send(lmp.Error{Code: code, Message: msg, RequestID: requestID}, nil, nil)
}

// fail sends a fatal error frame and closes the connection with code. Only
// the first call counts; it never blocks.
func (c *conn) fail(code int, errCode, msg string) {
	c.failWith(killReq{code: websocket.StatusCode(code), errCode: errCode, msg: msg})
}

func (c *conn) failWith(k killReq) {
	c.killOnce.Do(func() {
		c.dead.Store(true)
		c.kill <- k
		// A peer that reads nothing can hold the writer in a blocked write
		// or the close handshake; it is dropped after killGrace.
		time.AfterFunc(killGrace, func() { c.ws.CloseNow() })
	})
}

// writeLoop owns every write. A pending kill wins over queued frames.
func (c *conn) writeLoop() {
	defer close(c.wrote)
	for {
		select {
		case k := <-c.kill:
			c.writeFatal(k)
			return
		default:
		}
		select {
		case k := <-c.kill:
			c.writeFatal(k)
			return
		case it := <-c.out:
			if err := c.write(it); err != nil {
				c.log.Debug("write failed", "err", err)
				c.dead.Store(true)
				c.ws.CloseNow()
				return
			}
		case <-c.gone:
			return
		}
	}
}

func (c *conn) write(it outItem) error {
	switch {
	case it.ev != nil:
		return c.writeEvent(it.ev)
	case it.frame != nil:
		return c.writeScoped(*it.frame)
	case it.intro != nil:
		c.base, c.seq = it.intro.base, it.intro.seq
		if err := c.writeScoped(it.intro.helloOK); err != nil {
			return err
		}
		for _, ev := range it.intro.replay { // E-7: original seq and content
			if err := c.writeEvent(ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeEvent writes a durable event with the device's seq (E-2).
func (c *conn) writeEvent(ev *event) error {
	base := c.base
	if c.s.cfg.Faults.Has(fault.SeqRestartsOnReconnect) {
		c.written++
		base = ev.g - c.written // E-2 broken: each connection counts from 1
	}
	c.seq = ev.g - base
	return c.writeRaw(ev.render(base))
}

// writeScoped renders a connection-scoped frame with the connection's
// current seq, which it does not advance (note 2).
func (c *conn) writeScoped(f scoped) error {
	fr := lmp.Frame{
		V: lmp.Version, Seq: c.seq, TS: lmp.Timestamp(time.Now()), Type: f.typ,
		TaskID: f.taskID, RunID: f.runID, EventID: lmp.EventID(c.seq), Payload: f.payload,
	}
	faults := c.s.cfg.Faults
	if faults.Has(fault.MillisecondTimestamps) {
		fr.TS = float64(time.Now().UnixMilli()) // T-7 broken
	}
	if faults.Has(fault.WrongEventID) {
		fr.EventID = fmt.Sprintf("evt-%d", c.seq) // E-3 broken
	}
	raw, err := json.Marshal(fr)
	if err != nil {
		return err
	}
	if faults.Has(fault.MissingEnvelopeField) && f.runID == nil {
		raw = dropField(raw, "run_id") // E-1 broken: absent instead of null
	}
	return c.writeRaw(raw)
}

func (c *conn) writeRaw(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, b)
}

// writeFatal writes the fatal error, then closes with its code.
func (c *conn) writeFatal(k killReq) {
	if k.errCode != "" {
		e := lmp.Error{Code: k.errCode, Message: k.msg, Fatal: true}
		if k.extra != nil {
			k.extra(&e)
		}
		if raw, err := json.Marshal(e); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), fatalWriteTimeout)
			f, _ := json.Marshal(lmp.Frame{
				V: lmp.Version, Seq: c.seq, TS: lmp.Timestamp(time.Now()), Type: lmp.TypeError,
				EventID: lmp.EventID(c.seq), Payload: raw,
			})
			_ = c.ws.Write(ctx, websocket.MessageText, f)
			cancel()
		}
	}
	c.log.Info("closing connection", "code", int(k.code), "reason", k.errCode)
	_ = c.ws.Close(k.code, k.errCode)
}
