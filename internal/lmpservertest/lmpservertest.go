// Package lmpservertest runs a real lmp-server process for the tests that
// check it from outside, as its users run it: a free loopback address, its
// output collected while the test reads it, /health awaited, and a stop by
// signal whose exit status the test can judge. The process is killed at the
// end of the test if it is still running.
package lmpservertest

import (
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// FreeAddr is a loopback address with a port nothing listens on now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Buffer collects a process's output while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Process is an lmp-server process serving on Addr.
type Process struct {
	Cmd            *exec.Cmd
	Addr           string
	Stdout, Stderr *Buffer
	exited         chan struct{}
}

// Start runs `bin serve --addr addr --data dataDir args…` without waiting
// for it to listen.
func Start(t testing.TB, bin, dataDir, addr string, args ...string) *Process {
	t.Helper()
	argv := append([]string{"serve", "--addr", addr, "--data", dataDir}, args...)
	p := &Process{Cmd: exec.Command(bin, argv...), Addr: addr, Stdout: &Buffer{}, Stderr: &Buffer{}, exited: make(chan struct{})}
	p.Cmd.Stdout, p.Cmd.Stderr = p.Stdout, p.Stderr
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.Cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = p.Cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// Serve starts lmp-server as Start does and returns once GET /health
// answers 200. A process that exits first, or is not healthy within a
// minute, fails the test with its output.
func Serve(t testing.TB, bin, dataDir, addr string, args ...string) *Process {
	t.Helper()
	p := Start(t, bin, dataDir, addr, args...)
	p.WaitHealthy(t, time.Minute)
	return p
}

// WaitHealthy polls GET /health until it answers 200.
func (p *Process) WaitHealthy(t testing.TB, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		resp, err := http.Get(p.URL("/health"))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-p.exited:
			t.Fatalf("lmp-server exited before answering /health: %v\nstdout:\n%s\nstderr:\n%s", p.Cmd.ProcessState, p.Stdout, p.Stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("lmp-server did not answer /health within %v: %v\nstdout:\n%s\nstderr:\n%s", within, err, p.Stdout, p.Stderr)
		}
		time.Sleep(20 * time.Millisecond) // polling for the process to listen
	}
}

// URL is http://Addr followed by path.
func (p *Process) URL(path string) string { return "http://" + p.Addr + path }

// Exited is closed once the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Signal sends sig to the process.
func (p *Process) Signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to lmp-server: %v", sig, err)
	}
}

// Stop sends SIGTERM, as a service manager or `docker stop` does, and
// returns the exit status once the process has exited (at most within).
func (p *Process) Stop(t testing.TB, within time.Duration) int {
	t.Helper()
	p.Signal(t, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(within):
		t.Fatalf("lmp-server still running %v after SIGTERM\nstderr:\n%s", within, p.Stderr)
	}
	return p.Cmd.ProcessState.ExitCode()
}
