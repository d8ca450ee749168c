package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/internal/batchconn"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// writeTimeout bounds one frame write; a peer that cannot take a frame in
// that time is dropped (writeWatch: within 1.5 × writeTimeout).
const writeTimeout = 10 * time.Second

// maxKeptFrame is the largest frame buffer a writer keeps for the next
// frame; a larger one, left by a large event, is let go after its write so
// that a connection does not hold it while idle.
const maxKeptFrame = 64 << 10

// fatalWriteTimeout bounds the write of the error that precedes a close.
const fatalWriteTimeout = time.Second

// killGrace bounds the close handshake of a fatal close.
const killGrace = 2 * time.Second

// closeBound bounds a fatal close from the moment it is decided until the
// TCP connection is closed, whatever the peer does: the frame being
// written may take writeTimeout (a slow peer that still reads gets it,
// then the error and the close frame), the error fatalWriteTimeout, the
// close handshake killGrace. A peer that reads nothing meanwhile gets the
// TCP close alone: nothing else can reach it.
const closeBound = writeTimeout + fatalWriteTimeout + killGrace

// fetchBatch is how many events the writer takes from the shared log at a
// time. The events of a batch are held by the connection until written, so
// a connection may be up to ReplayWindow + fetchBatch events behind before
// it is a slow consumer; it bounds the writer's memory to O(1).
const fetchBatch = 32

var connCounter atomic.Uint64

// conn is one WebSocket. Its reader runs on the HTTP handler's goroutine
// and hands each frame after hello to the request goroutine, which serves
// them in order; one writer goroutine owns every write. Durable events reach the writer
// through its cursor in the shared log, connection-scoped frames through
// the bounded reply queue (slow consumers).
type conn struct {
	s   *Server
	ws  *websocket.Conn
	out *batchconn.Conn // ws's socket, whose writes the writer holds during a burst; nil in tests that build a conn by hand
	id  uint64
	log *slog.Logger

	readBuf readBuffer // the frame being read, owned by the reader goroutine

	q        *replyQueue   // connection-scoped frames
	ready    chan struct{} // 1-slot: wakes the writer (new event, new reply)
	kill     chan killReq  // at most one fatal close
	killOnce sync.Once
	// closeBound is the fatal close's bound, ended says the connection is
	// closed (end).
	closeBound atomic.Pointer[time.Timer]
	ended      atomic.Bool
	dying      chan struct{} // closed by the fatal close: stop waiting for room
	gone       chan struct{} // closed when the reader ends
	requests   chan request  // taken frames for the request goroutine
	served     chan struct{} // closed when the request goroutine ends
	wrote      chan struct{} // closed when the writer ends
	dead       atomic.Bool   // failing or gone: queue nothing more
	authed     atomic.Bool
	lastPong   atomic.Int64 // unix nanos of the last client pong (note 8)
	// pingDue asks the writer for a server ping, written ahead of the
	// events and replies still to be written (sendPing); pinged then gets a
	// token, and pingWritten the write's time (unix nanos).
	pingDue     atomic.Bool
	pinged      chan struct{}
	pingWritten atomic.Int64
	waited      atomic.Bool // a request once waited for room (logged once)
	// limit is the highest global index the log may reach before the
	// oldest event this connection still needs is overwritten: its cursor
	// plus ReplayWindow. Set under Server.mu at hello, then by the writer.
	limit atomic.Int64

	// dev is set once, under Server.mu, when hello succeeds.
	dev *device

	// Writer-only: the device's seq of the last durable frame written, which
	// connection-scoped frames carry (note 2), and the device's base.
	seq, base int64
	// cursor is the global index of the last event taken from the log
	// (-1 until hello.ok is written); batch holds the taken events not yet
	// written, oldest first.
	cursor int64
	batch  []*event
	buf    []*event // batch's storage, reused
	// frame is the buffer each event is rendered into, reused from frame
	// to frame: a delivery allocates nothing.
	frame []byte
	// watch drops the connection when a write is stuck for writeTimeout.
	watch writeWatch
}

// scoped is a connection-scoped frame (note 2): rendered by the writer with
// the connection's current seq.
type scoped struct {
	typ           string
	taskID, runID *string
	payload       json.RawMessage
	// buf, when not nil, is pooled storage the payload was encoded into,
	// given back once the frame is written (release).
	buf *[]byte
}

// outItem is one entry of the reply queue: a scoped frame, or the preamble
// of an authenticated connection. mark is the newest global index when it
// was queued: the writer writes every event up to mark first, so replies
// keep their place among events exactly as queued (an ack follows the
// events its request caused).
type outItem struct {
	frame *scoped
	intro *preamble
	mark  int64
}

