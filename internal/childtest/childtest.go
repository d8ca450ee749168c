// Package childtest runs a test binary's test again in a child process,
// for a test that stops, continues or signals the process under test.
package childtest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"testing"
)

// Child is the test re-run as a child process.
type Child struct {
	Cmd    *exec.Cmd
	Stdin  io.WriteCloser // the child's standard input
	Stdout *bufio.Scanner // the child's standard output, line by line
}

// Start runs the test named test again, in a child process whose
// environment sets env to "1": the test reads env to know that it is the
// child. The child's standard error is the test's; the child is killed
// and waited for when t ends.
func Start(t testing.TB, test, env string) *Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^"+test+"$")
	cmd.Env = append(os.Environ(), env+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return &Child{Cmd: cmd, Stdin: stdin, Stdout: bufio.NewScanner(stdout)}
}
