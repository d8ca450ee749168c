package variant

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestChoicesRoundTrip: the flag form of every combination reads back as
// the same choices, and a seed always draws the same combination.
func TestChoicesRoundTrip(t *testing.T) {
	for _, c := range []Choices{AllAlternatives(), MinimalChoices(), {Alt: map[int]bool{}}, RandomChoices(1), RandomChoices(2)} {
		back, err := ParseChoices(c.String())
		if err != nil {
			t.Fatal(err)
		}
		if back.String() != c.String() {
			t.Errorf("%q read back as %q", c, back)
		}
	}
	if a, b := RandomChoices(42), RandomChoices(42); a.String() != b.String() {
		t.Errorf("seed 42 drew %q, then %q", a, b)
	}
	if _, err := ParseChoices("3"); err == nil {
		t.Error("note 3, which the variant cannot answer otherwise, was accepted")
	}
	if got := MinimalChoices().Contradicted(); !slices.Equal(got, Notes) {
		t.Errorf("the minimal variant contradicts %v, want every note %v", got, Notes)
	}
	if got := (Choices{Minimal: true, Alt: map[int]bool{6: true}}).Contradicted(); !slices.Equal(got, []int{5, 6, 11}) {
		t.Errorf("minimal with note 6 contradicts %v, want [5 6 11] (its ack and its errors carry only §4's fields)", got)
	}
}

// TestMinimalPayloads: the minimal variant sends only §4's fields, task
// rows with their task_id and the title under another name, and an
// acknowledgement with only its request_id.
func TestMinimalPayloads(t *testing.T) {
	c := Choices{Minimal: true, Alt: map[int]bool{}}
	cases := []struct {
		typ  string
		in   string
		want string
	}{
		{lmp.TypeTaskListResult, `{"request_id":"r","tasks":[{"task_id":"t1","title":"T","status":"live","started_at":1.5}]}`,
			`{"tasks":[{"name":"T","task_id":"t1"}]}`},
		{lmp.TypeAck, `{"request_id":"r","for":"session.send","task_id":"t1","run_id":null,"approval_id":null}`, `{"request_id":"r"}`},
		{lmp.TypeError, `{"code":"unsupported_version","message":"m","fatal":true,"supported_versions":[1],"request_id":"r"}`,
			`{"code":"unsupported_version","fatal":true,"message":"m"}`},
		{lmp.TypeHelloOK, `{"device_id":"d","server_name":"n","server_version":"v","protocol_version":1,"server_time":1.5,"truncated":false,"home_channel":null,"extra":1}`,
			`{"device_id":"d","home_channel":null,"protocol_version":1,"server_name":"n","server_time":1.5,"server_version":"v","truncated":false}`},
	}
	for _, tc := range cases {
		var p object
		if err := json.Unmarshal([]byte(tc.in), &p); err != nil {
			t.Fatal(err)
		}
		c.rewritePayload(tc.typ, object{}, p)
		var want object
		_ = json.Unmarshal([]byte(tc.want), &want)
		if !reflect.DeepEqual(p, want) {
			got, _ := json.Marshal(p)
			t.Errorf("%s: minimal payload %s, want %s", tc.typ, got, tc.want)
		}
	}
}

// TestCloseCodesKeepNote12: a variant that answers note 12 the preferred
// way keeps its close 1003 even with its own close codes (note 21); seed
// 12 of TestNeutrality drew that combination.
func TestCloseCodesKeepNote12(t *testing.T) {
	c := Choices{Alt: map[int]bool{21: true}}
	if got := c.closeCode(lmp.CloseUnsupportedData); got != lmp.CloseUnsupportedData {
		t.Errorf("close %d after a binary frame, want 1003 (note 12's preferred answer)", got)
	}
	if got := c.closeCode(lmp.ClosePolicyViolation); got == lmp.ClosePolicyViolation {
		t.Errorf("close %d: note 21's own close codes are not used", got)
	}
}

// TestErrorCodesKeepNote11: a variant that answers note 11 the preferred
// way keeps the error code unsupported_version even with its own error
// codes (note 21); seed 1796178313271782917 of TestNeutrality drew that
// combination (2,5,6,8,12,15,21) and failed the note-11 SHOULD spec.
func TestErrorCodesKeepNote11(t *testing.T) {
	c := Choices{Alt: map[int]bool{21: true}}
	if got := c.code(lmp.CodeUnsupportedVersion); got != lmp.CodeUnsupportedVersion {
		t.Errorf("error code %q for an unsupported version, want %q (note 11's preferred answer)", got, lmp.CodeUnsupportedVersion)
	}
	if got := c.code(lmp.CodeInvalidToken); got == lmp.CodeInvalidToken {
		t.Errorf("error code %q: note 21's own error codes are not used", got)
	}
	both := Choices{Alt: map[int]bool{11: true, 21: true}}
	if got := both.code(lmp.CodeUnsupportedVersion); got != ErrorCode(lmp.CodeUnsupportedVersion) {
		t.Errorf("error code %q with notes 11 and 21 answered otherwise, want %q", got, ErrorCode(lmp.CodeUnsupportedVersion))
	}
}
