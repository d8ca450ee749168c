package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionTransport, func(specs *conformance.Specs) {
	// A server may refuse a task_id it did not hand out; one it takes comes
	// back in the frames of that task's run, and those frames are JSON
	// (T-3) whatever the string holds: strings made only of the characters
	// JSON escapes are the edge of any hand-written encoder.
	specs.It("T-3", rules.MUST, "a task_id of only backslashes or quotes comes back as valid JSON in its run's frames", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		taken := 0
		for _, task := range []string{`\`, `\\`, `"`, `\"`} {
			ans := must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: conformance.Events(ctx).Text(conformance.TriggerReply, 0)})
			if ans.Type == lmp.TypeError {
				continue // refused: a task the server does not know
			}
			taken++
			must.Expect(ctx, c, match.Task(task).And(match.Terminal()))
		}
		if taken == 0 {
			ginkgo.Skip("the server refused every such task_id: nothing came back to check")
		}
	}, conformance.NeedsEvents)
})
