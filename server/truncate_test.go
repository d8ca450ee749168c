package server

import "testing"

// FuzzTruncate checks truncate against its definition: the first n-1
// characters and "…" when s has more than n characters (as a conversion to
// runes gives them, invalid UTF-8 replaced), s itself otherwise.
func FuzzTruncate(f *testing.F) {
	f.Add("xxxxxxxxxx", 4)
	f.Add("héllo wörld", 5)
	f.Add("ab\xffcd\xfe", 3)
	f.Add("", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 100 {
			return
		}
		want := s
		if r := []rune(s); len(r) > n {
			want = string(r[:n-1]) + "…"
		}
		if got := truncate(s, n); got != want {
			t.Fatalf("truncate(%q, %d) = %q, want %q", s, n, got, want)
		}
	})
}
