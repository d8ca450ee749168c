package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
)

// Describe renders a frame in one short line for a failure message:
// its type and its payload's scalar fields, the telling ones first, e.g.
// error{code:"binary_unsupported", fatal:false}. It holds no secret only
// when the caller redacts it (Conn.Describe does).
func Describe(f client.Frame) string {
	switch {
	case f.Binary:
		return fmt.Sprintf("a binary frame of %d bytes", len(f.Raw))
	case f.ParseErr != nil:
		raw := string(f.Raw)
		if len(raw) > 60 {
			raw = raw[:60] + "…"
		}
		return fmt.Sprintf("a frame that is not an LMP envelope (%q)", raw)
	}
	var payload map[string]any
	_ = json.Unmarshal(f.Payload, &payload)
	keys := make([]string, 0, len(payload))
	for k, v := range payload {
		switch v.(type) {
		case string, bool, float64, nil:
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := keyRank(a) - keyRank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	const maxFields = 5
	fields := make([]string, 0, maxFields)
	for i, k := range keys {
		if i == maxFields {
			fields = append(fields, "…")
			break
		}
		fields = append(fields, k+":"+scalar(payload[k]))
	}
	return fmt.Sprintf("%s{%s}", f.Type, strings.Join(fields, ", "))
}

// tellingKeys are the payload fields a reader looks at first.
var tellingKeys = []string{"code", "fatal", "request_id", "status", "approval_id", "choice", "decided_by", "title", "run_id", "task_id", "error", "message"}

func keyRank(k string) int {
	if i := slices.Index(tellingKeys, k); i >= 0 {
		return i
	}
	return len(tellingKeys)
}

func scalar(v any) string {
	switch t := v.(type) {
	case string:
		if len(t) > 40 {
			t = t[:40] + "…"
		}
		return fmt.Sprintf("%q", t)
	case nil:
		return "null"
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64) // a timestamp in full, not 1.79e+09
	}
	return fmt.Sprint(v)
}

// Describe is the package-level Describe with this connection's secrets
// redacted.
func (c *Conn) Describe(f client.Frame) string {
	return c.Transcript().Redact(Describe(f))
}

// State says in a few words whether the connection is still open and, if
// not, how and when (measured from since, unless since is zero) it ended.
func (c *Conn) State(since time.Time) string {
	ce := c.Closed()
	if ce == nil {
		return "the connection stayed open"
	}
	at := ""
	for _, e := range c.Transcript().Entries() {
		if e.Dir == client.DirClosed && !since.IsZero() {
			at = " after " + ms(e.At.Sub(since))
		}
	}
	if ce.Code < 0 {
		return "the connection ended without a close frame" + at
	}
	reason := ""
	if ce.Reason != "" {
		reason = fmt.Sprintf(" %q", ce.Reason)
	}
	return fmt.Sprintf("the server closed the connection with %d%s%s", ce.Code, reason, at)
}

// maxFramesShown bounds the frames a wait failure lists.
const maxFramesShown = 4

// waitError explains a wait for desc that ended in err: what came instead
// (the frames that did not match, error frames first, each with when it
// arrived) and whether the connection stayed open. The deadline that ended
// the wait is the cause, never the message.
func (c *Conn) waitError(desc string, since time.Time, err error) error {
	pending := c.Pending()
	slices.SortStableFunc(pending, func(a, b client.Frame) int {
		ea, eb := a.Type == "error", b.Type == "error"
		switch {
		case ea && !eb:
			return -1
		case eb && !ea:
			return 1
		}
		return 0
	})
	var got []string
	for i, f := range pending {
		if i == maxFramesShown {
			got = append(got, fmt.Sprintf("%d more", len(pending)-i))
			break
		}
		when := "after " + ms(f.At.Sub(since))
		if f.At.Before(since) {
			when = "before the wait"
		}
		got = append(got, c.Describe(f)+" "+when)
	}
	what := "nothing else arrived"
	if len(got) > 0 {
		what = "got " + strings.Join(got, ", ")
	}
	var ce *client.CloseError
	if !errors.As(err, &ce) {
		what = fmt.Sprintf("%s (waited %s)", what, ms(time.Since(since)))
	}
	return &WaitError{Conn: c.Name, Desc: desc, Detail: what + "; " + c.State(since), Err: err}
}

// WaitError is a wait for a frame that did not end with the frame.
type WaitError struct {
	Conn   string // the connection's name
	Desc   string // what was awaited
	Detail string // what came instead, and the connection's state
	Err    error  // the deadline or the connection's end
}

func (e *WaitError) Error() string {
	return fmt.Sprintf("%s: waiting for %s: %s", e.Conn, e.Desc, e.Detail)
}

func (e *WaitError) Unwrap() error { return e.Err }

// ms renders a duration the way a person reads it in a failure: 4 ms,
// 1.2 s.
func ms(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
