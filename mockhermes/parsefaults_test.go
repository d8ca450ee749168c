package mockhermes

import (
	"strings"
	"testing"
)

func TestParseFaults(t *testing.T) {
	for spec, want := range map[string]Faults{
		"":                          {},
		"reorder":                   {Reorder: true},
		"duplicate, drop=3":         {Duplicate: true, DropEvery: 3},
		"reorder,duplicate,drop=1,": {Reorder: true, Duplicate: true, DropEvery: 1},
	} {
		got, err := ParseFaults(spec)
		if err != nil || got != want {
			t.Errorf("ParseFaults(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	for spec, wantMsg := range map[string]string{
		"shuffle":   `unknown quirk "shuffle"`,
		"drop":      `unknown quirk "drop"`,
		"drop=0":    "whole number",
		"drop=x":    "whole number",
		"reorder=1": `unknown quirk "reorder=1"`,
	} {
		if _, err := ParseFaults(spec); err == nil || !strings.Contains(err.Error(), wantMsg) {
			t.Errorf("ParseFaults(%q) error = %v, want it to say %q", spec, err, wantMsg)
		}
	}
}
