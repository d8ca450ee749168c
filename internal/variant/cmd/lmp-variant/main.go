// Command lmp-variant serves internal/variant in front of a running
// lmp-server, as a process of its own, so that the neutrality self-test can
// restart it and kill it. Its command line has the shape of lmp-server's,
// so that one control script drives either:
//
//	lmp-variant serve --upstream http://127.0.0.1:8787 --addr 127.0.0.1:8788 --data DIR [--choices minimal,2,5,…]
//
// It is used only by tests.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/loomi-lmp/lmpkit/internal/variant"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprintln(stderr, "usage: lmp-variant serve --upstream URL [--addr ADDR] [--data DIR]")
		return 2
	}
	fs := flag.NewFlagSet("lmp-variant serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o variant.Options
	fs.StringVar(&o.Upstream, "upstream", "", "base URL of the lmp-server behind the variant (required)")
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:0", "listen address")
	data := fs.String("data", ".", "directory of the variant's seq numbering")
	choices := fs.String("choices", "all", "the notes answered the variant's way, comma-separated ("+fmt.Sprint(variant.Notes)+"), \"minimal\" for only §4's fields, \"all\" or \"preferred\"")
	fs.Bool("no-qr", true, "accepted for lmp-server's command line; the variant prints no QR")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if o.Upstream == "" {
		fmt.Fprintln(stderr, "lmp-variant: --upstream is required")
		return 2
	}
	var err error
	if o.Choices, err = variant.ParseChoices(*choices); err != nil {
		fmt.Fprintf(stderr, "lmp-variant: --choices: %v\n", err)
		return 2
	}
	o.StateFile = filepath.Join(*data, "variant.json")
	p, err := variant.Start(o)
	if err != nil {
		fmt.Fprintf(stderr, "lmp-variant: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "lmp-variant listening on %s in front of %s, choices %s\n", p.Addr(), o.Upstream, o.Choices)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Close(cctx); err != nil {
		fmt.Fprintf(stderr, "lmp-variant: %v\n", err)
		return 1
	}
	return 0
}
