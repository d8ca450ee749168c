//go:build linux

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/internal/ptytest"
)

// TestTerminalProgressAndColour runs lmp-check on a real terminal: a live
// line counts the specs and names the section while they run, and the
// verdicts are coloured unless NO_COLOR is set.
func TestTerminalProgressAndColour(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary against an in-process server")
	}
	bin := buildBinary(t)
	for _, noColor := range []bool{false, true} {
		cmd := exec.Command(bin, "--label-filter", "section:transport")
		cmd.Env = os.Environ()
		if noColor {
			cmd.Env = append(cmd.Env, "NO_COLOR=1")
		}
		term, err := ptytest.Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		term.Close()
		out := term.Output()
		if err != nil {
			t.Fatalf("NO_COLOR %v: %v\n%s", noColor, err, out)
		}
		if !strings.Contains(out, "\r\x1b[Klmp-check: 1/") || !strings.Contains(out, " specs ") || !strings.Contains(out, "§1") {
			t.Errorf("no live progress line naming the count and the section:\n%q", out)
		}
		if i := strings.LastIndex(out, "\r\x1b[K"); i > strings.Index(out, "Result:") {
			t.Errorf("the progress line was not erased before the summary:\n%q", out)
		}
		if coloured := strings.Contains(out, "\x1b[32m"); coloured == noColor {
			t.Errorf("NO_COLOR %v: coloured %v\n%q", noColor, coloured, out)
		}
	}
}

// TestFuzzProgressOnTerminal: on a terminal the campaign shows its live
// line.
func TestFuzzProgressOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes an in-process server")
	}
	bin := buildBinary(t)
	cmd := exec.Command(bin, "fuzz", "--duration", "2s", "--seed", "3", "--conns", "2", "--out", t.TempDir())
	term, err := ptytest.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	term.Close()
	if out := term.Output(); err != nil || !strings.Contains(out, "\rfuzz ") || !strings.Contains(out, "findings 0") {
		t.Fatalf("no live line on a terminal: %v\n%q", err, out)
	}
}
