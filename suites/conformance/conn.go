package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/schema"
	"github.com/loomi-lmp/lmpkit/suites/match"
)

// Conn is a connection a spec opened. Every frame taken from it is
// validated against the schemas (E-1, F-1); frames left untaken are
// validated when the spec ends. Its transcript is attached to the spec's
// report when the spec fails.
type Conn struct {
	*client.Conn
	// Name identifies the connection in reports ("device A", "probe: auth timeout").
	Name string
	// Device is the identity this connection authenticated as, if any.
	Device client.Device
	// HelloOK is the hello.ok the connection got, if any.
	HelloOK lmp.HelloOK
	// HelloSeq is the envelope seq of that hello.ok.
	HelloSeq int64

	mu      sync.Mutex
	invalid []string // validation failures of taken frames
}

// ErrInvalidFrame wraps a schema violation of a received frame.
var ErrInvalidFrame = errors.New("invalid frame")

// ValidateFrame checks one received frame against the schemas. The error
// names the frame type and each violation with its rule ID.
func ValidateFrame(f client.Frame) error {
	if f.Binary {
		return fmt.Errorf("%w: the server sent a binary frame (T-3)", ErrInvalidFrame)
	}
	if f.ParseErr != nil {
		return fmt.Errorf("%w: not a JSON object with an envelope (T-3, E-1): %v", ErrInvalidFrame, f.ParseErr)
	}
	errs := schema.ValidateFrame(schema.ServerToClient, f.Raw)
	if f.Type == lmp.TypeAck {
		// The acknowledgement is the reference server's own frame (notes
		// 5, 21): another server may call its reply ack and shape it
		// otherwise, so only the envelope is judged.
		errs = schema.ValidateDocument(string(schema.ServerToClient)+"/envelope", f.Raw)
	}
	if len(errs) == 0 {
		return nil
	}
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = "  " + e.String()
	}
	return fmt.Errorf("%w: %s frame seq %d breaks the schema:\n%s", ErrInvalidFrame, f.Type, f.Seq, strings.Join(lines, "\n"))
}

// Dial opens a tracked connection to the target without authenticating.
func Dial(ctx context.Context, name string, opts *client.Options) (*Conn, error) {
	return DialAt(ctx, name, TargetOf(ctx).WSURL, opts)
}

// DialAt is Dial to another URL of the target, such as one of its
// LANBases: the connection is tracked and validated like Dial's.
func DialAt(ctx context.Context, name, wsURL string, opts *client.Options) (*Conn, error) {
	t := TargetOf(ctx)
	if opts == nil {
		opts = t.DialOptions()
	} else if opts.HTTPClient == nil {
		o := *opts
		o.HTTPClient = t.HTTPClient
		opts = &o
	}
	c, err := client.Dial(ctx, wsURL, opts)
	if err != nil {
		return nil, err
	}
	conn := &Conn{Conn: c, Name: name}
	track(ctx, conn)
	return conn, nil
}

// Expect waits for the oldest frame m matches (leaving the others in the
// inbox) and validates it. The error names what was awaited.
// When no such frame comes, the error (a *WaitError) says what came
// instead and whether the connection stayed open.
func (c *Conn) Expect(ctx context.Context, m match.M) (client.Frame, error) {
	start := time.Now()
	f, err := c.Conn.Expect(ctx, m.Fn)
	if err != nil {
		return f, c.waitError(m.Desc, start, err)
	}
	return f, c.validate(f)
}

// validate checks a frame taken from the inbox and records a violation
// for the spec's report.
func (c *Conn) validate(f client.Frame) error {
	c.scanSecrets(f)
	verr := ValidateFrame(f)
	if verr == nil {
		return nil
	}
	c.mu.Lock()
	c.invalid = append(c.invalid, verr.Error())
	c.mu.Unlock()
	return fmt.Errorf("%s: %w", c.Name, verr)
}

// Next is Expect for any frame.
func (c *Conn) Next(ctx context.Context) (client.Frame, error) {
	return c.Expect(ctx, match.Anything())
}

// Hello sends h (filling protocol_version and device_info when empty) and
// waits for hello.ok or error. An error frame is returned as
// *client.ServerError; the connection's end as *client.CloseError.
func (c *Conn) Hello(ctx context.Context, h lmp.Hello) (lmp.HelloOK, error) {
	// The run-wide registry learns every secret for the log scan (S-1).
	c.LearnSecret(SecretToken, h.Token)
	c.LearnSecret(SecretCredential, h.Credential)
	start := time.Now()
	ok, f, err := c.Conn.HelloFrame(ctx, h)
	if f.Raw != nil {
		if verr := c.validate(f); verr != nil {
			return lmp.HelloOK{}, verr
		}
	}
	var se *client.ServerError
	switch {
	case errors.As(err, &se):
		return lmp.HelloOK{}, fmt.Errorf("%s: hello answered with %s: %w", c.Name, c.Describe(f), err)
	case err != nil && f.Raw == nil:
		return lmp.HelloOK{}, c.waitError("hello.ok or error", start, err)
	case err != nil:
		return lmp.HelloOK{}, fmt.Errorf("%s: hello: %w", c.Name, err)
	}
	if ok.Credential != nil {
		c.LearnSecret(SecretCredential, *ok.Credential)
		recordPaired(ok.DeviceID) // revoked when the run ends
	}
	c.HelloOK, c.HelloSeq = ok, f.Seq
	return ok, nil
}

// problems returns the validation failures of every frame this
// connection received: those taken, and those still pending.
func (c *Conn) problems() []string {
	c.mu.Lock()
	out := append([]string(nil), c.invalid...)
	c.mu.Unlock()
	for _, f := range c.Pending() {
		c.scanSecrets(f)
		if err := ValidateFrame(f); err != nil {
			out = append(out, err.Error())
		}
	}
	return out
}

// WaitClosed waits until the server ends the connection and returns how.
// When it does not, the error (a *WaitError) says what came meanwhile.
func (c *Conn) WaitClosed(ctx context.Context) (*client.CloseError, error) {
	start := time.Now()
	ce, err := c.Conn.WaitClosed(ctx)
	if err != nil {
		return nil, c.waitError("the server to close the connection", start, err)
	}
	return ce, nil
}
