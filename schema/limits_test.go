package schema

import (
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// fieldLimits is the lmp limit each client string field must carry as its
// maxLength: the schema and the Go code agree on every limit.
var fieldLimits = map[string]int{
	"task_id": lmp.MaxIDLength, "run_id": lmp.MaxIDLength, "approval_id": lmp.MaxIDLength,
	"request_id": lmp.MaxIDLength, "device_id": lmp.MaxIDLength,
	"text": lmp.MaxTextLength, "reason": lmp.MaxTextLength,
	"token": lmp.MaxSecretLength, "credential": lmp.MaxSecretLength,
	"model": lmp.MaxDeviceInfoLength, "os": lmp.MaxDeviceInfoLength, "app_version": lmp.MaxDeviceInfoLength,
}

// TestClientStringsAreBounded: every string a client may send (a property
// of a c2s schema that can hold a string and is not an enum) has a
// maxLength, and it is the lmp limit for that field, so a server built on
// these schemas never echoes or stores an unbounded client string.
func TestClientStringsAreBounded(t *testing.T) {
	r, err := load()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, name := range r.names {
		if !strings.HasPrefix(name, "c2s/") || name == "c2s/any" || name == "c2s/envelope" {
			continue
		}
		var walk func(v any, at string)
		walk = func(v any, at string) {
			m, ok := v.(map[string]any)
			if !ok {
				return
			}
			if props, ok := m["properties"].(map[string]any); ok {
				for field, p := range props {
					pm, _ := p.(map[string]any)
					if pm == nil || pm["enum"] != nil || !holdsString(pm) {
						walk(pm, at+"/"+field)
						continue
					}
					seen++
					got, _ := pm["maxLength"].(float64)
					want, known := fieldLimits[field]
					switch {
					case !known:
						t.Errorf("%s%s/%s: a client string with no limit in lmp (add it to lmp/limits.go and fieldLimits)", name, at, field)
					case int(got) != want:
						t.Errorf("%s%s/%s: maxLength %v, want lmp's %d", name, at, field, pm["maxLength"], want)
					}
				}
			}
			if defs, ok := m["$defs"].(map[string]any); ok {
				for k, d := range defs {
					walk(d, at+"/$defs/"+k)
				}
			}
		}
		walk(r.docs[r.ids[name]], "")
	}
	if seen < len(fieldLimits) {
		t.Fatalf("only %d client string fields found: the walk is broken", seen)
	}
}

// holdsString reports whether a property schema admits a string, directly
// or through a $ref to common.json's nullableString.
func holdsString(p map[string]any) bool {
	switch ty := p["type"].(type) {
	case string:
		return ty == "string"
	case []any:
		for _, x := range ty {
			if x == "string" {
				return true
			}
		}
	}
	ref, _ := p["$ref"].(string)
	return strings.HasSuffix(ref, "nullableString")
}
