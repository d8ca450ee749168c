package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/loomi-lmp/lmpkit/fuzz/campaign"
	"github.com/loomi-lmp/lmpkit/internal/tty"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
)

// fuzzCmd is `lmp-check fuzz`: a fuzzing campaign against a live server,
// or the replay of one saved finding. Exit codes: 0 no finding (or the
// replayed finding no longer occurs), 1 findings (or it still occurs), 2
// usage error or unreachable target.
func fuzzCmd(args []string, stdout, stderr io.Writer) int {
	var (
		cfg      campaign.Config
		seed     uint64
		report   string
		html     string
		replay   string
		quiet    bool
		insecure bool
	)
	fs := flag.NewFlagSet("lmp-check fuzz", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.URL, "url", "", "LMP WebSocket URL, ws(s)://host/ws; without it an in-process lmp-server (with its mock Hermes) is fuzzed")
	fs.StringVar(&cfg.PairURL, "pair-url", "", "loopback pairing endpoint (POST /internal/pair/new); derived from --url")
	fs.StringVar(&cfg.DriverURL, "driver-url", "", "mock Hermes driver API base URL: makes Hermes-side events flow during the campaign")
	fs.DurationVar(&cfg.Duration, "duration", 60*time.Second, "how long to fuzz (shrinking the findings comes after)")
	fs.Uint64Var(&seed, "seed", 0, "seed; the same seed replays the same episodes (default: random, printed)")
	fs.IntVar(&cfg.Conns, "conns", 8, "fuzzing workers, each on a connection of its own (a pausing episode plays beside its worker: up to twice as many connections)")
	fs.IntVar(&cfg.Devices, "devices", 0, "paired devices the connections share (default conns+2)")
	fs.StringVar(&report, "report", "", "write the JSON report (schema/report/fuzz-report.json) to this file")
	fs.StringVar(&html, "html-report", "", "write a self-contained HTML report, with each finding's reproducer, to this file")
	fs.StringVar(&cfg.OutDir, "out", "fuzz-findings", "directory for the reproducers of findings")
	fs.DurationVar(&cfg.ShrinkBudget, "shrink-budget", 20*time.Second, "time spent minimising each finding; negative turns shrinking off")
	fs.StringVar(&replay, "replay", "", "replay this reproducer instead of fuzzing; exit 1 if the finding still occurs")
	fs.BoolVar(&quiet, "quiet", false, "no live progress line")
	fs.BoolVar(&insecure, "insecure", false, "do not verify the server's TLS certificate")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: lmp-check fuzz [flags]\n       lmp-check fuzz --replay FILE [--url …]\n\nExit codes: 0 no finding, 1 findings, 2 usage error or unreachable target.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lmp-check fuzz: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	if !seedSet {
		seed = rand.Uint64() >> 11 // exact in a JSON number
	}
	cfg.Seed = seed
	if insecure {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	}
	if !quiet && tty.Is(stderr) {
		cfg.Progress = stderr // a line redrawn in place: on a terminal only
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	if cfg.URL == "" {
		dir, err := os.MkdirTemp("", "lmp-check-fuzz-")
		if err != nil {
			fmt.Fprintf(stderr, "lmp-check fuzz: %v\n", err)
			return 2
		}
		defer os.RemoveAll(dir)
		inst, err := reference.Start(ctx, reference.Options{Addr: "127.0.0.1:0", DataDir: dir, Profile: lmp.Profile{ApprovalTimeout: 2 * time.Second}})
		if err != nil {
			fmt.Fprintf(stderr, "lmp-check fuzz: start the in-process server: %v\n", err)
			return 2
		}
		defer func() {
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			inst.Close(cctx)
		}()
		cfg.URL, cfg.PairURL = inst.WSURL, inst.PairURL
		if cfg.DriverURL == "" {
			cfg.DriverURL = inst.DriverURL
		}
	}

	if replay != "" {
		r, err := campaign.LoadReproducer(replay)
		if err != nil {
			fmt.Fprintf(stderr, "lmp-check fuzz: %v\n", err)
			return 2
		}
		res, err := campaign.Replay(ctx, campaign.ReplayConfig{URL: cfg.URL, PairURL: cfg.PairURL, HTTPClient: cfg.HTTPClient}, r)
		if err != nil {
			fmt.Fprintf(stderr, "lmp-check fuzz: replay: %v\n", err)
			return 2
		}
		for _, f := range res.Findings {
			fmt.Fprintf(stdout, "  %s [%s] %s\n", f.Kind, f.Rule, f.Message)
		}
		if res.Reproduced {
			fmt.Fprintf(stdout, "%s: %s reproduces against %s\n", replay, r.Finding.Kind, cfg.URL)
			return 1
		}
		fmt.Fprintf(stdout, "%s: %s does not reproduce against %s\n", replay, r.Finding.Kind, cfg.URL)
		return 0
	}

	fmt.Fprintf(stderr, "lmp-check fuzz: %s, seed %d, %d conns, %s\n", cfg.URL, cfg.Seed, cfg.Conns, cfg.Duration)
	rep, err := campaign.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "lmp-check fuzz: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, rep.Summary())
	if report != "" {
		if err := rep.WriteFile(report); err != nil {
			fmt.Fprintf(stderr, "lmp-check fuzz: --report: %v\n", err)
			return 2
		}
	}
	if html != "" {
		if err := rep.WriteHTMLFile(html); err != nil {
			fmt.Fprintf(stderr, "lmp-check fuzz: --html-report: %v\n", err)
			return 2
		}
	}
	if !rep.OK {
		return 1
	}
	return 0
}
