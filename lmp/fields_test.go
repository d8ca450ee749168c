package lmp_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/schema"
)

// TestGoFieldsMatchSchemas compares the shape of every Go payload type with
// its schema, field by field, so that an optional field no example happens
// to carry cannot drift unnoticed: the same JSON names on both sides, the
// same JSON type, every required field always written by Go (no
// omitempty), and a field Go may write as null (a pointer or slice without
// omitempty) is nullable in the schema, while a nullable schema field is a
// pointer in Go, so a decoded null stays distinct from "" or 0.
func TestGoFieldsMatchSchemas(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		values map[string]lmp.Payload
	}{{"s2c", serverValues}, {"c2s", clientValues}} {
		for typ, p := range tc.values {
			doc := loadSchema(t, tc.dir+"/"+typ+".json")
			payload := resolveLocal(doc, doc["$defs"].(map[string]any)["payload"])
			for _, msg := range compareObject(tc.dir+"/"+typ, doc, payload, reflect.TypeOf(p)) {
				t.Error(msg)
			}
		}
	}
	// The HTTP documents of pairing and health (P-1, P-2, T-2).
	for name, v := range map[string]any{
		"http/qr": lmp.QRPayload{}, "http/health": lmp.Health{},
		"http/error": lmp.HTTPError{}, "http/pair-request": lmp.PairRequest{},
	} {
		doc := loadSchema(t, name+".json")
		for _, msg := range compareObject(name, doc, doc, reflect.TypeOf(v)) {
			t.Error(msg)
		}
	}
}

// TestFieldComparisonCatchesDrift keeps TestGoFieldsMatchSchemas honest: Go
// types that drift from run.delta's schema in each way it checks are
// reported.
func TestFieldComparisonCatchesDrift(t *testing.T) {
	doc := loadSchema(t, "s2c/run.delta.json")
	payload := resolveLocal(doc, doc["$defs"].(map[string]any)["payload"])
	for _, tc := range []struct {
		v    any
		want string
	}{
		{struct {
			RunID     string `json:"run_id"`
			Text      string `json:"text"`
			Kind      string `json:"kind"`
			Iteration int    `json:"iter"`
		}{}, `writes "iter"`},
		{struct {
			RunID     string `json:"run_id"`
			Text      string `json:"text"`
			Kind      string `json:"kind,omitempty"`
			Iteration int    `json:"iteration"`
		}{}, "omitempty"},
		{struct {
			RunID     string  `json:"run_id"`
			Text      *string `json:"text"`
			Kind      string  `json:"kind"`
			Iteration int     `json:"iteration"`
		}{}, "writes null"},
		{struct {
			RunID     string `json:"run_id"`
			Text      string `json:"text"`
			Kind      string `json:"kind"`
			Iteration string `json:"iteration"`
		}{}, "Go writes string"},
	} {
		probs := compareObject("s2c/run.delta", doc, payload, reflect.TypeOf(tc.v))
		if !strings.Contains(strings.Join(probs, "\n"), tc.want) {
			t.Errorf("%T: want a problem mentioning %q, got %q", tc.v, tc.want, probs)
		}
	}
}

func loadSchema(t *testing.T, p string) map[string]any {
	t.Helper()
	raw, err := fs.ReadFile(schema.Files(), p)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// resolveLocal follows "#/$defs/…" references within doc; shared
// definitions in common.json are summarised by jsonTypes.
func resolveLocal(doc map[string]any, v any) map[string]any {
	m, _ := v.(map[string]any)
	for m != nil {
		ref, _ := m["$ref"].(string)
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return m
		}
		m, _ = doc["$defs"].(map[string]any)[name].(map[string]any)
	}
	return m
}

// jsonTypes lists the JSON types a property schema allows.
func jsonTypes(m map[string]any) []string {
	if ref, _ := m["$ref"].(string); strings.HasPrefix(ref, "../common.json#/$defs/") {
		switch strings.TrimPrefix(ref, "../common.json#/$defs/") {
		case "timestamp":
			return []string{"number"}
		case "nullableTimestamp":
			return []string{"null", "number"}
		case "count":
			return []string{"integer"}
		case "nullableString":
			return []string{"null", "string"}
		case "eventId":
			return []string{"string"}
		}
	}
	var out []string
	switch v := m["type"].(type) {
	case string:
		out = []string{v}
	case []any:
		for _, e := range v {
			s, _ := e.(string)
			out = append(out, s)
		}
	}
	if out == nil {
		vals, _ := m["enum"].([]any)
		if c, ok := m["const"]; ok {
			vals = append(vals, c)
		}
		for _, v := range vals {
			switch v.(type) {
			case string:
				out = append(out, "string")
			case bool:
				out = append(out, "boolean")
			case float64:
				out = append(out, "number")
			case nil:
				out = append(out, "null")
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// goJSONType is the JSON type encoding/json writes for t (pointers
// stripped).
func goJSONType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return t.Kind().String()
}

type goField struct {
	typ       reflect.Type
	omitempty bool
}

// goFields lists t's JSON fields by name, embedded structs flattened.
func goFields(t reflect.Type) map[string]goField {
	out := map[string]goField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			for k, v := range goFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = goField{typ: f.Type, omitempty: strings.Contains(opts, "omitempty")}
	}
	return out
}

// compareObject returns one line per disagreement between schema object s
// and Go struct type gt.
func compareObject(at string, doc, s map[string]any, gt reflect.Type) (probs []string) {
	fail := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	props, _ := s["properties"].(map[string]any)
	fields := goFields(gt)
	for name := range fields {
		if _, ok := props[name]; !ok {
			fail("%s: Go %s writes %q, which the schema does not describe", at, gt.Name(), name)
		}
	}
	required := map[string]bool{}
	req, _ := s["required"].([]any)
	for _, r := range req {
		required[r.(string)] = true
	}
	for name, raw := range props {
		where := at + "/" + name
		f, ok := fields[name]
		if !ok {
			fail("%s: in the schema but not in Go %s", where, gt.Name())
			continue
		}
		prop := resolveLocal(doc, raw)
		types := jsonTypes(prop)
		nullable := slices.Contains(types, "null")
		want := goJSONType(f.typ)
		if !slices.Contains(types, want) && !(want == "integer" && slices.Contains(types, "number")) {
			fail("%s: schema type %v, Go writes %s (%s)", where, types, want, f.typ)
		}
		if required[name] && f.omitempty {
			fail("%s: required by the schema but omitempty in Go", where)
		}
		mayWriteNull := !f.omitempty && (f.typ.Kind() == reflect.Pointer || f.typ.Kind() == reflect.Slice)
		if mayWriteNull && !nullable && f.typ.Kind() == reflect.Pointer {
			fail("%s: Go writes null for a nil %s, which the schema refuses", where, f.typ)
		}
		if nullable && f.typ.Kind() != reflect.Pointer {
			fail("%s: nullable in the schema, but Go %s cannot tell null from its zero value", where, f.typ)
		}
		elem := f.typ
		for elem.Kind() == reflect.Pointer || elem.Kind() == reflect.Slice {
			elem = elem.Elem()
		}
		if elem.Kind() == reflect.Struct {
			sub := prop
			if want == "array" {
				sub = resolveLocal(doc, prop["items"])
			}
			probs = append(probs, compareObject(where, doc, sub, elem)...)
		}
	}
	return probs
}
