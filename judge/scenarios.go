package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// scenario is one part of the run and the specs it judges.
type scenario struct {
	specs []Spec
	play  func(*judgeRun, context.Context) error
	// alsoFor are specs judged over the whole run that need this
	// scenario's frames: selecting one of them plays it too.
	alsoFor []Spec
}

// scenarios are played in this order. Pairing comes first and is always
// played; the certificate and protocol-version scenarios come last, in
// that order: the first asks the app to pair again (over wss://), the
// second ends the app's session for good.
func scenarios() []scenario {
	return []scenario{
		// Pings make the app send pongs: the frames of C-4 include them.
		{[]Spec{specPong}, (*judgeRun).heartbeat, []Spec{specFrames}},
		{[]Spec{specPongBurst, specLossReconnect, specBurstLastSeq}, (*judgeRun).burst, nil},
		{[]Spec{specSlowReconnect, specReplayLastSeq}, (*judgeRun).slowConsumer, nil},
		{[]Spec{specHeartbeatReconnect, specTruncated}, (*judgeRun).heartbeatClose, nil},
		{[]Spec{specUnknownKept, specUnknownSeq}, (*judgeRun).unknown, nil},
		{[]Spec{specDistinctIDs, specCancel, specResentID}, (*judgeRun).requestsScenario, nil},
		{[]Spec{specChoice, specOtherDevice, specAlreadyResolved}, (*judgeRun).approvals, nil},
		{[]Spec{specRestart}, (*judgeRun).restart, nil},
		{[]Spec{specPinRefused, specPinAccepted}, (*judgeRun).pinning, nil},
		{[]Spec{specVersion}, (*judgeRun).version, nil},
	}
}

// play pairs with the app, then plays every selected scenario.
func (j *judgeRun) play(ctx context.Context) {
	if err := j.pair(ctx); err != nil {
		j.gone = fmt.Errorf("the app never paired: %v", err)
		j.finalSpecs() // what it sent is judged all the same
		return
	}
	for _, sc := range scenarios() {
		if !j.selected(append(sc.specs, sc.alsoFor...)...) {
			continue
		}
		if j.gone == nil {
			if err := j.live(ctx); err != nil {
				j.gone = err
			}
		}
		if j.gone != nil {
			j.skipRest(j.gone, sc.specs...)
			continue
		}
		if err := sc.play(j, ctx); err != nil {
			if ctx.Err() != nil {
				j.gone = fmt.Errorf("the run was interrupted")
			}
			j.skipRest(skipf("the scenario ended early: %v", err), sc.specs...)
		}
	}
	j.finalSpecs()
}

// live makes sure the app is connected: after a scenario that left it
// without a connection, it waits for the app to come back.
func (j *judgeRun) live(ctx context.Context) error {
	if j.conn != nil && !j.conn.closed() {
		return nil
	}
	j.step("waiting for the app to reconnect")
	c, _, err := j.reconnect(ctx, j.t.Reconnect)
	if err != nil {
		return fmt.Errorf("the app did not reconnect within %v: every later spec needs it", j.t.Reconnect)
	}
	return j.helloOK(ctx, c, nil, lmp.Version, false)
}

// pair mints the first token and waits for the app: C-1 for a new device.
func (j *judgeRun) pair(ctx context.Context) error {
	if err := j.mint(j.ep.wsURL, ""); err != nil {
		return err
	}
	j.step("waiting up to %v for the app to pair: scan the QR code", j.t.FirstContact)
	var c *appConn
	var h lmp.Hello
	err := j.judge(specPairHello, func() error {
		var err error
		c, h, err = j.accept(ctx, j.t.FirstContact)
		if err != nil {
			return skipf("no app connected within %v", j.t.FirstContact)
		}
		switch {
		case h.Token != j.token:
			return fmt.Errorf("expected hello with the QR's token, actual: a hello whose token is %s", describeToken(h.Token))
		case h.DeviceID != "" || h.Credential != "":
			return fmt.Errorf("expected a new device's hello with the token alone, actual: it also carries device_id %q and a credential", h.DeviceID)
		}
		return nil
	})
	if c == nil {
		return err
	}
	if h.Token != j.token {
		c.fatal(ctx, lmp.CodeInvalidToken, "unknown, used or expired token", 1008)
		return errors.New("the app's hello did not carry the QR's token")
	}
	j.deviceID, j.cred = "dev_"+newSecret()[:12], newSecret()
	j.log.secret(j.cred)
	j.seq.Store(0)
	j.conn = c
	j.step("the app paired as device %s", j.deviceID)
	return j.helloOK(ctx, c, &j.cred, lmp.Version, false)
}

