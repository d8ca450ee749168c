package server

import (
	"context"
	"io"
	"sync"

	"github.com/coder/websocket"
)

// readBuffers lends the buffers authenticated frames are read into. A frame
// is judged on the reader goroutine (take decodes what it keeps), so its
// bytes are needed only until the next read: one buffer serves frame after
// frame, instead of each frame allocating, clearing and growing its own
// (coder/websocket's Read grows a new one from 512 bytes per message; a
// frame near the 1 MiB read limit cost about 2 MiB of allocation).
var readBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledRead is the largest buffer given back: one grown by a frame at
// the read limit is reused while such frames keep coming, and sync.Pool
// lets it go within two garbage collections when they stop.
const maxPooledRead = 2 << 20

// readBuffer is a connection's borrowed read buffer, held only from the
// start of a message until the next read: an idle connection holds none.
type readBuffer struct {
	held *[]byte
}

// read waits for the next message and reads it whole into a borrowed
// buffer. The bytes are valid until release, which the next read calls.
// Errors are Conn.Read's (websocket.ErrMessageTooBig past the read limit).
func (b *readBuffer) read(ws *websocket.Conn) (websocket.MessageType, []byte, error) {
	typ, r, err := ws.Reader(context.Background())
	if err != nil {
		return typ, nil, err
	}
	b.held = readBuffers.Get().(*[]byte)
	data := (*b.held)[:0]
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			*b.held = data
			return typ, nil, err
		}
	}
	*b.held = data
	return typ, data, nil
}

// release gives the buffer back; the bytes read into it must no longer be
// used.
func (b *readBuffer) release() {
	if b.held == nil {
		return
	}
	if cap(*b.held) <= maxPooledRead {
		*b.held = (*b.held)[:0]
		readBuffers.Put(b.held)
	}
	b.held = nil
}
