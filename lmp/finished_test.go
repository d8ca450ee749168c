package lmp_test

import (
	"testing"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// run.completed.finished may be a boolean (Hermes, the reference server)
// or a number such as a timestamp (note 21); anything else is refused.
func TestFinishedTakesBooleanOrNumber(t *testing.T) {
	for raw, want := range map[string]bool{
		`true`: true, `false`: false, `1759123456.789`: true, `0`: false,
	} {
		var p lmp.RunCompleted
		if err := lmp.Unmarshal([]byte(`{"run_id":"r","status":"completed","text":"","error":null,"finished":`+raw+`}`), &p); err != nil {
			t.Errorf("finished %s: %v", raw, err)
		} else if p.Finished != want {
			t.Errorf("finished %s decoded as %v, want %v", raw, p.Finished, want)
		}
	}
	var p lmp.RunCompleted
	if err := lmp.Unmarshal([]byte(`{"finished":"yes"}`), &p); err == nil {
		t.Error(`finished "yes" decoded without an error`)
	}
}
