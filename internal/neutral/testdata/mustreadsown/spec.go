// Package mustreadsown is a MUST spec that reads a field lmp-v1.md does not
// define (a task row's started_at, note 21), through a helper, and a
// SHOULD spec that reads the same field: the guard must name the first and
// leave the second alone.
package mustreadsown

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(conformance.NewSection("transport", "§1 Transport", ""), func(specs *conformance.Specs) {
	specs.It("T-7", rules.MUST, "every task row's started_at is epoch seconds", func(ctx ginkgo.SpecContext) {
		var f client.Frame
		checkRows(f)
	})
	specs.It("T-7", rules.SHOULD, "a task row's started_at is epoch seconds (note 21)", func(ctx ginkgo.SpecContext) {
		var f client.Frame
		checkRows(f)
	})
})

func checkRows(f client.Frame) {
	for _, t := range must.Decode[lmp.TaskListResult](f).Tasks {
		must.That(t.StartedAt > 1e9, "started_at %v", t.StartedAt)
	}
}
