// Command lmp-check checks LMP v1 implementations and frames.
//
//	lmp-check [run] --url ws://host/ws [flags]   the conformance suites, a verdict per rule
//	lmp-check app [flags]                        judge a phone app's side (the client rules)
//	lmp-check list | rules                       the specs of both runs (dry run) and the rule → specs matrix
//	lmp-check fuzz --url ws://host/ws [flags]    a fuzz campaign against a live server
//	lmp-check validate [--dir s2c|c2s] FILE...   validate frames against the schemas
//	lmp-check model [--listen ADDR]              a scripted model for a real Hermes
//	lmp-check triggers NAME                      print a built-in triggers set
//
// Without --url, run and fuzz start an in-process reference server. Run
// `lmp-check help` for the list of subcommands.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loomi-lmp/lmpkit/check/validate"
	"github.com/loomi-lmp/lmpkit/internal/buildinfo"
)

const usage = `usage: lmp-check <command> [arguments]

Commands:
  run        (default) check a server: lmp-check [run] --url ws://host/ws …; no --url checks an in-process lmp-server
  app        judge a phone app's side of LMP (the client rules C-1 …): lmp-check app [--listen ADDR]
             [--public-url URL] [--pairing-file FILE]; pair the app by QR and follow its notifications
  list       list the specs of a server run and of an app run (a dry run) with rule IDs and levels;
             --subject server|app lists one
  rules      print the rule → specs matrix (--markdown for suites/MATRIX.md)
  fuzz       run a fuzz campaign against a server (--url; no --url fuzzes an in-process lmp-server),
             or replay a saved finding (--replay FILE)
  validate   validate LMP frames (one JSON frame, a JSON array or NDJSON) against the schemas
  model      serve a scripted, OpenAI-compatible model for a real Hermes gateway (--hermes-config
             prints the config.yaml fragment Hermes needs)
  triggers   print a built-in triggers set (mock, hermes) as a YAML triggers file

Run "lmp-check <command> -h" (or --help) for the flags of a command, "lmp-check --version" for the
module version and VCS revision.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns its exit code. Each
// subcommand is a package with Run(args, stdin, stdout, stderr) int.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Fprintln(stdout, buildinfo.String("lmp-check"))
		return 0
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" {
		return runCmd(args, stdout, stderr) // the conformance run is the default
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "app":
		return appCmd(args[1:], stdout, stderr)
	case "list":
		return listCmd(args[1:], stdout, stderr)
	case "rules":
		return rulesCmd(args[1:], stdout, stderr)
	case "validate":
		return validate.Run(args[1:], stdin, stdout, stderr)
	case "fuzz":
		return fuzzCmd(args[1:], stdout, stderr)
	case "model":
		return modelCmd(args[1:], stdout, stderr)
	case "triggers":
		return triggersCmd(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "lmp-check: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}
