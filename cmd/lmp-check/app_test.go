package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAppUsageErrors: `lmp-check app` refuses, with exit code 2 and a
// line naming the problem, plaintext on the network without the opt-in
// (S-3, as lmp-server), a bad label filter, a selection that matches no
// spec and a pairing file it cannot write, before any app is awaited.
func TestAppUsageErrors(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"app", "--listen", "0.0.0.0:0"}, "refusing to listen on 0.0.0.0:0"},
		{[]string{"app", "--listen", "127.0.0.1:0", "--label-filter", "C-3 &&"}, "--label-filter"},
		{[]string{"app", "--listen", "127.0.0.1:0", "--focus", "no such spec"}, "matches no spec"},
		{[]string{"app", "--listen", "127.0.0.1:0", "--pairing-file", filepath.Join(t.TempDir(), "missing", "p.json")}, "pairing file"},
		{[]string{"app", "stray"}, "unexpected arguments"},
	} {
		code, out, errOut := runBinary(t, bin, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q (want 2 and %q)\n%s", c.args, code, errOut, c.want, out)
		}
	}
}
