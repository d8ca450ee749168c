package campaign

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// msgReader reads the messages of one connection into one buffer, reused
// from message to message and, through readBufs, from connection to
// connection: websocket.Conn.Read allocates every message anew. A message's
// bytes are valid until the next read; the oracles keep none of them.
//
// Its close is the connection's close handshake, never run while a
// message is half read: coder/websocket's Close skips the rest of the
// message under way, and a reader that then reads on finds the end of the
// connection, which the library reports as the message's end. A frame cut
// short so would be judged, wrongly, as a whole one (an empty text, not
// JSON) whenever the server's frames after the last pong arrived in the
// same TCP segment.
type msgReader struct {
	ws      *websocket.Conn
	buf     *bytes.Buffer
	reading sync.Mutex // held from a message's header to its last byte
}

// readBufs holds the buffers of ended connections. A buffer grown past
// maxPooledBuf by a large frame is left to the collector.
var readBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBuf = 64 << 10

func newMsgReader(ws *websocket.Conn) *msgReader {
	return &msgReader{ws: ws, buf: readBufs.Get().(*bytes.Buffer)}
}

// read returns the next message, as websocket.Conn.Read does.
func (r *msgReader) read(ctx context.Context) (websocket.MessageType, []byte, error) {
	typ, rd, err := r.ws.Reader(ctx)
	if err != nil {
		return 0, nil, err
	}
	r.reading.Lock()
	defer r.reading.Unlock()
	r.buf.Reset()
	_, err = r.buf.ReadFrom(rd)
	return typ, r.buf.Bytes(), err
}

// close runs the close handshake with code once no message is half read.
// A message whose header arrives meanwhile is not read: the connection is
// closed by then, and its reader gets the close error. A server that holds
// a message half sent, or never answers the close, has the connection
// dropped after bound, which ends the wait for either.
func (r *msgReader) close(code websocket.StatusCode, bound time.Duration) error {
	drop := time.AfterFunc(bound, func() { _ = r.ws.CloseNow() })
	defer drop.Stop()
	r.reading.Lock()
	defer r.reading.Unlock()
	return r.ws.Close(code, "")
}

// release returns the buffer; read is not called again.
func (r *msgReader) release() {
	if r.buf.Cap() <= maxPooledBuf {
		readBufs.Put(r.buf)
	}
	r.buf = nil
}
