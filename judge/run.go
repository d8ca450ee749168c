package judge

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// State is how a spec ended.
type State string

// States.
const (
	Passed  State = "passed"
	Failed  State = "failed"
	Skipped State = "skipped"
)

// NotSelected is the Message of a spec the selection left out.
const NotSelected = "not selected"

// DidNotAct begins the Message of a spec skipped because the app did not
// do what an action asked in time.
const DidNotAct = "the app did not act"

// Outcome is how one spec ended.
type Outcome struct {
	Spec     Spec
	State    State
	Message  string // why it failed or was skipped
	Duration time.Duration
	// Transcript is the wire while the spec was judged, secrets redacted.
	Transcript string
}

// Report is an app run's outcome.
type Report struct {
	// Target is the judge's pairing URL.
	Target   string
	Outcomes []Outcome // in the order of Specs()
	// NoApp is set when no app opened a connection within the pairing
	// timeout: every spec is skipped and nothing was judged.
	NoApp bool
}

// judgeRun is one app run.
type judgeRun struct {
	cfg  Config
	t    Timings
	out  io.Writer
	log  *wireLog
	page *page
	ep   *endpoint

	seq      atomic.Int64 // the device's highest seq so far
	events   map[int64]lmp.Frame
	deviceID string
	cred     string
	token    string
	name     string
	conn     *appConn
	nconns   int
	gone     error // set once the app has gone for good: every later spec is skipped with it

	mu         sync.Mutex
	violations []string // C-4
	tokenAgain []string // C-1: hellos of the paired device that carried a token
	reconnects int      // hellos of the paired device
	requests   map[string]string
	reqClash   []string // C-10
	outcomes   map[string]*Outcome
}

// skipError makes a spec skipped rather than failed.
type skipError struct{ reason string }

func (e skipError) Error() string { return e.reason }

func skipf(format string, args ...any) error { return skipError{fmt.Sprintf(format, args...)} }

func didNotAct(what string) error { return skipError{DidNotAct + ": " + what} }

// Run plays every scenario with the app and returns the outcome of every
// spec. The error is a set-up problem (the listen address, the pairing
// file): then nothing was judged.
func Run(ctx context.Context, cfg Config) (Report, error) {
	j := &judgeRun{cfg: cfg, t: cfg.Timings.withDefaults(), out: cfg.Out, log: newWireLog(), page: &page{},
		events: map[int64]lmp.Frame{}, name: "lmp-check", requests: map[string]string{}, outcomes: map[string]*Outcome{}}
	if j.out == nil {
		j.out = io.Discard
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ep, err := startEndpoint(ctx, j, cfg)
	if err != nil {
		return Report{}, err
	}
	defer ep.close()
	j.ep = ep
	if cfg.PairingFile != "" {
		// Fail at once on a file that cannot be written, not at the first token.
		if err := writePairingFile(cfg.PairingFile, lmp.QRPayload{V: lmp.Version, URL: ep.wsURL, Name: j.name}); err != nil {
			return Report{}, err
		}
	}
	fmt.Fprintf(j.out, "lmp-check app: judging an app at %s (the QR and each step on a page: %s, from this machine)\n", ep.wsURL, ep.pageURL())
	j.play(ctx)
	if j.conn != nil {
		_ = j.conn.ws.Close(1000, "lmp-check: done")
	}
	rep := Report{Target: ep.wsURL, NoApp: j.nconns == 0}
	for _, s := range Specs() {
		o, ok := j.outcomes[s.Text]
		if !ok {
			o = &Outcome{Spec: s, State: Skipped, Message: "not reached"}
			if j.gone != nil {
				o.Message = j.gone.Error()
			}
		}
		if j.cfg.Select != nil && !j.cfg.Select(s) {
			o = &Outcome{Spec: s, State: Skipped, Message: NotSelected}
		}
		rep.Outcomes = append(rep.Outcomes, *o)
	}
	j.page.end("the check has ended: the verdicts are in lmp-check's output")
	return rep, nil
}

// selected reports whether any of specs is selected.
func (j *judgeRun) selected(specs ...Spec) bool {
	if j.cfg.Select == nil {
		return true
	}
	for _, s := range specs {
		if j.cfg.Select(s) {
			return true
		}
	}
	return false
}

// judge records s's outcome from f: nil passes, a skipError skips, any
// other error fails with its text.
func (j *judgeRun) judge(s Spec, f func() error) error {
	start, mark := time.Now(), j.log.mark()
	err := f()
	o := &Outcome{Spec: s, State: Passed, Duration: time.Since(start)}
	var se skipError
	switch {
	case err == nil:
	case errors.As(err, &se):
		o.State, o.Message = Skipped, se.reason
	default:
		o.State, o.Message = Failed, err.Error()
	}
	if o.State == Failed {
		o.Transcript = j.log.since(mark, 80)
	}
	j.record(o)
	return err
}

func (j *judgeRun) record(o *Outcome) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, done := j.outcomes[o.Spec.Text]; !done {
		j.outcomes[o.Spec.Text] = o
	}
}

