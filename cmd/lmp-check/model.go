package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/model"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// modelCmd is `lmp-check model`: the scripted model, until stopped by
// Ctrl-C or SIGTERM.
func modelCmd(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return modelUntil(ctx, args, stdout, stderr)
}

// modelUntil is `lmp-check model`, serving until ctx ends.
func modelUntil(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lmp-check model", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", model.DefaultAddr, "listen address; a port of 0 picks a free one")
	hermesConfig := fs.Bool("hermes-config", false, "print the config.yaml fragment that makes Hermes use this model (at --listen's URL) and exit")
	name := fs.String("name", model.DefaultName, "the model's id in /v1/models and in the config fragment")
	contextLength := fs.Int("context-length", model.DefaultContextLength, "the context length /v1/models reports (Hermes refuses less than 64000)")
	tick := fs.Duration("tick", time.Second, "the pause between the long scenario's chunks")
	quiet := fs.Bool("quiet", false, "do not log the requests that play no scenario")
	fs.Usage = func() { modelUsage(fs, stderr) }
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return check.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lmp-check model: unexpected arguments %q\n", fs.Args())
		return check.ExitUsage
	}
	if *contextLength < 64000 {
		fmt.Fprintf(stderr, "lmp-check model: --context-length %d: Hermes refuses a model below 64000\n", *contextLength)
		return check.ExitUsage
	}
	if *tick <= 0 {
		fmt.Fprintf(stderr, "lmp-check model: --tick %s: give a positive duration\n", *tick)
		return check.ExitUsage
	}
	opts := model.Options{Name: *name, ContextLength: *contextLength, Tick: *tick}
	if *hermesConfig {
		host, port, err := net.SplitHostPort(*listen)
		if err != nil || port == "0" {
			fmt.Fprintf(stderr, "lmp-check model: --listen %q: the config fragment needs a fixed host:port\n", *listen)
			return check.ExitUsage
		}
		if host == "" {
			host = "127.0.0.1"
		}
		fmt.Fprint(stdout, model.HermesConfig("http://"+net.JoinHostPort(host, port)+"/v1", opts))
		return 0
	}
	if !*quiet {
		logger := log.New(stderr, "lmp-check ", log.LstdFlags)
		opts.Logf = logger.Printf
	}
	srv, err := model.Start(*listen, opts)
	if err != nil {
		fmt.Fprintf(stderr, "lmp-check model: %v\n", err)
		return check.ExitUsage
	}
	fmt.Fprintln(stdout, srv.URL) // the first line: a script reads the base URL from it
	if f, ok := stdout.(*os.File); ok {
		_ = f.Sync()
	}
	<-ctx.Done()
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	return 0
}

func modelUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `usage: lmp-check model [--listen ADDR] [flags]

Serves a scripted, OpenAI-compatible model until stopped (Ctrl-C or SIGTERM),
for a real Hermes gateway with your platform plugin (CI.md, "A plugin inside
a real Hermes"). The first line on stdout is the base URL, e.g.
http://127.0.0.1:8788/v1, for Hermes' model.base_url. Then:

  lmp-check model --hermes-config     the config.yaml fragment Hermes needs
  lmp-check --url ws://HOST/ws --triggers hermes …   the conformance run

Endpoints: POST /v1/chat/completions (streamed or not; any bearer token,
unknown fields ignored), GET /v1/models and /models; every other path 404.

A marker in the user's message plays a scenario (lmp-check triggers hermes
maps the suites' events to them); any other message gets a short plain
answer, logged on stderr:

`)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, s := range model.Scenarios() {
		fmt.Fprintf(tw, "  %s\t%s\n", s.Marker(), s.Description)
	}
	_ = tw.Flush()
	fmt.Fprint(w, "\nFlags:\n")
	fs.PrintDefaults()
}

// triggersCmd is `lmp-check triggers NAME`: a built-in triggers set as a
// YAML triggers file (schema/triggers.schema.json).
func triggersCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lmp-check triggers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: lmp-check triggers NAME\n\nPrints a built-in triggers set (%v) as a YAML triggers file, valid against\nschema/triggers.schema.json: a start for a file of your own (--triggers FILE).\n", conformance.BuiltinTriggers)
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return check.ExitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return check.ExitUsage
	}
	raw, ok := conformance.BuiltinTriggersYAML(fs.Arg(0))
	if !ok {
		fmt.Fprintf(stderr, "lmp-check triggers: no built-in set %q: the sets are %v\n", fs.Arg(0), conformance.BuiltinTriggers)
		return check.ExitUsage
	}
	_, _ = stdout.Write(raw)
	return 0
}
