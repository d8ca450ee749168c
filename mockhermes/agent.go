package mockhermes

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// errStopped ends a turn whose context ended: /stop, a busy interrupt,
// /new, or Close.
var errStopped = errors.New("stopped")

// errFailed ends a turn after a fail step: the model call failed for good.
var errFailed = errors.New("failed")

// Causes of a turn's interruption, as the approvals it cancels report them
// (post_approval_response cancelled=<cause>).
var (
	errInterrupted = errors.New("interrupt")
	errNewSession  = errors.New("new_session")
)

// turn is one agent turn (run_conversation) played from a script: the
// script says what the model does, the turn says it the way Hermes' agent
// loop does. One turn_id for the whole turn; pre_llm_call once before the
// first model call; per model call on_stream_start, the visible deltas and
// on_stream_end(finished=true) when the call succeeded, tool calls or not;
// a failed call ends finished=false with its error and may be retried
// under the same turn_id; the final reply goes out through send() with
// metadata notify=true; on_session_end closes every turn.
type turn struct {
	m   *Mock
	pb  *Playback
	out turnFaults

	platform, surface  string // "loomi" for the chat's own turns
	chatID, sessionKey string
	sessionID, turnID  string
	model, provider    string
	userMessage        string
	senderID           string
	parentSessionID    string  // a subagent's parent session
	history            history // conversation_history: the chat's, before this turn's message
	firstTurn          bool
	sendsReplies       bool // the final reply reaches this adapter's send()

	iteration    int  // of the current or last model call; 0 before any
	retrying     bool // the next call retries the last one
	open         bool // a model call is streaming
	apiRequestID string
	text         strings.Builder // visible text of the current call
	prose        strings.Builder // text of a call that asks for tools
	finalText    string          // of the last finished call
	index        []int           // 1-based counters of the enclosing repeats
}

func (m *Mock) run(pb *Playback) error {
	t := pb.turn
	if t == nil {
		return m.runSteps(pb) // a script that starts no turn
	}
	if len(pb.sc.parts) > 0 {
		return m.runParts(pb) // a turn the gateway shapes or starts itself
	}
	_, err := m.playTurn(pb, t, gatewayPart{steps: pb.sc.Steps})
	return err
}

// playTurn plays one turn of pb: pre_llm_call, the steps, and its end. It
// reports whether the turn completed.
func (m *Mock) playTurn(pb *Playback, t *turn, p gatewayPart) (bool, error) {
	bg := context.WithoutCancel(pb.ctx)
	t.out.firePreLLMCall(bg, hermes.PreLLMCall{
		SessionID: t.sessionID, TaskID: t.sessionID, TurnID: t.turnID,
		UserMessage: t.userMessage,
		IsFirstTurn: t.firstTurn, Model: t.model, Platform: t.platform,
		ParentSessionID: t.parentSessionID, SenderID: t.senderID,
	}, t.history)
	if m.opts.Crosstalk && t.sendsReplies {
		m.crosstalk(pb)
	}
	err := t.steps(pb.ctx, p.steps)
	switch {
	case m.ctx.Err() != nil:
		return false, ErrClosed // the gateway is going away: nothing more is said
	case err == nil && p.cut:
		return true, nil // the gateway restarted: nothing ends this turn
	case errors.Is(err, errStopped):
		if cause := context.Cause(pb.ctx); errors.Is(cause, errInterrupted) || errors.Is(cause, errNewSession) {
			// The gateway interrupts the agent and tells the adapter
			// first; the agent then winds down.
			select {
			case <-pb.stopAck:
			case <-m.ctx.Done():
				return false, ErrClosed
			}
		}
		if t.open {
			t.endCall(bg, false, nil) // the interrupted call ends unfinished
		}
		t.sessionEnd(bg, false, true)
		return false, nil
	case errors.Is(err, errFailed):
		t.sessionEnd(bg, false, false)
		t.reply(bg, "⚠️ The model provider failed: "+t.lastError(), nil)
		return false, nil
	case err != nil:
		// A script that cannot go on (a bad ${arg} value) fails its turn,
		// so that no turn is left open.
		msg := "mock: " + err.Error()
		t.openCall(bg)
		t.endCall(bg, false, &msg)
		t.sessionEnd(bg, false, false)
		return false, err
	}
	// Hermes ends every turn with a model call that asks for no tools.
	if !t.open {
		t.openCall(bg)
	}
	t.endCall(bg, true, nil)
	t.sessionEnd(bg, true, false)
	if len(p.review) > 0 {
		if err := t.fork(bg, &ForkStep{Steps: p.review}); err != nil {
			return false, err
		}
	}
	if t.finalText != "" {
		m.assistantMessage(t.chatID, t.sessionID, t.finalText)
		t.reply(bg, t.finalText, map[string]any{"notify": true})
	}
	return true, nil
}

