package suites

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/ours"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// manyRows is a task.list limit above the number of tasks a spec makes,
// and within the reference server's cap.
const manyRows = 200

// taskList sends task.list and returns its answer.
func taskList(ctx ginkgo.SpecContext, c *conformance.Conn, limit int, statusFilter string) client.Frame {
	f := must.Request(ctx, c, lmp.TaskList{Limit: ptr(limit), StatusFilter: statusFilter})
	must.That(f.Type == lmp.TypeTaskListResult, "task.list was answered with %s, want task.list.result", c.Describe(f))
	return f
}

// taskRows sends task.list and returns the rows of its answer, in the
// server's order: only their task_id is defined (§4 lists no row field,
// note 21).
func taskRows(ctx ginkgo.SpecContext, c *conformance.Conn, limit int, statusFilter string) []lmp.Task {
	return must.Decode[lmp.TaskListResult](taskList(ctx, c, limit, statusFilter)).Tasks
}

// rowHolding returns the task_id of the first row of the task.list.result
// f that holds text as the value of any of its fields, or "": a row's
// field names are the server's own (note 21), its content is the task's.
func rowHolding(f client.Frame, text string) string {
	var p struct {
		Tasks []map[string]any `json:"tasks"`
	}
	must.Succeed(json.Unmarshal(f.Payload, &p), "task.list.result payload")
	for _, row := range p.Tasks {
		for k, v := range row {
			if s, ok := v.(string); ok && s == text && k != "task_id" {
				id, _ := row["task_id"].(string)
				return id
			}
		}
	}
	return ""
}

// ownRows is taskRows for SHOULD and INFO specs, with every field of each
// row, read through package ours.
func ownRows(ctx ginkgo.SpecContext, c *conformance.Conn, limit int, statusFilter string) []ours.Row {
	rows, err := ours.Rows(taskList(ctx, c, limit, statusFilter))
	must.Succeed(err)
	return rows
}

// ownRowsByID is ownRows by task_id.
func ownRowsByID(ctx ginkgo.SpecContext, c *conformance.Conn, limit int, statusFilter string) map[string]ours.Row {
	m := map[string]ours.Row{}
	for _, r := range ownRows(ctx, c, limit, statusFilter) {
		m[r.TaskID] = r
	}
	return m
}

// listTasks sends task.list and returns the rows of its answer by
// task_id.
func listTasks(ctx ginkgo.SpecContext, c *conformance.Conn, limit int, statusFilter string) map[string]lmp.Task {
	m := map[string]lmp.Task{}
	for _, t := range taskRows(ctx, c, limit, statusFilter) {
		m[t.TaskID] = t
	}
	return m
}

// storeSessions adds a live and an ended session to Hermes' session store
// through the driver and returns their task IDs.
func storeSessions(ctx ginkgo.SpecContext) (live, ended string) {
	l, err := drv(ctx).Session(ctx, driver.SessionRequest{Title: "live " + should.NewID(""), Preview: "hi"})
	must.Succeed(err, "driver session")
	e, err := drv(ctx).Session(ctx, driver.SessionRequest{Title: "ended " + should.NewID(""), Ended: true})
	must.Succeed(err, "driver session")
	return l.TaskID, e.TaskID
}

// taskInState is a task of the spec's own, and the state the spec put it
// in, in words.
type taskInState struct {
	id, state string
}

// tasksInStates makes tasks of the spec's own in different states: in
// band, one whose run ended and one whose run goes on; with the driver,
// then also a session Hermes' store reports active and one it reports
// ended, the newest rows. A server's row status may follow either kind of
// state (note 21 leaves its words open). The spec defers stop, which
// cancels the run that goes on.
func tasksInStates(ctx ginkgo.SpecContext, c *conformance.Conn) (own []taskInState, stop func()) {
	ev := conformance.Events(ctx)
	done, err := ev.Reply(ctx, c)
	must.Succeed(err, "start a reply run")
	must.Expect(ctx, c, match.Task(done.Task).And(match.Terminal()))
	long := startLongRun(ctx, c)
	stop = func() { _ = c.Send(ctx, lmp.RunCancel{RunID: long.Started.RunID}) }
	returned := false
	defer func() {
		if !returned { // failed on the way: the spec has no stop to defer
			stop()
		}
	}()
	own = []taskInState{{done.Task, "a task whose run ended"}, {long.Task, "a task whose run goes on"}}
	if ev.Source() == conformance.SourceDriver {
		live, ended := storeSessions(ctx)
		own = append(own, taskInState{live, "a session Hermes' store reports active"}, taskInState{ended, "a session Hermes' store reports ended"})
	}
	returned = true
	return own, stop
}

// statusesOf returns the status of each of own's tasks in rows (by
// task_id), and the distinct statuses, in own's order. A task rows does
// not list, or whose row carries no status, is left out.
func statusesOf(own []taskInState, rows map[string]ours.Row) (status map[string]string, distinct []string) {
	status = map[string]string{}
	for _, t := range own {
		st, ok := rows[t.id].Status()
		if !ok {
			continue
		}
		status[t.id] = st
		if !slices.Contains(distinct, st) {
			distinct = append(distinct, st)
		}
	}
	return status, distinct
}

var _ = conformance.Section(sectionTaskList, func() {
	conformance.It("F-9", rules.MUST, "task.list is answered by task.list.result with a row per task of the session store, honouring limit", func(ctx ginkgo.SpecContext) {
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

	conformance.It("F-9", rules.INFO, "task rows say live or ended, and status_filter live lists only live tasks (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
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
	conformance.It("F-9", rules.MUST, "with more tasks than limit, created by session.send, task.list returns exactly limit rows", func(ctx ginkgo.SpecContext) {
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
	conformance.It("F-9", rules.SHOULD, "status_filter lists every row of that status and only those, within limit (rows' status, note 21)", func(ctx ginkgo.SpecContext) {
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
	conformance.It("F-9", rules.SHOULD, "rows of tasks in different states do not all share one status (rows' status, note 21)", func(ctx ginkgo.SpecContext) {
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

// statesOf names own's tasks and their states, for a message.
func statesOf(own []taskInState, status map[string]string) string {
	var out []string
	for _, t := range own {
		if _, shown := status[t.id]; shown {
			out = append(out, t.state+" ("+t.id+")")
		}
	}
	return strings.Join(out, ", ")
}

// show says what row r holds in field name, for a message: its JSON, or
// that it has none.
func show(r ours.Row, name string) string {
	if v, ok := r.Value(name); ok {
		return fmt.Sprintf("%v", must.Show(v))
	}
	return "(no " + name + ")"
}
