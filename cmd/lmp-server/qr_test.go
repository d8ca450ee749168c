package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loomi-lmp/lmpkit/internal/browsertest"
	"github.com/loomi-lmp/lmpkit/lmp"
)

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// screen draws rendered text as a terminal shows it: a glyph's half blocks
// in the foreground colour, the rest in the background, 4 pixels a module,
// with a margin of background around it.
func screen(text string, fg, bg color.Gray) image.Image {
	lines := strings.Split(strings.TrimSuffix(ansi.ReplaceAllString(text, ""), "\n"), "\n")
	width := 0
	for _, l := range lines {
		width = max(width, utf8.RuneCountInString(l))
	}
	const px, margin = 4, 16
	img := image.NewGray(image.Rect(0, 0, width*px+2*margin, len(lines)*2*px+2*margin))
	for i := range img.Pix {
		img.Pix[i] = bg.Y
	}
	for row, l := range lines {
		for col, r := range []rune(l) {
			top, bottom := r == '█' || r == '▀', r == '█' || r == '▄'
			for half, on := range []bool{top, bottom} {
				if !on {
					continue
				}
				for y := 0; y < px; y++ {
					for x := 0; x < px; x++ {
						img.SetGray(margin+col*px+x, margin+(row*2+half)*px+y, fg)
					}
				}
			}
		}
	}
	return img
}

// TestTerminalQRDecodes renders a pairing QR as lmp-server prints it and
// decodes it as a dark and a light terminal theme show it: the default for
// a dark theme, --qr-invert for a light one, and the coloured code on
// either. It fits an 80×24 terminal.
func TestTerminalQRDecodes(t *testing.T) {
	payload, _ := json.Marshal(lmp.QRPayload{V: 1, URL: "ws://127.0.0.1:8787/ws", Token: strings.Repeat("A", 43), Name: "a-typical-laptop", FP: ""})
	white, black := color.Gray{Y: 0xff}, color.Gray{Y: 0x10}
	cases := []struct {
		name   string
		style  qrStyle
		fg, bg color.Gray
	}{
		{"default on a dark theme", qrStyle{}, white, black},
		{"--qr-invert on a light theme", qrStyle{invert: true}, black, white},
		{"colour on a light theme", qrStyle{color: true}, white, black}, // the colours are its own
		{"colour with --qr-invert", qrStyle{color: true, invert: true}, white, black},
	}
	// The test can tell: the default drawing is a negative on a light theme.
	var neg bytes.Buffer
	writeQR(&neg, string(payload), qrStyle{})
	if _, err := browsertest.DecodeQR(screen(neg.String(), black, white)); err == nil {
		t.Fatal("the dark-theme drawing decodes on a light theme too: the theme cases prove nothing")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			writeQR(&buf, string(payload), c.style)
			plain := ansi.ReplaceAllString(buf.String(), "")
			lines := strings.Split(strings.TrimSuffix(plain, "\n"), "\n")
			if len(lines) > 23 {
				t.Errorf("%d lines: does not fit an 80×24 terminal with a line to spare", len(lines))
			}
			for _, l := range lines {
				if n := utf8.RuneCountInString(l); n > 80 {
					t.Fatalf("a line of %d columns", n)
				}
			}
			if c.style.color != strings.Contains(buf.String(), "\x1b[") {
				t.Errorf("colour codes present: %v, want %v", !c.style.color, c.style.color)
			}
			got, err := browsertest.DecodeQR(screen(buf.String(), c.fg, c.bg))
			if err != nil {
				t.Fatalf("does not decode: %v\n%s", err, plain)
			}
			if got != string(payload) {
				t.Fatalf("decodes to %q", got)
			}
		})
	}
}
