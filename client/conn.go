package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Options configure Dial. The zero value is usable.
type Options struct {
	// HTTPClient carries TLS settings for wss:// URLs.
	HTTPClient *http.Client
	// Header is sent with the upgrade request.
	Header http.Header
	// ManualPong turns off answering server pings automatically, for
	// heartbeat checks that must control when (or whether) pong is sent.
	ManualPong bool
	// ReadLimit caps the size of a received frame; default 16 MiB.
	ReadLimit int64
}

// Conn is one LMP WebSocket connection. Its methods are safe for concurrent
// use.
type Conn struct {
	ws         *websocket.Conn
	opts       Options
	transcript *Transcript

	mu    sync.Mutex
	inbox []Frame
	// arrivals numbers the inbox's frames in the order they came (1, 2, …;
	// arrivals[i] is inbox[i]'s), so that a waiter looks at each frame
	// once: a connection that collects thousands of frames nobody takes
	// (every event of a long run) costs a waiter no rescan per frame.
	arrivals []uint64
	received uint64
	notify   chan struct{} // closed and replaced whenever inbox or closed changes
	closed   *CloseError   // set once the read loop ends

	done chan struct{}
}

// Frame is one frame received from the server.
type Frame struct {
	lmp.Frame
	// Raw is the frame exactly as received.
	Raw []byte
	// Binary is set for a binary WebSocket message (never sent by a
	// conforming v1 server, T-3).
	Binary bool
	// ParseErr is set when Raw is not a JSON object with an envelope.
	ParseErr error
	// At is when the frame arrived.
	At time.Time
}

// Decode returns the typed payload, or (nil, nil) for an unknown type.
func (f Frame) Decode() (lmp.Payload, error) { return lmp.DecodeServerPayload(f.Frame) }

// CloseError reports how a connection ended. Code is -1 when it ended
// without a close frame (a dropped TCP connection, for example).
type CloseError struct {
	Code   int
	Reason string
	Err    error
}

func (e *CloseError) Error() string {
	if e.Code < 0 {
		return fmt.Sprintf("connection ended without a close frame: %v", e.Err)
	}
	return fmt.Sprintf("connection closed with %d %q", e.Code, e.Reason)
}

func (e *CloseError) Unwrap() error { return e.Err }

// ServerError is an LMP error frame returned where a reply was expected.
type ServerError struct {
	Payload lmp.Error
}

func (e *ServerError) Error() string {
	fatal := ""
	if e.Payload.Fatal {
		fatal = ", fatal"
	}
	return fmt.Sprintf("server error %s%s: %s", e.Payload.Code, fatal, e.Payload.Message)
}

// Dial opens a WebSocket to url (ws:// or wss://, path /ws) and starts
// receiving frames.
func Dial(ctx context.Context, url string, opts *Options) (*Conn, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.ReadLimit == 0 {
		o.ReadLimit = 16 << 20
	}
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		HTTPClient: o.HTTPClient,
		HTTPHeader: o.Header,
	})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial %s: HTTP %d: %w", url, resp.StatusCode, err)
		}
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	ws.SetReadLimit(o.ReadLimit)
	c := &Conn{
		ws:         ws,
		opts:       o,
		transcript: newTranscript(),
		notify:     make(chan struct{}),
		done:       make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

// Transcript returns the record of this connection's frames.
func (c *Conn) Transcript() *Transcript { return c.transcript }

func (c *Conn) readLoop() {
	defer close(c.done)
	for {
		typ, data, err := c.ws.Read(context.Background())
		if err != nil {
			ce := &CloseError{Code: int(websocket.CloseStatus(err)), Err: err}
			var wsErr websocket.CloseError
			if errors.As(err, &wsErr) {
				ce.Reason = wsErr.Reason
			}
			c.transcript.addClose(ce)
			c.mu.Lock()
			c.closed = ce
			c.wakeLocked()
			c.mu.Unlock()
			return
		}
		f := Frame{Raw: data, At: time.Now(), Binary: typ == websocket.MessageBinary}
		if f.Binary {
			f.ParseErr = errors.New("binary frame")
		} else if err := lmp.Unmarshal(data, &f.Frame); err != nil {
			f.ParseErr = err
		}
		c.transcript.add(DirReceived, data, f.Binary)
		if !c.opts.ManualPong && f.ParseErr == nil && f.Type == lmp.TypePing {
			// Answer off the read loop so a slow write never delays reads.
			go func() { _ = c.Send(context.Background(), lmp.Pong{}) }()
		}
		c.mu.Lock()
		c.received++
		c.inbox = append(c.inbox, f)
		c.arrivals = append(c.arrivals, c.received)
		c.wakeLocked()
		c.mu.Unlock()
	}
}

func (c *Conn) wakeLocked() {
	close(c.notify)
	c.notify = make(chan struct{})
}

// Send sends a typed client frame.
func (c *Conn) Send(ctx context.Context, p lmp.Payload) error {
	f, err := lmp.NewClientFrame(p)
	if err != nil {
		return err
	}
	return c.SendJSON(ctx, f)
}

// SendJSON marshals v and sends it as one text frame, whatever it holds:
// for checks that send malformed or unusual frames on purpose.
func (c *Conn) SendJSON(ctx context.Context, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode frame: %w", err)
	}
	return c.SendRaw(ctx, websocket.MessageText, data)
}

