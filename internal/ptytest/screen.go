package ptytest

import (
	"image"
	"image/color"
	"strconv"
	"strings"
)

// Screen is what a terminal window of a given size shows after it has
// received some output: a small model of a VT100-style terminal, enough for
// what the commands write (text, line feeds, carriage returns, tabs,
// backspaces, colours, erasing, cursor moves). Text that scrolls off the
// top is gone, as on a screen; there is no scrollback.
type Screen struct {
	cols, rows int
	cells      [][]Cell
	row, col   int
	wrapNext   bool // the last column was written: the next glyph wraps
	pen        Cell // the attributes of the next glyph
}

// Cell is one character position of a Screen.
type Cell struct {
	Rune rune // 0 or ' ' for blank
	// FG and BG are colour indexes 0–15 (ANSI, then bright), or -1 for the
	// terminal's default colours.
	FG, BG  int
	Reverse bool
}

// NewScreen is an empty screen of cols columns and rows rows.
func NewScreen(cols, rows int) *Screen {
	s := &Screen{cols: cols, rows: rows, pen: Cell{FG: -1, BG: -1}}
	for range rows {
		s.cells = append(s.cells, s.blankLine())
	}
	return s
}

func (s *Screen) blankLine() []Cell {
	line := make([]Cell, s.cols)
	for i := range line {
		line[i] = Cell{Rune: ' ', FG: -1, BG: s.pen.BG}
	}
	return line
}

// Write feeds terminal output to the screen. It never fails.
func (s *Screen) Write(p []byte) (int, error) {
	text := []rune(string(p))
	for i := 0; i < len(text); i++ {
		r := text[i]
		switch {
		case r == 0x1b && i+1 < len(text) && text[i+1] == '[':
			i = s.csi(text, i+2)
		case r == 0x1b && i+1 < len(text) && text[i+1] == ']':
			// An operating system command (a title): up to BEL or ST.
			for i += 2; i < len(text) && text[i] != 0x07 && !(text[i] == 0x1b && i+1 < len(text) && text[i+1] == '\\'); i++ {
			}
			if i < len(text) && text[i] == 0x1b {
				i++
			}
		case r == 0x1b:
			i++ // a two-character escape (ESC 7, ESC =): nothing to draw
		case r == '\r':
			s.col, s.wrapNext = 0, false
		case r == '\n' || r == '\v' || r == '\f':
			s.lineFeed()
		case r == '\b':
			if s.col > 0 {
				s.col--
			}
			s.wrapNext = false
		case r == '\t':
			s.col = min((s.col/8+1)*8, s.cols-1)
		case r < 0x20 || r == 0x7f:
			// other controls draw nothing
		default:
			s.put(r)
		}
	}
	return len(p), nil
}

func (s *Screen) put(r rune) {
	if s.wrapNext {
		s.col, s.wrapNext = 0, false
		s.lineFeed()
	}
	c := s.pen
	c.Rune = r
	s.cells[s.row][s.col] = c
	if s.col == s.cols-1 {
		s.wrapNext = true
	} else {
		s.col++
	}
}

func (s *Screen) lineFeed() {
	s.wrapNext = false
	if s.row < s.rows-1 {
		s.row++
		return
	}
	s.cells = append(s.cells[1:], s.blankLine())
}

// csi interprets a control sequence whose parameters start at text[i] and
// returns the index of its final character.
func (s *Screen) csi(text []rune, i int) int {
	start := i
	for i < len(text) && (text[i] < 0x40 || text[i] > 0x7e) {
		i++
	}
	if i >= len(text) {
		return i
	}
	raw := string(text[start:i])
	if strings.HasPrefix(raw, "?") || strings.HasPrefix(raw, ">") {
		return i // private modes (cursor visibility, bracketed paste)
	}
	var params []int
	for _, f := range strings.Split(raw, ";") {
		n, _ := strconv.Atoi(f)
		params = append(params, n)
	}
	arg := func(def int) int {
		if params[0] == 0 {
			return def
		}
		return params[0]
	}
	switch text[i] {
	case 'm':
		s.sgr(params)
	case 'A':
		s.row = max(s.row-arg(1), 0)
	case 'B':
		s.row = min(s.row+arg(1), s.rows-1)
	case 'C':
		s.col = min(s.col+arg(1), s.cols-1)
	case 'D':
		s.col = max(s.col-arg(1), 0)
	case 'G':
		s.col = min(max(arg(1)-1, 0), s.cols-1)
	case 'H', 'f':
		s.row = min(max(arg(1)-1, 0), s.rows-1)
		s.col = 0
		if len(params) > 1 && params[1] > 0 {
			s.col = min(params[1]-1, s.cols-1)
		}
	case 'K':
		from, to := s.col, s.cols
		switch arg(0) {
		case 1:
			from, to = 0, s.col+1
		case 2:
			from = 0
		}
		for c := from; c < to; c++ {
			s.cells[s.row][c] = Cell{Rune: ' ', FG: -1, BG: s.pen.BG}
		}
	case 'J':
		if arg(0) == 2 || arg(0) == 3 {
			for r := range s.cells {
				s.cells[r] = s.blankLine()
			}
		} else {
			for c := s.col; c < s.cols; c++ {
				s.cells[s.row][c] = Cell{Rune: ' ', FG: -1, BG: s.pen.BG}
			}
			for r := s.row + 1; r < s.rows; r++ {
				s.cells[r] = s.blankLine()
			}
		}
	}
	s.wrapNext = false
	return i
}

