package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/internal/browsertest"
	"github.com/loomi-lmp/lmpkit/lmp"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write docs/img/dashboard.png from the browser test")

// TestDashboardInChromium drives the dashboard of the real binary in a real
// headless Chromium, the way a person would: it reads the pairing QR off
// the screen and pairs a device with it, plays a scenario into the
// device's chat and watches its frames arrive, answers an approval at the
// gateway, and revokes the device.
func TestDashboardInChromium(t *testing.T) {
	ctx := browsertest.New(t, 1280, 2000, 60*time.Second)
	dir, addr := t.TempDir(), freeAddr(t)
	p := startServer(t, dir, addr, "--no-qr")
	base := "http://" + addr
	// Each step waits at most 15 s, so that a failure can still show the page.
	do := func(steps ...chromedp.Action[chromedp.Void]) error {
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		return chromedp.Do(sctx, steps...)
	}
	// clickInList clicks the element of a list the page redraws as it
	// polls (devices, approvals). It finds and clicks the element in one
	// script, in the page: a click by node id can find the node, lose it to
	// a redraw, and fail with "Could not find node with given id".
	clickInList := func(selector string) error {
		sel, _ := json.Marshal(selector)
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		_, err := chromedp.Run(sctx, chromedp.Poll[bool](`(() => { const e = document.querySelector(`+string(sel)+`); if (!e) return false; e.click(); return true; })()`))
		return err
	}

	// The QR as the browser shows it decodes to a pairing payload (P-2).
	if err := do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#qr svg"))); err != nil {
		t.Fatalf("load the dashboard: %v", err)
	}
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#qr")))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	text, err := browsertest.DecodeQR(img)
	if err != nil {
		t.Fatalf("the QR on the page does not decode: %v", err)
	}
	var qr lmp.QRPayload
	if err := json.Unmarshal([]byte(text), &qr); err != nil || qr.V != 1 || qr.Token == "" || qr.URL != p.ws() {
		t.Fatalf("QR payload %q (%v)", text, err)
	}

	// A device paired with it appears, online.
	c, dev, _, err := client.PairDevice(ctxT(t), qr.URL, qr.Token, nil)
	if err != nil {
		t.Fatalf("pair with the QR read off the screen: %v", err)
	}
	defer c.CloseNow()
	row := `#device-rows tr[data-device="` + dev.ID + `"]`
	if err := do(chromedp.WaitVisible(chromedp.CSS(row + `[data-state="online"]`))); err != nil {
		t.Fatalf("paired device not shown online: %v", err)
	}
	if err := do(chromedp.WaitVisible(chromedp.CSS(`#frame-rows tr.in[data-type="hello"][data-device="` + dev.ID + `"]`))); err != nil {
		t.Fatalf("the pairing hello is not shown as the new device's: %v\n%s", err, shownFrames(t, ctx))
	}
	if err := do(chromedp.WaitVisible(chromedp.CSS(`#qr.void`))); err != nil {
		t.Fatalf("used pairing code not marked: %v", err)
	}

	// What the phone sends is in the log, and what the adapter made of it
	// in the Hermes calls. Its turn makes the chat one the adapter shows.
	if err := c.Send(ctxT(t), lmp.SessionSend{Text: "hello", RequestID: "r1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectType(ctxT(t), lmp.TypeRunCompleted); err != nil {
		t.Fatalf("the phone's message got no reply: %v", err)
	}
	if err := do(
		chromedp.WaitVisible(chromedp.CSS(`#frame-rows tr.in[data-type="session.send"][data-device="`+dev.ID+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#call-rows tr[data-call="handle_message"]`)),
	); err != nil {
		t.Fatalf("the phone's message or the adapter's handle_message not shown: %v", err)
	}

	// A scenario button plays into the chat the phone used (the page
	// follows it); its frames reach the phone and the log.
	if err := do(
		chromedp.Click(chromedp.CSS(`button[data-scenario="tools"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#frame-rows tr[data-type="run.tool_started"][data-device="`+dev.ID+`"]`)),
	); err != nil {
		t.Fatalf("tools scenario's frames not in the log: %v\n%s", err, shownFrames(t, ctx))
	}
	if _, err := c.ExpectType(ctxT(t), lmp.TypeRunToolStarted); err != nil {
		t.Fatalf("device did not get the run: %v", err)
	}

	// The log filters by type, and pauses: while paused new frames are
	// held, not shown; a scenario started from the keyboard fills it.
	count := func(js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Array.from(document.querySelectorAll("#frame-rows tr")).filter(r => `+js+`).length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := do(chromedp.SendKeys(chromedp.CSS("#f-type"), "run.delta")); err != nil {
		t.Fatal(err)
	}
	if wrong, shown := count(`!r.hidden && r.dataset.type !== "run.delta"`), count(`!r.hidden`); wrong != 0 || shown == 0 {
		t.Errorf("type filter run.delta shows %d rows, %d of another type", shown, wrong)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const e = document.getElementById("f-type"); e.value = ""; e.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	if err := do(chromedp.Click(chromedp.CSS("#pause")), chromedp.WaitVisible(chromedp.CSS(`#pause[aria-pressed="true"]`))); err != nil {
		t.Fatal(err)
	}
	before := count(`true`) // counted once paused: the tools run may still be streaming
	if err := do(chromedp.SendKeys(chromedp.CSS(`button[data-scenario="notify"]`), kb.Enter)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectType(ctxT(t), lmp.TypeNotification); err != nil {
		t.Fatalf("the notify scenario started with Enter did not play: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("frame-state").textContent.includes("held")`)); err != nil {
		t.Fatalf("paused log does not say it holds frames: %v", err)
	}
	if n := count(`true`); n != before {
		t.Errorf("paused log grew from %d to %d rows", before, n)
	}
	if err := do(
		chromedp.Click(chromedp.CSS("#pause")),
		chromedp.WaitVisible(chromedp.CSS(`#frame-rows tr[data-type="notification"]`)),
	); err != nil {
		t.Fatalf("held frames not shown on resume: %v", err)
	}
	// Every control has a label a screen reader can announce.
	unlabelled, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("input, select, button")).filter(e => !(e.labels && e.labels.length) && !e.getAttribute("aria-label") && !e.textContent.trim()).map(e => e.outerHTML)`))
	if err != nil || len(unlabelled) > 0 {
		t.Errorf("controls without a label: %v %v", unlabelled, err)
	}

	// An approval answered on the page is answered at the gateway: the
	// device hears decided_by local.
	if err := do(chromedp.Click(chromedp.CSS(`button[data-scenario="approval"]`))); err != nil {
		t.Fatalf("start the approval scenario: %v", err)
	}
	if err := clickInList(`#approval-list li[data-approval] button[data-choice="once"]`); err != nil {
		t.Fatalf("answer the approval: %v", err)
	}
	f, err := c.ExpectType(ctxT(t), lmp.TypeApprovalResolved)
	if err != nil {
		t.Fatal(err)
	}
	var res lmp.ApprovalResolved
	if err := json.Unmarshal(f.Payload, &res); err != nil || res.DecidedBy != lmp.DecidedByLocal || res.Choice != lmp.ChoiceOnce {
		t.Fatalf("approval.resolved %s", f.Raw)
	}

	// The log redacts the device's secrets (S-1).
	log, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("frame-rows").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	checkNoSecrets(t, log, qr.Token, dev.Credential)
	if !strings.Contains(log, lmp.Redacted+":"+lmp.Fingerprint(dev.Credential)) {
		t.Errorf("the hello.ok in the log does not name the credential by its fingerprint")
	}

	if *updateScreenshot {
		// A fresh code and a real pending approval, so that the picture
		// shows both live.
		if err := do(
			chromedp.WaitNotPresent(chromedp.CSS("#approval-list li[data-approval]")),
			chromedp.Click(chromedp.CSS(`button[data-scenario="approval"]`)),
			chromedp.WaitVisible(chromedp.CSS("#approval-list li[data-approval]")),
			chromedp.Click(chromedp.CSS("#pair-new")), chromedp.WaitVisible(chromedp.CSS("#qr:not(.void) svg")),
		); err != nil {
			t.Fatal(err)
		}
		full, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "img", "dashboard.png"), full, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Revoke closes the device's connection at once (S-5).
	if err := clickInList(row + ` button`); err != nil {
		t.Fatalf("revoke the device: %v", err)
	}
	ce, err := c.WaitClosed(ctxT(t))
	if err != nil || ce.Code != lmp.ClosePolicyViolation {
		t.Fatalf("revoked device's connection: %v %v", ce, err)
	}
	if err := do(chromedp.WaitVisible(chromedp.CSS(row + `[data-state="revoked"]`))); err != nil {
		t.Fatalf("revoked device not shown revoked: %v", err)
	}
	checkNoSecrets(t, p.Stderr.String(), qr.Token, dev.Credential)
}

// shownFrames lists the frame log's rows, for a failure message.
func shownFrames(t *testing.T, ctx context.Context) string {
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#frame-rows tr")).map(r => r.dataset.device + " " + r.className + " " + r.dataset.type)`))
	if err != nil {
		return "(frame log unreadable: " + err.Error() + ")"
	}
	status, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("play-state").textContent`))
	return strings.Join(rows, "\n") + "\nstatus: " + status
}
