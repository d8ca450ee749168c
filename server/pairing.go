package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"sync"
	"time"
)

// Pairing tokens live only in memory: a restart voids every unused token,
// which errs on the safe side (P-4, P-5). The table holds their SHA-256
// hashes, never the tokens.
type tokenTable struct {
	mu     sync.Mutex
	expiry map[[32]byte]time.Time
}

func newTokenTable() *tokenTable {
	return &tokenTable{expiry: make(map[[32]byte]time.Time)}
}

var errBadToken = errors.New("unknown, used or expired pairing token")

// mint creates a token valid for ttl (P-5).
func (t *tokenTable) mint(ttl time.Duration, now time.Time) (token string, expires time.Time) {
	token = randomSecret()
	expires = now.Add(ttl)
	t.mu.Lock()
	defer t.mu.Unlock()
	for h, exp := range t.expiry {
		if !now.Before(exp) {
			delete(t.expiry, h)
		}
	}
	t.expiry[sha256.Sum256([]byte(token))] = expires
	return token, expires
}

// consume voids the token and reports whether it was valid. Under any
// concurrency exactly one caller wins a token (P-4: single use); an expired
// token never wins (P-5).
func (t *tokenTable) consume(token string, now time.Time) error {
	h := sha256.Sum256([]byte(token))
	t.mu.Lock()
	defer t.mu.Unlock()
	exp, ok := t.expiry[h]
	if !ok {
		return errBadToken
	}
	// Enforces P-4: the token is void as soon as it is presented, under t.mu, so one caller wins.
	delete(t.expiry, h)
	// Enforces P-5: a token presented at or after its expiry never pairs.
	if !now.Before(exp) {
		return errBadToken
	}
	return nil
}

// randomSecret returns 32 random bytes, URL-safe base64 without padding:
// the form of tokens and credentials (P-7).
func randomSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// randomID returns prefix followed by 16 random hex digits.
func randomID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// hashCredential is what the store keeps instead of the credential (P-7).
func hashCredential(cred string) []byte {
	h := sha256.Sum256([]byte(cred))
	return h[:]
}

// dummyHash stands in for an unknown device's hash, so that checking an
// unknown device costs the same as checking a known one.
var dummyHash = hashCredential("no such device")

// credentialMatches compares in constant time (P-8).
func credentialMatches(stored []byte, cred string) bool {
	return subtle.ConstantTimeCompare(stored, hashCredential(cred)) == 1
}
