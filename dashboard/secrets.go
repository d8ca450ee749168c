package dashboard

import (
	"slices"
	"sync"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// minSecret is the shortest run of URL-safe base64 remembered as a secret.
// The server's tokens and credentials are 32 random bytes in URL-safe
// base64, 43 characters; a shorter run carries too little to be one.
const minSecret = 16

// secretSet is the tokens and credentials the log has seen, for
// redaction (S-1). It is safe for concurrent use: the connection that
// observes a hello or hello.ok adds to it, and a page reads it while it
// renders frames. Under a fuzz campaign every connection brings a new
// secret, so adding one costs the same however many are kept.
type secretSet struct {
	mu      sync.RWMutex
	replace map[string]string // secret → <redacted>:fingerprint
	order   []string          // the secrets, a ring of at most keepSecrets
	oldest  int               // order[oldest] is forgotten first, once order is full
	counts  map[int]int       // secret length → how many secrets have it
	lengths []int             // the secrets' distinct lengths, ascending
}

// remember adds the URL-safe base64 runs of value that are long enough to
// be a secret, forgetting the oldest beyond keepSecrets.
func (s *secretSet) remember(value string) {
	s.mu.RLock()
	known := s.knowsAll(value)
	s.mu.RUnlock()
	if known {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for secret := range secretRuns(value) {
		if _, ok := s.replace[secret]; !ok {
			s.add(secret)
		}
	}
}

// knowsAll reports whether every secret value holds is remembered. Under
// mu, for reading.
func (s *secretSet) knowsAll(value string) bool {
	for secret := range secretRuns(value) {
		if _, ok := s.replace[secret]; !ok {
			return false
		}
	}
	return true
}

// secretRuns yields the URL-safe base64 runs of value at least minSecret
// long.
func secretRuns(value string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for i := 0; i < len(value); {
			j := i
			for j < len(value) && isBase64URL(value[j]) {
				j++
			}
			if j-i >= minSecret && !yield(value[i:j]) {
				return
			}
			i = j + 1
		}
	}
}

// add remembers a new secret. Under mu.
func (s *secretSet) add(secret string) {
	if s.replace == nil {
		s.replace, s.counts = map[string]string{}, map[int]int{}
	}
	if len(s.order) < keepSecrets {
		s.order = append(s.order, secret)
	} else {
		old := s.order[s.oldest]
		delete(s.replace, old)
		if s.counts[len(old)]--; s.counts[len(old)] == 0 {
			delete(s.counts, len(old))
			i, _ := slices.BinarySearch(s.lengths, len(old))
			s.lengths = slices.Delete(s.lengths, i, i+1)
		}
		s.order[s.oldest] = secret
		s.oldest = (s.oldest + 1) % keepSecrets
	}
	s.replace[secret] = lmp.Redacted + ":" + lmp.Fingerprint(secret)
	if s.counts[len(secret)]++; s.counts[len(secret)] == 1 {
		i, _ := slices.BinarySearch(s.lengths, len(secret))
		s.lengths = slices.Insert(s.lengths, i, len(secret))
	}
}

// redact returns data with every remembered secret replaced by its
// fingerprint, wherever it appears, in one pass: a secret is a run of
// URL-safe base64, so only such runs at least as long as the shortest
// secret are looked up, window by window, in the map. data itself is
// returned when it holds none.
func (s *secretSet) redact(data []byte) []byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.lengths) == 0 {
		return data
	}
	var out []byte
	done := 0 // data[:done] is in out
	for i := 0; i < len(data); {
		j := i
		for j < len(data) && isBase64URL(data[j]) {
			j++
		}
		for k := i; k+s.lengths[0] <= j; {
			r, n := s.match(data[k:j])
			if n == 0 {
				k++
				continue
			}
			out = append(append(out, data[done:k]...), r...)
			k += n
			done = k
		}
		i = j + 1
	}
	if done == 0 {
		return data
	}
	return append(out, data[done:]...)
}

// redactString is redact for an indexed field: a phone chooses its
// task_id, and may put anything there.
func (s *secretSet) redactString(v string) string {
	if len(v) < minSecret {
		return v
	}
	return string(s.redact([]byte(v)))
}

// match returns the replacement and length of the secret run begins with.
// Under mu, for reading.
func (s *secretSet) match(run []byte) (string, int) {
	for _, n := range s.lengths {
		if n > len(run) {
			break
		}
		if r, ok := s.replace[string(run[:n])]; ok {
			return r, n
		}
	}
	return "", 0
}

func isBase64URL(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}
