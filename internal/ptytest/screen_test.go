package ptytest

import (
	"reflect"
	"testing"
)

// TestScreenShowsWhatATerminalShows: a line longer than the screen wraps at
// the last column, lines scrolled off the top are gone, a carriage return
// overwrites, erasing clears to the end of the line, the cursor moves, and
// each cell keeps its colours.
func TestScreenShowsWhatATerminalShows(t *testing.T) {
	s := NewScreen(5, 3)
	_, _ = s.Write([]byte("gone\r\nabcdefg\r\nxyz\rX\x1b[K\r\n\x1b[97;40mW\x1b[0m\x1b[1;5Hq"))
	if got, want := s.Lines(), []string{"fg  q", "X", "W"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	if c := s.cells[2][0]; c.FG != 15 || c.BG != 0 {
		t.Errorf("W drawn in colours %d on %d, want 15 (bright white) on 0 (black)", c.FG, c.BG)
	}
	if c := s.cells[1][0]; c.FG != -1 || c.BG != -1 {
		t.Errorf("X drawn in colours %d on %d, want the defaults", c.FG, c.BG)
	}
}
