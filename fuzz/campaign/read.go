package campaign

import (
	"bytes"
	"context"
	"sync"

	"github.com/coder/websocket"
)

// msgReader reads the messages of one connection into one buffer, reused
// from message to message and, through readBufs, from connection to
// connection: websocket.Conn.Read allocates every message anew. A message's
// bytes are valid until the next read; the oracles keep none of them.
type msgReader struct {
	ws  *websocket.Conn
	buf *bytes.Buffer
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
	r.buf.Reset()
	_, err = r.buf.ReadFrom(rd)
	return typ, r.buf.Bytes(), err
}

// release returns the buffer; the reader is not used again.
func (r *msgReader) release() {
	if r.buf.Cap() <= maxPooledBuf {
		readBufs.Put(r.buf)
	}
	r.buf = nil
}