// sgr sets the pen's colours and attributes.
func (s *Screen) sgr(params []int) {
	for j := 0; j < len(params); j++ {
		switch p := params[j]; {
		case p == 0:
			s.pen = Cell{FG: -1, BG: -1}
		case p == 7:
			s.pen.Reverse = true
		case p == 27:
			s.pen.Reverse = false
		case p >= 30 && p <= 37:
			s.pen.FG = p - 30
		case p == 39:
			s.pen.FG = -1
		case p >= 40 && p <= 47:
			s.pen.BG = p - 40
		case p == 49:
			s.pen.BG = -1
		case p >= 90 && p <= 97:
			s.pen.FG = p - 90 + 8
		case p >= 100 && p <= 107:
			s.pen.BG = p - 100 + 8
		case p == 38 || p == 48:
			// 256 colours and true colour: not used by the commands; skip
			// their arguments.
			if j+1 < len(params) && params[j+1] == 5 {
				j += 2
			} else if j+1 < len(params) && params[j+1] == 2 {
				j += 4
			}
		}
	}
}

// Lines is the screen's text, one string a row, without trailing blanks.
func (s *Screen) Lines() []string {
	out := make([]string, s.rows)
	for r, line := range s.cells {
		var b strings.Builder
		for _, c := range line {
			if c.Rune == 0 {
				c.Rune = ' '
			}
			b.WriteRune(c.Rune)
		}
		out[r] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// Theme is a terminal's default colours, as grey levels.
type Theme struct{ FG, BG color.Gray }

// Dark and Light are the two common terminal themes.
var (
	Dark  = Theme{FG: color.Gray{Y: 0xd0}, BG: color.Gray{Y: 0x1c}}
	Light = Theme{FG: color.Gray{Y: 0x20}, BG: color.Gray{Y: 0xf4}}
)

// palette is the grey level of each ANSI colour as terminals commonly draw
// it: 0–7 normal, 8–15 bright.
var palette = [16]uint8{0x00, 0x4c, 0x6e, 0x9a, 0x30, 0x58, 0x82, 0xc0, 0x80, 0x7f, 0xb7, 0xe2, 0x6c, 0x99, 0xc8, 0xff}

// Image draws the screen as a window of the theme shows it: each cell 4
// pixels wide and 8 high (a terminal font's proportions), the block
// elements █ ▀ ▄ as the halves they fill, any other glyph as a small mark
// of ink, with a margin of the background around it.
func (s *Screen) Image(th Theme) image.Image {
	const w, h, margin = 4, 8, 16
	img := image.NewGray(image.Rect(0, 0, s.cols*w+2*margin, s.rows*h+2*margin))
	for i := range img.Pix {
		img.Pix[i] = th.BG.Y
	}
	level := func(idx int, def color.Gray) uint8 {
		if idx < 0 {
			return def.Y
		}
		return palette[idx]
	}
	for r, line := range s.cells {
		for c, cell := range line {
			fg, bg := level(cell.FG, th.FG), level(cell.BG, th.BG)
			if cell.Reverse {
				fg, bg = bg, fg
			}
			for y := range h {
				for x := range w {
					ink := false
					switch cell.Rune {
					case '█':
						ink = true
					case '▀':
						ink = y < h/2
					case '▄':
						ink = y >= h/2
					case 0, ' ':
					default:
						ink = y >= 2 && y < 6 && x >= 1 && x < 3
					}
					v := bg
					if ink {
						v = fg
					}
					img.Pix[(margin+r*h+y)*img.Stride+margin+c*w+x] = v
				}
			}
		}
	}
	return img
}
