//go:build !windows

package main

import (
	"errors"
	"syscall"
)

// connRefused reports whether err says nothing listens at the address.
func connRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