// runSteps plays a script that starts no turn (notifications only).
func (m *Mock) runSteps(pb *Playback) error {
	t := &turn{m: m, pb: pb, out: turnFaults{m: m, f: pb.faults}, chatID: pb.TaskID, sessionID: pb.SessionID, sendsReplies: true}
	err := t.steps(pb.ctx, pb.sc.Steps)
	if m.ctx.Err() != nil {
		return ErrClosed
	}
	if errors.Is(err, errStopped) {
		return nil
	}
	return err
}

// exitReason is the turn_exit_reason on_session_end reports.
func exitReason(completed, interrupted bool) string {
	switch {
	case interrupted:
		return "interrupted_by_user"
	case completed:
		return "text_response(stop)"
	}
	return "error"
}

// lastError is the error of the call that failed the turn.
func (t *turn) lastError() string { return t.pb.failure }

// sessionEnd fires on_session_end: synchronous, on the agent's thread, at
// the end of every turn.
func (t *turn) sessionEnd(ctx context.Context, completed, interrupted bool) {
	t.m.cancelTurnApprovals(t.turnID, "turn_ended")
	t.out.fire(ctx, hermes.OnSessionEnd{
		SessionID: t.sessionID, TaskID: t.sessionID, TurnID: t.turnID,
		Completed: completed, Failed: !completed && !interrupted, Interrupted: interrupted,
		TurnExitReason: exitReason(completed, interrupted), Model: t.model, Platform: t.platform,
	})
}

// reply sends text into the chat through the adapter's send(), when the
// turn's platform is this adapter's.
func (t *turn) reply(ctx context.Context, text string, md map[string]any) {
	if !t.sendsReplies {
		return
	}
	a := t.m.getAdapter()
	if a == nil {
		return
	}
	if res := a.Send(ctx, t.chatID, text, md); !res.Success {
		t.m.log.Warn("mockhermes: send failed", "err", res.Error, "retryable", res.Retryable)
	}
}

func (t *turn) vars() map[string]string {
	v := maps.Clone(t.pb.vars)
	v["turn_id"] = t.turnID
	v["session_id"] = t.sessionID
	v["iteration"] = strconv.Itoa(t.iteration)
	v["index"] = "0"
	if len(t.index) > 0 {
		v["index"] = strconv.Itoa(t.index[len(t.index)-1])
	}
	return v
}

func (t *turn) sub(s string) string { return substitute(s, t.vars()) }

func (t *turn) base() hermes.StreamBase {
	return hermes.StreamBase{
		TurnID: t.turnID, Iteration: t.iteration, SessionID: t.sessionID,
		Model: t.model, Provider: t.provider, Surface: t.surface,
	}
}

// openCall starts a model call unless one is streaming: on_stream_start
// fires once per model call; a retry keeps the iteration it retries.
func (t *turn) openCall(ctx context.Context) {
	if t.open {
		return
	}
	if !t.retrying || t.iteration == 0 {
		t.iteration++
	}
	t.retrying = false
	t.open = true
	t.apiRequestID = t.m.newID("req_")
	t.text.Reset()
	t.prose.Reset()
	t.out.fire(ctx, hermes.OnStreamStart{StreamBase: t.base()})
}

