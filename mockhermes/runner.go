package mockhermes

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"
)

// errStopped ends a playback whose context ended: /stop, or Close.
var errStopped = errors.New("stopped")

// errFailed ends a playback after a fail step: the turn is over.
var errFailed = errors.New("failed")

// runner plays one scenario: it keeps the turn's state the way Hermes'
// agent loop does, one model call (iteration) after another.
type runner struct {
	m   *Mock
	pb  *Playback
	out deliverer

	model, provider string
	iteration       int    // of the current or last model call; 0 before any
	open            bool   // a model call is streaming
	apiRequestID    string // of the current or last model call
	text            strings.Builder
	index           []int // 1-based counters of the enclosing repeats
}

func (m *Mock) run(pb *Playback) error {
	r := &runner{m: m, pb: pb, out: deliverer{m: m, f: pb.faults},
		model: pb.sc.Model, provider: pb.sc.Provider}
	if r.model == "" {
		r.model = DefaultModel
	}
	if r.provider == "" {
		r.provider = DefaultProvider
	}
	err := r.steps(pb.ctx, pb.sc.Steps)
	bg := context.WithoutCancel(pb.ctx)
	switch {
	case m.ctx.Err() != nil:
		return ErrClosed // the gateway is going away: nothing more is said
	case errors.Is(err, errStopped):
		if r.open {
			r.endCall(bg, false, nil) // the interrupted call ends unfinished
		}
		return nil
	case errors.Is(err, errFailed):
		return nil
	case err != nil:
		// A script that cannot go on (a bad ${arg} value) fails its turn,
		// so that no run is left open.
		if r.iteration > 0 || r.open {
			msg := "mock: " + err.Error()
			r.openCall(bg)
			r.endCall(bg, false, &msg)
		}
		return err
	}
	if r.iteration > 0 {
		// Hermes ends every turn with a model call that returns no tool
		// calls: its on_stream_end is finished=true.
		r.openCall(bg)
		r.endCall(bg, true, nil)
		m.countReply(pb.TaskID)
	}
	return nil
}

func (r *runner) vars() map[string]string {
	v := maps.Clone(r.pb.vars)
	v["turn_id"] = r.pb.TurnID
	v["iteration"] = strconv.Itoa(r.iteration)
	v["index"] = "0"
	if len(r.index) > 0 {
		v["index"] = strconv.Itoa(r.index[len(r.index)-1])
	}
	return v
}

func (r *runner) sub(s string) string { return substitute(s, r.vars()) }

func (r *runner) base() map[string]any {
	return map[string]any{
		"turn_id": r.pb.TurnID, "iteration": r.iteration, "session_id": r.pb.TaskID,
		"model": r.model, "provider": r.provider, "surface": Surface,
	}
}

// openCall starts a model call unless one is streaming: on_stream_start
// fires once per model call, with the same turn_id for the whole turn.
func (r *runner) openCall(ctx context.Context) {
	if r.open {
		return
	}
	r.iteration++
	r.open = true
	r.apiRequestID = newID("req_")
	r.text.Reset()
	r.out.hook(ctx, "on_stream_start", r.base())
}

// endCall ends the streaming model call.
func (r *runner) endCall(ctx context.Context, finished bool, errMsg *string) {
	kw := r.base()
	kw["final_text"], kw["finished"], kw["error"] = r.text.String(), finished, nil
	if errMsg != nil {
		kw["final_text"], kw["error"] = "", *errMsg
	}
	r.open = false
	r.out.hook(ctx, "on_stream_end", kw)
}

// toolPhase ends the model call that asked for tools (finished=false: the
// turn goes on), opening one first when the script starts with tools.
func (r *runner) toolPhase(ctx context.Context) {
	r.openCall(ctx)
	r.endCall(ctx, false, nil)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		if ctx.Err() != nil {
			return errStopped
		}
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return errStopped
	}
}

func (r *runner) duration(s string, def time.Duration) (time.Duration, error) {
	s = r.sub(s)
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return d, nil
}

