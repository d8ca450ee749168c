// Package judge checks the app's side of LMP v1 (the client rules C-1 …
// C-13), as Autobahn|Testsuite checks WebSocket clients: it is an LMP
// server of the kit's own that pairs with the app, plays scenarios a
// correct server may produce (bursts and replays full of duplicates and
// out-of-order seqs, slow-consumer and heartbeat closes, truncated: true,
// unknown types and fields, an approval resolved on another device, a
// request left unanswered across a disconnect, a certificate that does not
// match the QR's fp, hello.ok with protocol_version 2) and judges what the
// app sends back. `lmp-check app` runs it; package check turns its
// outcomes into the same reports as a server run's.
//
// The frames the reference server would never send (duplicates,
// protocol_version 2, a wrong certificate) are the judge's own, written
// here from the typed frames of package lmp; nothing of package server is
// forked. Every frame the app sends is validated against the client
// schemas (package schema).
//
// # The contract for automation
//
// It is fixed: app test harnesses are written against it.
//
//   - Pairing. With Config.PairingFile, every time the judge mints a token
//     it writes the pairing JSON, exactly the QR payload, to that file
//     atomically (a temporary file in the same directory, then a rename).
//   - Actions. When a scenario needs the app's user to do something, the
//     judge sends a notification whose payload has category "diagnostic",
//     a title beginning "lmp-check:", a text a person can follow, and an
//     extra field lmp_check (allowed by V-1) holding an Action: send,
//     resolve, cancel, list, reconnect, restart or pair. An app that does
//     not act within Config.ActionTimeout gets the verdict "skipped: the
//     app did not act" on the specs that needed it, never a failure.
//   - Ordering. The certificate scenario and then the protocol-version
//     scenario run last. The certificate scenario asks for a pair (from a
//     wss:// pairing JSON whose fp pins a certificate); the
//     protocol-version scenario ends the app's session for good: the
//     judge ends after it.
package judge