func describeToken(t string) string {
	if t == "" {
		return "missing"
	}
	return "another one (" + lmp.Fingerprint(t) + ")"
}

// heartbeat: three pings, each answered in time (C-3).
func (j *judgeRun) heartbeat(ctx context.Context) error {
	j.step("pinging the app")
	return j.judge(specPong, func() error {
		for i := range 3 {
			if _, err := j.ping(ctx, j.conn); err != nil {
				return fmt.Errorf("ping %d of 3: %v", i+1, err)
			}
		}
		return nil
	})
}

// burst sends Burst notifications with duplicates and out-of-order seqs
// and pings among them (C-3), then old seqs again; then it drops the
// connection as a network loss does and judges the app's next hello
// (C-6, C-5).
func (j *judgeRun) burst(ctx context.Context) error {
	c := j.conn
	n := j.t.Burst
	j.step("sending a burst of %d events, with duplicates, seqs out of order and pings among them", n)
	if err := j.judge(specPongBurst, func() error {
		var pings []time.Time
		base := j.seq.Load()
		for len(c.pongs) > 0 {
			<-c.pongs
		}
		for i := 0; i < n; i++ {
			// Every 50th pair goes out of order: k+1 before k.
			if i%50 == 10 && i+1 < n {
				f1, _ := lmp.NewFrame(base+int64(i)+2, time.Now(), nil, nil, burstNote(i+2, n))
				f0, _ := lmp.NewFrame(base+int64(i)+1, time.Now(), nil, nil, burstNote(i+1, n))
				j.events[f1.Seq], j.events[f0.Seq] = f1, f0
				j.seq.Store(f1.Seq)
				if err := c.writeFrame(ctx, f1); err != nil {
					return fmt.Errorf("the connection failed during the burst: %v", err)
				}
				if err := c.writeFrame(ctx, f0); err != nil {
					return fmt.Errorf("the connection failed during the burst: %v", err)
				}
				i++
				continue
			}
			if _, err := j.event(ctx, c, nil, nil, burstNote(i+1, n)); err != nil {
				return fmt.Errorf("the connection failed during the burst: %v", err)
			}
			// Every 40th event a duplicate of an earlier one (E-7).
			if i%40 == 39 {
				_ = j.resend(ctx, c, base+int64(i)-20)
			}
			if i%(max(n/4, 1)) == n/8 {
				pings = append(pings, time.Now())
				if err := c.send(ctx, lmp.Ping{}); err != nil {
					return err
				}
			}
		}
		for i, sent := range pings {
			d, err := j.pongAfter(ctx, c, sent)
			if err != nil {
				return fmt.Errorf("ping %d of %d sent during the burst: %v", i+1, len(pings), err)
			}
			_ = d
		}
		return nil
	}); err != nil {
		j.log.note("the burst ended with: %v", err)
	}
	// Old seqs again after the burst: a replay of what the app processed.
	high := j.seq.Load()
	_ = j.resend(ctx, c, high-int64(n)+2)
	_ = j.resend(ctx, c, high-3)
	if _, err := j.ping(ctx, c); err != nil {
		j.log.note("no pong after the burst's trailing duplicates: %v", err)
	}
	j.step("dropping the connection, as a network loss does")
	c.drop()
	return j.expectReconnect(ctx, &specLossReconnect, &specBurstLastSeq, high, false)
}

func burstNote(i, n int) lmp.Payload {
	return lmp.Notification{Category: "diagnostic", Title: TitlePrefix + " burst", Text: fmt.Sprintf("event %d of %d", i, n), Source: "lmp-check"}
}

func isSkip(err error) bool {
	var se skipError
	return errors.As(err, &se)
}

