package lmp

import (
	"crypto/sha256"
	"encoding/hex"
)

// Redacted stands in for a secret in logs and transcripts (S-1).
const Redacted = "<redacted>"

// Fingerprint returns the 8-character fingerprint under which a token or
// credential may be named in logs (S-1): the first 8 hex digits of its
// SHA-256. It reveals nothing usable about the secret.
func Fingerprint(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:4])
}
