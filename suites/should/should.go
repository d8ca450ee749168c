// Package should holds the conformance helpers that return errors for the
// spec to judge: a spec that expects a refusal uses these, and checks the
// error itself. Package must wraps them for the common case where any error
// fails the spec.
package should

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
)

// NewID returns prefix followed by 12 random hex digits: request ids and
// other names that must not collide between concurrent specs.
func NewID(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// bounded limits ctx to the usual wait for one answer.
func bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, conformance.Wait())
}

// Token mints a pairing token with the server's default TTL.
func Token(ctx context.Context) (string, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	pr, err := conformance.TargetOf(ctx).MintToken(ctx, 0)
	return pr.Token, err
}

// Pair mints a token and pairs a new device on a fresh connection.
func Pair(ctx context.Context, name string) (*conformance.Conn, error) {
	return helloUnstalled(ctx, name, func() (*conformance.Conn, error) {
		tok, err := Token(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: mint a pairing token: %w", name, err)
		}
		return pairOn(ctx, name, tok, dialTarget(name))
	})
}

// PairWith pairs a new device with token on a fresh connection (P-3, P-7).
func PairWith(ctx context.Context, name, token string) (*conformance.Conn, error) {
	return PairOn(ctx, name, token, dialTarget(name))
}

// dialTarget dials the target's WebSocket for the connection name.
func dialTarget(name string) func(context.Context) (*conformance.Conn, error) {
	return func(ctx context.Context) (*conformance.Conn, error) { return conformance.Dial(ctx, name, nil) }
}

// PairOn is PairWith on a connection dial opens: at another URL, through
// a proxy, with other dial options. Like Pair it dials again when a
// stall of the checker spoiled the hello.
func PairOn(ctx context.Context, name, token string, dial func(context.Context) (*conformance.Conn, error)) (*conformance.Conn, error) {
	return helloUnstalled(ctx, name, func() (*conformance.Conn, error) { return pairOn(ctx, name, token, dial) })
}

func pairOn(ctx context.Context, name, token string, dial func(context.Context) (*conformance.Conn, error)) (*conformance.Conn, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	c, err := dial(ctx)
	if err != nil {
		return nil, err
	}
	ok, err := c.Hello(ctx, lmp.Hello{Token: token})
	if err != nil {
		return c, fmt.Errorf("%s: pairing hello: %w", name, err)
	}
	if ok.Credential == nil || *ok.Credential == "" {
		return c, fmt.Errorf("%s: hello.ok after pairing carries no credential (P-7)", name)
	}
	c.Device = client.Device{ID: ok.DeviceID, Credential: *ok.Credential}
	return c, nil
}

// Connect authenticates as d on a fresh connection, asking for the events
// after lastSeq when it is not nil (P-8, E-5).
func Connect(ctx context.Context, name string, d client.Device, lastSeq *int64) (*conformance.Conn, error) {
	return helloUnstalled(ctx, name, func() (*conformance.Conn, error) {
		ctx, cancel := bounded(ctx)
		defer cancel()
		c, err := conformance.Dial(ctx, name, nil)
		if err != nil {
			return nil, err
		}
		if _, err := c.Hello(ctx, lmp.Hello{DeviceID: d.ID, Credential: d.Credential, LastSeq: lastSeq}); err != nil {
			return c, fmt.Errorf("%s: hello: %w", name, err)
		}
		c.Device = d
		return c, nil
	})
}

// helloUnstalled runs attempt, a fresh connection and its hello, and runs
// it again when it failed while the machine stalled the checker for more
// than half the auth timeout (S-4): the server may then have read the
// hello after its timer fired, which judges the machine, not the server.
// A server that refuses the hello, or times it out, without such a stall
// fails at once; the last attempt is kept whatever it saw. Each discarded
// attempt is noted in the spec's report, and its connection closed.
func helloUnstalled(ctx context.Context, name string, attempt func() (*conformance.Conn, error)) (*conformance.Conn, error) {
	margin := conformance.TargetOf(ctx).Profile.AuthTimeout / 2
	for n := 1; ; n++ {
		watch := conformance.WatchStalls()
		c, err := attempt()
		late := conformance.Stalled(watch.Stop(), margin)
		switch {
		case err == nil || late == "":
			return c, err
		case n == conformance.TimerAttempts:
			return c, fmt.Errorf("%w (attempt %d of %d, kept although %s)", err, n, conformance.TimerAttempts, late)
		}
		conformance.Note(ctx, "stalled hello", fmt.Sprintf("%s: attempt %d discarded and run again: %s; it ended: %v", name, n, late, err))
		if c != nil {
			_ = c.CloseNow()
		}
	}
}

// Expect waits the usual bound for a frame m matches.
func Expect(ctx context.Context, c *conformance.Conn, m match.M) (client.Frame, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return c.Expect(ctx, m)
}

// ExpectWithin waits up to d for a frame m matches.
func ExpectWithin(ctx context.Context, d time.Duration, c *conformance.Conn, m match.M) (client.Frame, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return c.Expect(ctx, m)
}

