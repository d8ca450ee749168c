package main

import (
	"strings"
	"testing"
)

// TestSpecTimingsConformant runs every spec against the in-process
// reference server with the spec's own timings (25 s ping, 10 s pong and
// auth timeouts): the reference server must be conformant under the
// profile an implementer's CI sees, not only under the short demo profile.
// The timer specs overlap, so this takes about as long as three missed
// pongs (~85 s).
func TestSpecTimingsConformant(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on the spec's timers (~85 s)")
	}
	bin := buildBinary(t)
	code, stdout, stderr := runBinary(t, bin, "--profile", "spec", "--strict")
	if code != 0 || !strings.Contains(stdout, "Result: CONFORMANT") {
		t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "0 fail, 0 non-strict") {
		t.Fatalf("spec timings produced failures:\n%s", stdout)
	}
}