// preamble is what hello starts: hello.ok, then the replayed gap in order
// (E-5, E-7), then every event after the cursor, all before any live event.
type preamble struct {
	base, seq int64 // the device's base; hello.ok's seq
	helloOK   scoped
	replay    []*event // written right after hello.ok
	after     int64    // the cursor once replay is written
}

// pushMode says what a full reply queue does to a frame.
type pushMode int

const (
	// pushWait makes the request wait for room: a peer that pipelines
	// requests faster than it reads the replies is slowed down (TCP pushes
	// back), never disconnected for it.
	pushWait pushMode = iota
	// pushForce queues it regardless: hello.ok, once per connection.
	pushForce
)

type killReq struct {
	code    websocket.StatusCode
	errCode string
	msg     string
	extra   func(*lmp.Error)
}

func newConn(s *Server, ws *websocket.Conn) *conn {
	id := connCounter.Add(1)
	c := &conn{
		s: s, ws: ws, id: id,
		log:      s.log.With("conn", id),
		q:        newReplyQueue(s.cfg.SendQueue),
		ready:    make(chan struct{}, 1),
		kill:     make(chan killReq, 1),
		dying:    make(chan struct{}),
		gone:     make(chan struct{}),
		requests: make(chan request, pendingRequests),
		pinged:   make(chan struct{}, 1),
		served:   make(chan struct{}),
		wrote:    make(chan struct{}),
		cursor:   -1,
	}
	c.limit.Store(math.MaxInt64) // not live: no event can leave it behind
	c.watch.timeout = writeTimeout
	c.watch.stuck = c.writeStuck
	return c
}

// push queues a connection-scoped item. With pushWait it waits for room
// until the connection is failing or its writer has ended, so the wait is
// bounded by the connection's life (and the writer's writeTimeout). It
// reports whether the item was queued.
func (c *conn) push(it outItem, mode pushMode) bool {
	it.mark = c.s.events.published()
	for {
		if c.dead.Load() {
			return false
		}
		if c.q.tryPush(it, mode == pushForce) {
			c.notify()
			return true
		}
		if !c.waited.Swap(true) {
			c.log.Debug("reply queue full: waiting for the peer to read", "queue", c.q.max)
		}
		select {
		case <-c.q.room:
		case <-c.dying:
			return false
		case <-c.wrote:
			return false
		}
	}
}

// notify wakes the writer without ever blocking.
func (c *conn) notify() {
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

// eventAdded is publish's only work per connection: a connection whose
// cursor the new event g pushes out of the window is a slow consumer;
// any other is woken.
func (c *conn) eventAdded(g int64) {
	if c.dead.Load() {
		return
	}
	if g > c.limit.Load() {
		c.slowConsumer()
		return
	}
	c.notify()
}

// slowConsumer closes a connection whose cursor fell out of the replay
// window with 1013; the events it missed stay in the log for its next
// hello with last_seq, or are reported truncated (slow consumers, E-6).
func (c *conn) slowConsumer() {
	if c.dead.Load() {
		return
	}
	w := strconv.Itoa(c.s.cfg.ReplayWindow)
	c.log.Warn("slow consumer: fell out of the replay window, disconnecting", "window", c.s.cfg.ReplayWindow)
	c.fail(lmp.CloseTryAgainLater, lmp.CodeSlowConsumer, "more than "+w+" events behind: reconnect with last_seq to get the rest")
}

// send queues a connection-scoped frame in reply to the peer, waiting for
// room (pushWait). Call it from the reader or the request goroutine, never
// from the writer.
func (c *conn) send(p lmp.Payload, taskID, runID *string) {
	c.sendMode(p, taskID, runID, pushWait)
}

func (c *conn) sendMode(p lmp.Payload, taskID, runID *string, mode pushMode) bool {
	f := &scoped{typ: p.FrameType(), taskID: taskID, runID: runID}
	var err error
	if r, ok := p.(lmp.TaskListResult); ok {
		f.payload, f.buf, err = encodeTaskList(r, taskID, runID)
	} else {
		f.payload, err = encodePayload(p, taskID, runID)
	}
	if err != nil {
		c.log.Error("encode frame", "type", p.FrameType(), "err", err)
		return false
	}
	return c.push(outItem{frame: f}, mode)
}

// reply queues a request's result frame (request goroutine only).
func (c *conn) reply(f scoped) { c.push(outItem{frame: &f}, pushWait) }

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
		close(c.dying)
		// A peer that reads nothing can hold the writer in a blocked write
		// or the close handshake; it is dropped after closeBound. Not
		// sooner: a writer stuck behind a slow peer that still reads must
		// finish its frame and send the close, or the peer sees a bare EOF.
		c.closeBound.Store(time.AfterFunc(closeBound, func() { c.ws.CloseNow() }))
		if c.ended.Load() {
			c.closeBound.Load().Stop()
		}
	})
}

