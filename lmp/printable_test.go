package lmp

import "testing"

func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Pixel 8", "Pixel 8"},
		{"Pixel\x1b[2K\rx\x07\x00\x7f", `Pixel\x1b[2K\x0dx\x07\x00\x7f`},
		{"a\u009bb", `a\u009bb`},
		{"abc\u202edef\u2066", `abc\u202edef\u2066`},
		{`back\slash`, `back\\slash`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"日本語 ✓", "日本語 ✓"},
	} {
		if got := Printable(c.in); got != c.want {
			t.Errorf("Printable(%q): expected %q, got %q", c.in, c.want, got)
		}
		if HasControl(c.in) != (c.in != c.want && c.in != `back\slash`) {
			t.Errorf("HasControl(%q) = %v", c.in, HasControl(c.in))
		}
	}
}
