package appclient

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
)

var errReconnect = errors.New("reconnect asked for")

// conn is one WebSocket connection. Its reader answers pings as soon as
// it reads them (C-3), whatever the processing of earlier frames is
// doing, and queues every other frame, unbounded, for processing in order.
type conn struct {
	ws  *websocket.Conn
	wmu sync.Mutex

	mu      sync.Mutex
	queue   []lmp.Frame
	wake    chan struct{}
	ended   bool
	readErr error
}

func newConn(ws *websocket.Conn) *conn {
	return &conn{ws: ws, wake: make(chan struct{}, 1)}
}

func (c *conn) read(ctx context.Context) {
	for {
		_, data, err := c.ws.Read(ctx)
		if err != nil {
			c.mu.Lock()
			c.ended, c.readErr = true, err
			c.mu.Unlock()
			c.signal()
			return
		}
		var f lmp.Frame
		if json.Unmarshal(data, &f) != nil {
			continue // not a frame: nothing to process
		}
		if f.Type == lmp.TypePing {
			_ = c.write(ctx, lmp.Pong{})
			continue
		}
		c.mu.Lock()
		c.queue = append(c.queue, f)
		c.mu.Unlock()
		c.signal()
	}
}

func (c *conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// nextFrame returns the next queued frame; false once the connection has
// ended and every frame read before the end has been taken.
func (c *conn) nextFrame(ctx context.Context) (lmp.Frame, bool) {
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			f := c.queue[0]
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return f, true
		}
		ended := c.ended
		c.mu.Unlock()
		if ended {
			return lmp.Frame{}, false
		}
		select {
		case <-c.wake:
		case <-ctx.Done():
			return lmp.Frame{}, false
		}
	}
}

func (c *conn) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readErr == nil {
		return errors.New("stopped")
	}
	return c.readErr
}

func (c *conn) write(ctx context.Context, p lmp.Payload) error {
	f, err := lmp.NewClientFrame(p)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(f)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, raw)
}

// drop ends the connection at once, as a network loss does.
func (c *conn) drop() { _ = c.ws.CloseNow() }

func (c *conn) closeNormally(why string) { _ = c.ws.Close(websocket.StatusNormalClosure, why) }

func (c *conn) close() { _ = c.ws.CloseNow() }
