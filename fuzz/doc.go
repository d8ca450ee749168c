// Package fuzz holds the native Go fuzz targets of the kit (go test -fuzz)
// for the parsers and state machines a phone's bytes reach: frame
// decoding in both directions, the pairing QR payload, the mock Hermes
// scenario parser, and the reference server's inbound frame handling over
// loopback. Targets that need a package's unexported internals (the replay
// buffer, the request_id window) live beside that package as
// *_fuzz_test.go files.
//
// The live campaign engine behind `lmp-check fuzz` is package
// fuzz/campaign. docs/fuzzing.md explains both, and fuzz/ci.sh runs a
// short real fuzzing pass of every target.
package fuzz
