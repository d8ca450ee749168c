// Command lmp-appclient runs the reference app client (package appclient)
// against `lmp-check app`: the example for app test harnesses, and what
// the self-test's faulty app clients are built from.
//
//	lmp-check app --pairing-file /tmp/pairing.json &
//	lmp-appclient --pairing-file /tmp/pairing.json --state-file /tmp/app-state.json
//
// It exits 0 when the server states a protocol version it does not
// support (the end of an app run), 1 on any other end, 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"

	"github.com/loomi-lmp/lmpkit/appclient"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

func run(args []string, stderr io.Writer) int {
	var o appclient.Options
	fs := flag.NewFlagSet("lmp-appclient", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.PairingFile, "pairing-file", "", "the pairing JSON file lmp-check app writes (--pairing-file); required")
	fs.StringVar(&o.StateFile, "state-file", "", "where the app stores its pairing and last_seq (default: in memory)")
	fs.DurationVar(&o.ReconnectDelay, "reconnect-delay", 0, "wait before reconnecting after a disconnect (default 1s)")
	verbose := fs.Bool("v", false, "log what the app does to stderr")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if o.PairingFile == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: lmp-appclient --pairing-file FILE [--state-file FILE] [--reconnect-delay D] [-v]")
		return 2
	}
	if *verbose {
		o.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := appclient.Run(ctx, o)
	if errors.Is(err, appclient.ErrUnsupportedVersion) {
		fmt.Fprintln(stderr, "lmp-appclient:", err)
		return 0
	}
	fmt.Fprintln(stderr, "lmp-appclient:", err)
	return 1
}
