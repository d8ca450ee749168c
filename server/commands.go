package server

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// hermesCallTimeout bounds one call into Hermes made for a client command.
const hermesCallTimeout = 30 * time.Second

// idempotent runs exec once per (device, request_id) and sends its result
// frame; a repeat gets the first result again, verbatim, without running
// exec (I-1, note 7, note 14).
func (c *conn) idempotent(ctx context.Context, requestID string, exec func(context.Context) scoped) {
	e, first := c.dev.idem.begin(requestID)
	if !first {
		res, ok := e.wait(ctx)
		if ok {
			c.reply(res)
		}
		return
	}
	res := exec(ctx)
	e.finish(res)
	c.reply(res)
}

func scopedOf(p lmp.Payload, taskID, runID *string) scoped {
	raw, err := encodePayload(p, taskID, runID)
	if err != nil {
		raw, _ = json.Marshal(lmp.Error{Code: lmp.CodeInternal, Message: "the reply could not be encoded: " + err.Error()})
		return scoped{typ: lmp.TypeError, payload: raw}
	}
	return scoped{typ: p.FrameType(), taskID: taskID, runID: runID, payload: raw}
}

func errorResult(code, msg, requestID string) scoped {
	return scopedOf(lmp.Error{Code: code, Message: msg, RequestID: requestID}, nil, nil)
}

// cmdSessionSend injects a user message (F-5): into the task's chat, or a
// new task when task_id is absent.
func (c *conn) cmdSessionSend(ctx context.Context, f lmp.ClientFrame) {
	p, _ := lmp.DecodePayload[lmp.SessionSend](f.Type, f.Payload)
	if reason := c.s.storeFailing(); reason != "" {
		// Not acknowledged: its events could not be made durable. Not
		// kept as the request's result either: a retry after the store
		// recovers is served.
		c.sendError(lmp.CodeStoreUnavailable, "the server cannot make events durable ("+reason+"): try again when it recovers", p.RequestID)
		return
	}
	c.idempotent(ctx, p.RequestID, func(ctx context.Context) scoped {
		task := lmp.Deref(p.TaskID)
		if task == "" {
			task = randomID("task_")
		}
		ctx, cancel := context.WithTimeout(ctx, hermesCallTimeout)
		defer cancel()
		// Enforces F-5: session.send becomes handle_message into the task's chat (a new task without task_id).
		if err := c.handleMessage(ctx, task, p.Text, p.RequestID); err != nil {
			c.log.Warn("handle_message failed", "task", lmp.Shorten(task), "err", err)
			return errorResult(lmp.CodeHermesUnavailable, "Hermes did not take the message: "+err.Error(), p.RequestID)
		}
		return scopedOf(lmp.Ack{RequestID: p.RequestID, For: lmp.TypeSessionSend, TaskID: &task}, &task, nil)
	})
}

// handleMessage hands a message from this device in the task's chat to
// handle_message. The message is noted first, so that its turn's
// pre_llm_call links the turn's Hermes session to the chat (note 18).
func (c *conn) handleMessage(ctx context.Context, task, text, messageID string) error {
	forget := c.s.runs.noteInbound(task, text, c.dev.rec.ID)
	err := c.s.hermes.HandleMessage(ctx, c.messageEvent(task, text, messageID))
	if err != nil {
		forget()
	}
	return err
}

// messageEvent builds what build_source and MessageEvent carry for a
// message from this device into the task's DM chat.
func (c *conn) messageEvent(task, text, messageID string) hermes.MessageEvent {
	return hermes.MessageEvent{
		Text: text, MessageType: "text", MessageID: messageID, Timestamp: time.Now(),
		Source: hermes.SessionSource{
			Platform: hermes.Platform, ChatID: task, ChatName: task, ChatType: "dm",
			UserID: c.dev.rec.ID, UserName: c.dev.rec.Model,
		},
	}
}

// cmdInterrupt serves run.cancel (F-6) and run.pause (F-7) with the
// inbound message /stop, as a user of any platform stops a turn. Hermes
// turns cannot be suspended: pause is the same /stop, keeping the session
// so the task stays live. The run then ends with run.completed{cancelled}
// when Hermes reports the stop.
func (c *conn) cmdInterrupt(ctx context.Context, f lmp.ClientFrame) {
	var p struct {
		RunID string `json:"run_id"`
	}
	_ = json.Unmarshal(f.Payload, &p)
	task, ended, ok := c.s.runs.lookup(p.RunID)
	if !ok {
		c.sendError(lmp.CodeUnknownRun, "no run "+p.RunID, "")
		return
	}
	if ended {
		// Interrupting now would stop a later run of the same task.
		c.sendError(lmp.CodeUnknownRun, "run "+p.RunID+" has already ended", "")
		return
	}
	ctx, cancel := context.WithTimeout(ctx, hermesCallTimeout)
	defer cancel()
	// Enforces F-6: run.cancel (and run.pause) interrupts the turn with the inbound message /stop.
	if err := c.s.hermes.HandleMessage(ctx, c.messageEvent(task, hermes.StopCommand, randomID("stop_"))); err != nil {
		c.log.Warn("interrupt failed", "run", p.RunID, "err", err)
		c.sendError(lmp.CodeHermesUnavailable, "Hermes did not interrupt the run: "+err.Error(), "")
	}
}

