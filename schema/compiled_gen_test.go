package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

var update = flag.Bool("update", false, "rewrite validate_gen.go from the schemas")

const generatedFile = "validate_gen.go"

// TestCompiledIsCurrent generates the compiled validator from the embedded
// schemas and fails when validate_gen.go differs: a schema changed and the
// code was not regenerated. `go test ./schema -run TestCompiledIsCurrent
// -update` rewrites it.
func TestCompiledIsCurrent(t *testing.T) {
	r, err := load()
	if err != nil {
		t.Fatal(err)
	}
	src, err := generateCompiled(r)
	if err != nil {
		t.Fatalf("the schemas cannot be compiled to Go: %v", err)
	}
	if *update {
		if err := os.WriteFile(generatedFile, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(generatedFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, src) {
		t.Fatalf("%s is stale: the schemas changed; run `go test ./schema -run TestCompiledIsCurrent -update`", generatedFile)
	}
}

// TestCompiledCoversKnownTypes: every frame type of the lmp package has a
// generated validator in its direction, so dispatch never falls back for
// want of one.
func TestCompiledCoversKnownTypes(t *testing.T) {
	for dir, table := range map[Direction]map[string]compiledFrame{ServerToClient: compiledS2C, ClientToServer: compiledC2S} {
		for typ := range knownTypes[dir] {
			if table[typ] == nil {
				t.Errorf("%s/%s has no compiled validator", dir, typ)
			}
		}
		if table["envelope"] == nil {
			t.Errorf("%s/envelope has no compiled validator", dir)
		}
	}
}

// generator writes Go code that applies one frame schema the way
// jsonschema/v5 does (schema.go, (*Schema).validate): type first, and
// nothing else of that schema when it fails; then const, enum, required,
// properties, items, maxLength, pattern, minimum, maximum, $ref, and
// if/then/else. Errors come out in the order the library's causes do, and
// get the rule and message convert() would give them, computed here from
// the same functions (ruleAt, message).
type generator struct {
	r        *registry
	root     string // $id of the frame schema being compiled
	b        bytes.Buffer
	vars     int
	patterns []string
}

// annotations are keywords that constrain nothing.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "title": true, "description": true, "examples": true,
	"x-rule": true, "$defs": true, "$comment": true, "default": true,
}

var compiledKeywords = map[string]bool{
	"type": true, "const": true, "enum": true, "required": true, "properties": true, "items": true,
	"minLength": true, "maxLength": true, "pattern": true, "minimum": true, "maximum": true, "$ref": true,
	"if": true, "then": true, "else": true,
}

func generateCompiled(r *registry) ([]byte, error) {
	g := &generator{r: r}
	var body bytes.Buffer
	tables := map[string][]string{}
	for _, name := range r.names {
		dir, typ, _ := strings.Cut(name, "/")
		if (dir != "s2c" && dir != "c2s") || typ == "any" {
			continue
		}
		fn := "compiled_" + dir + "_" + strings.ReplaceAll(typ, ".", "_")
		tables[dir] = append(tables[dir], fmt.Sprintf("%q: %s,", typ, fn))
		g.root = r.ids[name]
		g.b.Reset()
		g.vars = 0
		if err := g.apply(r.docs[g.root].(map[string]any), g.root, "", "n0", 0); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(&body, "\n// %s applies %s.\nfunc %s(c *checker, n0 int32) {\n%s}\n", fn, name, fn, g.b.String())
	}
	var out bytes.Buffer
	out.WriteString("// Code generated from the schemas in this directory by TestCompiledIsCurrent (compiled_gen_test.go); DO NOT EDIT.\n\npackage schema\n\n")
	if len(g.patterns) > 0 {
		out.WriteString("import \"regexp\"\n\n")
		out.WriteString("// compiledPatterns are the schemas' patterns, compiled as jsonschema/v5 compiles them.\nvar compiledPatterns = [...]*regexp.Regexp{\n")
		for _, p := range g.patterns {
			fmt.Fprintf(&out, "\tregexp.MustCompile(%q),\n", p)
		}
		out.WriteString("}\n\n")
	}
	for _, dir := range []string{"c2s", "s2c"} {
		fmt.Fprintf(&out, "// compiled%s holds the validator of each %s frame schema, by type.\nvar compiled%s = map[string]compiledFrame{\n", strings.ToUpper(dir), dir, strings.ToUpper(dir))
		for _, line := range tables[dir] {
			out.WriteString("\t" + line + "\n")
		}
		out.WriteString("}\n\n")
	}
	out.Write(body.Bytes())
	return format.Source(out.Bytes())
}

func (g *generator) printf(format string, a ...any) { fmt.Fprintf(&g.b, format, a...) }

func (g *generator) newVar(prefix string) string {
	g.vars++
	return prefix + strconv.Itoa(g.vars)
}

// rule is the rule convert() gives a failure of keyword kw at keyword
// location kl (ruleAt over the same path), and the schema holding it.
func (g *generator) rule(kl, kw string) (string, map[string]any) {
	return g.r.ruleAt(g.root, kl+"/"+kw)
}

// apply emits the code that applies schema s (found under base) to the node
// in variable n; kl is the keyword location that led to s.
func (g *generator) apply(s map[string]any, base, kl, n string, depth int) error {
	if depth > 32 {
		return fmt.Errorf("%s: $ref nesting too deep (a cycle?)", kl)
	}
	for k := range s {
		if !annotations[k] && !compiledKeywords[k] {
			return fmt.Errorf("%s: keyword %q has no compiled form; add it to compiled_gen_test.go", kl, k)
		}
	}
	closeType := false
	if types, ok := s["type"]; ok {
		var conds []string
		list, _ := types.([]any)
		if str, ok := types.(string); ok {
			list = []any{str}
		}
		for _, t := range list {
			switch t {
			case "object", "array", "string", "null", "number":
				conds = append(conds, fmt.Sprintf("c.kind(%s) == kind%s", n, strings.ToUpper(t.(string)[:1])+t.(string)[1:]))
			case "boolean":
				conds = append(conds, fmt.Sprintf("c.kind(%s) == kindTrue || c.kind(%s) == kindFalse", n, n))
			case "integer":
				conds = append(conds, fmt.Sprintf("c.isInteger(%s)", n))
			default:
				return fmt.Errorf("%s: type %v", kl, t)
			}
		}
		rule, holder := g.rule(kl, "type")
		want := typeNames(holder["type"])
		g.printf("if !(%s) {\nc.typeFailed(%s, %q, %q, %v)\n} else {\n", strings.Join(conds, " || "), n, rule, want, strings.Contains(want, "integer"))
		closeType = true
	}
	if v, ok := s["const"]; ok {
		rule, holder := g.rule(kl, "const")
		want, _ := json.Marshal(holder["const"])
		switch v := v.(type) {
		case string:
			g.printf("if !c.textIs(%s, %q) {\nc.constFailed(%s, %q, %q)\n}\n", n, v, n, rule, want)
		case float64:
			if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
				return fmt.Errorf("%s: const %v has no compiled form", kl, v)
			}
			g.printf("if !c.intIs(%s, %d) {\nc.constFailed(%s, %q, %q)\n}\n", n, int64(v), n, rule, want)
		default:
			return fmt.Errorf("%s: const %v has no compiled form", kl, v)
		}
	}
	if v, ok := s["enum"]; ok {
		rule, holder := g.rule(kl, "enum")
		var conds []string
		for _, e := range v.([]any) {
			str, ok := e.(string)
			if !ok {
				return fmt.Errorf("%s: enum value %v has no compiled form", kl, e)
			}
			conds = append(conds, fmt.Sprintf("c.textIs(%s, %q)", n, str))
		}
		msg := message("enum", holder, nil, &jsonschema.ValidationError{}, false)
		g.printf("if !(%s) {\nc.fail(\"\", %q, %q)\n}\n", strings.Join(conds, " || "), rule, msg)
	}
	req, hasReq := s["required"]
	props, hasProps := s["properties"].(map[string]any)
	if hasReq || hasProps {
		g.printf("if c.kind(%s) == kindObject {\n", n)
		if hasReq {
			rule, _ := g.rule(kl, "required")
			for _, name := range req.([]any) {
				name := name.(string)
				g.printf("if c.t.member(%s, %q) < 0 {\nc.fail(%q, %q, %q)\n}\n", n, name, escapeToken(name), rule, fmt.Sprintf("required field %q is missing", name))
			}
		}
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			sub, ok := props[name].(map[string]any)
			if !ok {
				return fmt.Errorf("%s: property %s is not a schema object", kl, name)
			}
			m := g.newVar("m")
			g.printf("if %s := c.t.member(%s, %q); %s >= 0 {\nc.push(%q)\n", m, n, name, m, escapeToken(name))
			if err := g.apply(sub, base, kl+"/properties/"+escapeToken(name), m, depth); err != nil {
				return err
			}
			g.printf("c.pop()\n}\n")
		}
		g.printf("}\n")
	}
	if items, ok := s["items"]; ok {
		sub, ok := items.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: items is not a schema object", kl)
		}
		e, i := g.newVar("e"), g.newVar("i")
		g.printf("if c.kind(%s) == kindArray {\n%s := 0\nfor %s := c.t.nodes[%s].first; %s >= 0; %s = c.t.nodes[%s].next {\nc.pushIndex(%s)\n", n, i, e, n, e, e, e, i)
		if err := g.apply(sub, base, kl+"/items", e, depth); err != nil {
			return err
		}
		g.printf("c.pop()\n%s++\n}\n}\n", i)
	}
	minLen, hasMin := s["minLength"].(float64)
	maxLen, hasMax := s["maxLength"].(float64)
	pattern, hasPat := s["pattern"].(string)
	if hasMin || hasMax || hasPat {
		g.printf("if c.kind(%s) == kindString {\n", n)
		if hasMin {
			rule, _ := g.rule(kl, "minLength")
			g.printf("if c.runes(%s) < %d {\nc.lengthFailed(%s, %q, \"at least\", %d)\n}\n", n, int(minLen), n, rule, int(minLen))
		}
		if hasMax {
			rule, _ := g.rule(kl, "maxLength")
			// The raw span is never shorter, in bytes, than the value in
			// characters: count only when it could be over.
			g.printf("if nd := &c.t.nodes[%s]; int(nd.end-nd.start) > %d && c.runes(%s) > %d {\nc.lengthFailed(%s, %q, \"at most\", %d)\n}\n", n, int(maxLen), n, int(maxLen), n, rule, int(maxLen))
		}
		if hasPat {
			rule, holder := g.rule(kl, "pattern")
			idx := slices.Index(g.patterns, pattern)
			if idx < 0 {
				idx = len(g.patterns)
				g.patterns = append(g.patterns, pattern)
			}
			msg := message("pattern", holder, nil, &jsonschema.ValidationError{}, false)
			g.printf("if !compiledPatterns[%d].Match(c.t.text(%s, false)) {\nc.fail(\"\", %q, %q)\n}\n", idx, n, rule, msg)
		}
		g.printf("}\n")
	}
	_, hasMinN := s["minimum"]
	_, hasMaxN := s["maximum"]
	if hasMinN || hasMaxN {
		g.printf("if c.kind(%s) == kindNumber {\n", n)
		for _, kw := range []string{"minimum", "maximum"} {
			b, ok := s[kw].(float64)
			if !ok {
				continue
			}
			if b != math.Trunc(b) || math.Abs(b) > 1<<53 {
				return fmt.Errorf("%s: %s %v is not an integer; numCmp compares with integral bounds only", kl, kw, b)
			}
			rule, holder := g.rule(kl, kw)
			msg := message(kw, holder, nil, &jsonschema.ValidationError{}, false)
			cmp := map[string]string{"minimum": "< 0", "maximum": "> 0"}[kw]
			g.printf("if c.numCmp(%s, %s) %s {\nc.fail(\"\", %q, %q)\n}\n", n, strconv.FormatFloat(b, 'f', -1, 64), cmp, rule, msg)
		}
		g.printf("}\n")
	}
	if ref, ok := s["$ref"].(string); ok {
		nb, target := g.r.resolve(base, ref)
		sub, ok := target.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: $ref %q does not resolve to a schema object", kl, ref)
		}
		if err := g.apply(sub, nb, kl+"/$ref", n, depth+1); err != nil {
			return err
		}
	}
	if cond, ok := s["if"].(map[string]any); ok {
		f, holds := g.newVar("f"), g.newVar("holds")
		g.printf("c.mute++\n%s := c.fails\n", f)
		if err := g.apply(cond, base, kl+"/if", n, depth); err != nil {
			return err
		}
		g.printf("c.mute--\n%s := c.fails == %s\n", holds, f)
		then, hasThen := s["then"].(map[string]any)
		els, hasElse := s["else"].(map[string]any)
		if hasThen {
			g.printf("if %s {\n", holds)
			if err := g.apply(then, base, kl+"/then", n, depth); err != nil {
				return err
			}
			g.printf("}\n")
		}
		if hasElse {
			g.printf("if !%s {\n", holds)
			if err := g.apply(els, base, kl+"/else", n, depth); err != nil {
				return err
			}
			g.printf("}\n")
		}
		if !hasThen && !hasElse {
			g.printf("_ = %s\n", holds)
		}
	} else if _, ok := s["then"]; ok {
		return fmt.Errorf("%s: then without if", kl)
	} else if _, ok := s["else"]; ok {
		return fmt.Errorf("%s: else without if", kl)
	}
	if closeType {
		g.printf("}\n")
	}
	return nil
}
