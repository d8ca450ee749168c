// Package tty tells the commands whether they write to a terminal, and
// whether they may colour what they write there.
package tty

import (
	"io"
	"os"

	"golang.org/x/term"
)

// Is reports whether w is a terminal.
func Is(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Color reports whether w is a terminal that may be coloured: not when
// NO_COLOR is set to anything (no-color.org) or TERM is dumb, nor a
// Windows console that cannot interpret escape codes.
func Color(w io.Writer) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set || os.Getenv("TERM") == "dumb" {
		return false
	}
	return Is(w) && escapes(w.(*os.File))
}

// Size is the width and height of the terminal w writes to, in columns and
// rows; ok is false when w is not a terminal or its size is unknown.
func Size(w io.Writer) (cols, rows int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile {
		return 0, 0, false
	}
	cols, rows, err := term.GetSize(int(f.Fd()))
	if err != nil || cols <= 0 || rows <= 0 {
		return 0, 0, false
	}
	return cols, rows, true
}
