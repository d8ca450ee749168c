package mockhermes

import (
	"context"
	"embed"
	"fmt"
	"path"

	"github.com/loomi-lmp/lmpkit/hermes"
)

//go:embed crosstalk/*.yaml
var crosstalkFS embed.FS

// crosstalkScenarios are the turns other agents of the same Hermes process
// play beside a Loomi turn.
var crosstalkScenarios = func() map[string]*Scenario {
	out := map[string]*Scenario{}
	for _, name := range []string{"telegram", "subagent"} {
		f := "crosstalk/" + name + ".yaml"
		src, err := crosstalkFS.ReadFile(f)
		if err == nil {
			var sc *Scenario
			if sc, err = ParseScenario(f, src); err == nil {
				out[name] = sc
				continue
			}
		}
		panic(fmt.Sprintf("mockhermes: crosstalk scenario %s: %v", path.Base(f), err))
	}
	return out
}()

// crosstalk plays, beside pb's Loomi turn, a turn of another platform (a
// Telegram user's, or a CLI session's, in turn) and, when pb's scenario
// calls tools, a subagent's turn. Hooks are process-wide, so this adapter
// receives theirs; their replies are not its to send.
func (m *Mock) crosstalk(pb *Playback) {
	m.mu.Lock()
	m.crossN++
	platform := []string{"telegram", "cli"}[m.crossN%2]
	m.mu.Unlock()
	m.crossTurn(pb, crosstalkScenarios["telegram"], platform, "")
	if hasTools(pb.sc.Steps) {
		m.crossTurn(pb, crosstalkScenarios["subagent"], Platform, pb.SessionID)
	}
}

func hasTools(steps []Step) bool {
	for _, s := range steps {
		if s.Kind == StepTools || s.Kind == StepApproval || hasTools(s.Steps) {
			return true
		}
	}
	return false
}

// crossTurn plays sc as a turn of another agent: on platform, in a new
// session (a child of parent for a subagent).
func (m *Mock) crossTurn(pb *Playback, sc *Scenario, platform, parent string) {
	m.mu.Lock()
	sid := m.newSessionID()
	r := m.rowLocked(sid, platform)
	// A subagent's session records its parent and the parent's chat; the
	// other platform's, its own chat.
	r.row.ParentSessionID = parent
	chatID := m.newID(platform + "_chat_")
	r.row.Origin = hermes.SessionOrigin{Platform: platform, ChatID: chatID, ChatType: "dm"}
	if parent != "" {
		r.row.Origin.ChatID = pb.TaskID
	}
	m.mu.Unlock()
	other := &Playback{
		TaskID: chatID, SessionID: sid, sc: sc,
		vars:    map[string]string{"text": "", "task_id": "", "session_id": sid},
		stopAck: make(chan struct{}), done: make(chan struct{}),
	}
	other.ctx, other.cancel = context.WithCancelCause(m.ctx)
	t := &turn{
		m: m, pb: other, out: turnFaults{m: m, f: pb.faults},
		platform: platform, surface: platform, chatID: other.TaskID, sessionID: sid,
		turnID: m.newID("turn_"), model: DefaultModel, provider: DefaultProvider,
		userMessage: "what's new?", firstTurn: true, parentSessionID: parent,
	}
	other.TurnID, other.turn = t.turnID, t
	m.goroutine(func() { other.finish(m.run(other)) })
}
