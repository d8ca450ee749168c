// Package driver defines the mock Hermes driver API: the small loopback
// HTTP+JSON API through which a test harness plays the Hermes side of an LMP
// server. It holds the request and response types and a Go client.
//
// The conformance suites use only this API, the wire protocol and the
// pairing endpoint, so any implementation whose test harness serves the same
// API (documented in CI.md, schemas in schema/driver) can be checked.
package driver
