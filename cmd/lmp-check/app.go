package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/judge"
)

// appCmd is `lmp-check app`: judge a phone app's side of LMP.
func appCmd(args []string, stdout, stderr io.Writer) int {
	cfg := check.AppConfig{ReportConfig: check.ReportConfig{Stderr: stderr}}
	t := judge.DefaultTimings()
	fs := flag.NewFlagSet("lmp-check app", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reportFlags(fs, &cfg.ReportConfig, check.SubjectApp, stdout)
	fs.StringVar(&cfg.Judge.Listen, "listen", judge.DefaultListen, "the judge's listen address; one that is not loopback (a phone on the LAN) needs LOOMI_ALLOW_INSECURE_BIND=true, as lmp-server does (S-3)")
	fs.StringVar(&cfg.Judge.PublicURL, "public-url", "", "the ws:// URL the pairing QR names, when the app reaches the judge at another address (an emulator: ws://10.0.2.2:8789/ws)")
	fs.StringVar(&cfg.Judge.PairingFile, "pairing-file", "", "write the pairing JSON (the QR's text) to this file, atomically, each time a token is minted: what an app test harness reads instead of a camera")
	fs.BoolVar(&cfg.Judge.QRInvert, "qr-invert", false, "draw the terminal QR for a light theme")
	fs.DurationVar(&t.PongTimeout, "pong-timeout", t.PongTimeout, "how soon the app's pong must follow a ping (C-3: within 10 s)")
	fs.DurationVar(&t.FirstContact, "pair-timeout", t.FirstContact, "how long to wait for the app to pair")
	fs.DurationVar(&t.ActionTimeout, "action-timeout", t.ActionTimeout, "how long the app has to do what an lmp_check action asks; then its specs are skipped (the app did not act)")
	fs.DurationVar(&t.Reconnect, "reconnect-timeout", t.Reconnect, "how long the app has to reconnect after the judge closes or drops its connection")
	fs.DurationVar(&t.Quiet, "quiet", t.Quiet, "how long the app is watched after protocol_version 2, for requests and reconnects")
	fs.IntVar(&t.Burst, "burst", t.Burst, "events in the burst")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: lmp-check app [flags]

Plays an LMP server for a phone app, pairs with it by QR (or --pairing-file), plays the scenarios of
the client rules C-1 … C-13 and judges what the app sends back. Notifications titled "lmp-check:"
tell the app's user (or its test harness, through their lmp_check field) what to do; a spec whose
action the app does not do in time is skipped, never failed. The run ends by itself with a verdict
and writes the same reports as a server run. docs/app.md explains each scenario and the contract.

  lmp-check list --subject app            the specs, their rules and levels, what each needs
  lmp-check app --pairing-file p.json     a harness (or lmp-appclient) pairs from p.json
  lmp-check app --json-report r.json      then: lmp-check app --rerun-failed r.json

Exit codes: 0 conformant, 1 not conformant, 2 usage error or no app connected within --pair-timeout.

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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return check.RunApp(ctx, cfg)
}
