package campaign

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/loomi-lmp/lmpkit/internal/jsonscan"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// gen produces client frames from the schemas. All randomness comes from
// r, so a generator seeded alike produces the same frames.
type gen struct {
	r *rand.Rand
	s *Schemas
	// requestIDs is a small pool so that ids repeat within an episode (I-1).
	requestIDs []string
	// scratch is where frames are encoded before each gets a copy of its
	// exact size.
	scratch []byte
}

func newGen(seed uint64, s *Schemas) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), s: s}
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

// fieldValue gives the string fields whose meaning the generator knows a
// value that the server will look up: a placeholder or a plausible id.
func (g *gen) fieldValue(name string) (string, bool) {
	switch name {
	case "token":
		return PhToken, true
	case "device_id":
		if g.chance(0.1) {
			return PhOtherID, true
		}
		return PhDeviceID, true
	case "credential":
		return PhCredential, true
	case "approval_id":
		if g.chance(0.3) {
			return "appr_" + strconv.Itoa(g.r.IntN(1000)), true
		}
		return PhApproval, true
	case "run_id":
		if g.chance(0.3) {
			return "run_" + strconv.Itoa(g.r.IntN(1000)), true
		}
		return PhRunID, true
	case "task_id":
		if g.chance(0.3) {
			return "task_" + strconv.Itoa(g.r.IntN(1000)), true
		}
		return PhTaskID, true
	case "request_id":
		if len(g.requestIDs) > 0 && g.chance(0.3) {
			return g.pick(g.requestIDs), true // I-1: replayed request id
		}
		id := "fz_" + strconv.FormatUint(g.r.Uint64()>>20, 36)
		g.requestIDs = append(g.requestIDs, id)
		return id, true
	case "text":
		return g.text(), true
	}
	return "", false
}

