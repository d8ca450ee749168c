package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/match"
)

// Source names where a spec's Hermes-side events come from.
type Source string

// Event sources.
const (
	// SourceDriver is the mock Hermes driver API (--driver-url): Hermes'
	// own calls (send(), exec approvals) are made through it, runs are
	// asked for with the mock's /mock commands, and the spec may also
	// check what reached Hermes.
	SourceDriver Source = "driver"
	// SourceTriggers is session.send texts (--triggers): the spec sends,
	// as a phone would, the text that makes the server produce the event.
	SourceTriggers Source = "triggers"
	// SourceNone means the spec needs no Hermes-side event.
	SourceNone Source = "none"
)

// EntryEventSource names the report entry in which a spec records the
// event source it used; lmp-check shows it per rule.
const EntryEventSource = "event source"

// LabelEvents marks specs that need Hermes-side events visible on the
// wire: they run through the driver or through triggers.
const LabelEvents = "events"

// SkipNoEvents is the skip reason of event specs with neither a driver nor
// triggers.
const SkipNoEvents = "needs --driver-url or --triggers (Hermes-side events)"

// NeedsEvents is a decorator for specs that need Hermes-side events only
// as the wire shows them: they run with the driver or with triggers, and
// are skipped with SkipNoEvents without either.
var NeedsEvents = ginkgo.Label(LabelEvents)

// LabelDriverFirst marks event specs that check more through the driver
// (the Hermes side of what they observe on the wire).
const LabelDriverFirst = "driver-first"

// DriverFirst is a decorator for NeedsEvents specs that check more through
// the driver: they take it whenever there is one, even when the target
// prefers triggers (the in-process run), and run their wire half alone
// with triggers.
var DriverFirst = ginkgo.Label(LabelDriverFirst)

// EventSource returns the source event specs use on this target: the
// driver when there is one (unless PreferTriggers), else the triggers,
// else SourceNone.
func (t *Target) EventSource() Source {
	switch {
	case t.Triggers != nil && (t.PreferTriggers || !t.HasDriver()):
		return SourceTriggers
	case t.HasDriver():
		return SourceDriver
	}
	return SourceNone
}

// Events is the event source of the running spec; the spec's report
// records which one it is. Specs labelled NeedsDriver, and DriverFirst
// specs when there is a driver, get the driver; the others get
// Target.EventSource.
func Events(ctx context.Context) *EventSource {
	t := TargetOf(ctx)
	src := t.EventSource()
	st := stateOf(ctx)
	if st != nil {
		st.mu.Lock()
		if st.source == SourceDriver {
			src = SourceDriver // a NeedsDriver spec observes the Hermes side of its events too
		}
		st.mu.Unlock()
	}
	if src == SourceNone {
		ginkgo.Skip(SkipNoEvents)
	}
	if st != nil {
		st.recordSource(src)
	}
	return &EventSource{src: src, t: t}
}

// recordSource adds the event source to the spec's report once.
func (st *specState) recordSource(src Source) {
	st.mu.Lock()
	first := st.source == ""
	st.source = src
	st.mu.Unlock()
	if first {
		ginkgo.AddReportEntry(EntryEventSource, src)
	}
}

// EventSource produces the Hermes-side events a spec needs, through the
// driver API or through session.send triggers. Its methods skip the spec
// when the triggers file has no trigger for the event, and return an error
// when producing it failed.
type EventSource struct {
	src Source
	t   *Target
}

// Source says which source this is.
func (e *EventSource) Source() Source { return e.src }

// Batch is the notifications one request produced, all in one task.
type Batch struct {
	// Task is the task the notifications belong to.
	Task string
	// N is how many there are.
	N int
	// Reply is the server's answer to the trigger's session.send (triggers only).
	Reply client.Frame
}

// Match matches the batch's notifications.
func (b Batch) Match() match.M { return match.Type(lmp.TypeNotification).And(match.Task(b.Task)) }