// end stops the fatal close's bound once the connection is closed. The
// timer would otherwise keep the connection, its buffers and its queue
// reachable for closeBound after its end: under a fuzzer, whose every
// episode ends in a fatal error, thousands of dead connections. With
// failWith it is the pair of a store and a load each, so that whichever
// runs second stops the timer.
func (c *conn) end() {
	c.ended.Store(true)
	if t := c.closeBound.Load(); t != nil {
		t.Stop()
	}
}

// writeLoop owns every write. A pending kill wins over everything else,
// checked between any two frames.
func (c *conn) writeLoop() {
	defer close(c.wrote)
	defer c.watch.stop()
	c.hold()
	yielded := false
	for {
		select {
		case k := <-c.kill:
			_ = c.release() // the burst's frames go before the fatal error
			c.writeFatal(k)
			return
		default:
		}
		wrote, err := c.writeNext()
		if err != nil {
			c.writeFailed(err)
			return
		}
		if wrote {
			yielded = false
			continue
		}
		if !yielded {
			// Look once more after letting the publisher run: a writer
			// that parks between two events of a burst costs a park and a
			// wake-up per frame, more than the frame's write.
			yielded = true
			runtime.Gosched()
			continue
		}
		yielded = false
		if err := c.release(); err != nil {
			c.writeFailed(err)
			return
		}
		c.watch.idle()
		select {
		case k := <-c.kill:
			c.writeFatal(k)
			return
		case <-c.ready:
		case <-c.gone:
			return
		}
		c.watch.wake()
		c.hold()
	}
}

// hold keeps the frames the writer writes from now on in c.out until
// release: a burst's frames (the replies to a client's pipelined frames,
// an event's fan-out, a replay) then leave in one write, not one each.
// Writer only.
func (c *conn) hold() {
	if c.out != nil {
		c.out.Hold()
	}
}

// release writes the held frames before the writer waits. The write watch
// still sees the writer busy, so a peer that takes none of them is dropped
// as for a stuck frame. Writer only.
func (c *conn) release() error {
	if c.out == nil {
		return nil
	}
	return c.out.Release(time.Time{})
}

// writeFailed ends a connection whose socket refused a write.
func (c *conn) writeFailed(err error) {
	c.log.Debug("write failed", "err", err)
	c.dead.Store(true)
	c.ws.CloseNow()
}

// writeStuck drops a connection whose peer took no frame for writeTimeout:
// the stuck write then fails and the writer ends.
func (c *conn) writeStuck() {
	c.log.Debug("write stuck: dropping the connection", "timeout", writeTimeout)
	c.dead.Store(true)
	c.ws.CloseNow()
}

// writeNext writes the next frame due, if any: a server ping asked for
// once hello.ok is out, else the oldest queued reply once every event up to
// its mark is written, else the next event after the cursor. A cursor that
// fell out of the window fails the connection.
func (c *conn) writeNext() (bool, error) {
	if c.cursor >= 0 && c.pingDue.Swap(false) {
		return true, c.writePing()
	}
	it, queued := c.q.peek()
	if queued && c.due(it.mark) {
		c.q.drop()
		return true, c.writeItem(it)
	}
	if c.cursor < 0 {
		return false, nil // not live yet: no events
	}
	if len(c.batch) == 0 && !c.fetch() {
		c.slowConsumer()
		return false, nil
	}
	if len(c.batch) == 0 {
		if queued {
			// Its mark is above the log: cannot happen, but never hold a
			// reply back for it.
			c.q.drop()
			return true, c.writeItem(it)
		}
		return false, nil
	}
	ev := c.batch[0]
	c.batch[0] = nil
	c.batch = c.batch[1:]
	return true, c.writeEvent(ev)
}

// due reports whether a reply queued at mark may be written: every event
// up to mark has been written (or the connection is not live yet).
func (c *conn) due(mark int64) bool {
	if c.cursor < 0 {
		return true
	}
	if len(c.batch) > 0 {
		return c.batch[0].g > mark
	}
	return c.cursor >= mark
}

