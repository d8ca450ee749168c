package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

func taskIDs(r lmp.TaskListResult) map[string]lmp.Task {
	m := map[string]lmp.Task{}
	for _, t := range r.Tasks {
		m[t.TaskID] = t
	}
	return m
}

var _ = conformance.Section("§4 task.list", "tasklist", func() {
	conformance.It("F-9", rules.MUST, "task.list is answered by task.list.result from the session store, honouring limit and status_filter", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		live, err := drv().Session(ctx, driver.SessionRequest{Title: "live " + should.NewID(""), Preview: "hi"})
		must.Succeed(err)
		ended, err := drv().Session(ctx, driver.SessionRequest{Title: "ended " + should.NewID(""), Ended: true})
		must.Succeed(err)

		rid := should.NewID("tl-")
		all := must.Decode[lmp.TaskListResult](must.Request(ctx, c, lmp.TaskList{RequestID: rid, Limit: ptr(200)}, rid))
		Expect(all.RequestID).To(Equal(rid))
		tasks := taskIDs(all)
		Expect(tasks).To(HaveKey(live.TaskID))
		Expect(tasks).To(HaveKey(ended.TaskID))
		Expect(tasks[live.TaskID].Status).To(Equal(lmp.TaskStatusLive))
		Expect(tasks[ended.TaskID].Status).To(Equal(lmp.TaskStatusEnded))

		rid = should.NewID("tl-")
		onlyLive := must.Decode[lmp.TaskListResult](must.Request(ctx, c, lmp.TaskList{RequestID: rid, Limit: ptr(200), StatusFilter: lmp.StatusFilterLive}, rid))
		for _, t := range onlyLive.Tasks {
			Expect(t.Status).To(Equal(lmp.TaskStatusLive), "status_filter live returned %s", t.TaskID)
		}
		Expect(taskIDs(onlyLive)).NotTo(HaveKey(ended.TaskID))

		rid = should.NewID("tl-")
		one := must.Decode[lmp.TaskListResult](must.Request(ctx, c, lmp.TaskList{RequestID: rid, Limit: ptr(1)}, rid))
		Expect(len(one.Tasks)).To(BeNumerically("<=", 1), "limit 1")
	}, conformance.NeedsDriver)

	conformance.It("F-9", rules.MUST, "task.list lists the tasks created in-band by session.send, and honours limit", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		var created []string
		for range 2 {
			created = append(created, ownTask(ctx, c))
		}
		rid := should.NewID("tl-")
		all := must.Decode[lmp.TaskListResult](must.Request(ctx, c, lmp.TaskList{RequestID: rid, Limit: ptr(200)}, rid))
		for _, id := range created {
			Expect(taskIDs(all)).To(HaveKey(id), "a task created by session.send")
		}
		rid = should.NewID("tl-")
		one := must.Decode[lmp.TaskListResult](must.Request(ctx, c, lmp.TaskList{RequestID: rid, Limit: ptr(1)}, rid))
		Expect(len(one.Tasks)).To(BeNumerically("<=", 1), "limit 1")
	}, conformance.NeedsEvents)
})
