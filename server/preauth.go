package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/coder/websocket"
)

// MaxHelloBytes bounds a frame read before hello succeeds. The largest
// hello the limits allow, every string at its limit and every character
// escaped, is under 7 KiB; the rest leaves room for fields a later client
// may add (V-1). A connection that has not authenticated is anyone's, so
// what it can make the server hold is bounded like nginx's
// client_header_buffer_size: a frame over the budget is read through
// without being kept, then refused (hello_too_large, close 1009), and only
// a frame within it is decoded (handleHello). Without it a single
// unauthenticated frame of 1 MiB cost fifty times its size in memory.
const MaxHelloBytes = 16 << 10

// errHelloTooLarge is readPreAuth's answer to a frame over MaxHelloBytes.
var errHelloTooLarge = errors.New("frame before hello over " + strconv.Itoa(MaxHelloBytes) + " bytes")

// readPreAuth reads the next frame of a connection that has not
// authenticated, keeping at most MaxHelloBytes of it. A larger frame is
// read to its end (within the connection's read limit) into a small
// reusable buffer and dropped, so that the next frame and the close
// handshake stay in step, and errHelloTooLarge is returned. This seam sits
// before any validation or decoding: nothing past the budget is kept.
func (c *conn) readPreAuth(ctx context.Context) (websocket.MessageType, []byte, error) {
	typ, r, err := c.ws.Reader(ctx)
	if err != nil {
		return typ, nil, err
	}
	var buf bytes.Buffer
	buf.Grow(512) // a hello is a few hundred bytes
	if _, err := buf.ReadFrom(io.LimitReader(r, MaxHelloBytes+1)); err != nil {
		return typ, nil, err
	}
	if buf.Len() <= MaxHelloBytes {
		return typ, buf.Bytes(), nil
	}
	if _, err := io.CopyBuffer(io.Discard, r, buf.Bytes()[:cap(buf.Bytes())]); err != nil {
		return typ, nil, err
	}
	return typ, nil, errHelloTooLarge
}
