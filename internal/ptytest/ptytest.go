//go:build linux

// Package ptytest runs a command on a pseudo-terminal, for tests of what
// the commands do on a terminal: live progress lines, colour, Ctrl-C.
package ptytest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Terminal is the controlling side of a pseudo-terminal with a command
// running on the other side.
type Terminal struct {
	master *os.File
	mu     sync.Mutex
	out    bytes.Buffer
	read   chan struct{} // closed when the output ends
}

// Start runs cmd with the terminal as its stdin, stdout, stderr and
// controlling terminal, in a new session. The terminal is 200 columns by
// 24 rows: progress lines are not wrapped.
func Start(cmd *exec.Cmd) (*Terminal, error) {
	return StartSize(cmd, 200, 24)
}

// StartSize is Start on a terminal of cols columns and rows rows, as a
// person's terminal window is.
func StartSize(cmd *exec.Cmd, cols, rows int) (*Terminal, error) {
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	master := os.NewFile(uintptr(mfd), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, fmt.Errorf("unlockpt: %w", err)
	}
	n, err := unix.IoctlGetInt(mfd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, fmt.Errorf("ptsname: %w", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, err
	}
	defer slave.Close()
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}); err != nil {
		master.Close()
		return nil, fmt.Errorf("set the window size: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		master.Close()
		return nil, err
	}
	t := &Terminal{master: master, read: make(chan struct{})}
	go func() {
		defer close(t.read)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			t.mu.Lock()
			t.out.Write(buf[:n])
			t.mu.Unlock()
			if err != nil {
				return // EIO once every process has closed the terminal
			}
		}
	}()
	return t, nil
}

// Output is everything the command wrote so far.
func (t *Terminal) Output() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.String()
}

// Type writes keys to the terminal, as a person types them: "\x03" is
// Ctrl-C, which the terminal turns into SIGINT for the foreground group.
func (t *Terminal) Type(keys string) error {
	_, err := t.master.WriteString(keys)
	return err
}

// Close closes the terminal; call it after the command has exited.
func (t *Terminal) Close() error {
	select {
	case <-t.read: // every process closed its side: all output is read
	case <-time.After(5 * time.Second): // a leftover process holds it open
	}
	return t.master.Close()
}