// Run is a run a trigger or the driver started.
type Run struct {
	// Task is the task the run belongs to.
	Task string
	// Started is its run.started, when the method waited for it.
	Started lmp.RunStarted
}

// Approval is an exec approval a run waits for.
type Approval struct {
	// ID is its approval_id.
	ID string
	// Task is the task it belongs to.
	Task string
	// SessionKey is Hermes' session key (driver only).
	SessionKey string
	// Required is the approval.required the connection saw.
	Required lmp.ApprovalRequired
}

// The built-in triggers double as the texts that reach the mock Hermes
// behind a driver: a driver implies its scenarios (docs/scenarios.md).
var builtin = MockTriggers()

// triggers returns the triggers of this source.
func (e *EventSource) triggers() *Triggers {
	if e.src == SourceDriver || e.t.Triggers == nil {
		return builtin
	}
	return e.t.Triggers
}

// Text returns the session.send text of one event kind with {n}
// replaced, skipping the spec when the triggers have none. With the driver
// it is the mock Hermes' own command.
func (e *EventSource) Text(kind Trigger, n int) string {
	tr := e.triggers()
	text, why := tr.of(kind)
	if kind == TriggerNotifications && text != "" {
		text = tr.NotificationsText(n)
	}
	if text == "" {
		if why != "" {
			ginkgo.Skip(fmt.Sprintf("the triggers (%s) have no %s trigger: %s", tr.Name, kind, why))
		}
		ginkgo.Skip(fmt.Sprintf("the triggers (%s) have no %s trigger", tr.Name, kind))
	}
	return text
}

// Send sends p with session.send through via (a random request_id when p
// has none) and returns the server's answer and the task it names: p's
// task_id, else the answer's. An error frame in answer is an error.
func (e *EventSource) Send(ctx context.Context, via *Conn, p lmp.SessionSend) (client.Frame, string, error) {
	if p.RequestID == "" {
		p.RequestID = randomID("ev-")
	}
	ctx, cancel := context.WithTimeout(ctx, Wait())
	defer cancel()
	if err := via.Send(ctx, p); err != nil {
		return client.Frame{}, "", fmt.Errorf("%s: send the trigger %q: %w", via.Name, p.Text, err)
	}
	f, err := via.Expect(ctx, match.Answer(p.RequestID))
	if err != nil {
		return f, "", fmt.Errorf("the answer to the trigger %q: %w", p.Text, err)
	}
	if f.Type == lmp.TypeError {
		return f, "", fmt.Errorf("the server refused the trigger %q: %s", p.Text, f.Raw)
	}
	task := lmp.Deref(p.TaskID)
	if task == "" {
		task = answerTask(f)
	}
	if task == "" {
		return f, "", fmt.Errorf("the answer to the trigger %q names no task_id, in its payload or its envelope, so its events cannot be told from others': %s", p.Text, f.Raw)
	}
	return f, task, nil
}

// answerTask is the task a session.send answer names: the envelope's
// task_id (§2: the task the frame belongs to), else the payload's (the
// acknowledgement note 5 prefers, which lmp-v1.md does not define).
func answerTask(f client.Frame) string {
	if id := lmp.Deref(f.TaskID); id != "" {
		return id
	}
	var p struct {
		TaskID *string `json:"task_id"`
	}
	if json.Unmarshal(f.Payload, &p) == nil {
		return lmp.Deref(p.TaskID)
	}
	return ""
}