func (r *runner) steps(ctx context.Context, steps []Step) error {
	for i := range steps {
		if ctx.Err() != nil {
			return errStopped
		}
		if err := r.step(ctx, &steps[i]); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) step(ctx context.Context, s *Step) error {
	switch s.Kind {
	case StepStream, StepReasoning:
		return r.stream(ctx, s)
	case StepInterim:
		r.openCall(ctx)
		kw := r.base()
		kw["text"], kw["already_streamed"] = r.sub(s.Text), s.AlreadyStreamed
		r.out.hook(ctx, "on_interim_message", kw)
	case StepTools:
		return r.tools(ctx, s)
	case StepApproval:
		return r.approval(ctx, s)
	case StepWait:
		d, err := r.duration(s.Duration, 0)
		if err != nil {
			return err
		}
		return sleep(ctx, d)
	case StepFail:
		msg := r.sub(s.Text)
		r.openCall(ctx)
		r.endCall(ctx, false, &msg)
		return errFailed
	case StepNotify:
		return r.notify(ctx, s.Notify)
	case StepRepeat:
		return r.repeat(ctx, s)
	case StepHook:
		kw, _ := substituteAny(s.Kwargs, r.vars()).(map[string]any)
		r.m.hook(ctx, r.sub(s.HookName), kw)
	}
	return nil
}

func (r *runner) stream(ctx context.Context, s *Step) error {
	every, err := r.duration(s.Every, 0)
	if err != nil {
		return err
	}
	kind := "text"
	if s.Kind == StepReasoning {
		kind = "reasoning"
	}
	r.openCall(ctx)
	runes := []rune(r.sub(s.Text))
	for i := 0; i < len(runes); i += s.Chunk {
		if i > 0 {
			if err := sleep(ctx, every); err != nil {
				return err
			}
		} else if ctx.Err() != nil {
			return errStopped
		}
		delta := string(runes[i:min(len(runes), i+s.Chunk)])
		if kind == "text" {
			r.text.WriteString(delta)
		}
		kw := r.base()
		kw["delta"], kw["kind"] = delta, kind
		r.out.hook(ctx, "on_stream_delta", kw)
	}
	return nil
}

func (r *runner) toolKwargs(name string, args map[string]any, callID string) map[string]any {
	return map[string]any{
		"tool_name": name, "args": args, "task_id": r.pb.TaskID, "session_id": r.pb.TaskID,
		"tool_call_id": callID, "turn_id": r.pb.TurnID, "api_request_id": r.apiRequestID,
		"middleware_trace": []any{},
	}
}

func (r *runner) postTool(ctx context.Context, kw map[string]any, t ToolCall, took time.Duration) {
	post := maps.Clone(kw)
	post["result"], post["duration_ms"], post["status"] = r.sub(t.Result), took.Milliseconds(), t.Status
	post["error_type"], post["error_message"] = none(t.ErrorType), none(r.sub(t.ErrorMessage))
	r.out.hook(ctx, "post_tool_call", post)
}

func (r *runner) tools(ctx context.Context, s *Step) error {
	r.toolPhase(ctx)
	vars := r.vars()
	pres := make([]map[string]any, len(s.Tools))
	for i, t := range s.Tools {
		args, _ := substituteAny(t.Args, vars).(map[string]any)
		pres[i] = r.toolKwargs(t.Name, args, newID("call_"))
	}
	if s.Parallel {
		// Every call starts before any finishes, and they finish in
		// reverse: only tool_call_id pairs them (F-3).
		var longest time.Duration
		for i, t := range s.Tools {
			r.out.hook(ctx, "pre_tool_call", pres[i])
			longest = max(longest, time.Duration(t.DurationMS)*time.Millisecond)
		}
		if err := sleep(ctx, longest); err != nil {
			return err
		}
		for i := len(s.Tools) - 1; i >= 0; i-- {
			r.postTool(ctx, pres[i], s.Tools[i], time.Duration(s.Tools[i].DurationMS)*time.Millisecond)
		}
		return nil
	}
	for i, t := range s.Tools {
		r.out.hook(ctx, "pre_tool_call", pres[i])
		d := time.Duration(t.DurationMS) * time.Millisecond
		if err := sleep(ctx, d); err != nil {
			return err
		}
		r.postTool(ctx, pres[i], t, d)
	}
	return nil
}

// approval runs a terminal tool call that needs an exec approval, then the
// branch for its outcome.
func (r *runner) approval(ctx context.Context, s *Step) error {
	a := s.Approval
	timeout, err := r.duration(a.Timeout, 0)
	if err != nil {
		return err
	}
	r.toolPhase(ctx)
	cmd := r.sub(a.Command)
	pre := r.toolKwargs(a.Tool, map[string]any{"command": cmd}, newID("call_"))
	r.out.hook(ctx, "pre_tool_call", pre)
	start := time.Now()
	ap, err := r.m.StartApproval(ctx, ApprovalSpec{
		ChatID: r.pb.TaskID, RunID: r.pb.RunID(), Command: cmd, Description: r.sub(a.Description),
		PatternKey: r.sub(a.PatternKey), AllowPermanent: a.AllowPermanent, AllowSession: a.AllowSession,
		SmartDenied: a.SmartDenied, Timeout: timeout,
	})
	if err != nil {
		return err
	}
	choice := ap.Wait(ctx)
	branch := BranchDenied
	t := ToolCall{Status: "blocked", Result: "BLOCKED: " + choice}
	switch {
	case choice == ChoiceTimeout:
		branch = BranchTimeout
	case choice == ChoiceCancelled:
		branch = BranchCancelled
	case Granted(choice):
		branch = BranchGranted
		t = ToolCall{Status: "ok", Result: "ok"}
	}
	r.postTool(context.WithoutCancel(ctx), pre, t, time.Since(start))
	if ctx.Err() != nil {
		return errStopped
	}
	return r.steps(ctx, s.Branches[branch])
}

func (r *runner) notify(ctx context.Context, n *NotifyStep) error {
	a := r.m.getAdapter()
	if a == nil {
		return ErrNotAttached
	}
	res := a.Send(ctx, r.pb.TaskID, r.sub(n.Text), map[string]any{
		"category": n.Category, "title": r.sub(n.Title), "source": r.sub(n.Source),
		"requires_attention": n.RequiresAttention,
	})
	if !res.Success {
		r.m.log.Warn("mockhermes: send failed", "err", res.Error, "retryable", res.Retryable)
	}
	if ctx.Err() != nil {
		return errStopped
	}
	return nil
}

func (r *runner) repeat(ctx context.Context, s *Step) error {
	times := r.sub(s.Times)
	n := -1 // forever
	if times != "forever" {
		v, err := strconv.Atoi(times)
		if err != nil || v < 0 {
			return fmt.Errorf("repeat count %q is not a non-negative integer", times)
		}
		if v > MaxRepeat {
			return fmt.Errorf("repeat count %d is over the limit of %d", v, MaxRepeat)
		}
		n = v
	}
	limit, err := r.duration(s.For, MaxForever)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	r.index = append(r.index, 0)
	defer func() { r.index = r.index[:len(r.index)-1] }()
	for i := 0; n < 0 || i < n; i++ {
		r.index[len(r.index)-1] = i + 1
		err := r.steps(ctx, s.Steps)
		if errors.Is(err, errStopped) && r.pb.ctx.Err() == nil {
			return nil // the repeat's own time is up, not the turn's
		}
		if err != nil {
			return err
		}
	}
	return nil
}