// fetch takes the next events after the cursor from the shared log; false
// when the cursor fell out of the window.
func (c *conn) fetch() bool {
	s := c.s
	if c.buf == nil {
		c.buf = make([]*event, 0, fetchBatch)
	}
	evs, ok := s.events.after(c.cursor, c.buf[:0])
	if !ok {
		return false
	}
	c.batch = evs
	if n := len(evs); n > 0 {
		c.cursor = evs[n-1].g
		c.limit.Store(c.cursor + int64(len(s.events.ring)))
	}
	return true
}

func (c *conn) writeItem(it outItem) error {
	if p := it.intro; p != nil {
		c.base, c.seq = p.base, p.seq
		c.cursor = p.after
		// Enforces E-7: the gap is re-sent as the logged events themselves, with the device's original seq.
		c.batch = p.replay
		return c.writeScoped(p.helloOK)
	}
	err := c.writeScoped(*it.frame)
	it.frame.release()
	return err
}

// pingFrame is the server ping, rendered like any connection-scoped frame.
var pingFrame = scopedOf(lmp.Ping{}, nil, nil)

// writePing writes a server ping and tells sendPing when it went out. The
// time is taken before the write: the peer's pong can be read before the
// write call returns to this goroutine, and must never look older than its
// ping.
func (c *conn) writePing() error {
	c.pingWritten.Store(time.Now().UnixNano())
	err := c.writeScoped(pingFrame)
	select {
	case c.pinged <- struct{}{}:
	default:
	}
	return err
}

// writeEvent writes a durable event with the device's seq (E-2).
func (c *conn) writeEvent(ev *event) error {
	c.seq = ev.g - c.base
	c.frame = ev.appendTo(c.frame[:0], c.base)
	err := c.writeRaw(context.Background(), c.frame, ev.envelope(c.base))
	if cap(c.frame) > maxKeptFrame {
		c.frame = nil
	}
	return err
}

// writeScoped renders a connection-scoped frame with the connection's
// current seq, which it does not advance (note 2), into the connection's
// reused buffer: the envelope as json.Marshal renders an lmp.Frame, the
// payload spliced in as it is (every scoped payload is json.Marshal's
// output, compact and HTML-escaped already, which json.Marshal would
// copy unchanged).
func (c *conn) writeScoped(f scoped) error {
	c.frame = appendScoped(c.frame[:0], f, c.seq, time.Now())
	payload := f.payload
	if payload == nil {
		payload = nullPayload // as appendScoped writes it
	}
	err := c.writeRaw(context.Background(), c.frame, Envelope{Type: f.typ, Seq: c.seq, TaskID: f.taskID, RunID: f.runID, Payload: payload})
	if cap(c.frame) > maxKeptFrame {
		c.frame = nil
	}
	return err
}

// nullPayload is the payload of a scoped frame without one.
var nullPayload = json.RawMessage("null")

// appendScoped appends the frame f as seq at now. Like every frame it
// carries the full envelope (E-1), its event_id rendered from the same seq
// (E-3) and its ts as lmp.Timestamp (T-7).
func appendScoped(dst []byte, f scoped, seq int64, now time.Time) []byte {
	dst = append(dst, eventHead...)
	from := len(dst)
	dst = strconv.AppendInt(dst, seq, 10)
	n := len(dst)
	dst = append(dst, `,"ts":`...)
	dst = appendJSON(dst, lmp.Timestamp(now))
	dst = append(dst, `,"type":`...)
	dst = appendJSON(dst, f.typ)
	dst = append(dst, `,"task_id":`...)
	dst = appendJSON(dst, f.taskID)
	dst = append(dst, `,"run_id":`...)
	dst = appendJSON(dst, f.runID)
	dst = append(dst, `,"event_id":"e_`...)
	dst = append(dst, dst[from:n]...)
	dst = append(dst, `","payload":`...)
	if f.payload == nil {
		dst = append(dst, nullPayload...)
	} else {
		dst = append(dst, f.payload...)
	}
	return append(dst, '}')
}

// writeRaw writes one text frame, whose envelope env is; every frame the
// server sends passes here. Frame writes take context.Background(), for
// which coder/websocket sets up no timer or context: writeWatch bounds
// them instead.
func (c *conn) writeRaw(ctx context.Context, b []byte, env Envelope) error {
	c.observe(true, b, env)
	err := c.ws.Write(ctx, websocket.MessageText, b)
	c.watch.wrote()
	return err
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
			_ = c.writeRaw(ctx, f, Envelope{Type: lmp.TypeError, Seq: c.seq, Payload: raw})
			cancel()
		}
	}
	c.log.Info("closing connection", "code", int(k.code), "reason", k.errCode)
	hard := time.AfterFunc(killGrace, func() { c.ws.CloseNow() })
	_ = c.ws.Close(k.code, k.errCode)
	hard.Stop()
}
