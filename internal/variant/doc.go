// Package variant is a second legitimate LMP v1 implementation, used only by
// the neutrality self-test (suites/selftest): a protocol-translating proxy in
// front of an lmp-server process that answers every open point of notes.md
// that the spec leaves to the implementation differently from the reference
// server, while keeping to every MUST of the spec:
//
//   - every server frame takes a seq, connection frames included (the
//     alternative to note 2); only durable events are replayed, with their
//     original seq, through a per-device map of upstream to own numbers that
//     survives a clean restart (a crash loses it: the gap is then answered
//     with truncated: true, note 4);
//   - a failed run sends run.failed and then run.completed{status:"failed"}
//     (the pair note 6 allows), and run.completed.finished is the timestamp
//     the run finished at (note 21);
//   - the acknowledgement of session.send is called "reply", that of
//     approval.resolve "approval.resolve.result", which is no approval
//     event (note 5); error codes other than already_resolved are upper
//     case, close codes are in the 4000 range, task rows say running or done
//     (status_filter takes the same words), and an approval that timed out
//     says choice "expired" (note 21);
//   - a binary frame gets a non-fatal error and the connection stays open
//     (note 12);
//   - it serves /ws, /health and the loopback pairing endpoint, but neither
//     the mock Hermes driver API nor the admin API: devices are revoked with
//     the upstream's own command.
//
// The reference server is not touched: the variant lives entirely on the
// wire, outside server/.
package variant
