package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionTurns, func(specs *conformance.Specs) {
	// Hermes runs the sessions of different chats at once, so their turns'
	// pre_llm_call may come in any order; a new chat's first turn is known
	// only by its user_message and sender_id. Two devices that send the
	// same text into new tasks are told apart by the sender alone. The
	// text is a mock command that plays no turn of its own (/mock help
	// answers with a send()), so that the spec fires the turns' hooks
	// itself, the later sender's first. That a turn belongs to the task its
	// message was sent into is note 18's preferred answer, so SHOULD.
	specs.It("F-5", rules.SHOULD, "of two devices sending the same text into new tasks, each one's turn is in its own task (note 18)", func(ctx ginkgo.SpecContext) {
		devs := pairN(ctx, 2)
		text := "/mock help " + should.NewID("same-")
		tasks := make([]string, 2)
		for i, d := range devs {
			ans := must.Request(ctx, d, lmp.SessionSend{Text: text})
			must.That(ans.Type != lmp.TypeError, "session.send was refused: %s", d.Describe(ans))
			tasks[i] = lmp.Deref(ans.TaskID)
			must.That(tasks[i] != "", "the answer to session.send names no task: %s", d.Describe(ans))
		}
		for _, i := range []int{1, 0} {
			t := turn{session: should.NewID("sess_"), id: should.NewID("turn_"), sender: devs[i].Device.ID, message: text, first: true}
			t.start(ctx)
			st := must.Decode[lmp.RunStarted](must.Expect(ctx, devs[0], match.Type(lmp.TypeRunStarted).And(match.Field("session_id", t.session))))
			must.Equal("task_id of the turn of "+devs[i].Name+"'s message (the task it was sent into)", st.TaskID, tasks[i])
			t.task = st.TaskID
			t.end(ctx, "done", nil)
			t.complete(ctx, "done")
			must.Expect(ctx, devs[0], match.Run(st.RunID).And(match.Terminal()))
		}
	}, conformance.NeedsDriver)
})
