//go:build linux

package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/internal/browsertest"
	"github.com/loomi-lmp/lmpkit/internal/ptytest"
)

// pairingJSON is the pairing payload line lmp-server prints above its QR.
var pairingJSON = regexp.MustCompile(`\{"v":1,"url":[^\r\n]*\}`)

// TestQROnScreenDecodes runs lmp-server on a real terminal of a person's
// size and reads its pairing code as a phone pointed at that window would:
// only the visible screen (the last rows, cursor movement and wrapping
// honoured, nothing that scrolled off), drawn in the theme's colours and
// decoded by ZBar. The code must be whole on screen and carry the pairing
// JSON the server printed; a terminal too small for it gets one line
// naming the dashboard and `lmp-server pair --json` instead.
func TestQROnScreenDecodes(t *testing.T) {
	browsertest.ZBar(t)
	cases := []struct {
		name       string
		cols, rows int
		args, env  []string
		theme      ptytest.Theme
	}{
		{"80×24 without colour on a dark theme", 80, 24, nil, []string{"NO_COLOR=1"}, ptytest.Dark},
		{"100×30 in colour on a light theme", 100, 30, nil, nil, ptytest.Light},
		{"80×24 --qr-invert without colour on a light theme", 80, 24, []string{"--qr-invert"}, []string{"NO_COLOR=1"}, ptytest.Light},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			term, output := startOnTerminal(t, c.cols, c.rows, c.env, c.args...)
			want := waitFor(t, term, pairingJSON)
			// The code is printed after the JSON, in one write: wait until
			// the screen shows a code, then check it is the whole one.
			var got string
			var err error
			var screen *ptytest.Screen
			for deadline := time.Now().Add(20 * time.Second); ; {
				screen = ptytest.NewScreen(c.cols, c.rows)
				_, _ = screen.Write([]byte(output()))
				if got, err = browsertest.DecodeQRWithZBar(t, screen.Image(c.theme)); err == nil || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond) // polling the terminal's output
			}
			if err != nil {
				t.Fatalf("no QR code decodes from the %d×%d screen: %v\nthe screen:\n%s", c.cols, c.rows, err, strings.Join(screen.Lines(), "\n"))
			}
			if got != want {
				t.Fatalf("the screen's QR code reads %q, want the pairing JSON %q", got, want)
			}
		})
	}
}

// TestQRTooSmallSaysWhere: on a terminal too short for the whole code the
// server draws none and says so in one line, naming the dashboard and
// `lmp-server pair --json`; the pairing JSON is still printed.
func TestQRTooSmallSaysWhere(t *testing.T) {
	browsertest.ZBar(t)
	t.Parallel()
	const cols, rows = 80, 20
	term, output := startOnTerminal(t, cols, rows, []string{"NO_COLOR=1"})
	notice := waitFor(t, term, regexp.MustCompile(`This terminal[^\r\n]*too small for the QR code[^\r\n]*`))
	for _, want := range []string{"(80×20)", "http://127.0.0.1:", "`lmp-server pair --json`"} {
		if !strings.Contains(notice, want) {
			t.Errorf("the notice %q does not name %s", notice, want)
		}
	}
	if !pairingJSON.MatchString(output()) {
		t.Errorf("no pairing JSON printed:\n%s", output())
	}
	if strings.ContainsAny(output(), "█▀▄") {
		t.Errorf("a QR code was drawn on a terminal too small for it:\n%s", output())
	}
	screen := ptytest.NewScreen(cols, rows)
	_, _ = screen.Write([]byte(output()))
	if !strings.Contains(strings.Join(screen.Lines(), "\n"), "lmp-server pair --json") {
		t.Errorf("the notice is not on screen:\n%s", strings.Join(screen.Lines(), "\n"))
	}
}

// startOnTerminal runs the lmp-server binary on a terminal of cols×rows
// and returns it and its output so far; the server is stopped with Ctrl-C
// at the end of the test.
func startOnTerminal(t *testing.T, cols, rows int, env []string, args ...string) (*ptytest.Terminal, func() string) {
	t.Helper()
	argv := append([]string{"serve", "--addr", freeAddr(t), "--data", t.TempDir()}, args...)
	cmd := exec.Command(bin, argv...)
	// A colour terminal unless env says otherwise, whatever the test's own.
	cmd.Env = append(withoutVar(withoutVar(os.Environ(), "NO_COLOR"), "TERM"), "TERM=xterm-256color")
	cmd.Env = append(cmd.Env, env...)
	term, err := ptytest.StartSize(cmd, cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = term.Type("\x03")
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = term.Close()
	})
	return term, term.Output
}

// withoutVar drops every NAME=… entry from env.
func withoutVar(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// waitFor polls the terminal's output until re matches it and returns the
// match.
func waitFor(t *testing.T, term *ptytest.Terminal, re *regexp.Regexp) string {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; {
		if m := re.FindString(term.Output()); m != "" {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the output:\n%s", re, term.Output())
		}
		time.Sleep(20 * time.Millisecond) // polling the terminal's output
	}
}
