package dashboard

import (
	"slices"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// minSecret is the shortest run of URL-safe base64 remembered as a secret.
// The server's tokens and credentials are 32 random bytes in URL-safe
// base64, 43 characters; a shorter run carries too little to be one.
const minSecret = 16

// secretSet is the tokens and credentials the log has seen, for
// redaction (S-1). It is never changed once published: the log swaps in
// a new set when it learns a secret (rare: a hello or hello.ok), so that
// a page renders frames without taking the log's lock.
type secretSet struct {
	replace map[string]string // secret → <redacted>:fingerprint
	order   []string          // oldest first, at most keepSecrets
	lengths []int             // the secrets' distinct lengths, ascending
}

// with returns the set with the URL-safe base64 runs of value that are
// long enough to be a secret added, forgetting the oldest beyond
// keepSecrets; s itself if it knows them all.
func (s *secretSet) with(value string) *secretSet {
	next := s
	for i := 0; i < len(value); {
		j := i
		for j < len(value) && isBase64URL(value[j]) {
			j++
		}
		if secret := value[i:j]; len(secret) >= minSecret {
			if _, known := next.replace[secret]; !known {
				next = next.add(secret)
			}
		}
		i = j + 1
	}
	return next
}

func (s *secretSet) add(secret string) *secretSet {
	order := append(append(make([]string, 0, len(s.order)+1), s.order...), secret)
	if len(order) > keepSecrets {
		order = order[len(order)-keepSecrets:]
	}
	next := &secretSet{replace: make(map[string]string, len(order)), order: order}
	for _, o := range order {
		if r, ok := s.replace[o]; ok {
			next.replace[o] = r
		} else {
			next.replace[o] = lmp.Redacted + ":" + lmp.Fingerprint(o)
		}
		if !slices.Contains(next.lengths, len(o)) {
			next.lengths = append(next.lengths, len(o))
		}
	}
	slices.Sort(next.lengths)
	return next
}

// redact returns data with every remembered secret replaced by its
// fingerprint, wherever it appears, in one pass: a secret is a run of
// URL-safe base64, so only such runs at least as long as the shortest
// secret are looked up, window by window, in the map. data itself is
// returned when it holds none.
func (s *secretSet) redact(data []byte) []byte {
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
