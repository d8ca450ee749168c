// Package batchconn holds a connection's writes back and sends them
// together.
//
// coder/websocket flushes every message to its socket on its own, and has
// no way to send several at once. On loopback each write is a system call
// that also runs the receiving side's TCP input, so a peer that writes
// many small frames in a row pays for each of them twice. A Conn lets the
// one goroutine that knows a burst is under way hold the writes while it
// lasts and release them in one: the same bytes in the same order, in
// fewer TCP segments.
package batchconn

import (
	"bufio"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"
)

// Limit is how many bytes a held Conn keeps before it writes them anyway,
// together with the write that goes past it.
const Limit = 64 << 10

// Conn is a net.Conn whose writes can be held back. A write that is not
// held goes straight through. Its methods are safe for concurrent use.
type Conn struct {
	net.Conn

	mu      sync.Mutex // serializes writes; guards held and pending
	held    bool
	pending *[]byte // the held bytes; borrowed from buffers while held, so an idle Conn keeps none
}

// buffers holds the pending buffers of Conns not holding. One grown past
// twice Limit by a large write is left to the collector.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// New returns c with writes not held.
func New(c net.Conn) *Conn { return &Conn{Conn: c} }

// Write writes p, or keeps it while c is held. Kept bytes that would go
// past Limit are written at once, with p, in one vectored write.
func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.held {
		return c.Conn.Write(p)
	}
	if c.pending == nil {
		c.pending = buffers.Get().(*[]byte)
	}
	if len(*c.pending)+len(p) <= Limit {
		*c.pending = append(*c.pending, p...)
		return len(p), nil
	}
	bufs := net.Buffers{*c.pending, p}
	_, err := bufs.WriteTo(c.Conn)
	*c.pending = (*c.pending)[:0]
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Hold keeps the writes that follow until Release.
func (c *Conn) Hold() {
	c.mu.Lock()
	c.held = true
	c.mu.Unlock()
}

// Release writes what was kept, in one write, and lets later writes go
// straight through. A non-zero deadline bounds that write: the bytes were
// accepted by Write, and the timeout of whoever wrote them no longer
// covers them. An error means the kept bytes may not all have left.
func (c *Conn) Release(deadline time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = false
	if c.pending == nil {
		return nil
	}
	defer c.giveBack()
	if len(*c.pending) == 0 {
		return nil
	}
	if !deadline.IsZero() {
		_ = c.Conn.SetWriteDeadline(deadline)
		defer func() { _ = c.Conn.SetWriteDeadline(time.Time{}) }()
	}
	_, err := c.Conn.Write(*c.pending)
	return err
}

// closeFlushTimeout bounds the write of what Close finds held.
const closeFlushTimeout = time.Second

// closeLockTries is how often Close yields for mu before it closes
// without writing what is held.
const closeLockTries = 100

// Close writes what is held, then closes the connection. coder/websocket
// answers a peer's close frame and closes the connection at once, from its
// reader: a writer holding a burst then still held the answer, and the
// peer saw the connection end without a close handshake. The write is
// bounded by closeFlushTimeout. A write under way holds mu, and may be
// stuck on a peer that reads nothing, which closing is what ends: Close
// yields for mu closeLockTries times, then closes without writing.
func (c *Conn) Close() error {
	locked := c.mu.TryLock()
	for i := 0; !locked && i < closeLockTries; i++ {
		runtime.Gosched()
		locked = c.mu.TryLock()
	}
	if locked {
		if c.pending != nil {
			if len(*c.pending) > 0 {
				_ = c.Conn.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
				_, _ = c.Conn.Write(*c.pending)
			}
			c.giveBack()
		}
		c.held = false
		c.mu.Unlock()
	}
	return c.Conn.Close()
}

// giveBack returns the pending buffer to the pool. Under mu.
func (c *Conn) giveBack() {
	b := c.pending
	c.pending = nil
	if cap(*b) <= 2*Limit {
		*b = (*b)[:0]
		buffers.Put(b)
	}
}

// Hijacked wraps an http.ResponseWriter so that the connection a WebSocket
// library hijacks from it is a Conn. After a successful Hijack, Conn is
// that connection.
type Hijacked struct {
	http.ResponseWriter
	Conn *Conn
}

// Hijack hijacks the wrapped writer's connection and wraps it in a Conn.
// The buffered writer it returns writes to the Conn; what the HTTP server
// had buffered for reading stays in the reader.
func (h *Hijacked) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := h.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, http.ErrNotSupported
	}
	nc, brw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	// net/http flushes the response's header before it hijacks, and
	// returns its connection's writer with nothing buffered, reset to the
	// connection: reset again to the Conn, it is the one writer the
	// connection keeps.
	h.Conn = New(nc)
	brw.Writer.Reset(h.Conn)
	return h.Conn, brw, nil
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (h *Hijacked) Unwrap() http.ResponseWriter { return h.ResponseWriter }
