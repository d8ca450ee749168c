package suites

import (
	"fmt"
	"slices"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// The Hermes side field by field: what each hook's kwargs become on the
// wire, and what each client command becomes in Hermes' recorded calls.

var _ = conformance.Section(sectionHermes, func(specs *conformance.Specs) {
	specs.It("H-1", rules.MUST, "run.started, once per turn, carries the hook's model, provider, surface and session_id", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.begin(ctx)
		t.hook(ctx, "on_stream_start", map[string]any{"model": "model-" + t.id, "provider": "provider-" + t.id})
		s := must.Decode[lmp.RunStarted](runFrame(ctx, c, t, lmp.TypeRunStarted))
		must.Equal("run.started model", s.Model, "model-"+t.id)
		must.Equal("run.started provider", s.Provider, "provider-"+t.id)
		must.Equal("run.started surface", s.Surface, platform)
		must.Equal("run.started session_id", s.SessionID, t.session)
		// A second model call of the turn is the same run: no second run.started.
		t.end(ctx, "", nil)
		t.hookIn(ctx, 2, "on_stream_start", nil)
		t.endCall(ctx, 2, "done", nil)
		t.complete(ctx, "done")
		must.Expect(ctx, c, match.Run(s.RunID).And(match.Terminal()))
		for _, f := range c.Pending() {
			must.That(!match.Run(s.RunID).And(match.Type(lmp.TypeRunStarted)).Match(f), "run %s started twice: a second model call of the turn brought %s", s.RunID, c.Describe(f))
		}
	}, conformance.NeedsDriver)

	specs.It("H-1,F-1", rules.MUST, "run.delta carries the hook's text, kind (text and reasoning) and iteration", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		for i, d := range []struct {
			kind string
			it   int
		}{{lmp.DeltaKindReasoning, 1}, {lmp.DeltaKindText, 2}, {lmp.DeltaKindReasoning, 3}} {
			text := fmt.Sprintf("delta %d of %s", i, t.id)
			t.hook(ctx, "on_stream_delta", map[string]any{"delta": text, "kind": d.kind, "iteration": d.it})
			got := must.Decode[lmp.RunDelta](must.Expect(ctx, c, match.Task(t.task).And(match.Type(lmp.TypeRunDelta), match.Field("text", text))))
			must.Equal(fmt.Sprintf("run.delta kind of %q", text), got.Kind, d.kind)
			must.Equal(fmt.Sprintf("run.delta iteration of %q", text), got.Iteration, d.it)
		}
		t.end(ctx, "done", nil)
		t.complete(ctx, "done")
	}, conformance.NeedsDriver)

	specs.It("H-1", rules.MUST, "run.interim carries the hook's text and already_streamed, true and false", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		for _, already := range []bool{true, false, true} {
			text := fmt.Sprintf("interim %v %s", already, should.NewID(""))
			t.hook(ctx, "on_interim_message", map[string]any{"text": text, "already_streamed": already})
			got := must.Decode[lmp.RunInterim](must.Expect(ctx, c, match.Task(t.task).And(match.Type(lmp.TypeRunInterim), match.Field("text", text))))
			must.Equal(fmt.Sprintf("run.interim already_streamed of %q", text), got.AlreadyStreamed, already)
		}
		t.end(ctx, "done", nil)
		t.complete(ctx, "done")
	}, conformance.NeedsDriver)

	// MUST, not SHOULD: post_tool_call's status is "ok" for a tool that ran
	// and succeeded, "error" for one that failed (a command denied at
	// approval included) and "blocked" for one a plugin kept from running
	// (hermes.md). run.tool_finished comes from that hook (H-2) and its ok
	// says whether the call succeeded (F-1); no reading of ok lets a failed
	// or blocked call be ok, so every faithful adapter maps them to false.
	// The iteration is the one of the model call that asked for the tools
	// (the turn's latest stream hook): the tool hooks carry none.
	specs.It("H-2,F-3", rules.MUST, "run.tool_finished.ok is true for status ok only, in the hook's iteration", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.begin(ctx)
		t.hookIn(ctx, 2, "on_stream_start", nil)
		for _, status := range []string{"ok", "error", "blocked"} {
			id := should.NewID("call_")
			t.tool(ctx, false, "terminal", id)
			started := must.Decode[lmp.RunToolStarted](must.Expect(ctx, c, match.Task(t.task).And(match.Type(lmp.TypeRunToolStarted), match.Field("call_id", id))))
			must.Equal("run.tool_started iteration (the model call that asked for the tool)", started.Iteration, 2)
			t.toolStatus(ctx, true, "terminal", id, status)
			fin := must.Decode[lmp.RunToolFinished](must.Expect(ctx, c, match.Task(t.task).And(match.Type(lmp.TypeRunToolFinished), match.Field("call_id", id))))
			must.Equal(fmt.Sprintf("run.tool_finished ok for post_tool_call status %q", status), fin.OK, status == "ok")
			must.Equal("run.tool_finished iteration (the model call that asked for the tool)", fin.Iteration, 2)
			must.Equal("run.tool_finished index (its run.tool_started's, F-3)", fin.Index, started.Index)
		}
		t.end(ctx, "done", nil)
		t.complete(ctx, "done")
	}, conformance.NeedsDriver)

	specs.It("H-5,F-8", rules.MUST, "resolve_gateway_approval gets the session key, choice, reason and request id, and resolve_all false", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		for _, choice := range lmp.Choices {
			res := newApproval(ctx, c, 0)
			rid, reason := should.NewID("ra-"), "because "+should.NewID("")
			must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: choice, Reason: reason, RequestID: rid})
			got := eventuallyCalls(ctx, 1, "resolve_gateway_approval", argIs("request_id", res.ID))
			must.That(len(got) == 1, "resolving %s once called resolve_gateway_approval %d times: %s", res.ID, len(got), describeCalls(got))
			a := got[0].Args
			must.Equal("resolve_gateway_approval session_key", a["session_key"], res.SessionKey)
			must.Equal("resolve_gateway_approval choice (F-8: unchanged)", a["choice"], choice)
			must.Equal("resolve_gateway_approval resolve_all (the client resolved one approval)", a["resolve_all"], false)
			must.Equal("resolve_gateway_approval reason", a["reason"], reason)
		}
	}, conformance.NeedsDriver)

	specs.It("H-3", rules.MUST, "approval.required offers the choices the approval prompt narrowed to", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		no := false
		res, err := drv(ctx).Approval(ctx, driver.ApprovalRequest{Command: "rm -rf /tmp/" + should.NewID("x"), AllowPermanent: &no, AllowSession: &no})
		must.Succeed(err)
		req := must.Decode[lmp.ApprovalRequired](must.Expect(ctx, c, match.Type(lmp.TypeApprovalRequired).And(match.Approval(res.ApprovalID))))
		var offered []string
		for _, ch := range req.Choices {
			offered = append(offered, ch.Choice)
		}
		for _, ch := range []string{lmp.ChoiceOnce, lmp.ChoiceDeny} {
			must.That(slices.Contains(offered, ch), "approval.required choices: want %s among them, got %v", ch, offered)
		}
		for _, ch := range []string{lmp.ChoiceSession, lmp.ChoiceAlways} {
			must.That(!slices.Contains(offered, ch), "the prompt allowed neither session nor permanent approval, yet approval.required offers %s: got %v", ch, offered)
		}
	}, conformance.NeedsDriver)

	// §4 lists command, description and smart_denied among
	// approval.required's fields, and §7 takes the frame from the
	// adapter's exec-approval prompt, whose arguments they are.
	specs.It("H-3,F-1", rules.MUST, "approval.required carries the prompt's command, description and smart_denied", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		for _, smart := range []bool{true, false} {
			command, description := "rm -rf /tmp/"+should.NewID("x"), "recursive delete "+should.NewID("")
			res, err := drv(ctx).Approval(ctx, driver.ApprovalRequest{Command: command, Description: description, SmartDenied: smart})
			must.Succeed(err)
			req := must.Decode[lmp.ApprovalRequired](must.Expect(ctx, c, match.Type(lmp.TypeApprovalRequired).And(match.Approval(res.ApprovalID))))
			must.Equal("approval.required command", req.Command, command)
			must.Equal("approval.required description", req.Description, description)
			must.Equal(fmt.Sprintf("approval.required smart_denied of a prompt with smart_denied %t", smart), req.SmartDenied, smart)
		}
	}, conformance.NeedsDriver)

	// The task id is the one the server lists for the seeded session (found
	// by its unique title, under whatever field name the row gives it: §4
	// names none, note 21), not the chat id the driver seeded: how a server
	// names a task is its own (note 18 prefers the chat id, and a server
	// that chose otherwise passes).
	specs.It("F-5", rules.MUST, "session.send with a task_id injects the message into that task's chat", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		title := "existing " + should.NewID("")
		s, err := drv(ctx).Session(ctx, driver.SessionRequest{Title: title})
		must.Succeed(err)
		task := rowHolding(taskList(ctx, c, manyRows, ""), title)
		if task == "" {
			ginkgo.Skip(fmt.Sprintf("task.list lists no row titled %q, the session seeded in Hermes' store: which task is that session's is not known", title))
		}
		text := "/mock help " + should.NewID("")
		must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text})
		got := eventuallyCalls(ctx, 1, "handle_message", withText(text))
		ev, _ := got[0].Args["event"].(map[string]any)
		src, _ := ev["source"].(map[string]any)
		must.Equal(fmt.Sprintf("handle_message chat_id of a session.send with task_id %s, the task of the session seeded in chat %s", task, s.TaskID), src["chat_id"], s.TaskID)
	}, conformance.NeedsDriver)
})
