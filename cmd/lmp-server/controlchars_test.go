package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/internal/browsertest"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server/store"
)

// hideRow is a device_info value that, printed raw, moves the cursor up a
// line and erases it (CSI 1A, CSI 2K), returns to the start, rings the bell
// and ends in NUL and a right-to-left override: a device could hide its own
// row from `lmp-server devices` (the kubectl CVE-2021-25743 class).
const hideRow = "Pixel\x1b[1A\x1b[2K\rinnocent\x07\x00\u202e"

// TestDeviceInfoControlCharactersRefused: a real lmp-server process
// refuses a pairing hello whose device_info holds control characters with
// a fatal error naming the field, consumes nothing and stores nothing.
func TestDeviceInfoControlCharactersRefused(t *testing.T) {
	addr := freeAddr(t)
	p := startServer(t, t.TempDir(), addr, "--no-qr")
	for _, info := range []lmp.DeviceInfo{
		{Model: hideRow, OS: "android", AppVersion: "1"},
		{Model: "Pixel", OS: "android\r", AppVersion: "1"},
		{Model: "Pixel", OS: "android", AppVersion: "1\u009b2J"}, // C1 CSI
	} {
		pr, err := client.Pair(ctxT(t), "http://"+addr+lmp.PathPairNew, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.Dial(ctxT(t), p.ws(), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Hello(ctxT(t), lmp.Hello{Token: pr.Token, DeviceInfo: info})
		var se *client.ServerError
		if !errors.As(err, &se) || se.Payload.Code != lmp.CodeInvalidPayload || !se.Payload.Fatal || !strings.Contains(se.Payload.Message, "control character") {
			t.Fatalf("hello with device_info %q: expected a fatal invalid_payload naming the control character, got %v", info, err)
		}
		c.CloseNow()
	}
	out, stderr, code := runCLI(t, nil, "devices", "--addr", addr)
	if code != 0 || !strings.Contains(out, "no paired devices") {
		t.Fatalf("devices after refused hellos: exit %d\n%s%s", code, out, stderr)
	}
}

// TestDevicesCommandEscapesControlCharacters: a device stored before the
// check (written into a real store here) is listed by the real
// `lmp-server devices` with its control characters escaped: nothing the
// phone chose reaches the terminal as a control.
func TestDevicesCommandEscapesControlCharacters(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = st.PutDevice(store.Device{ID: "dev_hidden", Model: hideRow, OS: "os\tx\u2066", AppVersion: "1", CredentialHash: make([]byte, 32), CreatedAt: time.Now().UTC()})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	startServer(t, dir, addr, "--no-qr")
	out, stderr, code := runCLI(t, nil, "devices", "--addr", addr)
	if code != 0 {
		t.Fatalf("devices: exit %d\n%s", code, stderr)
	}
	for i, r := range out {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == '\u202e' || r == '\u2066' {
			t.Fatalf("devices printed the control %U at byte %d:\n%q", r, i, out)
		}
	}
	for _, want := range []string{`Pixel\x1b[1A\x1b[2K\x0dinnocent\x07\x00\u202e`, `os\x09x\u2066`, "dev_hidden"} {
		if !strings.Contains(out, want) {
			t.Fatalf("devices: expected %s in\n%s", want, out)
		}
	}
}

// TestDashboardEscapesControlCharacters: the dashboard in a real Chromium
// shows a stored device's control characters as escapes, not as controls.
func TestDashboardEscapesControlCharacters(t *testing.T) {
	ctx := browsertest.New(t, 1280, 900, 60*time.Second)
	dir := t.TempDir()
	st, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = st.PutDevice(store.Device{ID: "dev_hidden", Model: hideRow, OS: "os", AppVersion: "1", CredentialHash: make([]byte, 32), CreatedAt: time.Now().UTC()})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	startServer(t, dir, addr, "--no-qr")
	sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	row := `#device-rows tr[data-device="dev_hidden"] td:nth-child(2)`
	if err := chromedp.Do(sctx, chromedp.Navigate("http://"+addr+"/"), chromedp.WaitVisible(chromedp.CSS(row))); err != nil {
		t.Fatalf("the stored device is not shown: %v", err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('`+row+`').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `Pixel\x1b[1A\x1b[2K\x0dinnocent\x07\x00\u202e · os`; shown != want {
		t.Fatalf("device row: expected %q, got %q", want, shown)
	}
}