// expectReconnect waits for the app to come back after the judge ended its
// connection: rc (when not nil) judges that it came back with device_id,
// credential and last_seq (C-6), seqSpec that last_seq is want (C-5); with
// seqSpec nil rc judges both. It answers the hello (truncated as asked)
// and leaves the connection in j.conn.
func (j *judgeRun) expectReconnect(ctx context.Context, rc, seqSpec *Spec, want int64, truncated bool) error {
	var h lmp.Hello
	var c *appConn
	checkSeq := func() error {
		switch {
		case h.LastSeq == nil:
			return errors.New("expected hello with last_seq, actual: hello without last_seq")
		case *h.LastSeq != want:
			return fmt.Errorf("expected last_seq %d (the highest seq sent, and read by the app before its pong), actual: %d", want, *h.LastSeq)
		}
		return nil
	}
	come := func() error {
		var err error
		c, h, err = j.reconnect(ctx, j.t.Reconnect)
		if err != nil {
			return fmt.Errorf("expected the app to reconnect with device_id and credential within %v, actual: it did not", j.t.Reconnect)
		}
		if h.LastSeq == nil {
			return errors.New("expected hello with last_seq, actual: hello without last_seq")
		}
		if seqSpec == nil {
			return checkSeq()
		}
		return nil
	}
	var err error
	if rc != nil {
		err = j.judge(*rc, come)
	} else {
		err = come()
	}
	if c == nil {
		if seqSpec != nil {
			j.skipRest(skipf("the app did not reconnect within %v", j.t.Reconnect), *seqSpec)
		}
		return err
	}
	if seqSpec != nil {
		_ = j.judge(*seqSpec, checkSeq)
	}
	return j.helloOK(ctx, c, nil, lmp.Version, truncated)
}

// slowConsumer replays the gap after the reconnect with duplicates and
// seqs out of order, adds new events, then closes as a slow consumer
// (slow_consumer, 1013): the app must come back with the highest seq.
func (j *judgeRun) slowConsumer(ctx context.Context) error {
	c := j.conn
	j.step("replaying events the app already has, out of order, then closing as a slow consumer (1013)")
	high := j.seq.Load()
	for s := high; s > max(high-5, 0); s-- {
		_ = j.resend(ctx, c, s)
	}
	base := high
	for _, s := range []int64{base + 2, base + 1, base + 3} {
		f, _ := lmp.NewFrame(s, time.Now(), nil, nil, lmp.Notification{Category: "result", Title: TitlePrefix + " replay", Text: fmt.Sprintf("event %d", s), Source: "lmp-check"})
		j.events[s] = f
		_ = c.writeFrame(ctx, f)
	}
	j.seq.Store(base + 3)
	_ = j.resend(ctx, c, base+1)
	if _, err := j.ping(ctx, c); err != nil {
		j.log.note("no pong after the replay: %v", err)
	}
	c.fatal(ctx, lmp.CodeSlowConsumer, "the connection fell behind", 1013)
	return j.expectReconnect(ctx, &specSlowReconnect, &specReplayLastSeq, base+3, false)
}

// heartbeatClose closes as a server does after three missed pongs; the
// app's reconnect gets hello.ok with truncated: true (C-6, C-7).
func (j *judgeRun) heartbeatClose(ctx context.Context) error {
	c := j.conn
	j.step("closing as after missed pongs (heartbeat_timeout, 1008); the reconnect gets truncated: true")
	_, _ = j.event(ctx, c, nil, nil, lmp.Notification{Category: "result", Title: TitlePrefix + " before the close", Text: "one more event", Source: "lmp-check"})
	if _, err := j.ping(ctx, c); err != nil {
		j.log.note("no pong: %v", err)
	}
	c.fatal(ctx, lmp.CodeHeartbeatTimeout, "three pings went unanswered", 1008)
	high := j.seq.Load()
	if err := j.expectReconnect(ctx, &specHeartbeatReconnect, nil, high, true); err != nil {
		return err
	}
	return j.judge(specTruncated, func() error {
		f, err := j.await(ctx, j.conn, j.t.ActionTimeout, lmp.TypeTaskList)
		if err != nil {
			return fmt.Errorf("expected task.list after hello.ok with truncated: true, within %v, actual: none (%v)", j.t.ActionTimeout, err)
		}
		j.answer(ctx, j.conn, f)
		return nil
	})
}

