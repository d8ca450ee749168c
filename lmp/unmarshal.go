package lmp

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/loomi-lmp/lmpkit/internal/jsonscan"
)

// Unmarshal decodes LMP JSON (a frame or a payload) into v, matching object
// keys to fields exactly. encoding/json matches keys case-insensitively, so
// {"kind":"text","KIND":5} would let the unknown field KIND override kind,
// while the schemas (and any other JSON implementation) read kind. Every LMP
// field name is lowercase snake_case: a key of any other form is an unknown
// field (V-1), and Unmarshal removes such keys before decoding.
func Unmarshal(data []byte, v any) error {
	if !keysMayBeForeign(data) {
		err := json.Unmarshal(data, v)
		var syntax *json.SyntaxError
		if err == nil || !errors.As(err, &syntax) || !mayHoldForeignKeys(data) {
			return err
		}
		// Not JSON as a whole, yet the decoder below may read a value at
		// its start: it decides, as it always has.
	}
	return unmarshalPruned(data, v)
}

// unmarshalPruned decodes data into a tree, drops every key that is not of
// the LMP form at any depth, and decodes what is left into v.
func unmarshalPruned(data []byte, v any) error {
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

// keysMayBeForeign reports whether an object key of the JSON text data may
// be of another form than an LMP field name: it holds an upper-case ASCII
// letter, a byte of a non-ASCII character or an escape. Only keys are
// looked at: values, however long, are skipped by searching for their
// closing quote. Text that is not JSON may be answered either way; the
// caller's decoder judges it.
func keysMayBeForeign(data []byte) bool {
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
			continue
		}
		end, escaped := jsonscan.StringEnd(data, i+1)
		if end < 0 {
			return mayHoldForeignKeys(data) // not JSON: as the byte-wise test says
		}
		k := end + 1
		for k < len(data) && (data[k] == ' ' || data[k] == '\t' || data[k] == '\n' || data[k] == '\r') {
			k++
		}
		if k < len(data) && data[k] == ':' && (escaped || mayHoldForeignKeys(data[i+1:end])) {
			return true
		}
		i = end
	}
	return false
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
