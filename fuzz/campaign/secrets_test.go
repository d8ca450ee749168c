package campaign

import (
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomSecret is a secret as servers mint them: random bytes in base64url.
func randomSecret(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// fullSecretSet is a set at maxSecrets, as a long campaign fills it.
func fullSecretSet(rng *rand.Rand) (*secretSet, []string) {
	s := newSecretSet()
	var all []string
	for range maxSecrets {
		sec := randomSecret(rng, 32)
		s.add(sec, "dev")
		all = append(all, sec)
	}
	return s, all
}

// TestSecretSetFindsEveryOccurrence holds find to a plain search for every
// secret of a full set, in frames of base64url text (where the filters
// pass most positions) with secrets planted at the start, the end, twice,
// overlapping a prefix of another and cut short by the frame's end.
func TestSecretSetFindsEveryOccurrence(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s, all := fullSecretSet(rng)
	for i := range 300 {
		var parts []string
		for range rng.IntN(5) {
			switch sec := all[rng.IntN(len(all))]; rng.IntN(4) {
			case 0:
				parts = append(parts, sec)
			case 1:
				parts = append(parts, sec[:len(sec)-1]) // one byte short: no secret
			default:
				parts = append(parts, randomSecret(rng, rng.IntN(40)))
			}
		}
		if i%7 == 0 {
			parts = append(parts, all[i], all[i])
		}
		data := strings.Join(parts, `","`)
		var want []string
		for off := range len(data) {
			for _, sec := range all {
				if strings.HasPrefix(data[off:], sec) {
					want = append(want, sec)
				}
			}
		}
		got := s.find([]byte(data))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("find in %q:\n got %q\nwant %q", data, got, want)
		}
	}
}

// BenchmarkSecretFind scans a server frame of ids and text against a full
// set of secrets: the oracle does it for every frame the server sends.
func BenchmarkSecretFind(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	s, _ := fullSecretSet(rng)
	frame := []byte(`{"v":1,"seq":1042,"ts":1764547200.123456,"type":"run.delta","task_id":"` + randomSecret(rng, 12) + `","run_id":"run_` +
		randomSecret(rng, 8) + `","event_id":"e_1042","payload":{"kind":"text","text":"The weather in Lisbon tomorrow: 21°C, light wind from the north-west.","index":3,"call_id":"` + randomSecret(rng, 16) + `"}}`)
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if found := s.find(frame); len(found) != 0 {
			b.Fatal(found)
		}
	}
}
