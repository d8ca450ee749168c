package suites

import (
	"context"
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
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// task.list and the tasks a spec creates for itself.

// manyRows is a task.list limit above the number of tasks a spec makes,
// and within the reference server's cap.
const manyRows = 200

// taskList sends task.list and returns its answer.
func taskList(ctx ginkgo.SpecContext, c *conformance.Conn, limit int, statusFilter string) client.Frame {
	ginkgo.GinkgoHelper()
	f := must.Request(ctx, c, lmp.TaskList{Limit: ptr(limit), StatusFilter: statusFilter})
	must.That(f.Type == lmp.TypeTaskListResult, "task.list was answered with %s, want task.list.result", c.Describe(f))
	return f
}

// taskRows sends task.list and returns the rows of its answer, in the
// server's order: only their task_id is defined (§4 lists no row field,
// note 21).
func taskRows(ctx ginkgo.SpecContext, c *conformance.Conn, limit int, statusFilter string) []lmp.Task {
	ginkgo.GinkgoHelper()
	return must.Decode[lmp.TaskListResult](taskList(ctx, c, limit, statusFilter)).Tasks
}

// rowHolding returns the task_id of the first row of the task.list.result
// f that holds text as the value of any of its fields, or "": a row's
// field names are the server's own (note 21), its content is the task's.
func rowHolding(f client.Frame, text string) string {
	ginkgo.GinkgoHelper()
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
	ginkgo.GinkgoHelper()
	rows, err := ours.Rows(taskList(ctx, c, limit, statusFilter))
	must.Succeed(err)
	return rows
}

// ownRowsByID is ownRows by task_id.
func ownRowsByID(ctx ginkgo.SpecContext, c *conformance.Conn, limit int, statusFilter string) map[string]ours.Row {
	ginkgo.GinkgoHelper()
	m := map[string]ours.Row{}
	for _, r := range ownRows(ctx, c, limit, statusFilter) {
		m[r.TaskID] = r
	}
	return m
}

// listTasks sends task.list and returns the rows of its answer by
// task_id.
func listTasks(ctx ginkgo.SpecContext, c *conformance.Conn, limit int, statusFilter string) map[string]lmp.Task {
	ginkgo.GinkgoHelper()
	m := map[string]lmp.Task{}
	for _, t := range taskRows(ctx, c, limit, statusFilter) {
		m[t.TaskID] = t
	}
	return m
}

// storeSessions adds a live and an ended session to Hermes' session store
// through the driver and returns their task IDs.
func storeSessions(ctx ginkgo.SpecContext) (live, ended string) {
	ginkgo.GinkgoHelper()
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
	ginkgo.GinkgoHelper()
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
	ginkgo.GinkgoHelper()
	if v, ok := r.Value(name); ok {
		return fmt.Sprintf("%v", must.Show(v))
	}
	return "(no " + name + ")"
}

// ownTask creates a task for the spec alone, with one notification, and
// takes that notification from c: the requests that follow go into it, and
// only their events count.
func ownTask(ctx context.Context, c *conformance.Conn) string {
	ginkgo.GinkgoHelper()
	return oneNotification(ctx, c, nil)
}

// oneNotification sends the trigger of one notification into task (a new
// task when nil), takes the notification from c, and returns its task:
// what the server sent in that task before it has reached c.
func oneNotification(ctx context.Context, c *conformance.Conn, task *string) string {
	ginkgo.GinkgoHelper()
	_, in := sendTrigger(ctx, c, lmp.SessionSend{TaskID: task, Text: conformance.Events(ctx).Text(conformance.TriggerNotifications, 1)})
	must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Task(in)))
	return in
}

// executions sends one more request into task, one that starts a run,
// and counts the notifications c holds that the requests before it
// produced in task (each produces one) ahead of that run. A request
// executed twice produced two: Hermes takes a chat's messages in order, so
// they all came before the run. seq is that of the run's terminal frame.
func executions(ctx context.Context, c *conformance.Conn, task string) (n int, seq int64) {
	ginkgo.GinkgoHelper()
	sendTrigger(ctx, c, lmp.SessionSend{TaskID: &task, Text: conformance.Events(ctx).Text(conformance.TriggerReply, 0)})
	started := must.Expect(ctx, c, match.Task(task).And(match.Type(lmp.TypeRunStarted)))
	end := must.Expect(ctx, c, match.Task(task).And(match.Terminal()))
	for _, f := range pendingIn(c, task, match.Type(lmp.TypeNotification)) {
		if f.Seq < started.Seq {
			n++
		}
	}
	return n, end.Seq
}