// SendRaw sends data as one WebSocket message of the given type.
func (c *Conn) SendRaw(ctx context.Context, typ websocket.MessageType, data []byte) error {
	c.transcript.add(DirSent, data, typ == websocket.MessageBinary)
	if err := c.ws.Write(ctx, typ, data); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	return nil
}

// Next returns the oldest frame not yet taken. When the inbox is empty it
// waits for a frame, the connection's end (a *CloseError) or ctx.
func (c *Conn) Next(ctx context.Context) (Frame, error) {
	return c.take(ctx, func(Frame) bool { return true })
}

// Expect returns the oldest frame for which match is true, leaving every
// other frame in the inbox, in order. It waits like Next. match must judge
// a frame by the frame alone: a frame it once turned down is not offered to
// it again.
func (c *Conn) Expect(ctx context.Context, match func(Frame) bool) (Frame, error) {
	return c.take(ctx, match)
}

// ExpectType is Expect for the first frame of the given type.
func (c *Conn) ExpectType(ctx context.Context, frameType string) (Frame, error) {
	return c.take(ctx, func(f Frame) bool { return f.Type == frameType })
}

func (c *Conn) take(ctx context.Context, match func(Frame) bool) (Frame, error) {
	var seen uint64 // the frames that arrived up to seen were turned down
	for {
		c.mu.Lock()
		from, _ := slices.BinarySearch(c.arrivals, seen+1)
		for i := from; i < len(c.inbox); i++ {
			if f := c.inbox[i]; match(f) {
				c.inbox = slices.Delete(c.inbox, i, i+1)
				c.arrivals = slices.Delete(c.arrivals, i, i+1)
				c.mu.Unlock()
				return f, nil
			}
		}
		seen = c.received
		closed, wake := c.closed, c.notify
		c.mu.Unlock()
		if closed != nil {
			return Frame{}, closed
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return Frame{}, fmt.Errorf("waiting for a frame: %w", ctx.Err())
		}
	}
}

// Pending returns a copy of the frames received and not yet taken.
func (c *Conn) Pending() []Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Frame(nil), c.inbox...)
}

// WaitClosed waits until the server ends the connection and returns how.
// Frames still arriving meanwhile stay in the inbox.
func (c *Conn) WaitClosed(ctx context.Context) (*CloseError, error) {
	select {
	case <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.closed, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the server to close: %w", ctx.Err())
	}
}

// Closed reports how the connection ended, or nil while it is open.
func (c *Conn) Closed() *CloseError {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Close closes the connection with 1000 and waits for the read loop.
func (c *Conn) Close() error {
	err := c.ws.Close(websocket.StatusNormalClosure, "")
	<-c.done
	return err
}

// CloseNow drops the connection without a close handshake, as a phone that
// loses its network would.
func (c *Conn) CloseNow() error {
	err := c.ws.CloseNow()
	<-c.done
	return err
}
