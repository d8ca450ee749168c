//go:build linux

package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/internal/ptytest"
)

// TestCtrlCExitsZero types Ctrl-C on a real terminal into the server, run
// as the binary and under `go run` as the README says: both shut down
// cleanly and exit 0.
func TestCtrlCExitsZero(t *testing.T) {
	for _, c := range []struct {
		name string
		argv []string
	}{
		{"binary", []string{bin}},
		{"go run", []string{"go", "run", "."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			argv := append(c.argv, "serve", "--addr", freeAddr(t), "--data", t.TempDir(), "--no-qr")
			cmd := exec.Command(argv[0], argv[1:]...)
			term, err := ptytest.Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer term.Close()
			for deadline := time.Now().Add(60 * time.Second); !strings.Contains(term.Output(), "Press Ctrl-C to stop."); {
				select {
				case err := <-exited:
					t.Fatalf("exited before the banner: %v\n%s", err, term.Output())
				default:
				}
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					t.Fatalf("no banner:\n%s", term.Output())
				}
				time.Sleep(20 * time.Millisecond) // polling the terminal's output
			}
			if err := term.Type("\x03"); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				var ee *exec.ExitError
				if errors.As(err, &ee) || err != nil {
					t.Fatalf("Ctrl-C: %v\n%s", err, term.Output())
				}
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running 30 s after Ctrl-C:\n%s", term.Output())
			}
			if !strings.Contains(term.Output(), "shutting down") {
				t.Errorf("no shutdown message:\n%s", term.Output())
			}
		})
	}
}