// skipAll records every spec not judged yet as skipped with err.
func (j *judgeRun) skipRest(err error, specs ...Spec) {
	for _, s := range specs {
		j.record(&Outcome{Spec: s, State: Skipped, Message: err.Error()})
	}
}

func (j *judgeRun) violation(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.violations) < 100 {
		j.violations = append(j.violations, fmt.Sprintf(format, args...))
	}
}

// noteRequest remembers a request's request_id (C-10): one request_id
// names one request; the same request sent again after a disconnect may
// carry it again.
func (j *judgeRun) noteRequest(typ string, payload json.RawMessage) {
	var p struct {
		RequestID string `json:"request_id"`
	}
	if json.Unmarshal(payload, &p) != nil || p.RequestID == "" {
		return
	}
	var body map[string]any
	_ = json.Unmarshal(payload, &body)
	delete(body, "request_id")
	canon, _ := json.Marshal(body)
	what := typ + " " + string(canon)
	j.mu.Lock()
	defer j.mu.Unlock()
	if prev, ok := j.requests[p.RequestID]; ok && prev != what {
		j.reqClash = append(j.reqClash, fmt.Sprintf("request_id %q named %s, then %s", p.RequestID, prev, what))
		return
	}
	j.requests[p.RequestID] = what
}

// step tells the person running the check what is going on.
func (j *judgeRun) step(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	j.page.setStep(s)
	j.log.note("%s", s)
	fmt.Fprintf(j.out, "lmp-check app: %s\n", s)
}

// newSecret returns 32 random bytes, URL-safe base64 (§3).
func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// mint makes a new pairing token for url (fp pins a certificate, or ""),
// writes the pairing file and shows the QR.
func (j *judgeRun) mint(url, fp string) error {
	j.token = newSecret()
	j.log.secret(j.token)
	qr := lmp.QRPayload{V: lmp.Version, URL: url, Token: j.token, Name: j.name, FP: fp}
	raw, _ := json.Marshal(qr)
	j.page.setPairing(string(raw))
	if j.cfg.PairingFile != "" {
		if err := writePairingFile(j.cfg.PairingFile, qr); err != nil {
			return err
		}
	}
	fmt.Fprintf(j.out, "\nlmp-check app: scan this pairing code with the app (or open the page to scan it from the screen):\n\n")
	writeQR(j.out, string(raw), j.cfg.QRInvert)
	fmt.Fprintf(j.out, "\n  %s\n", url)
	if j.cfg.PairingFile != "" {
		fmt.Fprintf(j.out, "  pairing JSON written to %s\n", j.cfg.PairingFile)
	}
	fmt.Fprintln(j.out)
	return nil
}

// accept waits up to d for the app's next connection and its first
// frame, which must be hello. Anything else is a C-1 problem: that
// connection is closed as a server closes it, and the wait goes on.
func (j *judgeRun) accept(ctx context.Context, d time.Duration) (*appConn, lmp.Hello, error) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		var in incoming
		select {
		case in = <-j.ep.conns:
		case <-deadline.C:
			return nil, lmp.Hello{}, errTimeout
		case <-ctx.Done():
			return nil, lmp.Hello{}, ctx.Err()
		}
		j.nconns++
		c := newAppConn(j, j.nconns, in.ws, in.tls)
		go c.read(ctx)
		f, err := c.next(ctx, 10*time.Second, nil)
		if err != nil {
			j.helloProblem(fmt.Sprintf("connection %d sent no frame within 10 s (%v)", c.id, err))
			c.fatal(ctx, lmp.CodeAuthTimeout, "no hello within 10 s", 1008)
			continue
		}
		if f.typ != lmp.TypeHello {
			j.helloProblem(fmt.Sprintf("connection %d's first frame is %q, not hello", c.id, f.typ))
			c.fatal(ctx, lmp.CodeHelloRequired, "the first frame must be hello", 1002)
			continue
		}
		var h lmp.Hello
		if err := json.Unmarshal(f.payload, &h); err != nil {
			c.fatal(ctx, lmp.CodeBadFrame, "hello does not decode", 1008)
			continue
		}
		j.log.secret(h.Credential)
		if j.conn != nil && j.conn != c && !j.conn.closed() {
			j.conn.drop() // the app has moved on to its new connection
		}
		return c, h, nil
	}
}

func (j *judgeRun) helloProblem(s string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.tokenAgain = append(j.tokenAgain, s)
}

