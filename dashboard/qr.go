package dashboard

import (
	"fmt"
	"strings"

	"rsc.io/qr"
)

// quietZone is the white margin around a QR code, in modules: the four the
// QR standard asks for, so the code scans on a dark page too.
const quietZone = 4

// QRSVG renders text as a QR code (error correction level M) in an SVG
// image: black modules on a white square with a quiet zone, one path, so
// that it scans from a screen at any size.
func QRSVG(text, label string) (string, error) {
	code, err := qr.Encode(text, qr.M)
	if err != nil {
		return "", fmt.Errorf("QR code: %w", err)
	}
	n := code.Size + 2*quietZone
	var path strings.Builder
	for y := 0; y < code.Size; y++ {
		for x := 0; x < code.Size; {
			if !code.Black(x, y) {
				x++
				continue
			}
			run := 1
			for x+run < code.Size && code.Black(x+run, y) {
				run++
			}
			fmt.Fprintf(&path, "M%d %dh%dv1h-%dz", x+quietZone, y+quietZone, run, run)
			x += run
		}
	}
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges" role="img" aria-label="%s">`+
		`<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`,
		n, n, htmlAttr(label), n, n, path.String()), nil
}

func htmlAttr(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;").Replace(s)
}
