//go:build !windows

package tty

import "os"

// escapes reports whether the terminal f interprets ANSI escape codes:
// every terminal outside Windows does.
func escapes(*os.File) bool { return true }