// reconnect waits up to d for the paired device to come back with its
// device_id and credential. A hello carrying a token is a C-1 failure
// (recorded) and is refused as a server refuses a used token; the wait
// goes on, so that one mistake does not fail every later rule.
func (j *judgeRun) reconnect(ctx context.Context, d time.Duration) (*appConn, lmp.Hello, error) {
	end := time.Now().Add(d)
	for {
		c, h, err := j.accept(ctx, time.Until(end))
		if err != nil {
			return nil, h, err
		}
		switch {
		case h.Token != "":
			j.helloProblem(fmt.Sprintf("connection %d: the paired device's hello carries a token (the used one: %v)", c.id, h.Token == j.token))
			c.fatal(ctx, lmp.CodeInvalidToken, "this token has been used", 1008)
			continue
		case h.DeviceID != j.deviceID || h.Credential != j.cred:
			j.helloProblem(fmt.Sprintf("connection %d: hello names device %q with a credential that is not the one hello.ok gave", c.id, h.DeviceID))
			c.fatal(ctx, lmp.CodeInvalidCredential, "unknown device or wrong credential", 1008)
			continue
		}
		j.mu.Lock()
		j.reconnects++
		j.mu.Unlock()
		j.conn = c
		return c, h, nil
	}
}

// helloOK answers hello.
func (j *judgeRun) helloOK(ctx context.Context, c *appConn, credential *string, version int, truncated bool) error {
	return c.send(ctx, lmp.HelloOK{DeviceID: j.deviceID, Credential: credential, ServerName: j.name,
		ServerVersion: "lmp-check", ProtocolVersion: version, ServerTime: lmp.Timestamp(time.Now()), Truncated: truncated})
}

// event publishes a durable event with the next seq.
func (j *judgeRun) event(ctx context.Context, c *appConn, taskID, runID *string, p lmp.Payload) (int64, error) {
	seq := j.seq.Add(1)
	f, err := lmp.NewFrame(seq, time.Now(), taskID, runID, p)
	if err != nil {
		return seq, err
	}
	j.events[seq] = f
	return seq, c.writeFrame(ctx, f)
}

// resend writes an event already sent, unchanged (E-7): a duplicate.
func (j *judgeRun) resend(ctx context.Context, c *appConn, seq int64) error {
	f, ok := j.events[seq]
	if !ok {
		return fmt.Errorf("no event %d to re-send", seq)
	}
	return c.writeFrame(ctx, f)
}

// ping sends a ping and waits for its pong: it returns the delay, or an
// error when none came within the pong timeout.
func (j *judgeRun) ping(ctx context.Context, c *appConn) (time.Duration, error) {
	for len(c.pongs) > 0 {
		<-c.pongs
	}
	sent := time.Now()
	if err := c.send(ctx, lmp.Ping{}); err != nil {
		return 0, fmt.Errorf("ping could not be written: %v", err)
	}
	return j.pongAfter(ctx, c, sent)
}

func (j *judgeRun) pongAfter(ctx context.Context, c *appConn, sent time.Time) (time.Duration, error) {
	t := time.NewTimer(j.t.PongTimeout - time.Since(sent))
	defer t.Stop()
	select {
	case at := <-c.pongs:
		return at.Sub(sent), nil
	case <-c.done:
		return 0, fmt.Errorf("expected a pong within %v of the ping, actual: the connection ended (%s)", j.t.PongTimeout, c.closeText)
	case <-t.C:
		return 0, fmt.Errorf("expected a pong within %v of the ping, actual: none", j.t.PongTimeout)
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// act asks the app to do something: a diagnostic notification with the
// lmp_check action object (the automation contract) and a text a person
// can follow.
func (j *judgeRun) act(ctx context.Context, c *appConn, a Action, title, text string) error {
	j.step("asking the app to %s: %s", a.Action, text)
	_, err := j.event(ctx, c, nil, nil, ActionPayload{Category: "diagnostic", Title: TitlePrefix + " " + title,
		Text: text, Source: "lmp-check", RequiresAttention: true, LMPCheck: a})
	return err
}

// await waits for the app's next frame of one of types within the action
// timeout, answering the requests it passes over as a server would.
func (j *judgeRun) await(ctx context.Context, c *appConn, d time.Duration, types ...string) (inFrame, error) {
	want := ofType(types...)
	return c.next(ctx, d, func(f inFrame) bool {
		if want(f) {
			return true
		}
		j.answer(ctx, c, f)
		return false
	})
}

// answer replies to a request no scenario waits for, as a plain server
// would, so that an app never hangs on the judge.
func (j *judgeRun) answer(ctx context.Context, c *appConn, f inFrame) {
	var p struct {
		RequestID  string  `json:"request_id"`
		TaskID     *string `json:"task_id"`
		ApprovalID string  `json:"approval_id"`
	}
	_ = json.Unmarshal(f.payload, &p)
	switch f.typ {
	case lmp.TypeTaskList:
		_ = c.send(ctx, lmp.TaskListResult{RequestID: p.RequestID, Tasks: []lmp.Task{}})
	case lmp.TypeSessionSend:
		task := p.TaskID
		if task == nil {
			task = lmp.Ref("task_lmpcheck")
		}
		_ = c.send(ctx, lmp.Ack{RequestID: p.RequestID, For: lmp.TypeSessionSend, TaskID: task})
	case lmp.TypeApprovalResolve:
		_ = c.send(ctx, lmp.Error{Code: lmp.CodeUnknownApproval, Message: "no such approval is pending", RequestID: p.RequestID})
	}
}

// sentence joins a list for a message.
func sentence(items []string) string { return strings.Join(items, "; ") }
