package mockhermes

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/loomi-lmp/lmpkit/schema"
	"go.yaml.in/yaml/v3"
)

// ScriptSchema is the name of the scenario script schema in package schema
// (schema/mockscript.schema.json).
const ScriptSchema = "mockscript.schema"

// schemaErrors validates a script's root node against the published schema
// and reports each failure at the line of the value it concerns, once per
// value.
func schemaErrors(file string, root *yaml.Node) ScriptErrors {
	var v any
	if err := root.Decode(&v); err != nil {
		return ScriptErrors{{File: file, Line: root.Line, Msg: err.Error()}}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return ScriptErrors{{File: file, Line: root.Line, Msg: "script is not representable as JSON: " + err.Error()}}
	}
	var out ScriptErrors
	seen := map[string]bool{}
	for _, e := range schema.ValidateDocument(ScriptSchema, raw) {
		if seen[e.Pointer] {
			continue // a failed oneOf reports every branch; the first says enough
		}
		seen[e.Pointer] = true
		n := nodeAt(root, e.Pointer)
		ptr := e.Pointer
		if ptr == "" {
			ptr = "/"
		}
		out = append(out, &ScriptError{File: file, Line: n.Line, Column: n.Column, Msg: "schema: at " + ptr + ": " + e.Message})
		if len(out) >= maxScriptErrors {
			break
		}
	}
	return out
}

// nodeAt follows a JSON pointer through a YAML node tree, stopping at the
// deepest node it reaches.
func nodeAt(n *yaml.Node, pointer string) *yaml.Node {
	if pointer == "" {
		return n
	}
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch n.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					n, found = n.Content[i+1], true
					break
				}
			}
			if !found {
				return n
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return n
			}
			n = n.Content[i]
		default:
			return n
		}
	}
	return n
}
