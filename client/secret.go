package client

// AddSecret makes the transcript redact s from now on (S-1), for callers
// that authenticate with their own frames instead of Conn.Hello.
func (t *Transcript) AddSecret(s string) { t.addSecret(s) }