// cmdResume serves run.resume (F-7): it injects the user message
// "continue" into the run's task, which starts a new run. It is not a real
// resume.
func (c *conn) cmdResume(ctx context.Context, f lmp.ClientFrame) {
	p, _ := lmp.DecodePayload[lmp.RunResume](f.Type, f.Payload)
	task, _, ok := c.s.runs.lookup(p.RunID)
	if !ok {
		c.sendError(lmp.CodeUnknownRun, "no run "+p.RunID, "")
		return
	}
	ctx, cancel := context.WithTimeout(ctx, hermesCallTimeout)
	defer cancel()
	// Enforces F-7: run.resume injects "continue"; pause is /stop keeping the session (package doc says so).
	if err := c.handleMessage(ctx, task, "continue", randomID("resume_")); err != nil {
		c.sendError(lmp.CodeHermesUnavailable, "Hermes did not take the continue message: "+err.Error(), "")
	}
}

// cmdApprovalResolve resolves an approval, first come first served across
// devices (M-2, I-2), idempotent per request_id (I-1, note 7).
func (c *conn) cmdApprovalResolve(ctx context.Context, f lmp.ClientFrame) {
	p, _ := lmp.DecodePayload[lmp.ApprovalResolve](f.Type, f.Payload)
	c.idempotent(ctx, p.RequestID, func(ctx context.Context) scoped {
		return c.s.resolveApproval(ctx, c.dev.rec.ID, p)
	})
}

// maxTaskList caps task.list's limit.
const maxTaskList = 200

// cmdTaskList answers task.list from the session store, read-only (F-9):
// the Loomi sessions, one row per chat (note 18). A chat that Hermes rolled
// over to new sessions is one row: its newest session's, with the chat's
// first start, its messages summed and its latest activity. A session
// linked to no chat (one from before the adapter started) is a row of its
// own, named by its session id.
func (c *conn) cmdTaskList(ctx context.Context, f lmp.ClientFrame) {
	p, _ := lmp.DecodePayload[lmp.TaskList](f.Type, f.Payload)
	limit := 20
	if p.Limit != nil { // F-9
		limit = min(*p.Limit, maxTaskList)
	}
	filter := p.StatusFilter
	if filter == "" {
		filter = lmp.StatusFilterAll
	}
	ctx, cancel := context.WithTimeout(ctx, hermesCallTimeout)
	defer cancel()
	// Enforces F-9: task.list is answered from list_sessions_rich, read-only, honouring limit and status_filter.
	rows, err := c.s.hermes.ListSessions(ctx, hermes.ListSessionsOptions{Source: hermes.Platform, Limit: maxTaskList})
	if err != nil {
		c.sendError(lmp.CodeHermesUnavailable, "Hermes did not list sessions: "+err.Error(), p.RequestID)
		return
	}
	c.send(lmp.TaskListResult{RequestID: p.RequestID, Tasks: c.s.tasksOf(rows, filter, limit)}, nil, nil)
}

// tasksOf folds session rows, newest first, into one task per chat, and
// keeps the first limit tasks whose status passes filter. A chat's status
// is its newest session's; its older sessions only widen its times and add
// to its messages. So a chat is judged by the filter and the limit on its
// first row, and a task is built only for a chat that is kept: a task.list
// reads up to maxTaskList rows to answer for the first few chats.
func (s *Server) tasksOf(rows []hermes.SessionRow, filter string, limit int) []lmp.Task {
	tasks := make([]lmp.Task, 0, min(len(rows), limit))
	fold := taskFolds.Get().(*taskFold)
	defer func() {
		clear(fold.at)
		fold.ids = fold.ids[:0]
		taskFolds.Put(fold)
	}()
	at := fold.at // task id → its index in tasks, or leftOut
	fold.ids = s.runs.taskIDs(fold.ids, rows)
	const leftOut = -1
	for n, r := range rows {
		id := fold.ids[n]
		i, seen := at[id]
		switch {
		case seen && i != leftOut:
			merged := &tasks[i] // the chat's newer session
			merged.StartedAt = min(merged.StartedAt, lmp.Timestamp(r.StartedAt))
			merged.LastActive = max(merged.LastActive, lastActive(r))
			merged.MessageCount += r.MessageCount
		case seen:
		case len(tasks) == limit || (filter != lmp.StatusFilterAll && statusOf(r) != filter):
			at[id] = leftOut
		default:
			at[id] = len(tasks)
			t := taskOf(r)
			t.TaskID = id
			tasks = append(tasks, t)
		}
	}
	return tasks
}

// taskFold is what tasksOf folds rows with: the task id of each row, and
// an index of the tasks by id. taskFolds holds them, emptied: a task.list
// would otherwise allocate a map of up to maxTaskList entries.
type taskFold struct {
	ids []string
	at  map[string]int
}

var taskFolds = sync.Pool{New: func() any {
	return &taskFold{ids: make([]string, 0, maxTaskList), at: make(map[string]int, maxTaskList)}
}}

// taskOf maps a session row: live while ended_at is null.
func taskOf(r hermes.SessionRow) lmp.Task {
	t := lmp.Task{
		TaskID: r.ID, Status: statusOf(r), Source: r.Source,
		StartedAt: lmp.Timestamp(r.StartedAt), MessageCount: r.MessageCount,
		Preview: r.Preview, LastActive: lastActive(r),
	}
	if r.Title != "" {
		t.Title = lmp.Ref(r.Title)
	}
	if r.Model != "" {
		t.Model = lmp.Ref(r.Model)
	}
	if r.EndedAt != nil {
		ended := lmp.Timestamp(*r.EndedAt)
		t.EndedAt = &ended
	}
	return t
}

// statusOf is a session row's task status: live while ended_at is null.
func statusOf(r hermes.SessionRow) string {
	if r.EndedAt != nil {
		return lmp.TaskStatusEnded
	}
	return lmp.TaskStatusLive
}

// lastActive is a session row's last activity, its start when it has none.
func lastActive(r hermes.SessionRow) float64 {
	if r.LastActive.IsZero() {
		return lmp.Timestamp(r.StartedAt)
	}
	return lmp.Timestamp(r.LastActive)
}