// unknown sends frames of an unknown type and frames with unknown fields
// (V-1): the app keeps the connection, answers the next ping and counts
// the unknown frames' seqs (C-8).
func (j *judgeRun) unknown(ctx context.Context) error {
	c := j.conn
	j.step("sending frames of an unknown type and with unknown fields")
	unknownFrame := func() (int64, error) {
		seq := j.seq.Add(1)
		raw, _ := json.Marshal(map[string]any{"v": 1, "seq": seq, "ts": lmp.Timestamp(time.Now()), "type": "lmp_check.future_event",
			"task_id": nil, "run_id": nil, "event_id": lmp.EventID(seq), "payload": map[string]any{"novel": true, "items": []int{1, 2}},
			"trace_id": "a field of a later minor version"})
		return seq, c.writeRaw(ctx, raw)
	}
	return j.judgeUnknown(ctx, c, unknownFrame)
}

func (j *judgeRun) judgeUnknown(ctx context.Context, c *appConn, unknownFrame func() (int64, error)) error {
	err := j.judge(specUnknownKept, func() error {
		if _, err := unknownFrame(); err != nil {
			return err
		}
		seq := j.seq.Add(1)
		raw, _ := json.Marshal(map[string]any{"v": 1, "seq": seq, "ts": lmp.Timestamp(time.Now()), "type": lmp.TypeNotification,
			"task_id": nil, "run_id": nil, "event_id": lmp.EventID(seq), "region": "a new envelope field",
			"payload": map[string]any{"category": "result", "title": TitlePrefix + " unknown fields", "text": "this notification has fields of a later version",
				"source": "lmp-check", "requires_attention": false, "priority": 3, "attachments": []string{"x"}}})
		if err := c.writeRaw(ctx, raw); err != nil {
			return err
		}
		if _, err := unknownFrame(); err != nil {
			return err
		}
		if _, err := j.ping(ctx, c); err != nil {
			return fmt.Errorf("after the unknown frames: %v", err)
		}
		return nil
	})
	high := j.seq.Load()
	if err != nil && c.closed() {
		j.skipRest(skipf("the app closed the connection on the unknown frames"), specUnknownSeq)
		return j.live(ctx)
	}
	c.drop()
	return j.expectReconnect(ctx, nil, &specUnknownSeq, high, false)
}

// requestsScenario asks for two messages, a cancel and a message left
// unanswered across a disconnect (C-10, C-4).
func (j *judgeRun) requestsScenario(ctx context.Context) error {
	c := j.conn
	task := lmp.Ref("task_lmpcheck")
	for _, text := range []string{"lmp-check one", "lmp-check two"} {
		if err := j.act(ctx, c, Action{Action: ActionSend, Text: text}, "send a message",
			fmt.Sprintf("Send the message “%s” in a new chat.", text)); err != nil {
			return err
		}
		f, err := j.await(ctx, c, j.t.ActionTimeout, lmp.TypeSessionSend)
		if err != nil {
			// C-10's distinctness is judged at the end, over every request.
			j.skipRest(didNotAct("no session.send within "+j.t.ActionTimeout.String()), specCancel, specResentID)
			return nil
		}
		j.answer(ctx, c, f)
	}
	run := "run_lmpcheck_cancel"
	_, _ = j.event(ctx, c, task, &run, lmp.RunStarted{RunID: run, TaskID: *task, SessionID: "s_lmpcheck", Surface: "loomi", Model: "mock", Provider: "lmp-check", StartedAt: lmp.Timestamp(time.Now()), Title: lmp.Ref("a run to cancel")})
	_ = j.judge(specCancel, func() error {
		if err := j.act(ctx, c, Action{Action: ActionCancel, RunID: run}, "cancel the run", "Stop the running answer in the chat (the run “a run to cancel”)."); err != nil {
			return err
		}
		f, err := j.await(ctx, c, j.t.ActionTimeout, lmp.TypeRunCancel)
		if err != nil {
			return didNotAct("no run.cancel within " + j.t.ActionTimeout.String())
		}
		var p lmp.RunCancel
		_ = json.Unmarshal(f.payload, &p)
		if p.RunID != run {
			return fmt.Errorf("expected run.cancel for %s, actual: run_id %q", run, p.RunID)
		}
		return nil
	})
	_, _ = j.event(ctx, c, task, &run, lmp.RunCompleted{RunID: run, Status: "cancelled", Finished: true})

	// A message the server never answers before the connection is lost.
	return j.judge(specResentID, func() error {
		text := "lmp-check three"
		if err := j.act(ctx, c, Action{Action: ActionSend, Text: text}, "send a message",
			fmt.Sprintf("Send the message “%s”. The connection will drop before it is answered: the app should send it again.", text)); err != nil {
			return err
		}
		f, err := j.await(ctx, c, j.t.ActionTimeout, lmp.TypeSessionSend)
		if err != nil {
			return didNotAct("no session.send within " + j.t.ActionTimeout.String())
		}
		var first lmp.SessionSend
		_ = json.Unmarshal(f.payload, &first)
		j.step("dropping the connection before the message is answered")
		c.drop()
		c2, _, err := j.reconnect(ctx, j.t.Reconnect)
		if err != nil {
			return skipf("the app did not reconnect within %v", j.t.Reconnect)
		}
		if err := j.helloOK(ctx, c2, nil, lmp.Version, false); err != nil {
			return err
		}
		again, err := j.await(ctx, c2, j.t.ActionTimeout, lmp.TypeSessionSend)
		if err != nil {
			return skipf("the app did not send the unanswered message again (it need not; the rule is about a re-sent request's request_id)")
		}
		j.answer(ctx, c2, again)
		var p lmp.SessionSend
		_ = json.Unmarshal(again.payload, &p)
		if p.RequestID != first.RequestID {
			return fmt.Errorf("expected the re-sent session.send (%q) to reuse request_id %q, actual: %q", p.Text, first.RequestID, p.RequestID)
		}
		return nil
	})
}

