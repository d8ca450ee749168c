//go:build !linux

package main

// takeTerminal is only needed, and only done, on Linux (see
// foreground_linux.go).
func takeTerminal() (restore func()) { return func() {} }
