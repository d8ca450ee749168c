// Package campaign is the engine behind `lmp-check fuzz`: it points a
// fuzzing campaign at any LMP endpoint, checks the server continuously with
// oracles that go beyond "did it crash", and saves every finding as a
// minimal reproducer that replays deterministically.
//
// A campaign is a set of workers, each opening connection after connection
// (episodes). An episode is a recorded sequence of steps (text frames,
// binary frames, pauses) produced from a seed alone, so the whole run is
// reproducible from Config.Seed. Secrets and ids that only exist at run
// time (the pairing token, the device identity, a live approval id) appear
// in a step as placeholders such as {{credential}} and are filled in as the
// step is sent; a reproducer therefore never holds a secret (S-1).
//
// Oracles, checked on every frame and continuously:
//   - GET /health keeps answering {"ok":true,"v":1} (T-2);
//   - a monitor device, never fuzzed, keeps receiving events with strictly
//     increasing seq and no gap (E-2, E-5);
//   - every frame the server sends is a schema-valid text frame (T-3, E-1, F-1);
//   - no secret the campaign has seen appears in a frame, except the
//     credential in the hello.ok that paired the device (S-1, P-7);
//   - the server closes only with a legitimate close code;
//   - an unauthenticated connection never receives durable events or request
//     results, and no connection is ever given another device's identity.
package campaign