// endCall ends the streaming model call: finished=true, error=None when it
// succeeded (whether or not it asks for tools), finished=false with
// final_text="" and the error when it failed.
func (t *turn) endCall(ctx context.Context, finished bool, errMsg *string) {
	end := hermes.OnStreamEnd{StreamBase: t.base(), FinalText: t.text.String() + t.prose.String(), Finished: finished}
	if errMsg != nil {
		end.FinalText, end.Error = "", errMsg
	} else if finished {
		t.finalText = end.FinalText
	}
	t.open = false
	t.out.fire(ctx, end)
}

// toolCall ends the model call that asks for tools: it succeeded, so
// finished=true; its text was not streamed (no delta fires for the text of
// a response with tool calls) and reaches the adapter as an interim
// message.
func (t *turn) toolCall(ctx context.Context) {
	t.openCall(ctx)
	prose := t.prose.String()
	t.endCall(ctx, true, nil)
	if prose != "" {
		t.out.fire(ctx, hermes.OnInterimMessage{StreamBase: t.base(), Text: prose})
	}
}

// sleep waits d unless the turn is stopped first. A stop that has landed
// always wins, also when the wait ran out at the same moment (select
// picks at random among ready cases): a stopped turn streams nothing more.
func sleep(ctx context.Context, d time.Duration) error {
	if ctx.Err() != nil {
		return errStopped
	}
	if d <= 0 {
		return nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		if ctx.Err() != nil {
			return errStopped
		}
		return nil
	case <-ctx.Done():
		return errStopped
	}
}

func (t *turn) duration(s string, def time.Duration) (time.Duration, error) {
	s = t.sub(s)
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return d, nil
}

func (t *turn) steps(ctx context.Context, steps []Step) error {
	for i := range steps {
		if ctx.Err() != nil {
			return errStopped
		}
		if err := t.step(ctx, &steps[i], steps[i+1:]); err != nil {
			return err
		}
	}
	return nil
}

// asksForTools reports whether the model response the next steps continue
// ends in tool calls: its text is then not streamed.
func asksForTools(rest []Step) bool {
	for _, s := range rest {
		switch s.Kind {
		case StepTools, StepApproval:
			return true
		case StepStream, StepReasoning, StepInterim, StepWait:
			continue
		}
		return false
	}
	return false
}

func (t *turn) step(ctx context.Context, s *Step, rest []Step) error {
	switch s.Kind {
	case StepStream, StepReasoning:
		return t.stream(ctx, s, asksForTools(rest))
	case StepInterim:
		t.openCall(ctx)
		t.out.fire(ctx, hermes.OnInterimMessage{StreamBase: t.base(), Text: t.sub(s.Text), AlreadyStreamed: s.AlreadyStreamed})
	case StepTools:
		return t.tools(ctx, s)
	case StepApproval:
		return t.approval(ctx, s)
	case StepWait:
		d, err := t.duration(s.Duration, 0)
		if err != nil {
			return err
		}
		return sleep(ctx, d)
	case StepRetry, StepFail:
		msg := t.sub(s.Text)
		t.openCall(ctx)
		t.endCall(ctx, false, &msg)
		if s.Kind == StepRetry {
			t.retrying = true // Hermes retries the call: same turn, same iteration
			return nil
		}
		t.pb.failure = msg
		return errFailed
	case StepNotify:
		return t.notify(ctx, s.Notify)
	case StepRepeat:
		return t.repeat(ctx, s)
	case StepFork:
		return t.fork(ctx, s.Fork)
	case StepHook:
		kw, _ := substituteAny(s.Kwargs, t.vars()).(map[string]any)
		t.m.hookWith(ctx, t.out.f, t.sub(s.HookName), kw)
	}
	return nil
}

