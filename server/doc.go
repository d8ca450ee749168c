// Package server is the reference LMP v1 server: the WebSocket endpoint,
// pairing, devices, the shared replay log and the mapping between LMP
// frames and Hermes (it is a hermes.Adapter). Create one with New, serve
// Handler, stop it with Shutdown.
//
// What an app built against it can count on (the full list of choices on
// the points the spec leaves open, with the reasons, is docs/protocol.md):
//
//   - Every paired device gets every durable event, online or not; seq never
//     repeats, even after kill -9, and a clean restart replays what the
//     window held (notes 3, 4). A gap the window no longer holds gets
//     truncated: true.
//   - A task is one Hermes chat and a run one Hermes turn (notes 17-22);
//     every run ends with exactly one terminal frame (note 6).
//   - run.pause and run.resume are the gateway's /stop and a "continue"
//     message: label them "Stop" and "Continue" (F-7).
//   - A connection's requests are served in order; request_id is one
//     namespace per device (I-1, note 14).
//   - A frame over 1 MiB closes with 1009; a device more than ReplayWindow
//     events behind is closed with 1013 and catches up at its next hello.
//   - Logs name devices, never secrets (S-1); Config.Observer sees every frame.
//
// The one place that makes a rule true carries "Enforces <rule ID>: …"
// (docs/architecture.md, "Rule traceability").
package server
