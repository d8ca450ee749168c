// Package must holds the conformance helpers that fail the spec on any
// error, naming what failed in one line (what was expected, what came
// instead); the transcripts follow in the report. They wrap package
// should. Soft collects the expectations that do not stop a spec.
package must

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// ok fails the calling spec with err's message, never a dump of the error
// value.
func ok(err error) {
	ginkgo.GinkgoHelper()
	if err != nil {
		ginkgo.Fail(err.Error())
	}
}

// Token mints a pairing token.
func Token(ctx context.Context) string {
	ginkgo.GinkgoHelper()
	t, err := should.Token(ctx)
	ok(err)
	return t
}

// Pair pairs a new device on a fresh connection.
func Pair(ctx context.Context, name string) *conformance.Conn {
	ginkgo.GinkgoHelper()
	c, err := should.Pair(ctx, name)
	ok(err)
	return c
}

// Connect authenticates as d on a fresh connection.
func Connect(ctx context.Context, name string, d client.Device, lastSeq *int64) *conformance.Conn {
	ginkgo.GinkgoHelper()
	c, err := should.Connect(ctx, name, d, lastSeq)
	ok(err)
	return c
}

// Dial opens a connection without authenticating.
func Dial(ctx context.Context, name string) *conformance.Conn {
	ginkgo.GinkgoHelper()
	c, err := conformance.Dial(ctx, name, nil)
	ok(err)
	return c
}

// Expect waits for a frame m matches.
func Expect(ctx context.Context, c *conformance.Conn, m match.M) client.Frame {
	ginkgo.GinkgoHelper()
	f, err := should.Expect(ctx, c, m)
	ok(err)
	return f
}

// ExpectWithin waits up to d for a frame m matches.
func ExpectWithin(ctx context.Context, d time.Duration, c *conformance.Conn, m match.M) client.Frame {
	ginkgo.GinkgoHelper()
	f, err := should.ExpectWithin(ctx, d, c, m)
	ok(err)
	return f
}

// Send sends a typed frame.
func Send(ctx context.Context, c *conformance.Conn, p lmp.Payload) {
	ginkgo.GinkgoHelper()
	ok(should.Send(ctx, c, p))
}

// SendJSON sends any value as one text frame.
func SendJSON(ctx context.Context, c *conformance.Conn, v any) {
	ginkgo.GinkgoHelper()
	ok(c.SendJSON(ctx, v))
}

// Request sends p, a payload answered by request_id (session.send,
// approval.resolve, task.list), and waits for the frame answering it. A
// p without a request_id gets a fresh one.
func Request(ctx context.Context, c *conformance.Conn, p lmp.Payload) client.Frame {
	ginkgo.GinkgoHelper()
	f, err := should.Request(ctx, c, p)
	ok(err)
	return f
}

// Closed waits up to d for the server to end the connection.
func Closed(ctx context.Context, d time.Duration, c *conformance.Conn) *client.CloseError {
	ginkgo.GinkgoHelper()
	ce, err := should.Closed(ctx, d, c)
	ok(err)
	return ce
}

// Decode decodes f's payload as T; f must be of T's type, and its payload
// must carry every field of T that §4 defines (a field without omitempty
// and not tagged `lmp:"ours"`): a missing field fails the spec, naming
// it, rather than being read as a zero value.
func Decode[T lmp.Payload](f client.Frame) T {
	ginkgo.GinkgoHelper()
	p, err := lmp.DecodePayload[T](f.Type, f.Payload)
	if err == nil {
		err = missingSpecFields(reflect.TypeOf(p), f.Payload)
	}
	if err != nil {
		ginkgo.Fail(fmt.Sprintf("%s frame seq %d: %v", f.Type, f.Seq, err))
	}
	return p
}

// missingSpecFields returns an error naming the fields of t that §4
// defines and the payload raw does not carry.
func missingSpecFields(t reflect.Type, raw json.RawMessage) error {
	var present map[string]json.RawMessage
	if err := json.Unmarshal(raw, &present); err != nil {
		return err
	}
	var missing []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || strings.Contains(opts, "omitempty") || f.Tag.Get("lmp") == "ours" {
			continue
		}
		if _, ok := present[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the payload has no %s, which lmp-v1.md §4 defines for it", strings.Join(missing, ", "))
	}
	return nil
}

// Succeed fails the spec when err is not nil; what (a format and its
// arguments) says what was being done.
func Succeed(err error, what ...any) {
	ginkgo.GinkgoHelper()
	if err == nil {
		return
	}
	msg := err.Error()
	if len(what) > 0 {
		if format, isString := what[0].(string); isString {
			msg = fmt.Sprintf(format, what[1:]...) + ": " + msg
		}
	}
	ginkgo.Fail(msg)
}

// Refused checks that the server refused what c just sent the way the
// spec's text allows any server to: a fatal error, then a close, with any
// code (note 21). prior is the error of the call that sent it (a refused
// hello returns the error frame). It returns what the server did, for
// the observations of SHOULD and INFO specs.
func Refused(ctx context.Context, c *conformance.Conn, prior error, what string) should.Refusal {
	ginkgo.GinkgoHelper()
	r := should.AwaitRefusal(ctx, c, prior)
	if !r.Fatal() {
		ginkgo.Fail(fmt.Sprintf("%s: %s: want a fatal error followed by a close, got %s", c.Name, what, r))
	}
	return r
}
