package main

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mdp/qrterminal/v3"
)

// qrQuietZone is the margin around the terminal QR, in modules: two, not
// the standard's four, so that a pairing code without TLS (version 6, 41
// modules) takes 23 lines of half blocks and fits an 80×24 terminal. Phone
// scanners read it.
const qrQuietZone = 2

// qrStyle is how the pairing QR is drawn.
type qrStyle struct {
	// invert draws the dark modules as glyphs, for a light terminal theme;
	// by default the light modules are glyphs, for a dark theme.
	invert bool
	// color paints it white on black explicitly, which reads on any theme.
	color bool
}

// writeQR draws text as a QR code of half blocks: two modules a character.
func writeQR(w io.Writer, text string, st qrStyle) {
	drawing, _, _ := renderQR(text, st)
	_, _ = io.WriteString(w, drawing)
}

// renderQR draws text as writeQR does, and says how many columns and lines
// the drawing takes.
func renderQR(text string, st qrStyle) (drawing string, cols, lines int) {
	cfg := qrterminal.Config{
		Level: qrterminal.L, HalfBlocks: true, QuietZone: qrQuietZone,
		// Light modules as glyphs: the quiet zone is light on a dark theme.
		WhiteChar: qrterminal.WHITE_WHITE, BlackChar: qrterminal.BLACK_BLACK,
		WhiteBlackChar: qrterminal.WHITE_BLACK, BlackWhiteChar: qrterminal.BLACK_WHITE,
	}
	if st.invert && !st.color {
		// Dark modules as glyphs: the quiet zone is the light background.
		cfg.WhiteChar, cfg.BlackChar = qrterminal.BLACK_BLACK, qrterminal.WHITE_WHITE
		cfg.WhiteBlackChar, cfg.BlackWhiteChar = qrterminal.BLACK_WHITE, qrterminal.WHITE_BLACK
	}
	var buf bytes.Buffer
	cfg.Writer = &buf
	qrterminal.GenerateWithConfig(text, cfg)
	rows := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for _, row := range rows {
		cols = max(cols, utf8.RuneCountInString(row))
	}
	if !st.color {
		return buf.String(), cols, len(rows)
	}
	var out strings.Builder
	for _, row := range rows {
		// Bright white glyphs on black, reset before the line break.
		out.WriteString("\x1b[97;40m" + row + "\x1b[0m\n")
	}
	return out.String(), cols, len(rows)
}
