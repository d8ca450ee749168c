package campaign

import (
	"bytes"
	"encoding/binary"
	"strings"
	"sync"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// minSecret is the shortest string the campaign treats as a secret; shorter
// ones would match by accident.
const minSecret = 8

// maxSecrets bounds the set; the oldest tokens are forgotten first.
const maxSecrets = 4096

// secretSet holds every secret the campaign has seen: tokens it minted and
// credentials it was given. Lookups are indexed by the first four bytes so
// a frame is scanned once, whatever the number of secrets.
type secretSet struct {
	mu    sync.RWMutex
	owner map[string]string    // secret → owner label (device id, or "token")
	index map[[4]byte][]string // first four bytes → secrets
	order []string
	// starts has a bit set for a hash of the first four bytes of every
	// secret added: most positions of a frame are passed over by one bit
	// test instead of a map lookup. Secrets are base64url text like much
	// of a frame, so a filter on two bytes (4,096 pairs) let most
	// positions through once the set filled; 2^20 bits let about 0.4 %
	// through at maxSecrets. Bits are never cleared (a stale one costs a
	// lookup).
	starts [1 << startBits / 64]uint64
}

const startBits = 20

// startHash hashes the four bytes a secret starts with to startBits bits.
func startHash(b []byte) uint32 {
	return binary.LittleEndian.Uint32(b) * 0x9E3779B1 >> (32 - startBits)
}

func newSecretSet() *secretSet {
	return &secretSet{owner: map[string]string{}, index: map[[4]byte][]string{}}
}

func (s *secretSet) add(secret, owner string) {
	if len(secret) < minSecret {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.owner[secret]; ok {
		return
	}
	if len(s.order) >= maxSecrets {
		s.removeLocked(s.order[0])
		s.order = s.order[1:]
	}
	s.owner[secret] = owner
	k := [4]byte([]byte(secret[:4]))
	s.index[k] = append(s.index[k], secret)
	h := startHash(k[:])
	s.starts[h/64] |= 1 << (h % 64)
	s.order = append(s.order, secret)
}

func (s *secretSet) removeLocked(secret string) {
	delete(s.owner, secret)
	k := [4]byte([]byte(secret[:4]))
	list := s.index[k]
	for i, v := range list {
		if v == secret {
			s.index[k] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
}

// find returns every secret that occurs in data.
func (s *secretSet) find(data []byte) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var found []string
	for i := 0; i+minSecret <= len(data); i++ {
		if h := startHash(data[i:]); s.starts[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		cands, ok := s.index[[4]byte(data[i:i+4])]
		if !ok {
			continue
		}
		for _, c := range cands {
			if bytes.HasPrefix(data[i:], []byte(c)) {
				found = append(found, c)
			}
		}
	}
	return found
}

// redact replaces every known secret in text by its fingerprint (S-1).
func (s *secretSet) redact(text string) string {
	for _, sec := range s.find([]byte(text)) {
		text = strings.ReplaceAll(text, sec, lmp.Redacted+":"+lmp.Fingerprint(sec))
	}
	return text
}
