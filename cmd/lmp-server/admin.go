package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loomi-lmp/lmpkit/internal/tty"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
	"github.com/loomi-lmp/lmpkit/server"
)

// errNoServer means nothing listens on the address.
type errNoServer struct{ addr string }

func (e errNoServer) Error() string {
	return fmt.Sprintf("no lmp-server is listening on %s: start one with `lmp-server`", e.addr)
}

// adminCall sends a request to a running server's loopback-only endpoint.
// It tries plain HTTP, then HTTPS when the server answers that it speaks
// TLS.
func adminCall(ctx context.Context, addr, method, path string, body any) ([]byte, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, 0, fmt.Errorf("--addr %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && !ip.IsLoopback()) {
		// The endpoints answer loopback peers only (P-1). A wildcard bind is
		// reachable on loopback, and a server bound to one network address
		// also listens on the same port of 127.0.0.1.
		host = "127.0.0.1"
	}
	hostPort := net.JoinHostPort(host, port)
	for _, useTLS := range []bool{false, true} {
		scheme := "http://"
		if useTLS {
			scheme = "https://"
		}
		var rd io.Reader
		if body != nil {
			raw, _ := json.Marshal(body)
			rd = bytes.NewReader(raw)
		}
		req, err := http.NewRequestWithContext(ctx, method, scheme+hostPort+path, rd)
		if err != nil {
			return nil, 0, err
		}
		resp, err := loopbackClient(useTLS).Do(req)
		if err != nil {
			if connRefused(err) {
				return nil, 0, errNoServer{hostPort}
			}
			return nil, 0, fmt.Errorf("%s %s: %w", method, path, err)
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			return nil, 0, err
		}
		if !useTLS && resp.StatusCode == http.StatusBadRequest && strings.Contains(string(raw), "HTTPS server") {
			continue // the server speaks TLS
		}
		if resp.StatusCode/100 != 2 {
			var he lmp.HTTPError
			if json.Unmarshal(raw, &he) == nil && he.Error != "" {
				return raw, resp.StatusCode, errors.New(he.Error)
			}
			return raw, resp.StatusCode, fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(raw)))
		}
		return raw, resp.StatusCode, nil
	}
	return nil, 0, errors.New("unreachable")
}

func adminFlags(name string, stderr io.Writer) (*flag.FlagSet, *string, *bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", reference.DefaultAddr, "address of the running lmp-server")
	asJSON := fs.Bool("json", false, "print JSON")
	return fs, addr, asJSON
}

// parseExit is the exit code of a command line that did not parse: 0 for
// -h and --help, which print the flags, 2 for a usage error.
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// qrInvertFlag adds --qr-invert.
func qrInvertFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("qr-invert", false, "draw the pairing QR for a light terminal theme (without colour; on a colour terminal it is drawn white on black and reads on any theme)")
}

func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "lmp-server: %v\n", err)
	return 1
}

func pair(args []string, stdout, stderr io.Writer) int {
	fs, addr, asJSON := adminFlags("pair", stderr)
	var ttl ttlFlag
	invert := qrInvertFlag(fs)
	fs.Var(&ttl, "ttl", "token lifetime: a Go duration (90s, 10m) or seconds (default: the server's, 5m)")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	raw, _, err := adminCall(ctx, *addr, http.MethodPost, lmp.PathPairNew, lmp.PairRequest{TTL: time.Duration(ttl).Seconds()})
	if err != nil {
		return fail(stderr, err)
	}
	var pr lmp.PairResponse
	if err := json.Unmarshal(raw, &pr); err != nil {
		return fail(stderr, fmt.Errorf("unexpected answer from the server: %v", err))
	}
	printPairing(stdout, pr, *asJSON, qrStyle{invert: *invert, color: tty.Color(stdout)}, "")
	return 0
}