// approvals: a prompt the app resolves, one another device resolves first,
// one whose resolve is answered already_resolved (C-11).
func (j *judgeRun) approvals(ctx context.Context) error {
	c := j.conn
	task, run := lmp.Ref("task_lmpcheck"), lmp.Ref("run_lmpcheck_approval")
	prompt := func(id string, choices ...string) error {
		var cs []lmp.ApprovalChoice
		for _, ch := range choices {
			cs = append(cs, lmp.ApprovalChoice{Label: ch, Choice: ch, Style: "default"})
		}
		_, err := j.event(ctx, c, task, run, lmp.ApprovalRequired{ApprovalID: id, RunID: run, TaskID: task,
			Command: "rm -rf ./build", Description: "lmp-check: an approval prompt", Choices: cs,
			SessionKeyRef: "sk_lmpcheck", DeadlineTS: lmp.Timestamp(time.Now().Add(10 * time.Minute))})
		return err
	}
	resolveOf := func(f inFrame) lmp.ApprovalResolve {
		var p lmp.ApprovalResolve
		_ = json.Unmarshal(f.payload, &p)
		return p
	}
	// list is the barrier: an app acts in order, so once its task.list
	// arrives it has dealt with everything before.
	barrier := func(approvalID string) error {
		if err := j.act(ctx, c, Action{Action: ActionList}, "open the task list", "Open the list of tasks (chats)."); err != nil {
			return err
		}
		for {
			f, err := j.await(ctx, c, j.t.ActionTimeout, lmp.TypeTaskList, lmp.TypeApprovalResolve)
			if err != nil {
				return didNotAct("no task.list within " + j.t.ActionTimeout.String())
			}
			if f.typ == lmp.TypeTaskList {
				j.answer(ctx, c, f)
				return nil
			}
			if p := resolveOf(f); p.ApprovalID == approvalID {
				_ = c.send(ctx, lmp.Error{Code: lmp.CodeAlreadyResolved, Message: "already resolved", RequestID: p.RequestID})
				return fmt.Errorf("expected no approval.resolve for %s after it ended, actual: one with choice %q", approvalID, p.Choice)
			}
			j.answer(ctx, c, f)
		}
	}

	_ = j.judge(specChoice, func() error {
		if err := prompt("appr_lmpcheck_1", "once", "session", "deny"); err != nil {
			return err
		}
		if err := j.act(ctx, c, Action{Action: ActionResolve, ApprovalID: "appr_lmpcheck_1", Choice: "once"}, "approve once",
			"Approve the command “rm -rf ./build” once."); err != nil {
			return err
		}
		f, err := j.await(ctx, c, j.t.ActionTimeout, lmp.TypeApprovalResolve)
		if err != nil {
			return didNotAct("no approval.resolve within " + j.t.ActionTimeout.String())
		}
		p := resolveOf(f)
		_ = c.send(ctx, lmp.Ack{RequestID: p.RequestID, For: lmp.TypeApprovalResolve, ApprovalID: lmp.Ref(p.ApprovalID)})
		_, _ = j.event(ctx, c, task, run, lmp.ApprovalResolved{ApprovalID: p.ApprovalID, Choice: p.Choice, DecidedBy: "remote"})
		switch {
		case p.ApprovalID != "appr_lmpcheck_1":
			return fmt.Errorf("expected approval_id appr_lmpcheck_1, actual: %q", p.ApprovalID)
		case !slices.Contains([]string{"once", "session", "deny"}, p.Choice):
			return fmt.Errorf("expected a choice among the prompt's (once, session, deny), actual: %q", p.Choice)
		}
		return nil
	})
	_ = j.judge(specOtherDevice, func() error {
		if err := prompt("appr_lmpcheck_2", "once", "deny"); err != nil {
			return err
		}
		_, _ = j.event(ctx, c, task, run, lmp.ApprovalResolved{ApprovalID: "appr_lmpcheck_2", Choice: "deny", DecidedBy: "local"})
		if err := j.act(ctx, c, Action{Action: ActionResolve, ApprovalID: "appr_lmpcheck_2", Choice: "once"}, "approve once, if you still can",
			"Approve the command “rm -rf ./build” once, if the app still offers it: it was just resolved on another device, so the app should not."); err != nil {
			return err
		}
		return barrier("appr_lmpcheck_2")
	})
	return j.judge(specAlreadyResolved, func() error {
		if err := prompt("appr_lmpcheck_3", "once", "deny"); err != nil {
			return err
		}
		if err := j.act(ctx, c, Action{Action: ActionResolve, ApprovalID: "appr_lmpcheck_3", Choice: "deny"}, "deny",
			"Deny the command “rm -rf ./build”. The server will answer that it was already resolved."); err != nil {
			return err
		}
		f, err := j.await(ctx, c, j.t.ActionTimeout, lmp.TypeApprovalResolve)
		if err != nil {
			return didNotAct("no approval.resolve within " + j.t.ActionTimeout.String())
		}
		p := resolveOf(f)
		_ = c.send(ctx, lmp.Error{Code: lmp.CodeAlreadyResolved, Message: "already resolved on another device", RequestID: p.RequestID})
		return barrier("appr_lmpcheck_3")
	})
}

