package tty

import (
	"os"

	"golang.org/x/sys/windows"
)

// escapes turns on the console's handling of ANSI escape codes (Windows 10
// and later; Windows Terminal has it on already). On an older console it
// fails, and the output stays uncoloured rather than strewn with codes.
func escapes(f *os.File) bool {
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
