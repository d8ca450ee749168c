// Package client is a Go client for LMP v1: it dials an LMP endpoint, pairs
// and authenticates, sends typed frames, and receives server frames into an
// inbox that callers read in order (Next) or by predicate (Expect).
//
// Every frame in both directions is kept in a transcript, with pairing
// tokens and credentials redacted, so that a failing check can show what was
// exchanged without leaking secrets (S-1).
package client