// restart asks for a cold start: the app's hello must come from what it
// stored (C-1, C-5).
func (j *judgeRun) restart(ctx context.Context) error {
	c := j.conn
	if err := j.act(ctx, c, Action{Action: ActionRestart}, "restart the app", "Stop the app completely and start it again."); err != nil {
		return err
	}
	high := j.seq.Load()
	return j.judge(specRestart, func() error {
		c2, h, err := j.reconnect(ctx, j.t.ActionTimeout)
		if err != nil {
			return didNotAct("the app did not come back within " + j.t.ActionTimeout.String())
		}
		if err := j.helloOK(ctx, c2, nil, lmp.Version, false); err != nil {
			return err
		}
		switch {
		case h.LastSeq == nil:
			return errors.New("expected the restarted app's hello to carry last_seq, actual: none")
		case *h.LastSeq != high:
			return fmt.Errorf("expected last_seq %d (the restart request's seq) after the restart, actual: %d", high, *h.LastSeq)
		}
		return nil
	})
}

// finalSpecs judges what the whole run showed: C-1 for every reconnect,
// C-4 for every frame, C-10 for every request.
func (j *judgeRun) finalSpecs() {
	j.mu.Lock()
	problems, reconnects, violations, clashes, nreq := slices.Clone(j.tokenAgain), j.reconnects, slices.Clone(j.violations), slices.Clone(j.reqClash), len(j.requests)
	j.mu.Unlock()
	_ = j.judge(specNoUsedToken, func() error {
		if len(problems) > 0 {
			return fmt.Errorf("expected hellos with device_id and credential, actual: %s", sentence(problems))
		}
		if reconnects == 0 {
			return skipf("the app never reconnected")
		}
		return nil
	})
	_ = j.judge(specFrames, func() error {
		if len(violations) > 0 {
			return fmt.Errorf("%d problem(s): %s", len(violations), sentence(violations))
		}
		if j.nconns == 0 {
			return skipf("the app sent nothing")
		}
		return nil
	})
	_ = j.judge(specDistinctIDs, func() error {
		if len(clashes) > 0 {
			return fmt.Errorf("expected distinct request_ids for distinct requests, actual: %s", sentence(clashes))
		}
		if nreq < 2 {
			return skipf("the app sent fewer than two requests")
		}
		return nil
	})
}
