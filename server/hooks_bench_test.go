package server_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/server"
)

// BenchmarkTurn measures what mapping Hermes' hooks to run frames costs on
// top of publishing the frames: a whole turn of one model call (pre_llm_call,
// on_stream_start, 20 deltas, on_stream_end, on_session_end and the final
// reply's send(), 22 frames) against its baseline, 22 notifications
// through send(), in the same run. No device is connected: the figure is
// the adapter's own work.
func BenchmarkTurn(b *testing.B) {
	h := newFakeHermes()
	srv, err := server.New(server.Config{DataDir: b.TempDir(), Hermes: h})
	if err != nil {
		b.Fatal(err)
	}
	h.adapter = srv
	b.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	ctx := context.Background()
	const chat, session = "task_bench", "20261201_101500_bench"
	// The approval hooks name the chat: they link its session.
	srv.Hook(ctx, "pre_approval_request", map[string]any{"session_key": hermes.SessionKeyPrefix + chat,
		"session_id": session, "surface": "smart", "turn_id": nil})

	b.Run("baseline-notifications", func(b *testing.B) {
		for b.Loop() {
			for range 22 {
				srv.Send(ctx, chat, benchPayload, nil)
			}
		}
	})
	b.Run("turn", func(b *testing.B) {
		n := 0
		for b.Loop() {
			n++
			turn := fmt.Sprint("turn_", n)
			base := map[string]any{"turn_id": turn, "iteration": 1.0, "session_id": session, "model": "m", "provider": "p", "surface": "loomi"}
			srv.Hook(ctx, "pre_llm_call", map[string]any{"session_id": session, "task_id": session, "turn_id": turn,
				"user_message": "go", "platform": "loomi", "model": "m"})
			srv.Hook(ctx, "on_stream_start", base)
			for range 20 {
				srv.Hook(ctx, "on_stream_delta", with(base, "delta", benchPayload, "kind", "text"))
			}
			srv.Hook(ctx, "on_stream_end", with(base, "final_text", "done", "finished", true, "error", nil))
			srv.Hook(ctx, "on_session_end", map[string]any{"session_id": session, "task_id": session, "turn_id": turn,
				"completed": true, "interrupted": false, "platform": "loomi"})
			srv.Send(ctx, chat, "done", map[string]any{"notify": true})
		}
	})
}