func (t *turn) stream(ctx context.Context, s *Step, toolsFollow bool) error {
	every, err := t.duration(s.Every, 0)
	if err != nil {
		return err
	}
	t.openCall(ctx)
	text := t.sub(s.Text)
	reasoning := s.Kind == StepReasoning
	switch {
	case reasoning && !t.m.opts.StreamReasoningDeltas:
		return sleep(ctx, 0) // plugins.stream_reasoning_deltas is off
	case !reasoning && toolsFollow:
		t.prose.WriteString(text)
		return sleep(ctx, 0)
	}
	kind := "text"
	if reasoning {
		kind = "reasoning"
	}
	runes := []rune(text)
	for i := 0; i < len(runes); i += s.Chunk {
		if i > 0 {
			if err := sleep(ctx, every); err != nil {
				return err
			}
		} else if ctx.Err() != nil {
			return errStopped
		}
		delta := string(runes[i:min(len(runes), i+s.Chunk)])
		if !reasoning {
			t.text.WriteString(delta)
		}
		t.out.fire(ctx, hermes.OnStreamDelta{StreamBase: t.base(), Delta: delta, Kind: kind})
	}
	return nil
}

func (t *turn) toolKwargs(name string, args map[string]any, callID string) hermes.ToolCall {
	return hermes.ToolCall{
		ToolName: name, Args: args, TaskID: t.sessionID, SessionID: t.sessionID,
		ToolCallID: callID, TurnID: t.turnID, APIRequestID: t.apiRequestID,
	}
}

func (t *turn) postTool(ctx context.Context, call hermes.ToolCall, c ToolCall, took time.Duration) {
	t.out.fire(ctx, hermes.PostToolCall{
		ToolCall: call, Result: t.sub(c.Result), DurationMS: int(took.Milliseconds()), Status: c.Status,
		ErrorType: hermes.None(c.ErrorType), ErrorMessage: hermes.None(t.sub(c.ErrorMessage)),
	})
}

func (t *turn) tools(ctx context.Context, s *Step) error {
	t.toolCall(ctx)
	vars := t.vars()
	pres := make([]hermes.ToolCall, len(s.Tools))
	for i, c := range s.Tools {
		args, _ := substituteAny(c.Args, vars).(map[string]any)
		pres[i] = t.toolKwargs(c.Name, args, t.m.newID("call_"))
	}
	took := func(c ToolCall) time.Duration { return time.Duration(c.DurationMS) * time.Millisecond }
	if s.Parallel {
		// Every call starts before any finishes, and they finish in
		// reverse: only tool_call_id pairs them (F-3).
		var longest time.Duration
		for i, c := range s.Tools {
			if !c.Bridge {
				t.out.fire(ctx, hermes.PreToolCall{ToolCall: pres[i]})
			}
			longest = max(longest, took(c))
		}
		if err := sleep(ctx, longest); err != nil {
			return err
		}
		for i := len(s.Tools) - 1; i >= 0; i-- {
			t.postTool(ctx, pres[i], s.Tools[i], took(s.Tools[i]))
		}
		return nil
	}
	for i, c := range s.Tools {
		if !c.Bridge { // bridge tools (tool_search, tool_describe) fire post only
			t.out.fire(ctx, hermes.PreToolCall{ToolCall: pres[i]})
		}
		if err := sleep(ctx, took(c)); err != nil {
			return err
		}
		t.postTool(ctx, pres[i], c, took(c))
	}
	return nil
}

func (t *turn) notify(ctx context.Context, n *NotifyStep) error {
	a := t.m.getAdapter()
	if a == nil {
		return ErrNotAttached
	}
	md := map[string]any{}
	for k, v := range n.Metadata {
		md[k] = substituteAny(v, t.vars())
	}
	res := a.Send(ctx, t.chatID, t.sub(n.Text), md)
	if !res.Success {
		t.m.log.Warn("mockhermes: send failed", "err", res.Error, "retryable", res.Retryable)
	}
	if ctx.Err() != nil {
		return errStopped
	}
	return nil
}

