package server

import (
	"bytes"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/schema"
)

// pendingRequests is how many frames an authenticated connection's reader
// may hold for its request goroutine. Beyond it the reader waits, so a
// client that pipelines faster than Hermes answers is slowed down by TCP.
const pendingRequests = 16

// request is one frame of an authenticated connection, decoded and checked
// by the reader and served by the request goroutine.
type request struct {
	frame     lmp.ClientFrame // its payload only when the frame is served
	bad       bool            // not a JSON object with v, type and payload
	invalid   string          // why its payload fails the schemas, or ""
	requestID string          // of an invalid frame: what its refusal names
}

// take takes one frame of an authenticated connection off the socket. A
// pong is noted at once: only pong proves liveness (note 8), and a request
// waiting on Hermes must not make a live peer's pongs late (T-5). Every
// other frame waits its turn at the request goroutine, which serves the
// connection's frames one at a time in arrival order.
func (c *conn) take(data []byte) {
	// data is the reader's buffer: nothing of it is kept. It is parsed
	// once, for the envelope and for the schemas (F-2), and the payload
	// is copied only for a frame that is served: a refusal needs no more
	// than its request_id.
	read, err := schema.ReadRequest(data)
	f := read.Frame
	r := request{frame: f}
	if err != nil || f.Type == "" {
		c.observe(false, data, Envelope{})
		r.bad = true
	} else {
		c.observe(false, data, Envelope{Type: f.Type, Payload: f.Payload})
		r.invalid = validateClientFrame(&read)
	}
	if r.invalid != "" {
		r.requestID = requestIDOf(&read)
	}
	served := !r.bad && r.invalid == ""
	if served && f.Type == lmp.TypePong {
		c.lastPong.Store(time.Now().UnixNano())
		return
	}
	r.frame.Payload = nil
	if served {
		r.frame.Payload = bytes.Clone(f.Payload)
	}
	c.requests <- r
}

// serveRequests serves the connection's requests in arrival order until the
// reader has ended and every taken frame is served; those taken after the
// connection began to fail are dropped, as frames the reader never read.
func (c *conn) serveRequests() {
	defer close(c.served)
	for r := range c.requests {
		if c.dead.Load() {
			continue
		}
		c.handleFrame(r)
	}
}
