package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusesDamagedStore: the real binary on an empty store file exits
// non-zero with one line naming the file and what to do, and leaves the
// file as it was.
func TestRefusesDamagedStore(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "lmp-server.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, nil, "serve", "--addr", freeAddr(t), "--data", dir, "--no-qr")
	line := strings.TrimSpace(stderr)
	if code == 0 || strings.Contains(line, "\n") || !strings.Contains(line, path) || !strings.Contains(line, "restore the file from a backup") {
		t.Fatalf("exit %d, stderr %q: want one line naming %s and what to do", code, stderr, path)
	}
	if info, err := os.Stat(path); err != nil || info.Size() != 0 {
		t.Fatalf("the damaged store was written to: %v %v", info.Size(), err)
	}
}
