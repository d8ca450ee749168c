package schema

import (
	"encoding/json"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// lmpSchemas are the schemas of this kit; other embedded files (such as the
// mock Hermes script schema) are compiled but follow their own conventions.
func lmpSchemas(t *testing.T) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, dir := range []string{"s2c", "c2s", "http", "driver", "."} {
		entries, err := fs.ReadDir(files, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := path.Join(dir, e.Name())
			if e.IsDir() || !strings.HasSuffix(p, ".json") || p == "mockscript.schema.json" {
				continue
			}
			raw, _ := fs.ReadFile(files, p)
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			out[strings.TrimSuffix(p, ".json")] = m
		}
	}
	return out
}

var ruleRef = regexp.MustCompile(`\b[A-Z]-[0-9]+\b|note [0-9]+|driver API`)

func TestSchemaConventions(t *testing.T) {
	for name, m := range lmpSchemas(t) {
		if m["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema is %v, want draft 2020-12", name, m["$schema"])
		}
		if m["$id"] != BaseURL+name+".json" {
			t.Errorf("%s: $id is %v", name, m["$id"])
		}
		if s, _ := m["title"].(string); s == "" {
			t.Errorf("%s: no title", name)
		}
		if d, _ := m["description"].(string); !ruleRef.MatchString(d) {
			t.Errorf("%s: description cites no rule ID: %q", name, d)
		}
		if r, _ := m["x-rule"].(string); r == "" || (!isRuleID(r) && r != "driver-api") {
			t.Errorf("%s: root x-rule %q is not a rule ID", name, r)
		}
		exs, _ := m["examples"].([]any)
		if len(exs) == 0 {
			t.Errorf("%s: no examples", name)
		}
		for i, ex := range exs {
			raw, _ := json.Marshal(ex)
			if errs := ValidateDocument(name, raw); errs != nil {
				t.Errorf("%s: examples[%d] does not validate: %v", name, i, errs)
			}
		}
		walkSchema(m, name, func(at string, node map[string]any) {
			// V-1: unknown fields are allowed everywhere.
			if ap, ok := node["additionalProperties"]; ok && ap == false {
				t.Errorf("%s%s: additionalProperties is false (V-1)", name, at)
			}
			if r, ok := node["x-rule"].(string); ok && !isRuleID(r) && r != "driver-api" {
				t.Errorf("%s%s: x-rule %q is not a rule ID", name, at, r)
			}
		})
	}
}

func walkSchema(v any, at string, fn func(string, map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		fn(at, v)
		for k, e := range v {
			if k != "examples" && k != "enum" && k != "const" {
				walkSchema(e, at+"/"+k, fn)
			}
		}
	case []any:
		for i, e := range v {
			walkSchema(e, at+"/"+strconv.Itoa(i), fn)
		}
	}
}

// TestFrameSchemasMatchTypes fails when lmp gains a frame type without a
// schema, or a schema has no frame type.
func TestFrameSchemasMatchTypes(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		types []string
	}{{"s2c", lmp.ServerTypes}, {"c2s", lmp.ClientTypes}} {
		var got []string
		entries, _ := fs.ReadDir(files, tc.dir)
		for _, e := range entries {
			n := strings.TrimSuffix(e.Name(), ".json")
			if n != "envelope" && n != "any" {
				got = append(got, n)
			}
		}
		want := append([]string(nil), tc.types...)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s schemas %v, lmp types %v", tc.dir, got, want)
		}
		for _, typ := range tc.types {
			raw := readExample(t, "valid", tc.dir+"/"+typ+".json")
			var f map[string]any
			_ = json.Unmarshal(raw, &f)
			if f["type"] != typ {
				t.Errorf("valid/%s/%s.json has type %v", tc.dir, typ, f["type"])
			}
		}
	}
}

// TestAnyAgreesWithDispatch checks that s2c/any.json and c2s/any.json, the
// single schemas app developers use, accept and reject exactly what
// ValidateFrame does on the whole corpus.
func TestAnyAgreesWithDispatch(t *testing.T) {
	for _, kind := range []string{"valid", "invalid"} {
		for _, p := range corpus(t, kind) {
			dir, _ := path.Split(p)
			var d Direction
			switch dir {
			case "s2c/":
				d = ServerToClient
			case "c2s/":
				d = ClientToServer
			default:
				continue
			}
			raw := readExample(t, kind, p)
			byType := ValidateFrame(d, raw)
			byAny := ValidateDocument(string(d)+"/any", raw)
			if (byType == nil) != (byAny == nil) {
				// E-3's cross-field check is outside JSON Schema; any.json
				// goes through the same validator so it applies there too.
				t.Errorf("%s/%s: by type %v, by any.json %v", kind, p, byType, byAny)
			}
		}
	}
}

