package campaign

import (
	"bytes"
	"math"
	"slices"
	"strings"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Mutation names, used as Step.Gen.
const (
	MutValid    = "valid"
	MutBoundary = "boundary"
	MutType     = "wrong-type"
	MutMissing  = "missing-field"
	MutExtra    = "extra-field"
	MutHuge     = "huge-value"
	MutDeep     = "deep-nesting"
	MutUTF8     = "invalid-utf8"
	MutBinary   = "binary"
	MutBroken   = "broken-json"
	MutOversize = "oversized"
	MutBytes    = "byte-flip"
)

// mutations in the order mutateFrame picks them, with weights: cheap and
// interesting ones often, megabyte frames rarely so throughput stays high.
// Binary frames, invalid UTF-8 and oversized frames end the connection
// (1003, 1007, 1009), and every frame after them in the episode is lost:
// they are rare so that episodes reach deep states.
var mutations = []struct {
	name   string
	weight int
}{
	{MutValid, 30}, {MutBoundary, 10}, {MutType, 12}, {MutMissing, 10}, {MutExtra, 8},
	{MutHuge, 3}, {MutDeep, 2}, {MutUTF8, 2}, {MutBinary, 2}, {MutBroken, 12}, {MutBytes, 8},
	{MutOversize, 1},
}

var mutationTotal = func() int {
	n := 0
	for _, m := range mutations {
		n += m.weight
	}
	return n
}()

// mutateFrame turns a valid frame into a step, mutated by a random mutation.
func (g *gen) mutateFrame(f map[string]any) Step {
	k := g.r.IntN(mutationTotal)
	name := MutValid
	for _, m := range mutations {
		if k < m.weight {
			name = m.name
			break
		}
		k -= m.weight
	}
	return g.applyMutation(name, f)
}

func (g *gen) applyMutation(name string, f map[string]any) Step {
	s := Step{Op: OpText, Gen: name}
	switch name {
	case MutBoundary:
		g.replaceLeaf(f, func(any) any { return g.boundary() })
	case MutType:
		g.replaceLeaf(f, func(v any) any { return g.otherType(v) })
	case MutMissing:
		g.deleteKey(f)
	case MutExtra:
		g.addKey(f)
	case MutHuge:
		n := 1 << (10 + g.r.IntN(8)) // 1 KiB … 128 KiB
		if g.chance(0.3) {
			// At the kit's limits and one over: escaped, U+2028 and < are six
			// bytes each, what an echo that is not bounded grows by.
			limits := []int{lmp.MaxIDLength, lmp.MaxIDLength + 1, lmp.MaxTextLength, lmp.MaxTextLength + 1}
			n = limits[g.r.IntN(len(limits))]
		}
		g.replaceLeaf(f, func(any) any { return hugeValue(g.r.IntN(len(hugeUnits)), n) })
	case MutDeep:
		depth := 50 + g.r.IntN(5000)
		if g.chance(0.1) {
			depth = 20000 // beyond encoding/json's nesting limit
		}
		shape := 0 // [[…1…]]
		if g.chance(0.5) {
			shape = 1 // {"a":{"a":…1…}}
		}
		s.Data = g.deep(f, shape, depth)
		return s
	case MutUTF8:
		s.Data = g.badUTF8(g.encode(f))
		return s
	case MutBinary:
		s.Op = OpBinary
		if g.chance(0.5) {
			s.Data = g.encode(f)
		} else {
			s.Data = g.randomBytes(1 + g.r.IntN(64))
		}
		return s
	case MutBroken:
		s.Data = g.broken(g.encode(f))
		return s
	case MutBytes:
		s.Data = g.flipBytes(g.encode(f))
		return s
	case MutOversize:
		// Just over the read limit: the server must close with 1009, not
		// crash (docs/protocol.md, read limit).
		pad := lmp.MaxFrameBytes + 1 + g.r.IntN(1024)
		f["pad"] = padValue(pad)
	}
	s.Data = g.encode(f)
	return s
}

// deep puts a value nested depth levels deep, of the given shape, first in
// f's payload; the nesting alone when f has no payload object.
func (g *gen) deep(f map[string]any, shape, depth int) []byte {
	const at = `"payload":{`
	data := g.encodeScratch(f)
	i := bytes.Index(data, []byte(at))
	if i < 0 {
		return appendNest(nil, shape, depth)
	}
	i += len(at)
	nest := depth*(len(nestings[shape].open)+len(nestings[shape].close)) + 1
	out := make([]byte, 0, len(data)+len(`"deep":,`)+nest)
	out = append(append(out, data[:i]...), `"deep":`...)
	out = append(appendNest(out, shape, depth), ',')
	return append(out, data[i:]...)
}

func (g *gen) boundary() any {
	return []any{int64(-1), int64(0), int64(1), int64(math.MaxInt32) + 1, int64(9007199254740991),
		int64(9007199254740992), int64(math.MaxInt64), int64(math.MinInt64), 1e308, -1e308, 0.5, math.Copysign(0, -1),
		1.7976931348623157e308, "", strings.Repeat("9", 400)}[g.r.IntN(15)]
}

func (g *gen) otherType(v any) any {
	choices := []any{nil, true, int64(42), 3.25, "str", []any{1, "a"}, map[string]any{"k": "v"}}
	for {
		c := choices[g.r.IntN(len(choices))]
		if sameKind(c, v) {
			continue
		}
		return c
	}
}

func sameKind(a, b any) bool {
	switch a.(type) {
	case nil:
		return b == nil
	case bool:
		_, ok := b.(bool)
		return ok
	case int64, float64, int:
		switch b.(type) {
		case int64, float64, int:
			return true
		}
		return false
	case string:
		_, ok := b.(string)
		return ok
	case []any:
		_, ok := b.([]any)
		return ok
	case map[string]any:
		_, ok := b.(map[string]any)
		return ok
	}
	return false
}

// objects lists every object in the tree, f first, in a stable order.
func objects(v any, out []map[string]any) []map[string]any {
	switch t := v.(type) {
	case map[string]any:
		out = append(out, t)
		for _, k := range sortedKeys(t) {
			out = objects(t[k], out)
		}
	case []any:
		for _, e := range t {
			out = objects(e, out)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// replaceLeaf replaces the value of one random key anywhere in f.
func (g *gen) replaceLeaf(f map[string]any, with func(any) any) {
	objs := objects(f, nil)
	o := objs[g.r.IntN(len(objs))]
	keys := sortedKeys(o)
	if len(keys) == 0 {
		o["x"] = with(nil)
		return
	}
	k := keys[g.r.IntN(len(keys))]
	o[k] = with(o[k])
}

func (g *gen) deleteKey(f map[string]any) {
	objs := objects(f, nil)
	o := objs[g.r.IntN(len(objs))]
	if keys := sortedKeys(o); len(keys) > 0 {
		delete(o, keys[g.r.IntN(len(keys))])
	}
}

func (g *gen) addKey(f map[string]any) {
	objs := objects(f, nil)
	o := objs[g.r.IntN(len(objs))]
	o[g.pick([]string{"extra", "__proto__", "", "payload", "type", "ünï", "x-" + g.text()})] = g.otherType(nil)
}

// badUTF8 puts invalid UTF-8 inside a JSON string of data (T-3).
func (g *gen) badUTF8(data []byte) []byte {
	bad := [][]byte{{0xff}, {0xc0, 0xaf}, {0xed, 0xa0, 0x80}, {0xe2, 0x82}, {0xf8, 0x88, 0x80, 0x80, 0x80}}[g.r.IntN(5)]
	if g.chance(0.3) {
		bad = []byte(`\ud800`) // a lone surrogate escape: valid JSON, no valid text
	}
	i := bytes.LastIndexByte(data, '"')
	if i <= 0 {
		return append(data, bad...)
	}
	out := slices.Clone(data[:i])
	out = append(out, bad...)
	return append(out, data[i:]...)
}

func (g *gen) broken(data []byte) []byte {
	switch g.r.IntN(8) {
	case 0:
		return data[:g.r.IntN(len(data))] // truncated
	case 1:
		return append(slices.Clone(data), g.pick([]string{"}", "]", ",", "x", " {}"})...)
	case 2:
		return bytes.Replace(data, []byte(`"v":1`), []byte(`"v":1,"v":2`), 1) // duplicate key
	case 3:
		return []byte(g.pick([]string{"", "null", "[]", "1", `"hello"`, "true", "{", "NaN", "{'v':1}", "\x00", "{}"}))
	case 4:
		return bytes.Replace(data, []byte(`"payload":{`), []byte(`"payload":[`), 1)
	case 5:
		return bytes.ReplaceAll(data, []byte(`"`), []byte(`'`))
	case 6:
		return append([]byte{0xef, 0xbb, 0xbf}, data...) // a byte order mark
	default:
		i := g.r.IntN(len(data) + 1)
		out := slices.Clone(data[:i])
		out = append(out, g.randomBytes(1+g.r.IntN(4))...)
		return append(out, data[i:]...)
	}
}

func (g *gen) flipBytes(data []byte) []byte {
	out := slices.Clone(data)
	for range 1 + g.r.IntN(3) {
		if len(out) == 0 {
			break
		}
		i := g.r.IntN(len(out))
		switch g.r.IntN(3) {
		case 0:
			out[i] ^= 1 << g.r.IntN(8)
		case 1:
			out = append(out[:i], out[i+1:]...)
		default:
			j := g.r.IntN(len(out))
			lo, hi := min(i, j), max(i, j)
			if hi-lo < 64 {
				out = append(out[:hi:hi], append(slices.Clone(out[lo:hi]), out[hi:]...)...)
			}
		}
	}
	return out
}

func (g *gen) randomBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.UintN(256))
	}
	return b
}
