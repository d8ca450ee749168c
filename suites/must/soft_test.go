package must

import "testing"

// Failure lines compare numbers by value and render values as a person
// reads them: quoted strings, "nothing" for nil, pointers followed.
func TestEqualAndShow(t *testing.T) {
	one, s := int64(1), "x"
	for _, c := range []struct {
		got, want any
		equal     bool
	}{
		{int64(0), 0, true}, {&one, 1, true}, {1.0, int64(1), true}, {"a", "a", true},
		{(*string)(nil), nil, true}, {&s, "x", true}, {"1", 1, false}, {int64(2), 1, false},
	} {
		if got := equal(c.got, c.want); got != c.equal {
			t.Errorf("equal(%#v, %#v) = %v", c.got, c.want, got)
		}
	}
	for v, want := range map[any]string{"a": `"a"`, 1008: "1008", nil: "nothing"} {
		if got := Show(v); got != want {
			t.Errorf("Show(%#v) = %s, want %s", v, got, want)
		}
	}
	var soft Soft
	soft.Equal("close code", 4008, 1008)
	soft.That(true, "never")
	if len(soft.broken) != 1 || soft.broken[0] != "close code: want 1008, got 4008" {
		t.Errorf("broken expectations %q", soft.broken)
	}
}
