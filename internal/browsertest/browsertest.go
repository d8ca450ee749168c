// Package browsertest gives tests a real headless Chromium, driven over the
// DevTools protocol, and a QR decoder for what it shows. CI installs
// Debian's chromium (.ci/run).
package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
)

// binaries are the names Chromium is installed under.
var binaries = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Chromium returns the path of a Chromium binary. Without one the test is
// skipped, unless CI is set: there a missing browser is a failure.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range binaries {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("no Chromium binary (%v) on PATH under CI=%s: .ci/run installs Debian's chromium", binaries, os.Getenv("CI"))
	}
	t.Skipf("no Chromium binary (%v) on PATH: install Debian's chromium (apt-get install chromium) to run this test", binaries)
	return ""
}

// New starts a headless Chromium with a window of width×height and returns
// a chromedp context for one tab, bounded by timeout. The browser ends
// with the test.
func New(t testing.TB, width, height int, timeout time.Duration) context.Context {
	t.Helper()
	path := Chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root
		chromedp.WindowSize(width, height),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("force-color-profile", "srgb"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	// The first run starts the browser, which lives as long as the context
	// of that run: it gets no timeout, the test's actions do.
	if err := chromedp.Do(tab); err != nil {
		cancelTab()
		cancelAlloc()
		t.Fatalf("start Chromium %s: %v", path, err)
	}
	ctx, cancelTimeout := context.WithTimeout(tab, timeout)
	t.Cleanup(func() {
		cancelTimeout()
		cancelTab()
		cancelAlloc()
	})
	return ctx
}

// DecodeQR reads the QR code in img.
func DecodeQR(img image.Image) (string, error) {
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return "", err
	}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true})
	if err != nil {
		return "", err
	}
	return res.GetText(), nil
}

// ZBar returns the path of zbarimg, ZBar's command-line decoder: a second
// QR decoder, independent of DecodeQR's, as a phone's scanner is. Without
// it the test is skipped, unless CI is set: there it is a failure.
func ZBar(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("zbarimg")
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("no zbarimg on PATH under CI=%s: .ci/run installs Debian's zbar-tools", os.Getenv("CI"))
	}
	t.Skip("no zbarimg on PATH: install Debian's zbar-tools (apt-get install zbar-tools) to run this test")
	return ""
}

// DecodeQRWithZBar reads the QR code in img with zbarimg (see ZBar). An
// image in which ZBar finds no code is an error naming its output.
func DecodeQRWithZBar(t testing.TB, img image.Image) (string, error) {
	t.Helper()
	zbar := ZBar(t)
	f, err := os.CreateTemp(t.TempDir(), "screen-*.png")
	if err != nil {
		return "", err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(zbar, "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", f.Name())
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		// zbarimg exits 4 when it finds no code.
		return "", fmt.Errorf("zbarimg %s: %v: %s", f.Name(), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}
