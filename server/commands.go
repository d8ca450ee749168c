package server

import (
	"context"
	"encoding/json"
	"time"

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
	raw, _ := json.Marshal(p)
	return scoped{typ: p.FrameType(), taskID: taskID, runID: runID, payload: raw}
}

func errorResult(code, msg, requestID string) scoped {
	return scopedOf(lmp.Error{Code: code, Message: msg, RequestID: requestID}, nil, nil)
}

// cmdSessionSend injects a user message (F-5): into the task's chat, or a
// new task when task_id is absent.
func (c *conn) cmdSessionSend(ctx context.Context, f lmp.ClientFrame) {
	p, _ := lmp.DecodePayload[lmp.SessionSend](f.Type, f.Payload)
	c.idempotent(ctx, p.RequestID, func(ctx context.Context) scoped {
		task := lmp.Deref(p.TaskID)
		if task == "" {
			task = randomID("task_")
		}
		ctx, cancel := context.WithTimeout(ctx, hermesCallTimeout)
		defer cancel()
		// Enforces F-5: session.send becomes handle_message into the task's chat (a new task without task_id).
		if err := c.s.hermes.HandleMessage(ctx, c.messageEvent(task, p.Text, p.RequestID)); err != nil {
			c.log.Warn("handle_message failed", "task", task, "err", err)
			return errorResult(lmp.CodeHermesUnavailable, "Hermes did not take the message: "+err.Error(), p.RequestID)
		}
		return scopedOf(lmp.Ack{RequestID: p.RequestID, For: lmp.TypeSessionSend, TaskID: &task}, &task, nil)
	})
}

// messageEvent builds what build_source and MessageEvent carry for a
// message from this device into the task's DM chat.
func (c *conn) messageEvent(task, text, messageID string) MessageEvent {
	return MessageEvent{
		Text: text, MessageType: "text", MessageID: messageID, Timestamp: time.Now(),
		Source: SessionSource{
			Platform: "loomi", ChatID: task, ChatName: task, ChatType: "dm",
			UserID: c.dev.rec.ID, UserName: c.dev.rec.Model,
		},
	}
}

// cmdInterrupt serves run.cancel (F-6) and run.pause (F-7). Hermes turns
// cannot be suspended: pause is the same /stop, keeping the session so the
// task stays live. The run then ends with run.completed{cancelled} from
// agent_loop_stopped.
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
	// Enforces F-6: run.cancel (and run.pause) interrupts the turn through the gateway's /stop.
	if err := c.s.hermes.InterruptSession(ctx, SessionKeyPrefix+task, task); err != nil {
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
	if err := c.s.hermes.HandleMessage(ctx, c.messageEvent(task, "continue", randomID("resume_"))); err != nil {
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

// cmdTaskList answers task.list from the session store, read-only (F-9).
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
	ask := limit
	if filter != lmp.StatusFilterAll {
		ask = maxTaskList // filter after reading: ask for enough rows
	}
	ctx, cancel := context.WithTimeout(ctx, hermesCallTimeout)
	defer cancel()
	// Enforces F-9: task.list is answered from list_sessions_rich, read-only, honouring limit and status_filter.
	rows, err := c.s.hermes.ListSessions(ctx, ListSessionsOptions{Limit: ask})
	if err != nil {
		c.sendError(lmp.CodeHermesUnavailable, "Hermes did not list sessions: "+err.Error(), p.RequestID)
		return
	}
	tasks := make([]lmp.Task, 0, min(len(rows), limit))
	for _, r := range rows {
		t := taskOf(r)
		if filter != lmp.StatusFilterAll && t.Status != filter {
			continue
		}
		if len(tasks) == limit {
			break
		}
		tasks = append(tasks, t)
	}
	c.send(lmp.TaskListResult{RequestID: p.RequestID, Tasks: tasks}, nil, nil)
}

// taskOf maps a session row: live while ended_at is null.
func taskOf(r SessionRow) lmp.Task {
	t := lmp.Task{
		TaskID: r.ID, Status: lmp.TaskStatusLive, Source: r.Source,
		StartedAt: lmp.Timestamp(r.StartedAt), MessageCount: r.MessageCount,
		Preview: r.Preview, LastActive: lmp.Timestamp(r.LastActive),
	}
	if r.Title != "" {
		t.Title = lmp.Ref(r.Title)
	}
	if r.Model != "" {
		t.Model = lmp.Ref(r.Model)
	}
	if r.EndedAt != nil {
		t.Status = lmp.TaskStatusEnded
		ended := lmp.Timestamp(*r.EndedAt)
		t.EndedAt = &ended
	}
	if r.LastActive.IsZero() {
		t.LastActive = t.StartedAt
	}
	return t
}
