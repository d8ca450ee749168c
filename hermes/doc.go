// Package hermes is the boundary between a Loomi platform adapter and the
// Hermes gateway, as real Hermes draws it (../shared/hermes.md): the calls
// the adapter makes into Hermes (Hermes), the calls Hermes makes into the
// adapter (Adapter), the values they pass, and every plugin hook Hermes
// fires with its keyword arguments, typed (PreLLMCall, OnStreamStart …).
//
// Both sides of the boundary build on it: package server is the adapter,
// package mockhermes plays Hermes. A hook's kwargs are built with Encode
// and read with Decode, from the same struct, so the two sides cannot
// drift apart; Hooks is the table the mock's driver checks a hook against,
// derived from those structs, and a test holds it to hermes.md's table.
//
// The package imports only the standard library.
package hermes
