package suites

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/ours"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionTaskList, func(specs *conformance.Specs) {
	specs.It("F-9", rules.MUST, "task.list is answered by task.list.result with a row per task of the session store, honouring limit", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		live, ended := storeSessions(ctx)
		tasks := listTasks(ctx, c, manyRows, "")
		for _, id := range []string{live, ended} {
			_, ok := tasks[id]
			must.That(ok, "task.list with limit %d does not list session %s of the store (%d rows)", manyRows, id, len(tasks))
		}
		one := listTasks(ctx, c, 1, "")
		must.That(len(one) <= 1, "task.list with limit 1 returned %d rows", len(one))
	}, conformance.NeedsDriver)

	specs.It("F-9", rules.INFO, "task rows say live or ended, and status_filter live lists only live tasks (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		live, ended := storeSessions(ctx)
		tasks := ownRowsByID(ctx, c, manyRows, "")
		var soft must.Soft
		status := func(r ours.Row) any {
			if s, ok := r.Status(); ok {
				return s
			}
			return "no status"
		}
		soft.Equal("status of a live session's row", status(tasks[live]), lmp.TaskStatusLive)
		soft.Equal("status of an ended session's row", status(tasks[ended]), lmp.TaskStatusEnded)
		onlyLive := ownRowsByID(ctx, c, manyRows, lmp.StatusFilterLive)
		for id, t := range onlyLive {
			soft.Equal("status of row "+id+" with status_filter live", status(t), lmp.TaskStatusLive)
		}
		_, listed := onlyLive[ended]
		soft.That(!listed, "status_filter live listed the ended session %s", ended)
		soft.Done()
	}, conformance.NeedsDriver)

	// limit is the most rows the answer holds; with more tasks than limit,
	// a row per task (F-9) leaves exactly limit of them. Eight tasks of the
	// spec's own exist whatever else the server holds.
	specs.It("F-9", rules.MUST, "with more tasks than limit, created by session.send, task.list returns exactly limit rows", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		const created = 8
		for range created {
			ownTask(ctx, c)
		}
		tasks := listTasks(ctx, c, manyRows, "")
		must.That(len(tasks) >= created, "task.list with limit %d returned %d rows after %d tasks were created", manyRows, len(tasks), created)
		for _, limit := range []int{1, 2, 7} {
			rows := taskRows(ctx, c, limit, "")
			must.That(len(rows) == limit, "task.list with limit %d returned %d rows, with at least %d tasks on the server", limit, len(rows), created)
		}
	}, conformance.NeedsEvents)

	// SHOULD: status_filter is a field of task.list (lmp-v1.md §4), and a
	// filter on status keeps the rows of that status, all of them, up to
	// limit. But §4 gives a row no field, status included (note 21): only
	// a server whose rows carry a status can be judged, through package
	// ours, so the spec is a SHOULD. The words are the server's own (note 21): the spec filters
	// only by statuses the server itself reported for its tasks, and checks
	// each row against the status the row carries, so any vocabulary and
	// any notion of state passes, as does a server with a single status.
	// Ordering is the server's: a row the unfiltered list showed within
	// limit is within limit of its status too, whatever the order, and
	// limit 1 needs only one row of the status to exist (the spec's own).
	// With the driver the store also holds an ended session, the newest
	// row, so that a filter applied after the limit shows.
	specs.It("F-9", rules.SHOULD, "status_filter lists every row of that status and only those, within limit (rows' status, note 21)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		own, stop := tasksInStates(ctx, c)
		defer stop()
		status, statuses := statusesOf(own, ownRowsByID(ctx, c, manyRows, ""))
		if len(statuses) == 0 {
			ginkgo.Skip(fmt.Sprintf("task.list with limit %d listed none of the spec's %d tasks with a status (the server holds more and orders them otherwise, or its rows carry no status): status_filter not checked", manyRows, len(own)))
		}
		if len(statuses) == 1 {
			ginkgo.AddReportEntry("task statuses", fmt.Sprintf("the server reported one status, %q, for all of %s: status_filter is checked with that status only", statuses[0], statesOf(own, status)))
		}
		for _, s := range statuses {
			rows := ownRows(ctx, c, manyRows, s)
			listed := map[string]bool{}
			for _, r := range rows {
				listed[r.TaskID] = true
				st, _ := r.Status()
				must.That(st == s, "task.list with status_filter %q listed task %s with status %s", s, r.TaskID, show(r, "status"))
			}
			for _, t := range own {
				if st, shown := status[t.id]; shown && st == s {
					must.That(listed[t.id], "task.list with status_filter %q does not list %s (%s), which the unfiltered list showed with status %q", s, t.id, t.state, s)
				}
			}
			one := ownRows(ctx, c, 1, s)
			must.That(len(one) == 1, "task.list with status_filter %q and limit 1 returned %d rows, with tasks of status %q on the server", s, len(one), s)
			st, _ := one[0].Status()
			must.That(st == s, "task.list with status_filter %q and limit 1 listed task %s with status %s", s, one[0].TaskID, show(one[0], "status"))
		}
	}, conformance.NeedsEvents, conformance.DriverFirst)

	// SHOULD: task.list reads the session store (F-9: "read-only from the
	// session store"), and status_filter filters its rows by status, so a
	// row's status follows the task's state; but §4 gives a row no status
	// (note 21), so only a server whose rows carry one is judged. Which state is the server's
	// choice, and so are the words (note 21): the store's (a session
	// Hermes reports ended, one it reports active) or the task's run (one
	// going on, one ended). The spec fails only a server whose statuses
	// follow neither: one status for all four, which no status_filter can
	// tell apart (rows with no status at all skip it). Only the driver can
	// put a session of each state in Hermes' store.
	specs.It("F-9", rules.SHOULD, "rows of tasks in different states do not all share one status (rows' status, note 21)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		own, stop := tasksInStates(ctx, c)
		defer stop()
		rows := ownRowsByID(ctx, c, manyRows, "")
		for _, t := range own {
			_, ok := rows[t.id]
			must.That(ok, "task.list with limit %d does not list %s, %s", manyRows, t.id, t.state)
		}
		status, statuses := statusesOf(own, rows)
		if len(statuses) == 0 {
			// lmp-v1.md lists no row fields: a server whose rows carry no
			// status at all has nothing for this spec to judge.
			ginkgo.Skip("the server's task rows carry no status: whether a status follows the task's state is not checked")
		}
		must.That(len(statuses) > 1, "task.list gave one status, %q, to all of %s: a status that follows no state of the task filters nothing", statuses[0], statesOf(own, status))
	}, conformance.NeedsDriver)
})
