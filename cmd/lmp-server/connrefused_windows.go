package main

import (
	"errors"

	"golang.org/x/sys/windows"
)

// connRefused reports whether err says nothing listens at the address.
// Winsock's refusal is WSAECONNREFUSED, which syscall.ECONNREFUSED (a
// value Go invents on Windows) does not match.
func connRefused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }
