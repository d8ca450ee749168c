// Package lmp holds the typed frames of the Loomi Protocol (LMP) v1: the
// envelope, one Go type per payload, the frame type names, error and close
// codes, and the protocol's default timings.
//
// The JSON Schemas in package schema are the source of truth for the wire;
// tests in this module keep these types and the schemas in agreement: every
// frame these types encode validates, and every valid example decodes.
//
// Rule IDs (T-1, E-3, …) refer to the numbered rules of LMP v1; decisions on
// points the spec leaves open are recorded in docs/protocol.md.
package lmp