// TestNoExternalLoads proves the loader never reaches outside the embedded
// files: a schema whose $ref names another host fails to compile.
func TestNoExternalLoads(t *testing.T) {
	fsys := fstest.MapFS{
		"a.json": {Data: []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://lmpkit.dev/schema/a.json","$ref":"https://example.com/remote.json"}`)},
	}
	if _, err := compileAll(fsys); err == nil || !strings.Contains(err.Error(), "not an embedded schema") {
		t.Fatalf("remote $ref compiled: %v", err)
	}
	fsys = fstest.MapFS{
		"b.json": {Data: []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://lmpkit.dev/schema/b.json","$ref":"file:///etc/passwd"}`)},
	}
	if _, err := compileAll(fsys); err == nil || !strings.Contains(err.Error(), "not an embedded schema") {
		t.Fatalf("file $ref compiled: %v", err)
	}
}

func TestEveryEmbeddedSchemaCompiles(t *testing.T) {
	if err := Check(); err != nil {
		t.Fatal(err)
	}
	var want []string
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			want = append(want, strings.TrimSuffix(p, ".json"))
		}
		return err
	})
	sort.Strings(want)
	if _, err := fs.Stat(Files(), "examples"); err == nil {
		t.Error("the example corpus is embedded; it belongs to the tests only")
	}
	if got := Names(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("compiled %v, embedded %v", got, want)
	}
}

func TestUnknownSchemaAndDirection(t *testing.T) {
	if errs := ValidateDocument("http/nope", []byte(`{}`)); len(errs) != 1 || !strings.Contains(errs[0].Message, "no schema named") {
		t.Errorf("unknown schema: %v", errs)
	}
	if errs := ValidateFrame("up", []byte(`{}`)); len(errs) != 1 || !strings.Contains(errs[0].Message, "unknown direction") {
		t.Errorf("unknown direction: %v", errs)
	}
}

func TestErrorString(t *testing.T) {
	e := Error{Frame: "run.delta", Pointer: "/payload/kind", Rule: "F-1", Message: `must be one of "text", "reasoning"`}
	if got, want := e.String(), `run.delta: /payload/kind: must be one of "text", "reasoning" (F-1)`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = Error{Frame: "frame", Message: "not JSON:\nunexpected EOF", Rule: "T-3"}
	if got, want := e.String(), "frame: (root): not JSON: unexpected EOF (T-3)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestMessagesNeverQuoteValues keeps secrets out of error output (S-1): a
// hello whose token and credential have the wrong shape is reported without
// their values.
func TestMessagesNeverQuoteValues(t *testing.T) {
	const secret = "SECRET-TOKEN-VALUE-123"
	raw := []byte(`{"v":1,"type":"hello","payload":{"protocol_version":"` + secret + `","token":["` + secret + `"],"device_info":{"model":1,"os":"` + secret + `","app_version":{}}}}`)
	errs := ValidateFrame(ClientToServer, raw)
	if len(errs) == 0 {
		t.Fatal("no errors")
	}
	for _, e := range errs {
		if strings.Contains(e.String(), secret) {
			t.Errorf("error quotes the value: %s", e)
		}
	}
	// Bounds are worded by the validator too: the bound, not the value.
	raw = []byte(`{"v":1,"type":"hello","payload":{"protocol_version":1,"token":"t","last_seq":-918273645,"device_info":{"model":"m","os":"o","app_version":"a"}}}`)
	errs = ValidateFrame(ClientToServer, raw)
	if len(errs) != 1 || errs[0].Pointer != "/payload/last_seq" || errs[0].Message != "must be >= 0" {
		t.Errorf("negative last_seq: %v", errs)
	}
	raw = []byte(`{"v":1,"type":"task.list","payload":{"request_id":"r","limit":9007199254740992}}`)
	errs = ValidateFrame(ClientToServer, raw)
	if len(errs) != 1 || errs[0].Message != "must be <= 9007199254740991" {
		t.Errorf("limit over 2^53-1: %v", errs)
	}
}

// TestOnlyJSONWhitespaceAroundAFrame: RFC 8259 whitespace (space, tab, LF,
// CR) may surround a frame; any other byte after it, Unicode spaces such as
// a vertical tab included, makes the input not one JSON value (T-3).
func TestOnlyJSONWhitespaceAroundAFrame(t *testing.T) {
	const frame = `{"v":1,"type":"ping","payload":{}}`
	if errs := ValidateFrame(ClientToServer, []byte(" \t\r\n"+frame+" \t\r\n")); len(errs) != 0 {
		t.Fatalf("JSON whitespace refused: %v", errs)
	}
	for _, tail := range []string{"\v", "\f", "\u00a0", "\u0085", "x"} {
		errs := ValidateFrame(ClientToServer, []byte(frame+tail))
		if len(errs) == 0 || !strings.Contains(errs[0].Message, "not one JSON value") {
			t.Errorf("frame followed by %q: %v, want not one JSON value", tail, errs)
		}
	}
}