var words = []string{"hello", "status", "deploy", "why", "ok", "继续", "😀", "", " ", "\t", "a\u0000b", `"quoted"`, `\`, "{{x}}", "/stop"}

func (g *gen) text() string {
	n := g.r.IntN(4)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = g.pick(words)
	}
	return strings.Join(parts, " ")
}

// value returns a value valid for schema n; name is the property it fills.
func (g *gen) value(n node, name string, depth int) any {
	if ref, ok := n.m["$ref"].(string); ok && depth < 16 {
		if t, err := g.s.resolve(n, ref); err == nil {
			return g.value(t, name, depth+1)
		}
	}
	if c, ok := n.m["const"]; ok {
		return c
	}
	if enum, ok := n.m["enum"].([]any); ok && len(enum) > 0 {
		return enum[g.r.IntN(len(enum))]
	}
	typ := n.m["type"]
	if list, ok := typ.([]any); ok && len(list) > 0 {
		typ = list[g.r.IntN(len(list))]
	}
	switch typ {
	case "null":
		return nil
	case "boolean":
		return g.chance(0.5)
	case "integer":
		lo, hi := 0.0, 1000.0
		if v, ok := n.m["minimum"].(float64); ok {
			lo = v
		}
		if v, ok := n.m["maximum"].(float64); ok && v < hi+lo {
			hi = v
		}
		if hi <= lo {
			return int64(lo)
		}
		return int64(lo) + g.r.Int64N(int64(hi-lo)+1)
	case "number":
		return math.Round(g.r.Float64()*1e6) / 1e3
	case "array":
		items, _ := n.m["items"].(map[string]any)
		out := []any{}
		for range g.r.IntN(3) {
			out = append(out, g.value(node{n.file, items}, name, depth+1))
		}
		return out
	case "object":
		return g.object(n, depth)
	case "string":
		if v, ok := g.fieldValue(name); ok {
			return v
		}
		return g.pick([]string{"x", "pixel", "android", "1.0", "", "ä", "0"})
	}
	if _, ok := n.m["properties"]; ok {
		return g.object(n, depth)
	}
	if v, ok := g.fieldValue(name); ok {
		return v
	}
	return "x"
}

func (g *gen) object(n node, depth int) map[string]any {
	out := map[string]any{}
	props, _ := n.m["properties"].(map[string]any)
	var req []string
	if list, ok := n.m["required"].([]any); ok {
		for _, r := range list {
			if s, ok := r.(string); ok {
				req = append(req, s)
			}
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if !slices.Contains(req, k) && !g.chance(0.5) {
			continue
		}
		m, _ := props[k].(map[string]any)
		out[k] = g.value(node{n.file, m}, k, depth+1)
	}
	return out
}

// Hello identity modes.
const (
	helloDevice  = iota // device_id + credential: authenticates (P-8)
	helloToken          // token: pairs a new device (P-3)
	helloBoth           // token with identity: refused (note 9)
	helloWrong          // a wrong credential: refused
	helloOther          // another device's id with this device's credential: refused
	helloVersion        // unsupported protocol_version: refused (note 11)
)

// hostileDeviceInfo are device_info values with control characters: a
// cursor-up and line erase (CSI 1A, CSI 2K), CR, BEL, NUL, a C1 CSI, a
// right-to-left override.
var hostileDeviceInfo = []string{"Pixel\x1b[1A\x1b[2K\rok", "a\x07\x00b", "x\u009b2J", "abc\u202edef", "plain"}

// hello returns a schema-valid hello payload in the given mode.
func (g *gen) hello(mode int) map[string]any {
	p := g.object(g.s.types[lmp.TypeHello], 0)
	delete(p, "token")
	delete(p, "device_id")
	delete(p, "credential")
	p["protocol_version"] = lmp.Version
	// A last_seq of 0 asks for the whole replay window (E-5): up to 512
	// frames back for one hello, so ask rarely, or the campaign measures
	// replays instead of fuzzing.
	if g.chance(0.97) {
		delete(p, "last_seq")
	} else {
		p["last_seq"] = []int64{0, 1, 9007199254740991}[g.r.IntN(3)]
	}
	switch mode {
	case helloDevice:
		p["device_id"], p["credential"] = PhDeviceID, PhCredential
	case helloToken:
		p["token"] = PhToken
		if g.chance(0.3) {
			// device_info is stored and printed by administrators' tools:
			// terminal escapes and bidirectional controls in it must be
			// refused or escaped, never crash or reach a terminal raw.
			p["device_info"] = map[string]any{"model": g.pick(hostileDeviceInfo), "os": g.pick(hostileDeviceInfo), "app_version": "1"}
		}
	case helloBoth:
		p["token"], p["device_id"], p["credential"] = PhToken, PhDeviceID, PhCredential
	case helloWrong:
		p["device_id"], p["credential"] = PhDeviceID, "wrong"+strconv.FormatUint(g.r.Uint64(), 36)
	case helloOther:
		p["device_id"], p["credential"] = PhOtherID, PhCredential
	case helloVersion:
		p["device_id"], p["credential"] = PhDeviceID, PhCredential
		p["protocol_version"] = []int{0, 2, 99}[g.r.IntN(3)]
	}
	return p
}

// frame wraps a payload in a client envelope (note 1). Sometimes it adds
// the server-side envelope fields a client may send and the server ignores.
func (g *gen) frame(typ string, payload any) map[string]any {
	f := map[string]any{"v": lmp.Version, "type": typ, "payload": payload}
	if g.chance(0.05) {
		f["seq"], f["ts"], f["event_id"], f["task_id"], f["run_id"] = 7, 1.5, "e_7", nil, nil
	}
	return f
}

// validFrame returns a schema-valid frame of a random non-hello type.
func (g *gen) validFrame() map[string]any {
	for {
		typ := g.pick(g.s.names)
		if typ == lmp.TypeHello {
			continue
		}
		if typ == lmp.TypeSessionSend && !g.chance(0.04) {
			// Each session.send starts a Hermes run whose events reach
			// every device; keep them rare so the campaign measures the
			// server, not the mock's output.
			continue
		}
		return g.frame(typ, g.object(g.s.types[typ], 0))
	}
}

// encode marshals v without HTML escaping, as a phone's JSON encoder would.
// The output is encoding/json's (TestEncodeMatchesEncodingJSON), written
// directly for the generator's values (maps, slices, strings, integers,
// booleans, null) and through encoding/json for the rest (floats), which
// keeps reflection off the per-frame path.
func encode(v any) []byte {
	b, ok := appendJSON(make([]byte, 0, 128), v)
	if !ok {
		return []byte(`{"v":1,"type":"ping","payload":{}}`)
	}
	return b
}

// encode is the package's encode, into the generator's scratch buffer: a
// frame's bytes are allocated once, at their size.
func (g *gen) encode(v any) []byte { return bytes.Clone(g.encodeScratch(v)) }

// encodeScratch encodes v into the scratch buffer, valid until the next
// call.
func (g *gen) encodeScratch(v any) []byte {
	b, ok := appendJSON(g.scratch[:0], v)
	g.scratch = b[:0]
	if !ok {
		return []byte(`{"v":1,"type":"ping","payload":{}}`)
	}
	return b
}

func appendJSON(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case jsonText:
		b = append(b, '"')
		b = append(b, v...)
		return append(b, '"'), true
	case zeroArray:
		return appendZeros(b, int(v)), true
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case string:
		return jsonscan.AppendString(b, v, false), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jsonscan.AppendString(b, k, false), ':')
			var ok bool
			if b, ok = appendJSON(b, v[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSON(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
	return appendByEncodingJSON(b, v)
}

func appendByEncodingJSON(b []byte, v any) ([]byte, bool) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, false
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), true
}
