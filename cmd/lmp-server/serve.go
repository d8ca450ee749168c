package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/internal/tty"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/mockhermes"
	"github.com/loomi-lmp/lmpkit/reference"
	"github.com/loomi-lmp/lmpkit/server"
)

func serve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o reference.Options
	fs.StringVar(&o.Addr, "addr", reference.DefaultAddr, "listen address; a non-loopback address needs TLS or LOOMI_ALLOW_INSECURE_BIND=true")
	fs.StringVar(&o.DataDir, "data", reference.DefaultDataDir(), "data directory (devices, seq high-water mark)")
	fs.StringVar(&o.Name, "name", "", "server name shown to apps (default: host name)")
	fs.StringVar(&o.PublicURL, "public-url", "", "ws:// or wss:// URL put in the QR, for LAN and reverse-proxy setups")
	fs.StringVar(&o.TLSCert, "tls-cert", "", "TLS certificate (PEM)")
	fs.StringVar(&o.TLSKey, "tls-key", "", "TLS private key (PEM)")
	fs.DurationVar(&o.PingInterval, "ping-interval", lmp.DefaultPingInterval, "server ping interval (T-4)")
	fs.DurationVar(&o.PongTimeout, "pong-timeout", lmp.DefaultPongTimeout, "time a client has to answer a ping (T-5)")
	fs.DurationVar(&o.AuthTimeout, "auth-timeout", lmp.DefaultAuthTimeout, "time a connection has to authenticate (S-4)")
	fs.DurationVar(&o.PairTTL, "pair-ttl", lmp.DefaultPairTTL, "default pairing token lifetime (P-5)")
	fs.IntVar(&o.MaxDeviceConnections, "max-device-conns", server.DefaultMaxDeviceConnections, "connections one device may hold; one more closes its oldest (connection_limit, 1008)")
	fs.IntVar(&o.MaxConnections, "max-conns", 0, "WebSockets the process may hold; more are refused with 503 (0: 4096, or fewer under a small descriptor limit)")
	fs.DurationVar(&o.ApprovalTimeout, "approval-timeout", lmp.DefaultApprovalTimeout, "how long the mock Hermes waits for an approval's answer before it times out (Hermes' approvals.timeout; deadline_ts, note 15)")
	fs.StringVar(&o.Script, "script", "", "mock Hermes scenario file to load")
	quirks := fs.String("hermes-quirks", "", "deliver every scenario's stream hooks as a loaded Hermes may: interleave, reorder, drop=N, duplicate (beyond Hermes) (comma-separated)")
	fs.BoolVar(&o.HermesReasoningDeltas, "hermes-reasoning", true, "the mock Hermes sends reasoning deltas to plugins (plugins.stream_reasoning_deltas, off in a default Hermes)")
	fs.BoolVar(&o.ShowForks, "show-forks", false, "show each fork of a chat's session (/btw, the background review) as a run of its own, not only its send() (note 22); apps must handle either")
	fs.BoolVar(&o.HermesCrosstalk, "hermes-crosstalk", true, "the mock Hermes plays Telegram and subagent turns beside every scenario, as a real Hermes process does; phones must never see them")
	fs.StringVar(&o.HermesBusyInput, "hermes-busy-input", mockhermes.BusyInterrupt, "what a message to a busy chat does: interrupt (Hermes' default) or queue")
	fs.StringVar(&o.HermesProfile, "hermes-profile", "", "the Hermes profile the mock's gateway runs Loomi chats under, as one that multiplexes profiles does: session keys agent:NAME:loomi:dm:… (empty: the default profile, agent:main:…)")
	logFormat := fs.String("log-format", "text", "log format: text or json (logs go to stderr)")
	noQR := fs.Bool("no-qr", false, "do not print a pairing QR at start")
	invert := qrInvertFlag(fs)
	noDashboard := fs.Bool("no-dashboard", false, "do not serve the dashboard page at / (loopback only)")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lmp-server serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	var err error
	if o.HermesQuirks, err = mockhermes.ParseFaults(*quirks); err != nil {
		fmt.Fprintf(stderr, "lmp-server serve: --hermes-quirks: %v\n", err)
		return 2
	}
	for flag, opts := range map[string]mockhermes.Options{
		"--hermes-busy-input": {BusyInputMode: o.HermesBusyInput},
		"--hermes-profile":    {GatewayProfile: o.HermesProfile},
	} {
		if err := mockhermes.CheckOptions(opts); err != nil {
			fmt.Fprintf(stderr, "lmp-server serve: %s: %v\n", flag, err)
			return 2
		}
	}
	var h slog.Handler
	switch *logFormat {
	case "text":
		h = slog.NewTextHandler(stderr, nil)
	case "json":
		h = slog.NewJSONHandler(stderr, nil)
	default:
		fmt.Fprintf(stderr, "lmp-server serve: --log-format %q: want text or json\n", *logFormat)
		return 2
	}
	o.Logger = slog.New(h)
	o.Dashboard = !*noDashboard

	defer takeTerminal()()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	inst, err := reference.Start(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "lmp-server: %v\n", err) // S-3: one line, non-zero exit
		return 1
	}
	fmt.Fprintf(stdout, "lmp-server listening on %s (pairing URL %s, data %s)\n", inst.BaseURL, inst.PublicURL, inst.DataDir)
	if o.Dashboard {
		fmt.Fprintf(stdout, "Dashboard: %s/ (from this machine only)\n", inst.BaseURL)
	}
	fmt.Fprintln(stdout, "Press Ctrl-C to stop.")
	if !*noQR {
		pr, err := client.Pair(ctx, inst.PairURL, 0, loopbackClient(inst.TLSFingerprint != ""))
		if err != nil {
			fmt.Fprintf(stderr, "lmp-server: could not mint a pairing token: %v\n", err)
		} else {
			dashboard := ""
			if o.Dashboard {
				dashboard = inst.BaseURL + "/"
			}
			printPairing(stdout, pr, false, qrStyle{invert: *invert, color: tty.Color(stdout)}, dashboard)
		}
	}

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-inst.Done():
	}
	stop()
	fmt.Fprintln(stdout, "lmp-server: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := inst.Close(sctx); err != nil && serveErr == nil {
		serveErr = err
	}
	if serveErr != nil {
		fmt.Fprintf(stderr, "lmp-server: %v\n", serveErr)
		return 1
	}
	return 0
}

// loopbackClient talks to this host's own server. With TLS the
// certificate is not checked: the peer is the loopback interface.
func loopbackClient(useTLS bool) *http.Client {
	if !useTLS {
		return &http.Client{Timeout: 10 * time.Second}
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback to ourselves
	}}
}