// Notifications produces n notifications in a new task: n send()s through
// the driver, or the notifications trigger sent through via.
func (e *EventSource) Notifications(ctx context.Context, via *Conn, n int) (Batch, error) {
	if e.src == SourceDriver {
		chat := randomID("task_cf")
		d := e.t.Driver()
		for range n {
			title := randomID("note-")
			res, err := d.Send(ctx, driver.SendRequest{ChatID: chat, Content: "text of " + title,
				Metadata: map[string]any{"category": "result", "title": title, "source": "conformance", "requires_attention": true}})
			if err != nil {
				return Batch{}, fmt.Errorf("driver send(): %w", err)
			}
			if !res.Success {
				return Batch{}, fmt.Errorf("driver send() failed: %+v", res)
			}
		}
		return Batch{Task: chat, N: n}, nil
	}
	f, task, err := e.Send(ctx, via, lmp.SessionSend{Text: e.Text(TriggerNotifications, n)})
	return Batch{Task: task, N: n, Reply: f}, err
}

// Approval starts a run that waits for an exec approval and waits until
// via sees its approval.required. A timeout other than zero (the server's
// default) needs the driver.
func (e *EventSource) Approval(ctx context.Context, via *Conn, timeout time.Duration) (Approval, error) {
	var a Approval
	want := match.Type(lmp.TypeApprovalRequired)
	if e.src == SourceDriver {
		res, err := e.t.Driver().Approval(ctx, driver.ApprovalRequest{Command: "rm -rf /tmp/" + randomID("x"), Description: "dangerous", TimeoutMS: timeout.Milliseconds()})
		if err != nil {
			return a, fmt.Errorf("driver approval: %w", err)
		}
		a = Approval{ID: res.ApprovalID, Task: res.TaskID, SessionKey: res.SessionKey}
		want = want.And(match.Approval(res.ApprovalID))
	} else {
		if timeout != 0 {
			ginkgo.Skip("an approval with a chosen timeout needs --driver-url")
		}
		_, task, err := e.Send(ctx, via, lmp.SessionSend{Text: e.Text(TriggerApproval, 0)})
		if err != nil {
			return a, err
		}
		a.Task = task
		want = want.And(match.Task(task))
	}
	f, err := expectBounded(ctx, via, want)
	if err != nil {
		return a, err
	}
	if a.Required, err = lmp.DecodePayload[lmp.ApprovalRequired](f.Type, f.Payload); err != nil {
		return a, fmt.Errorf("%s: %w", via.Name, err)
	}
	a.ID = a.Required.ApprovalID
	return a, nil
}

// FailingRun starts a run that ends with an error, in a new task; the spec
// waits for its frames.
func (e *EventSource) FailingRun(ctx context.Context, via *Conn) (Run, error) {
	return e.play(ctx, via, TriggerFailingRun)
}

// Reply starts a plain reply run in a new task; the spec waits for its
// frames.
func (e *EventSource) Reply(ctx context.Context, via *Conn) (Run, error) {
	return e.play(ctx, via, TriggerReply)
}

// LongRun starts a run that streams until it is cancelled, in a new task,
// and waits until via sees its run.started.
func (e *EventSource) LongRun(ctx context.Context, via *Conn) (Run, error) {
	r, err := e.play(ctx, via, TriggerLongRun)
	if err != nil {
		return r, err
	}
	f, err := expectBounded(ctx, via, match.Task(r.Task).And(match.Type(lmp.TypeRunStarted)))
	if err != nil {
		return r, err
	}
	r.Started, err = lmp.DecodePayload[lmp.RunStarted](f.Type, f.Payload)
	return r, err
}

// play asks for the run of kind in band, through via's session.send, as a
// user does: through the driver too, for Hermes shows a phone only the
// turns of the adapter's own chats (note 19).
func (e *EventSource) play(ctx context.Context, via *Conn, kind Trigger) (Run, error) {
	_, task, err := e.Send(ctx, via, lmp.SessionSend{Text: e.Text(kind, 0)})
	return Run{Task: task}, err
}

func expectBounded(ctx context.Context, c *Conn, m match.M) (client.Frame, error) {
	ctx, cancel := context.WithTimeout(ctx, Wait())
	defer cancel()
	return c.Expect(ctx, m)
}

// randomID is prefix followed by 12 random hex digits.
func randomID(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
