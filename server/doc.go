// Package server is the reference LMP v1 server: the WebSocket endpoint,
// pairing, devices, the shared replay log and the mapping between LMP frames
// and the Hermes interfaces (hermes.Hermes, hermes.Adapter). The one place that makes a
// protocol rule true carries a comment "Enforces <rule ID>: …"; any other
// mention of a rule ID is a reference (docs/architecture.md, "Rule
// traceability"). Decisions on the points the spec leaves open follow
// docs/protocol.md.
//
// Behaviour worth knowing when building an app against it:
//
//   - seq: one in-memory log of the last ReplayWindow durable events is
//     shared by every device; a device's seq of global event g is g minus
//     the global index at its pairing, so every paired, non-revoked device
//     gets every event, online or not (note 3), at no per-device cost. The
//     global high-water mark is leased from the store 1024 numbers at a
//     time, so seq never repeats after a crash (note 4); the next block is
//     reserved in the background when half of one is used, so publishing
//     waits for the disk only when events outrun it. A clean shutdown
//     records the exact mark and saves the log, which the next start loads
//     back: a gap from before a clean restart is re-sent with its seq and
//     content. After a kill -9 (or with a damaged saved log, which is
//     logged) the log starts empty and such a gap gets truncated: true.
//   - Connection-scoped frames (hello.ok, error, ping, pong, ack,
//     task.list.result) carry the seq of the last durable frame written to
//     that connection. hello.ok therefore carries the seq just before the
//     first replayed event (last_seq, or the oldest held event minus one
//     when truncated), never a number above the events that follow it.
//   - hello.last_seq above the device's current seq is answered with
//     truncated: true and no replay. A truncated gap re-sends what the
//     window still holds of it.
//   - Pairing tokens live only in memory: a restart voids unused tokens.
//   - run.pause is the gateway's /stop, exactly like run.cancel, keeping
//     the session; run.resume sends the message "continue" into the run's
//     task, starting a new run. Hermes cannot suspend a turn, so these are
//     approximations (F-7): label them "Stop" and "Continue".
//   - A run is one Hermes turn and a task is one chat (notes 17-20): the
//     run ends at the turn's on_session_end or its final reply through
//     send() (which is then no notification), never at a model call's
//     on_stream_end; Hermes' changing session ids are tied to the chat by
//     pre_llm_call of a message the adapter sent and by the approval
//     hooks' session_key. Turns of other platforms, subagents and sessions
//     the adapter never saw are not shown. A run whose end never comes
//     ends when the chat's next turn begins, or after RunIdleTimeout.
//   - Requests are executed on the connection's request goroutine, in
//     order; a slow Hermes call delays that connection's later requests,
//     not other connections, and not its pongs: the reader notes a pong as
//     it arrives and hands every other frame on (at most 16 waiting, then
//     the reader waits). request_id is one namespace per device for
//     session.send and approval.resolve.
//   - Frames over lmp.MaxFrameBytes (1 MiB) close the connection with 1009;
//     the server reads and discards the rest of the frame while it waits
//     for the peer's close (at most 5 s), so the 1009 is not lost to a TCP
//     reset.
//   - Durable events are never copied per connection: each connection's
//     writer reads them from the shared log through its cursor (the global
//     index of the last event it took), so a burst costs O(ReplayWindow)
//     memory in all. A connection is a slow consumer only when an event is
//     published while it is more than ReplayWindow events behind (plus the
//     at most 32 events its writer holds): it gets a fatal slow_consumer
//     error (best effort: a peer that reads nothing gets no frame) and
//     close 1013, and its next hello with last_seq gets the gap replayed,
//     or truncated: true when the window no longer holds it.
//   - Connection-scoped frames go through a bounded reply queue of
//     Config.SendQueue frames per connection. Each is written after every
//     event published before it was queued, so an ack follows the events
//     its request caused, and hello.ok precedes every event. A full queue
//     never disconnects: a request waits for room before the next one is
//     served, so a client that pipelines requests faster than it reads the
//     replies is slowed down by TCP. A server ping never waits in the
//     queue: the writer sends it ahead of the events and replies it has
//     still to write, and its pong timeout runs from that write; a ping the
//     peer does not take within the pong timeout counts as a missed pong
//     (T-5).
//   - A peer that takes no frame for 10 s (checked every 5 s, so at most
//     15 s) is dropped. Fatal closes drop the TCP connection after 2 s if
//     the peer does not complete the close handshake.
//   - The log has an info line for each phone that pairs ("device
//     paired"), reconnects ("device connected"), sends a message ("message
//     from device": its task and length, never its text) and goes away
//     ("connection ended"), each naming the device; secrets appear only as
//     fingerprints (S-1). Config.Observer sees every frame as it crosses
//     the wire, for tools such as lmp-server's dashboard.
package server
