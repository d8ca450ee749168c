package conformance

import (
	"sync"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// SecretKind says what a secret is, so that a report can name it without
// showing it.
type SecretKind string

// Kinds of secret.
const (
	SecretToken      SecretKind = "token"
	SecretCredential SecretKind = "credential"
)

// Secret is a token or credential the run has seen. It never formats its
// value: String and GoString show only the kind and the fingerprint
// (S-1), so a Secret printed by mistake leaks nothing.
type Secret struct {
	Kind  SecretKind
	Value string
}

// Fingerprint is the secret's 8-character fingerprint (lmp.Fingerprint).
func (s Secret) Fingerprint() string { return lmp.Fingerprint(s.Value) }

// String names the secret by kind and fingerprint.
func (s Secret) String() string { return string(s.Kind) + " " + s.Fingerprint() }

// GoString is String, so that %#v does not print the value either.
func (s Secret) GoString() string { return s.String() }

// MinSecretLen is the shortest secret worth looking for: shorter strings
// would match innocent text. Real tokens and credentials are far longer
// (a credential is 43 characters, P-7).
const MinSecretLen = 8

// The run-wide registry of secrets: every token minted through the target
// and every token and credential a tracked connection sent or received,
// in the order first seen. The S-1 spec scans the server's log for them.
var (
	secretsMu   sync.Mutex
	secretsSeen = map[string]bool{}
	secretsList []Secret
)

// RecordSecret adds a secret to the run-wide registry; empty, short and
// already recorded values are ignored. Safe for concurrent use.
func RecordSecret(kind SecretKind, value string) {
	if len(value) < MinSecretLen {
		return
	}
	secretsMu.Lock()
	defer secretsMu.Unlock()
	if secretsSeen[value] {
		return
	}
	secretsSeen[value] = true
	secretsList = append(secretsList, Secret{Kind: kind, Value: value})
}

// Secrets returns every secret recorded so far, in the order first seen.
func Secrets() []Secret {
	secretsMu.Lock()
	defer secretsMu.Unlock()
	return append([]Secret(nil), secretsList...)
}

// LearnSecret makes c's transcript redact value (S-1) and records it in
// the run-wide registry: for specs that authenticate with hand-made
// frames instead of Hello.
func (c *Conn) LearnSecret(kind SecretKind, value string) {
	c.Transcript().AddSecret(value)
	RecordSecret(kind, value)
}