func (t *turn) repeat(ctx context.Context, s *Step) error {
	times := t.sub(s.Times)
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
	limit, err := t.duration(s.For, MaxForever)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	t.index = append(t.index, 0)
	defer func() { t.index = t.index[:len(t.index)-1] }()
	for i := 0; n < 0 || i < n; i++ {
		t.index[len(t.index)-1] = i + 1
		err := t.steps(ctx, s.Steps)
		if errors.Is(err, errStopped) && t.pb.ctx.Err() == nil {
			return nil // the repeat's own time is up, not the turn's
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// approval runs a terminal tool call that needs an exec approval, then the
// branch for its outcome. A smart approval first lets the auxiliary model
// decide (its own pre/post pair, surface "smart"); a smart deny then asks
// the human, who may override it. Coalesced followers are identical calls
// in the same iteration: they wait on the first one's prompt. A command
// that is not granted comes back as a tool error.
func (t *turn) approval(ctx context.Context, s *Step) error {
	a := s.Approval
	timeout, err := t.duration(a.Timeout, 0)
	if err != nil {
		return err
	}
	t.toolCall(ctx)
	cmd := t.sub(a.Command)
	spec := ApprovalSpec{
		ChatID: t.chatID, Command: cmd, Description: t.sub(a.Description),
		PatternKey: t.sub(a.PatternKey), AllowPermanent: a.AllowPermanent, AllowSession: a.AllowSession,
		SmartDenied: a.SmartDenied, Timeout: timeout, TurnID: t.turnID, SessionID: t.sessionID,
	}
	calls := make([]hermes.ToolCall, 1+a.Coalesced)
	for i := range calls {
		calls[i] = t.toolKwargs(a.Tool, map[string]any{"command": cmd}, t.m.newID("call_"))
		t.out.fire(ctx, hermes.PreToolCall{ToolCall: calls[i]})
	}
	start := time.Now()
	choice := t.decide(ctx, spec, a.Smart, calls)
	if choice == "" {
		specs := make([]ApprovalSpec, len(calls))
		for i := range calls {
			specs[i] = spec
			specs[i].ToolCallID = calls[i].ToolCallID
			specs[i].SmartDenied = spec.SmartDenied || a.Smart == "deny"
		}
		waits, err := t.m.startApprovals(ctx, specs)
		if err != nil {
			return err
		}
		// The followers' outcome is the leader's: they report after it.
		choice = waits[0].Wait(ctx)
		for _, w := range waits[1:] {
			w.Wait(ctx)
		}
	}
	branch := BranchDenied
	result := ToolCall{Status: "error", Result: "BLOCKED: " + choice, ErrorType: "ApprovalDenied",
		ErrorMessage: "command not approved: " + choice}
	switch {
	case choice == ChoiceTimeout:
		branch = BranchTimeout
	case choice == ChoiceCancelled:
		branch = BranchCancelled
	case Granted(choice):
		branch = BranchGranted
		result = ToolCall{Status: "ok", Result: "ok"}
	}
	bg := context.WithoutCancel(ctx)
	for i := len(calls) - 1; i >= 0; i-- {
		t.postTool(bg, calls[i], result, time.Since(start))
	}
	if ctx.Err() != nil {
		return errStopped
	}
	return t.steps(ctx, s.Branches[branch])
}

// decide is what Hermes settles before asking anyone: a pattern granted
// for the session or for good runs without asking; a smart approval lets
// the auxiliary model decide (its own pair of hooks, surface "smart"). It
// returns the choice, or "" when the human must be asked (a smart deny
// asks the human, who may override it).
func (t *turn) decide(ctx context.Context, spec ApprovalSpec, smart string, calls []hermes.ToolCall) string {
	key := t.m.sessionKey(t.chatID)
	pattern := t.m.approvalKwargs(spec, key, "gateway").PatternKey
	if t.m.preapproved(key, pattern) {
		return lmp.ChoiceSession
	}
	if smart == "" {
		return ""
	}
	choice := ChoiceSmartApprove
	if smart == "deny" {
		choice, spec.SmartDenied = ChoiceSmartDeny, true
	}
	spec.ToolCallID = calls[0].ToolCallID
	kw := t.m.approvalKwargs(spec, key, "smart")
	t.out.fire(ctx, hermes.PreApprovalRequest{Approval: kw})
	t.out.fire(ctx, hermes.PostApprovalResponse{Approval: kw, Choice: choice, DecidedBy: "aux_llm"})
	if choice == ChoiceSmartDeny {
		return ""
	}
	return choice
}
