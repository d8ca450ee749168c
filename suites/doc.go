// Package suites holds the black-box conformance suites of LMP v1: one
// Ginkgo container per spec section, one file per section (transport.go,
// envelope.go, pairing.go …). Every spec is declared through
// conformance.Specs.It with the rule IDs it checks and its level, so that a run
// can be filtered by rule and every report names the rules.
//
// The suites speak to a server only through the wire protocol, the
// loopback pairing endpoint and, when configured, the mock Hermes driver
// API; they import no server code. Package check runs them (lmp-check);
// `go test ./suites/...` runs them against an in-process reference server.
package suites
