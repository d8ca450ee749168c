package fuzz

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDeadlineOnlyClassifier keeps fuzz/ci.sh honest: a failed fuzzing run
// is let through only when it matches the engine's own deadline report
// (go.dev/issue/75804), never when an input failed or a worker hung.
func TestDeadlineOnlyClassifier(t *testing.T) {
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk on PATH; fuzz/ci.sh needs one")
	}
	cases := []struct {
		file         string
		deadlineOnly bool
	}{
		{"deadline-race.txt", true}, // as a CI run printed it on Go 1.26.8
		{"crasher.txt", false},
		{"hung.txt", false},
	}
	for _, c := range cases {
		out, err := os.ReadFile(filepath.Join("testdata", "ci", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := deadlineOnly(t, awk, out); got != c.deadlineOnly {
			t.Errorf("%s: deadline-only %v, want %v", c.file, got, c.deadlineOnly)
		}
	}

	// The same judgement of a crasher this Go toolchain finds now, so that
	// a change in its output format cannot let a finding through.
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/crasher\n\ngo 1.26\n")
	write("crasher_test.go", `package crasher

import "testing"

func FuzzFinds(f *testing.F) {
	f.Add([]byte("seed"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1 && b[0] == 'q' {
			t.Fatal("input starts with q")
		}
	})
}
`)
	cmd := exec.Command(goCmd, "test", "-run", "^$", "-fuzz", "^FuzzFinds$", "-fuzztime", "60s", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("fuzzing a target that fails on an easy input: %v, want a failed run\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("Failing input written")) {
		t.Fatalf("the crasher run wrote no input:\n%s", out)
	}
	if deadlineOnly(t, awk, out) {
		t.Errorf("a run that found a crasher was judged deadline-only:\n%s", out)
	}
}

func deadlineOnly(t *testing.T, awk string, out []byte) bool {
	t.Helper()
	cmd := exec.Command(awk, "-f", "deadline-only.awk")
	cmd.Stdin = bytes.NewReader(out)
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false
	default:
		t.Fatalf("awk -f deadline-only.awk: %v", err)
		return false
	}
}
