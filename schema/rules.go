package schema

import (
	"net/url"
	"strconv"
	"strings"
)

// Rule IDs are annotations in the schemas: "x-rule" on a schema names the
// rule that its keywords enforce. The rule of a failing keyword is the
// x-rule of the deepest schema on the path the validator took to reach it,
// following $ref, so a shared definition without its own x-rule inherits the
// rule of the place that uses it.
//
// ruleAt walks the keyword location kwLoc (tokens such as properties,
// payload, $ref, kind, enum) from the schema whose $id is rootID. It returns
// that rule and the schema object holding the final keyword.
func (r *registry) ruleAt(rootID, kwLoc string) (rule string, holder map[string]any) {
	base := rootID
	cur := r.docs[rootID]
	toks := splitPointer(kwLoc)
	for i := 0; ; i++ {
		m, _ := cur.(map[string]any)
		if m != nil {
			if xr, ok := m["x-rule"].(string); ok {
				rule = xr
			}
		}
		if i >= len(toks)-1 {
			return rule, m
		}
		if toks[i] == "$ref" && m != nil {
			ref, _ := m["$ref"].(string)
			base, cur = r.resolve(base, ref)
			continue
		}
		cur = childOf(cur, toks[i])
	}
}

// resolve finds the schema a $ref names, among the embedded documents.
func (r *registry) resolve(base, ref string) (string, any) {
	b, err := url.Parse(base)
	if err != nil {
		return base, nil
	}
	u, err := url.Parse(ref)
	if err != nil {
		return base, nil
	}
	abs := b.ResolveReference(u)
	frag := abs.Fragment
	abs.Fragment = ""
	id := abs.String()
	doc, ok := r.docs[id]
	if !ok {
		return id, nil
	}
	cur := any(doc)
	for _, tok := range splitPointer(frag) {
		cur = childOf(cur, tok)
	}
	return id, cur
}

// childOf steps into any JSON value by one pointer token.
func childOf(v any, tok string) any {
	switch c := v.(type) {
	case map[string]any:
		return c[tok]
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(c) {
			return nil
		}
		return c[i]
	}
	return nil
}

// isRuleID reports whether s looks like a rule ID of LMP v1 (E-3, T-7).
func isRuleID(s string) bool {
	prefix, num, ok := strings.Cut(s, "-")
	if !ok || len(prefix) != 1 || prefix[0] < 'A' || prefix[0] > 'Z' {
		return false
	}
	_, err := strconv.Atoi(num)
	return err == nil
}
