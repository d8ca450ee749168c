package check

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Config is one lmp-check run, as the command line describes it.
type Config struct {
	URL       string // ws(s)://host/ws; empty starts an in-process server
	PairURL   string // default derived from URL when it is loopback
	TokenCmd  string
	DriverURL string
	CA        string // PEM file of CAs to trust for wss/https
	Insecure  bool   // skip TLS verification
	// ServerLog is the server's log file, read (never written) by the S-1
	// spec; empty skips it. Without URL the in-process server's own log
	// is used.
	ServerLog string

	// Triggers is --triggers: "mock" (the built-in set) or a triggers
	// file; empty without --url means "mock".
	Triggers string
	// Model is --model: an address on which lmp-check serves its scripted
	// model (package model) for the run's duration, for a real Hermes
	// whose plugin is under test (--triggers hermes); empty serves none.
	Model string
	// ListCmd, RevokeCmd, RestartCmd and CrashCmd are the target
	// commands (conformance.Target).
	ListCmd, RevokeCmd, RestartCmd, CrashCmd string

	// Timings are the timing and window flags (--ping-interval …
	// --request-window): each field set wins over the target's own
	// profile; a zero field keeps the driver's or the spec's value.
	Timings lmp.Profile

	// NoDriver is --no-driver: the in-process server is checked as a
	// server without a driver (only the wire, pairing, the triggers and
	// the target commands), so that a run shows what a driverless plugin's
	// run covers. It needs the absence of --url and --driver-url.
	NoDriver bool

	// Profile picks the in-process server's timings: "short" (default) or
	// "spec".
	Profile string
	// Listen is the in-process server's listen address, default
	// "127.0.0.1:0". One that is not loopback (":0", every interface)
	// lets the LAN specs reach it at this host's network addresses; like
	// lmp-server it then needs LOOMI_ALLOW_INSECURE_BIND=true (S-3).
	Listen string

	// RunTimeout caps the run below its budget (conformance.Budget):
	// the specs not finished by then fail, naming it, and the reports are
	// written. Zero leaves the budget alone.
	RunTimeout time.Duration
	// KeepDevices leaves the devices the run paired on a throwaway server
	// instead of revoking them one by one at the end.
	KeepDevices bool

	// ReportConfig is the selection, the verdicts and the reports, as an
	// app run has them.
	ReportConfig

	// Progress receives a live progress line while the specs run (a
	// terminal); nil for none.
	Progress io.Writer
}

// UsageError is a bad command line or configuration: exit code 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// httpClient builds the HTTP client for the target's TLS settings.
func (c *Config) httpClient() (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.CA != "" {
		pem, err := os.ReadFile(c.CA)
		if err != nil {
			return nil, usagef("--ca: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, usagef("--ca %s: no PEM certificate in it", c.CA)
		}
		tlsConf.RootCAs = pool
	}
	if c.Insecure {
		tlsConf.InsecureSkipVerify = true // the user asked for it (--insecure)
	}
	tr.TLSClientConfig = tlsConf
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}, nil
}

// checkURL checks a ws(s) URL.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return usagef("--url %q: %v", raw, err)
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return usagef("--url %q: want ws:// or wss://", raw)
	}
	if u.Host == "" {
		return usagef("--url %q: no host", raw)
	}
	return nil
}

var errUnreachable = errors.New("target unreachable")

func newGet(ctx context.Context, u string) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
}

// checkServerLog checks that --server-log names a readable regular file:
// the S-1 spec only reads it, so it must already exist.
func checkServerLog(path string) error {
	if path == "-" {
		return usagef("--server-log -: want the path of the server's log file (standard input is not read)")
	}
	f, err := os.Open(path)
	if err != nil {
		return usagef("--server-log: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return usagef("--server-log: %v", err)
	}
	if !st.Mode().IsRegular() {
		return usagef("--server-log %s: not a regular file", path)
	}
	return nil
}
