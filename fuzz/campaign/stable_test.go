package campaign

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"testing"
)

// episodesDigest is the SHA-256 of the first episodes of three seeds and of
// every mutation applied to generated frames, as written by the generator
// when seeds were last allowed to change meaning. A seed names the same
// episodes, byte for byte, from one release to the next: a reproducer's
// seed, a CI log's seed and a bug report's seed replay what they found.
// Speeding up the generator must leave this digest alone; a deliberate
// change of what a seed generates updates it and says so in its commit.
const episodesDigest = "5a36d3558378331296d484bd9b5499e36944db790ff4043283b572d6b852d73a"

// TestEpisodesKeepTheirBytes: the generator still writes, for the same
// seeds, the bytes it wrote when episodesDigest was recorded.
func TestEpisodesKeepTheirBytes(t *testing.T) {
	s := schemasT(t)
	h := sha256.New()
	for _, seed := range []uint64{1, 2, 2026} {
		g := newGen(seed, s)
		var eps []Episode
		for range 100 {
			eps = append(eps, g.episode())
		}
		for _, kind := range EpisodeKinds() {
			for range 20 {
				eps = append(eps, g.episodeOf(kind))
			}
		}
		for _, ep := range eps {
			writeField(h, []byte(ep.Kind))
			writeField(h, []byte{boolByte(ep.Drop), boolByte(ep.MayAuth)})
			for _, st := range ep.Steps {
				writeStep(h, st)
			}
		}
		for _, m := range mutations {
			for range 20 {
				writeStep(h, g.applyMutation(m.name, g.validFrame()))
			}
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != episodesDigest {
		t.Fatalf("the generator writes other bytes for the same seeds: digest %s, recorded %s", got, episodesDigest)
	}
}

// writeStep writes every field of st to h, each prefixed by its length.
func writeStep(h hash.Hash, st Step) {
	writeField(h, []byte(st.Op))
	writeField(h, []byte(st.Gen))
	writeField(h, binary.BigEndian.AppendUint64(nil, uint64(st.Wait)))
	writeField(h, st.Data)
}

func writeField(h hash.Hash, b []byte) {
	_, _ = h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(b))))
	_, _ = h.Write(b)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
