package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/tty"
)

// runCmd is `lmp-check [run] [flags]`: the conformance run.
func runCmd(args []string, stdout, stderr io.Writer) int {
	cfg := check.Config{ReportConfig: check.ReportConfig{Stderr: stderr}}
	fs := flag.NewFlagSet("lmp-check run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reportFlags(fs, &cfg.ReportConfig, check.SubjectServer, stdout)
	if tty.Is(stdout) {
		cfg.Progress = stdout // the live line: on a terminal only
	}
	fs.StringVar(&cfg.URL, "url", "", "LMP WebSocket URL of the server under test, ws(s)://host/ws; without it an in-process lmp-server is checked")
	fs.StringVar(&cfg.PairURL, "pair-url", "", "loopback pairing endpoint (POST /internal/pair/new); derived from --url when it is loopback")
	fs.StringVar(&cfg.TokenCmd, "token-cmd", "", "shell command printing pairing JSON with a \"token\" field, e.g. 'hermes loomi pair --json'")
	fs.StringVar(&cfg.DriverURL, "driver-url", "", "mock Hermes driver API base URL, the first choice of event source; without it the specs that observe the Hermes side are skipped and events come from --triggers")
	fs.StringVar(&cfg.CA, "ca", "", "PEM file of CA certificates to trust for wss:// and https://")
	fs.BoolVar(&cfg.Insecure, "insecure", false, "do not verify the server's TLS certificate")
	fs.StringVar(&cfg.ServerLog, "server-log", "", "the server's log file, read (never written) to check that no token or credential the run has seen appears in it (S-1); without it that spec is skipped")
	fs.StringVar(&cfg.Triggers, "triggers", "", "event source for a server without a driver: 'mock' (lmp-server's /mock commands), 'hermes' (the scripted model's markers, for a real Hermes; see --model) or a YAML file mapping each event to a session.send text (schema/triggers.schema.json); --driver-url is used first when given; without --url the in-process server gets 'mock'")
	fs.StringVar(&cfg.Model, "model", "", "serve lmp-check's scripted model on this address (e.g. 127.0.0.1:8788) for the run, for a real Hermes whose plugin is under test; use with --triggers hermes (CI.md, A plugin inside a real Hermes)")
	fs.StringVar(&cfg.ListCmd, "list-cmd", "", "shell command printing the paired devices, each named by its device_id, e.g. 'hermes loomi devices'; exit 0 means listed (S-5); without it and with --url the listing specs are skipped")
	fs.StringVar(&cfg.RevokeCmd, "revoke-cmd", "", "shell command revoking a device, with {device_id} in it, e.g. 'hermes loomi revoke {device_id}'; exit 0 means revoked (S-5, and the clean-up of the devices the run paired)")
	fs.StringVar(&cfg.RestartCmd, "restart-cmd", "", "shell command that stops the server gracefully and starts it again; lmp-check then waits for /health (the restart specs, note 4)")
	fs.StringVar(&cfg.CrashCmd, "crash-cmd", "", "shell command that kills the server with SIGKILL and starts it again; lmp-check then waits for /health (the crash specs, note 4)")
	fs.DurationVar(&cfg.Timings.PingInterval, "ping-interval", 0, "server ping interval (default: the driver's profile, else 25s)")
	fs.DurationVar(&cfg.Timings.PongTimeout, "pong-timeout", 0, "pong deadline (default: the driver's profile, else 10s)")
	fs.DurationVar(&cfg.Timings.AuthTimeout, "auth-timeout", 0, "auth timeout (default: the driver's profile, else 10s)")
	fs.DurationVar(&cfg.Timings.PairTTL, "pair-ttl", 0, "default pairing token TTL (default: the driver's profile, else 300s)")
	fs.DurationVar(&cfg.RunTimeout, "run-timeout", 0, "cap the run below its budget (printed at the start): specs not finished by then fail, naming it, and the reports are still written")
	fs.BoolVar(&cfg.KeepDevices, "keep-devices", false, "leave the devices the run paired instead of revoking them at the end (a throwaway server)")
	fs.DurationVar(&cfg.Timings.ApprovalTimeout, "approval-timeout", 0, "how long an approval waits before it times out (default: the driver's profile, else 300s)")
	fs.IntVar(&cfg.Timings.ReplayWindow, "replay-window", 0, "events kept per device for replay (default: the driver's profile, else 512, E-5)")
	fs.IntVar(&cfg.Timings.RequestIDWindow, "request-window", 0, "request_ids remembered per device (default: the driver's profile, else 256, I-1)")
	fs.BoolVar(&cfg.NoDriver, "no-driver", false, "without --url: check the in-process lmp-server as a server without a driver (only the wire, pairing, --triggers and the target commands), to see what a driverless run covers; the specs that observe the Hermes side are skipped")
	fs.StringVar(&cfg.Listen, "listen", "", "listen address of the in-process server when --url is absent (default 127.0.0.1:0); one that is not loopback, e.g. ':0' (every interface), lets the LAN specs reach it at this host's network addresses, and needs LOOMI_ALLOW_INSECURE_BIND=true as lmp-server does (S-3)")
	fs.StringVar(&cfg.Profile, "profile", "short", "timings of the in-process server when --url is absent: short or spec")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: lmp-check [run] [flags]

Checks an LMP server (--url; without it an in-process lmp-server) against the server rules of LMP v1
and ends with a verdict per spec, per rule and for the run. CI.md explains every flag and report.

  lmp-check list                          the specs, their rules and levels, what each needs
  lmp-check --url URL --json-report r.json  then: lmp-check --url URL --rerun-failed r.json

Exit codes: 0 conformant, 1 not conformant, 2 usage error or unreachable target.

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
		fmt.Fprintf(stderr, "lmp-check: unexpected arguments %q\n", fs.Args())
		return check.ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return check.Run(ctx, cfg)
}

// listCmd is `lmp-check list`: a dry run naming every selected spec, of
// a server run, an app run or both.
func listCmd(args []string, stdout, stderr io.Writer) int {
	var rc check.ReportConfig
	fs := flag.NewFlagSet("lmp-check list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	selectionFlags(fs, &rc, "")
	subject := fs.String("subject", "", "list only the specs of a server run (server: lmp-check [run]) or of an app run (app: lmp-check app); default both")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: lmp-check list [--subject server|app] [selection flags]

Lists the specs a run would select (a dry run), by section, each with its rule IDs, its level and
what it needs beyond the target: the server run's (lmp-check [run]), then the app run's
(lmp-check app, sections "App: …"). The selection flags are those of both runs.

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
		fmt.Fprintf(stderr, "lmp-check list: unexpected arguments %q\n", fs.Args())
		return check.ExitUsage
	}
	if err := check.ListSpecs(stdout, *subject, rc.LabelFilter, rc.Focus, rc.Skip); err != nil {
		fmt.Fprintf(stderr, "lmp-check list: %v\n", err)
		return check.ExitUsage
	}
	return 0
}

// rulesCmd is `lmp-check rules`: the rule → specs matrix.
func rulesCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lmp-check rules", flag.ContinueOnError)
	fs.SetOutput(stderr)
	markdown := fs.Bool("markdown", false, "write the matrix as Markdown (suites/MATRIX.md)")
	needs := fs.Bool("needs", false, "write the rule → needs table (nothing, triggers, driver, restart, server log) as Markdown, for CI.md")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return check.ExitUsage
	}
	specs, err := check.Preview("", nil, nil)
	if err != nil {
		fmt.Fprintf(stderr, "lmp-check rules: %v\n", err)
		return check.ExitUsage
	}
	// The app's specs (lmp-check app) check the client rules.
	m := check.BuildMatrix(append(specs, check.AppSpecs()...))
	switch {
	case *needs:
		m.WriteNeeds(stdout)
	case *markdown:
		m.WriteMarkdown(stdout)
	default:
		m.WriteRules(stdout)
	}
	if p := m.Problems(); len(p) > 0 {
		fmt.Fprintf(stderr, "lmp-check rules: %s\n", strings.Join(p, "\n"))
		return check.ExitNotConformant
	}
	return 0
}
