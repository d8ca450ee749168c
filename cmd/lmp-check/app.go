package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/tty"
	"github.com/loomi-lmp/lmpkit/judge"
)

// appCmd is `lmp-check app`: judge a phone app's side of LMP.
func appCmd(args []string, stdout, stderr io.Writer) int {
	cfg := check.AppConfig{Stdout: stdout, Stderr: stderr}
	t := judge.DefaultTimings()
	fs := flag.NewFlagSet("lmp-check app", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Judge.Listen, "listen", judge.DefaultListen, "the judge's listen address; one that is not loopback (a phone on the LAN) needs LOOMI_ALLOW_INSECURE_BIND=true, as lmp-server does (S-3)")
	fs.StringVar(&cfg.Judge.PublicURL, "public-url", "", "the ws:// URL the pairing QR names, when the app reaches the judge at another address (an emulator: ws://10.0.2.2:8789/ws)")
	fs.StringVar(&cfg.Judge.PairingFile, "pairing-file", "", "write the pairing JSON (the QR's text) to this file, atomically, each time a token is minted: what an app test harness reads instead of a camera")
	fs.BoolVar(&cfg.Judge.QRInvert, "qr-invert", false, "draw the terminal QR for a light theme")
	fs.DurationVar(&t.PongTimeout, "pong-timeout", t.PongTimeout, "how soon a pong must follow a ping (T-5)")
	fs.DurationVar(&t.FirstContact, "pair-timeout", t.FirstContact, "how long to wait for the app to pair")
	fs.DurationVar(&t.ActionTimeout, "action-timeout", t.ActionTimeout, "how long the app has to do what an lmp_check action asks; then its specs are skipped (the app did not act)")
	fs.DurationVar(&t.Reconnect, "reconnect-timeout", t.Reconnect, "how long the app has to reconnect after the judge closes or drops its connection")
	fs.DurationVar(&t.Quiet, "quiet", t.Quiet, "how long the app is watched after protocol_version 2, for requests and reconnects")
	fs.IntVar(&t.Burst, "burst", t.Burst, "events in the burst")
	fs.BoolVar(&cfg.Strict, "strict", false, "SHOULD failures fail the run")
	fs.StringVar(&cfg.JUnitReport, "junit-report", "", "write a JUnit XML report to this file")
	fs.StringVar(&cfg.JSONReport, "json-report", "", "write a JSON report (schema/report/lmp-check-report.json, subject \"app\") to this file")
	fs.StringVar(&cfg.HTMLReport, "html-report", "", "write a self-contained HTML report to this file")
	fs.StringVar(&cfg.LabelFilter, "label-filter", "", "judge only specs whose labels match this Ginkgo label filter (rule IDs, MUST/SHOULD, action:<name>), e.g. 'C-5 || C-6'")
	fs.Var((*stringList)(&cfg.Focus), "focus", "judge only specs whose section, rules or text match this regexp (repeatable)")
	fs.Var((*stringList)(&cfg.Skip), "skip", "leave out specs whose section, rules or text match this regexp (repeatable)")
	fs.BoolVar(&cfg.Verbose, "v", false, "list unselected specs too")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: lmp-check app [flags]

Plays an LMP server for a phone app, pairs with it by QR (or --pairing-file), plays the scenarios of
the client rules C-1 … C-13 and judges what the app sends back. Notifications titled "lmp-check:"
tell the app's user (or its test harness, through their lmp_check field) what to do.

Exit codes: 0 conformant, 1 not conformant, 2 usage error.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return check.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lmp-check app: unexpected arguments %q\n", fs.Args())
		return check.ExitUsage
	}
	cfg.Judge.Timings = t
	cfg.Color = tty.Color(stdout)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return check.RunApp(ctx, cfg)
}