// Send sends a typed frame.
func Send(ctx context.Context, c *conformance.Conn, p lmp.Payload) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	if err := c.Send(ctx, p); err != nil {
		return fmt.Errorf("%s: send %s: %w", c.Name, p.FrameType(), err)
	}
	return nil
}

// Request sends p, a payload answered by request_id (session.send,
// approval.resolve, task.list), and waits for the frame answering it: any
// frame carrying the request_id (note 5 names no acknowledgement), or an
// error or a task.list.result without one (§4 gives them none). A p
// without a request_id gets a fresh one.
func Request(ctx context.Context, c *conformance.Conn, p lmp.Payload) (client.Frame, error) {
	p, requestID, err := WithRequestID(p)
	if err != nil {
		return client.Frame{}, err
	}
	if err := Send(ctx, c, p); err != nil {
		return client.Frame{}, err
	}
	var result []string
	if p.FrameType() == lmp.TypeTaskList {
		result = append(result, lmp.TypeTaskListResult)
	}
	return Expect(ctx, c, match.Answer(requestID, result...))
}

// WithRequestID returns p with its request_id, a fresh one when p has
// none, and that request_id. A payload that carries no request_id is an
// error of the spec.
func WithRequestID(p lmp.Payload) (lmp.Payload, string, error) {
	mint := func(id *string) string {
		if *id == "" {
			*id = NewID("rq-")
		}
		return *id
	}
	switch v := p.(type) {
	case lmp.SessionSend:
		id := mint(&v.RequestID)
		return v, id, nil
	case lmp.ApprovalResolve:
		id := mint(&v.RequestID)
		return v, id, nil
	case lmp.TaskList:
		id := mint(&v.RequestID)
		return v, id, nil
	}
	return p, "", fmt.Errorf("a %s frame is not answered by request_id", p.FrameType())
}

// Closed waits up to d for the server to end the connection.
func Closed(ctx context.Context, d time.Duration, c *conformance.Conn) (*client.CloseError, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return c.WaitClosed(ctx)
}

// ErrorPayload decodes an error frame.
func ErrorPayload(f client.Frame) (lmp.Error, error) {
	return lmp.DecodePayload[lmp.Error](f.Type, f.Payload)
}

// ServerError returns the payload of err when it is an error frame the
// server answered with.
func ServerError(err error) (lmp.Error, bool) {
	var se *client.ServerError
	if errors.As(err, &se) {
		return se.Payload, true
	}
	return lmp.Error{}, false
}

// Refusal is what a server did with a frame it refused: the error frame
// it sent, if any, and how the connection ended, if it did.
type Refusal struct {
	Error *lmp.Error         // nil: no error frame came
	Close *client.CloseError // nil: the connection stayed open
}

// Fatal reports whether r has the shape of a refusal that the spec's text
// allows any server: a fatal error, then a close, with any code and close
// code (note 21).
func (r Refusal) Fatal() bool { return r.Error != nil && r.Error.Fatal && r.Close != nil }

// Code is the error code, or "" without an error frame.
func (r Refusal) Code() string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// CloseCode is the WebSocket close code, -1 without a close frame, 0 while
// the connection stayed open.
func (r Refusal) CloseCode() int {
	if r.Close == nil {
		return 0
	}
	return r.Close.Code
}

// String renders r in one line: `error{code:"invalid_token", fatal:true},
// then close 1008`.
func (r Refusal) String() string {
	what := "no error frame"
	if r.Error != nil {
		what = fmt.Sprintf("error{code:%q, fatal:%t}", r.Error.Code, r.Error.Fatal)
	}
	switch {
	case r.Close == nil:
		return what + "; the connection stayed open"
	case r.Close.Code < 0:
		return what + ", then the connection ended without a close frame"
	}
	return fmt.Sprintf("%s, then close %d", what, r.Close.Code)
}

// AwaitRefusal collects what the server does after c sent a frame it
// should refuse. prior is the error of the call that sent it: a refused
// hello returns the error frame as *client.ServerError. Otherwise the
// error frame is awaited on c. After a fatal error, or none, the close is
// awaited; each wait has the usual bound.
func AwaitRefusal(ctx context.Context, c *conformance.Conn, prior error) Refusal {
	var r Refusal
	if e, ok := ServerError(prior); ok {
		r.Error = &e
	} else {
		f, err := Expect(ctx, c, match.Type(lmp.TypeError))
		var ce *client.CloseError
		switch {
		case err == nil:
			if e, err := ErrorPayload(f); err == nil {
				r.Error = &e
			}
		case errors.As(err, &ce):
			r.Close = ce
			return r
		default:
			// Neither an error frame nor a close within the bound: the
			// server let the frame pass.
			return r
		}
	}
	if r.Error != nil && !r.Error.Fatal {
		r.Close = c.Closed()
		return r
	}
	r.Close, _ = Closed(ctx, conformance.Wait(), c)
	return r
}