// printPairing shows the pairing payload (P-2): the expiry and the JSON
// first, then the QR code last, so that nothing printed after it pushes its
// top off a terminal's screen (the code of a ws:// URL takes 23 lines: with
// the line the cursor rests on, exactly an 80×24 terminal). On a terminal
// too small for the whole code, one line says so instead and where else to
// get it: dashboard, the dashboard's URL, or "" when it is off or unknown.
// With asJSON only the JSON answer is printed.
func printPairing(w io.Writer, pr lmp.PairResponse, asJSON bool, st qrStyle, dashboard string) {
	if asJSON {
		_ = json.NewEncoder(w).Encode(pr)
		return
	}
	payload, _ := json.Marshal(pr.QRPayload)
	exp := lmp.TimeOf(pr.ExpiresAt)
	// One write: a reader of the output sees all of it or none.
	var b strings.Builder
	fmt.Fprintf(&b, "Pairing code for the Loomi app (it works once and expires at %s, in %s; `lmp-server pair` mints another):\n%s\n",
		exp.Local().Format(time.DateTime), time.Until(exp).Round(time.Second), payload)
	drawing, qrCols, qrLines := renderQR(string(payload), st)
	if cols, rows, ok := tty.Size(w); ok && (cols < qrCols || rows < qrLines+1) {
		where := "the dashboard"
		if dashboard != "" {
			where = "the dashboard, " + dashboard + ","
		}
		fmt.Fprintf(&b, "This terminal (%d×%d) is too small for the QR code (%d×%d): scan it from %s or run `lmp-server pair --json`.\n",
			cols, rows, qrCols, qrLines+1, where)
	} else {
		b.WriteString(drawing)
	}
	_, _ = io.WriteString(w, b.String())
}

func devices(args []string, stdout, stderr io.Writer) int {
	fs, addr, asJSON := adminFlags("devices", stderr)
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	raw, _, err := adminCall(ctx, *addr, http.MethodGet, server.PathDevices, nil)
	if err != nil {
		return fail(stderr, err)
	}
	if *asJSON {
		_, _ = stdout.Write(raw)
		return 0
	}
	var list server.DeviceList
	if err := json.Unmarshal(raw, &list); err != nil {
		return fail(stderr, fmt.Errorf("unexpected answer from the server: %v", err))
	}
	if len(list.Devices) == 0 {
		fmt.Fprintln(stdout, "no paired devices: run `lmp-server pair`")
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DEVICE\tMODEL\tOS\tPAIRED\tSTATUS")
	for _, d := range list.Devices {
		status := "offline"
		switch {
		case d.RevokedAt != nil:
			status = "revoked " + lmp.TimeOf(*d.RevokedAt).Local().Format(time.DateTime)
		case d.Online > 0:
			status = fmt.Sprintf("online (%d)", d.Online)
		}
		// Model and OS are the phone's words: escaped, so that a control
		// character cannot rewrite this terminal or hide a row.
		p := lmp.Printable
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p(d.DeviceID), p(d.Model), p(d.OS),
			lmp.TimeOf(d.CreatedAt).Local().Format(time.DateTime), status)
	}
	_ = tw.Flush()
	return 0
}

func revoke(args []string, stdout, stderr io.Writer) int {
	fs, addr, _ := adminFlags("revoke", stderr)
	// DEVICE_ID may come before or after the flags.
	var ids []string
	for rest := args; ; rest = fs.Args()[1:] {
		if err := fs.Parse(rest); err != nil {
			return parseExit(err)
		}
		if fs.NArg() == 0 {
			break
		}
		ids = append(ids, fs.Arg(0))
	}
	if len(ids) != 1 {
		fmt.Fprintln(stderr, "usage: lmp-server revoke [--addr ADDR] DEVICE_ID")
		return 2
	}
	id := ids[0]
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, _, err := adminCall(ctx, *addr, http.MethodPost, "/internal/devices/"+url.PathEscape(id)+"/revoke", nil); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "revoked %s: its connections are closed and it can no longer connect\n", id)
	return 0
}

// ttlFlag is a token lifetime given as a Go duration or as seconds, the
// unit of the pairing endpoint's {"ttl": seconds}.
type ttlFlag time.Duration

func (t *ttlFlag) String() string { return time.Duration(*t).String() }

func (t *ttlFlag) Set(v string) error {
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		*t = ttlFlag(secs * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("want a duration such as 90s or 10m, or seconds")
	}
	*t = ttlFlag(d)
	return nil
}
