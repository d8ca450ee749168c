// Package variant is a second legitimate LMP v1 implementation, used only by
// the neutrality and mutation self-tests (suites/selftest): a protocol-translating proxy in
// front of an lmp-server process that can answer each open point of notes.md
// that the spec leaves to the implementation differently from the reference
// server, while keeping to every MUST of the spec. Each such point is a
// switch (Choices, Notes): on, the variant answers it its own way; off, the
// reference server's answer passes through. Choices.Minimal makes it the
// minimal server, which sends nothing lmp-v1.md does not define: only §4's
// fields in every payload, task rows with their task_id and the title under
// another name ("name"), an acknowledgement with only its request_id.
//
// With every switch on (AllAlternatives):
//
//   - every server frame takes a seq, connection frames included (the
//     alternative to note 2); only durable events are replayed, with their
//     original seq, through a per-device map of upstream to own numbers that
//     survives a clean restart (a crash loses it: the gap is then answered
//     with truncated: true, note 4);
//   - a failed run sends run.failed and then run.completed{status:"failed"}
//     (the pair note 6 allows), and run.completed.finished is the timestamp
//     the run finished at (note 21);
//   - the acknowledgement of session.send carries only its request_id
//     (note 5); it is called "reply", that of approval.resolve
//     "approval.resolve.result", which is no approval event; error codes other than already_resolved are upper
//     case, close codes are in the 4000 range, task rows say running or done
//     (status_filter takes the same words), and an approval that timed out
//     says choice "expired" (note 21);
//   - a binary frame gets a non-fatal error and the connection stays open
//     (note 12);
//   - any client frame but a pong proves liveness: the variant answers the
//     upstream's ping itself for a device that sent one since the last
//     ping (note 8);
//   - an unsupported protocol_version gets version_mismatch, naming no
//     versions (note 11); an approval that timed out is resolved with
//     decided_by agent (note 15); a second hello gets a fatal error and a
//     close (note 16);
//   - it serves /ws, /health and the loopback pairing endpoint, but neither
//     the mock Hermes driver API nor the admin API: devices are revoked with
//     the upstream's own command.
//
// Options.KeepNumbering makes it pass the upstream's seq, event_id and a
// hello's last_seq through: the mutation self-test puts the minimal variant
// in front of each mutated server that way, so that the mutant's faults,
// numbering included, reach lmp-check and only fields beyond lmp-v1.md are
// taken away.
//
// The reference server is not touched: the variant lives entirely on the
// wire, outside server/.
package variant
