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

// listTasks sends task.list and returns the rows of its answer by
// task_id.
func listTasks(ctx ginkgo.SpecContext, c *conformance.Conn, limit int, statusFilter string) map[string]lmp.Task {
	rid := should.NewID("tl-")
	res := must.Decode[lmp.TaskListResult](must.Request(ctx, c, lmp.TaskList{RequestID: rid, Limit: ptr(limit), StatusFilter: statusFilter}, rid))
	m := map[string]lmp.Task{}
	for _, t := range res.Tasks {
		m[t.TaskID] = t
	}
	return m
}

// storeSessions adds a live and an ended session to Hermes' session store
// through the driver and returns their task IDs.
func storeSessions(ctx ginkgo.SpecContext) (live, ended string) {
	l, err := drv().Session(ctx, driver.SessionRequest{Title: "live " + should.NewID(""), Preview: "hi"})
	must.Succeed(err, "driver session")
	e, err := drv().Session(ctx, driver.SessionRequest{Title: "ended " + should.NewID(""), Ended: true})
	must.Succeed(err, "driver session")
	return l.TaskID, e.TaskID
}

var _ = conformance.Section("§4 task.list", "tasklist", func() {
	conformance.It("F-9", rules.MUST, "task.list is answered by task.list.result with a row per task of the session store, honouring limit", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		live, ended := storeSessions(ctx)
		tasks := listTasks(ctx, c, 200, "")
		for _, id := range []string{live, ended} {
			_, ok := tasks[id]
			must.That(ok, "task.list with limit 200 does not list session %s of the store (%d rows)", id, len(tasks))
		}
		one := listTasks(ctx, c, 1, "")
		must.That(len(one) <= 1, "task.list with limit 1 returned %d rows", len(one))
	}, conformance.NeedsDriver)

	conformance.It("F-9", rules.INFO, "task rows say live or ended, and status_filter live lists only live tasks (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		live, ended := storeSessions(ctx)
		tasks := listTasks(ctx, c, 200, "")
		var soft must.Soft
		soft.Equal("status of a live session's row", tasks[live].Status, lmp.TaskStatusLive)
		soft.Equal("status of an ended session's row", tasks[ended].Status, lmp.TaskStatusEnded)
		onlyLive := listTasks(ctx, c, 200, lmp.StatusFilterLive)
		for id, t := range onlyLive {
			soft.Equal("status of row "+id+" with status_filter live", t.Status, lmp.TaskStatusLive)
		}
		_, listed := onlyLive[ended]
		soft.That(!listed, "status_filter live listed the ended session %s", ended)
		soft.Done()
	}, conformance.NeedsDriver)

	conformance.It("F-9", rules.MUST, "after tasks are created in-band by session.send, task.list lists tasks and honours limit", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		for range 2 {
			ownTask(ctx, c)
		}
		tasks := listTasks(ctx, c, 200, "")
		must.That(len(tasks) >= 2, "task.list with limit 200 returned %d rows after two tasks were created", len(tasks))
		one := listTasks(ctx, c, 1, "")
		must.That(len(one) <= 1, "task.list with limit 1 returned %d rows", len(one))
	}, conformance.NeedsEvents)
})
