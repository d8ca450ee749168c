package lmp

import (
	"bytes"
	"encoding/json"
)

// Unmarshal decodes LMP JSON (a frame or a payload) into v, matching object
// keys to fields exactly. encoding/json matches keys case-insensitively, so
// {"kind":"text","KIND":5} would let the unknown field KIND override kind,
// while the schemas (and any other JSON implementation) read kind. Every LMP
// field name is lowercase snake_case: a key of any other form is an unknown
// field (V-1), and Unmarshal removes such keys before decoding.
func Unmarshal(data []byte, v any) error {
	if !mayHoldForeignKeys(data) {
		return json.Unmarshal(data, v)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return json.Unmarshal(data, v) // report encoding/json's own error
	}
	if dec.More() {
		return json.Unmarshal(data, v)
	}
	pruned, err := json.Marshal(dropForeignKeys(tree))
	if err != nil {
		return err
	}
	return json.Unmarshal(pruned, v)
}

// mayHoldForeignKeys is a fast test: JSON with no uppercase ASCII letter,
// no non-ASCII byte and no escape holds only keys of the LMP form.
func mayHoldForeignKeys(data []byte) bool {
	for _, b := range data {
		if b >= 'A' && b <= 'Z' || b >= 0x80 || b == '\\' {
			return true
		}
	}
	return false
}

func dropForeignKeys(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if !isFieldName(k) {
				delete(t, k)
				continue
			}
			t[k] = dropForeignKeys(child)
		}
	case []any:
		for i, child := range t {
			t[i] = dropForeignKeys(child)
		}
	}
	return v
}

// isFieldName reports whether k has the form of an LMP field name.
func isFieldName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
