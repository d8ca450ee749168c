// Command lmp-server runs the reference LMP v1 server with the mock Hermes
// behind it, and administers a running one over loopback.
//
//	lmp-server                     serve on 127.0.0.1:8787 and print a pairing QR
//	lmp-server serve [flags]       the same, with flags
//	lmp-server pair [--addr] [--ttl] [--json]
//	lmp-server devices [--addr] [--json]
//	lmp-server revoke [--addr] DEVICE_ID
//
// pair, devices and revoke talk to the running server's loopback-only
// endpoints: the server holds the lock on its store.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loomi-lmp/lmpkit/internal/buildinfo"
)

func main() {
	tuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  lmp-server [serve] [flags]          run the server (default 127.0.0.1:8787) and print a pairing QR
  lmp-server pair [--addr] [--ttl] [--json]
                                      mint a pairing token on the running server and show its QR
  lmp-server devices [--addr] [--json]
                                      list paired devices
  lmp-server revoke [--addr] DEVICE_ID
                                      revoke a device and close its connections
  lmp-server --version                print the module version and VCS revision
Run "lmp-server <command> -h" (or --help) for a command's flags ("lmp-server serve -h" for the server's).
`

// run is main without the exit, for tests: it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		args = []string{"help"}
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Fprintln(stdout, buildinfo.String("lmp-server"))
		return 0
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return serve(args, stdout, stderr)
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "pair":
		return pair(args[1:], stdout, stderr)
	case "devices":
		return devices(args[1:], stdout, stderr)
	case "revoke":
		return revoke(args[1:], stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "lmp-server: unknown command %q\n%s", args[0], usage)
		return 2
	}
}
