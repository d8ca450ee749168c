package main

import (
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// takeTerminal makes Ctrl-C a clean stop under `go run` too. Ctrl-C sends
// SIGINT to the terminal's whole foreground process group, and `go run`,
// in that group with the server, counts any SIGINT it gets as a failed
// build: it exits 1 although the server shut down cleanly with 0. So when
// the parent is the go command and stdin is its terminal, the server
// moves into a process group of its own and makes it the foreground one:
// Ctrl-C then reaches the server alone, whose exit status `go run`
// passes on. The returned func gives the terminal back to the parent's
// group; it is a no-op when nothing was taken.
func takeTerminal() (restore func()) {
	noop := func() {}
	if !parentIsGo() {
		return noop
	}
	fd := int(os.Stdin.Fd())
	orig, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil || orig != syscall.Getpgrp() {
		return noop // no terminal, or not in its foreground
	}
	// Changing the foreground group from outside it raises SIGTTOU.
	signal.Ignore(syscall.SIGTTOU)
	if syscall.Setpgid(0, 0) != nil {
		signal.Reset(syscall.SIGTTOU)
		return noop
	}
	if unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, os.Getpid()) != nil {
		_ = syscall.Setpgid(0, orig)
		signal.Reset(syscall.SIGTTOU)
		return noop
	}
	return func() {
		_ = unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, orig)
		signal.Reset(syscall.SIGTTOU)
	}
}

// parentIsGo reports whether the parent process is the go command.
func parentIsGo() bool {
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getppid()) + "/comm")
	return err == nil && strings.TrimSpace(string(comm)) == "go"
}
