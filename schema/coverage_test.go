package schema

import (
	"errors"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// constraintKeywords are the keywords that can reject a value. Conditions
// (if), combinators and annotations are not constraints of their own.
var constraintKeywords = map[string]bool{
	"type": true, "enum": true, "const": true, "required": true, "pattern": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
}

// constraints lists every constraint keyword written in the LMP schemas, as
// "<$id>#<pointer to the keyword>"; a required keyword counts once per name
// it requires ("…/required/<name>"). Schemas that only dispatch to others
// (any.json) and the subschemas of an "if" (a condition, not a constraint)
// are left out, as are schemas outside this kit (mockscript.schema.json).
func constraints(t *testing.T) map[string]bool {
	t.Helper()
	r, err := load()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, name := range r.names {
		if path.Base(name) == "any" || name == "mockscript.schema" {
			continue
		}
		id := r.ids[name]
		var walk func(v any, at string)
		walk = func(v any, at string) {
			switch v := v.(type) {
			case map[string]any:
				inProps := strings.HasSuffix(at, "/properties") // keys are field names here
				for k, e := range v {
					switch {
					case inProps:
						walk(e, at+"/"+escapeToken(k))
					case k == "required":
						req, _ := e.([]any)
						for _, n := range req {
							s, _ := n.(string)
							out[id+"#"+at+"/required/"+escapeToken(s)] = true
						}
					case k == "if" || k == "examples":
						// a condition and sample values, not constraints
					case constraintKeywords[k]:
						out[id+"#"+at+"/"+k] = true
						if k != "enum" && k != "const" {
							walk(e, at+"/"+k)
						}
					default:
						walk(e, at+"/"+escapeToken(k))
					}
				}
			case []any:
				for i, e := range v {
					walk(e, at+"/"+strconv.Itoa(i))
				}
			}
		}
		walk(r.docs[id], "")
		// A frame schema's "type" const cannot fail by dispatch: the type
		// picks the schema, and an unknown type gets the envelope (V-1).
		if strings.HasPrefix(name, "s2c/") || strings.HasPrefix(name, "c2s/") {
			delete(out, id+"#/properties/type/const")
		}
	}
	return out
}

// tripped returns the constraints an invalid example breaks, validated
// against the schema its manifest entry names.
func tripped(t *testing.T, schemaName string, raw []byte) []string {
	t.Helper()
	r, _ := load()
	in, probs := decode(raw, MaxBytes)
	if probs != nil {
		return nil // not JSON at all: the T-3 checks before any schema
	}
	s, ok := r.byName[schemaName]
	if !ok {
		t.Fatalf("no schema %s", schemaName)
	}
	var ve *jsonschema.ValidationError
	if err := s.Validate(in.value); !errors.As(err, &ve) {
		return nil
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		for _, c := range e.Causes {
			walk(c)
		}
		if len(e.Causes) > 0 {
			return
		}
		loc := e.AbsoluteKeywordLocation
		if strings.HasSuffix(loc, "/required") {
			inst, _ := lookup(in.value, e.InstanceLocation)
			holder := r.docAt(loc)
			for _, n := range missing(holder, inst) {
				out = append(out, loc+"/"+escapeToken(n))
			}
			return
		}
		out = append(out, loc)
	}
	walk(ve)
	return out
}

// docAt returns the schema object that holds the keyword at loc.
func (r *registry) docAt(loc string) map[string]any {
	id, frag, _ := strings.Cut(loc, "#")
	cur := any(r.docs[id])
	toks := splitPointer(frag)
	for _, tok := range toks[:len(toks)-1] {
		cur = childOf(cur, tok)
	}
	m, _ := cur.(map[string]any)
	return m
}

// TestEveryConstraintHasAnInvalidExample: the invalid corpus holds at
// least one example per constraint written in the schemas (a required
// field, a type, an enum or const, a bound, a pattern), so a constraint that
// is dropped or loosened makes some example valid and fails
// TestInvalidExamplesFailAsLabelled.
func TestEveryConstraintHasAnInvalidExample(t *testing.T) {
	want := constraints(t)
	if len(want) < 100 {
		t.Fatalf("only %d constraints found: the walk is broken", len(want))
	}
	man := manifest(t)
	covered := map[string]bool{}
	for _, p := range corpus(t, "invalid") {
		exp, ok := man[p]
		if !ok {
			continue // reported by TestInvalidExamplesFailAsLabelled
		}
		for _, c := range tripped(t, exp.Schema, readExample(t, "invalid", p)) {
			covered[c] = true
		}
	}
	var gaps []string
	for c := range want {
		if !covered[c] {
			gaps = append(gaps, strings.TrimPrefix(c, BaseURL))
		}
	}
	sort.Strings(gaps)
	for _, g := range gaps {
		t.Errorf("no invalid example breaks %s", g)
	}
}
