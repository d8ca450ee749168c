//go:build unix

package server

import "syscall"

// descriptorLimit is the process's soft limit on open files, 0 when
// unknown.
func descriptorLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return uint64(l.Cur)
}
