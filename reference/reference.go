// Package reference wires the reference LMP server, the mock Hermes and a
// listener into one running instance. cmd/lmp-server, lmp-check without
// --url and the tests use it.
package reference

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/dashboard"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/internal/buildinfo"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/mockhermes"
	"github.com/loomi-lmp/lmpkit/server"
)

// DefaultAddr is where the server listens by default: loopback only (S-2).
const DefaultAddr = "127.0.0.1:8787" // Enforces S-2: loopback unless the caller asks otherwise.

// Options configure Start. Zero values take the defaults: DefaultAddr,
// DefaultDataDir(), the spec's timings.
type Options struct {
	// Addr is the listen address; "127.0.0.1:0" picks a free port.
	Addr string
	// DataDir holds the store; default DefaultDataDir().
	DataDir string
	// Name is hello.ok's server_name and the QR's name; default the host name.
	Name string
	// PublicURL is the ws:// or wss:// URL put in the QR, for LAN and proxy
	// setups; default the listener's own URL.
	PublicURL string
	// TLSCert and TLSKey are PEM files; both or neither.
	TLSCert, TLSKey string
	// Script is a mock Hermes scenario file to load.
	Script string
	// Profile holds the timings and windows; a zero field means the spec's
	// value (lmp.DefaultProfile).
	lmp.Profile
	// Logger receives the server's and the mock's logs; nil discards them.
	Logger *slog.Logger
	// HermesQuirks makes the mock Hermes deliver every scenario's stream
	// hooks the way a loaded Hermes may: interleaved, reordered, dropped
	// (and duplicated, which is beyond Hermes).
	HermesQuirks mockhermes.Faults
	// HermesReasoningDeltas turns on the mock Hermes' setting
	// plugins.stream_reasoning_deltas, so that phones see reasoning.
	HermesReasoningDeltas bool
	// HermesCrosstalk makes the mock Hermes play turns of another platform
	// and of subagents beside every scenario, as the hooks of a real
	// Hermes process include them; no phone may see them.
	HermesCrosstalk bool
	// HermesBusyInput is display.busy_input_mode: "interrupt" (default) or
	// "queue".
	HermesBusyInput string
	// HermesProfile is the Hermes profile the mock's gateway runs the
	// Loomi chats under, as a gateway that multiplexes profiles does:
	// session keys agent:<profile>:loomi:dm:<chat_id>. Empty is Hermes'
	// default profile (agent:main:…).
	HermesProfile string
	// MaxDeviceConnections and MaxConnections are server.Config's; zero
	// takes the server's defaults.
	MaxDeviceConnections, MaxConnections int
	// ShowForks is server.Config's: each fork of a chat's session (/btw,
	// the background review) is shown as a run of its own.
	ShowForks bool
	// Dashboard serves the dashboard page at the root (loopback only, see
	// package dashboard) and records every frame for it.
	Dashboard bool
}

// Instance is a running reference server.
type Instance struct {
	// WSURL is the loopback URL of /ws; BaseURL the loopback http(s) URL
	// of the port; PairURL the pairing endpoint; DriverURL the mock Hermes
	// driver API (driver.Prefix).
	WSURL, BaseURL, PairURL, DriverURL string
	// PublicURL is the URL the pairing QR carries.
	PublicURL string
	// TLSFingerprint is the certificate's SHA-256 (the QR's fp), "" without TLS.
	TLSFingerprint string
	// DataDir is the store's directory.
	DataDir string
	// Profile is the timings and windows the server runs with, defaults
	// applied: what its driver API serves at GET /profile.
	Profile lmp.Profile

	srv  *server.Server
	mock *mockhermes.Mock
	http *http.Server
	done chan error
}

// DefaultDataDir is $XDG_STATE_HOME/lmp-server; without XDG_STATE_HOME it
// is %LocalAppData%\lmp-server on Windows and ~/.local/state/lmp-server
// elsewhere (macOS included).
func DefaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "lmp-server")
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "lmp-server")
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "lmp-server")
	}
	return filepath.Join(home, ".local", "state", "lmp-server")
}

// Start checks the bind (S-3), listens, opens the store, starts the mock
// Hermes and serves. It returns once the listener accepts connections.
func Start(ctx context.Context, o Options) (*Instance, error) {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.DataDir == "" {
		o.DataDir = DefaultDataDir()
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return nil, errors.New("--tls-cert and --tls-key go together: give both or neither")
	}
	useTLS := o.TLSCert != ""
	if err := server.CheckBind(o.Addr, useTLS); err != nil { // S-3: fail closed
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var tlsCfg *tls.Config
	fp := ""
	if useTLS {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("load TLS certificate: %w", err)
		}
		sum := sha256.Sum256(cert.Certificate[0])
		fp = hex.EncodeToString(sum[:]) // P-2: lowercase hex, no colons
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}

	// The profile the instance declares (its driver API serves it) is its
	// configuration with the spec's defaults, worked out here and not
	// asked of the server: a server that defaults a timing wrongly differs
	// from it, and the specs see that.
	prof := o.Profile.WithDefaults()
	hermes := mockhermes.Options{
		ApprovalTimeout: prof.ApprovalTimeout, Faults: o.HermesQuirks, Logger: log.With("component", "mockhermes"),
		StreamReasoningDeltas: o.HermesReasoningDeltas, Crosstalk: o.HermesCrosstalk, BusyInputMode: o.HermesBusyInput,
		GatewayProfile: o.HermesProfile,
		// The Loomi platform's allow-list is its paired devices: the server
		// passes on only the messages of authenticated devices, with the
		// device id as user id, so every such sender is allowed.
		AllowUser: func(src hermes.SessionSource) bool {
			return src.Platform == hermes.Platform && src.UserID != ""
		},
	}
	if err := mockhermes.CheckOptions(hermes); err != nil {
		return nil, err
	}
	mock := mockhermes.New(hermes)
	if o.Script != "" {
		if err := mock.LoadScript(o.Script); err != nil {
			mock.Close()
			return nil, err
		}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", o.Addr)
	if err != nil {
		mock.Close()
		return nil, fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	listeners := []net.Listener{ln}
	bound := ln.Addr().(*net.TCPAddr)
	if !bound.IP.IsLoopback() && !bound.IP.IsUnspecified() {
		// Pairing and device administration answer on loopback only (P-1):
		// bound to one network address, the server also listens on the same
		// port of 127.0.0.1, or nothing on this host could pair a device.
		lo, err := lc.Listen(ctx, "tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(bound.Port)))
		if err != nil {
			ln.Close()
			mock.Close()
			return nil, fmt.Errorf("listen on 127.0.0.1:%d for loopback-only pairing (bound to %s): %w", bound.Port, o.Addr, err)
		}
		listeners = append(listeners, lo)
	}
	closeListeners := func() {
		for _, l := range listeners {
			l.Close()
		}
	}
	scheme, wsScheme := "http", "ws"
	if useTLS {
		scheme, wsScheme = "https", "wss"
	}
	local := loopbackHostPort(listeners[len(listeners)-1].Addr().(*net.TCPAddr))
	public := o.PublicURL
	if public == "" {
		public = wsScheme + "://" + advertisedHostPort(ln.Addr().(*net.TCPAddr)) + lmp.PathWebSocket
	}

	dash, observer := newDashboard(o, mock, scheme+"://"+local+lmp.PathPairNew, fp, log)
	srv, err := server.New(server.Config{
		Name: o.Name, Version: version(), PublicURL: public, DataDir: o.DataDir, Hermes: mock,
		Profile: o.Profile, TLSFingerprint: fp, Logger: log, Observer: observer,
		MaxDeviceConnections: o.MaxDeviceConnections, MaxConnections: o.MaxConnections,
		ShowForks: o.ShowForks,
	})
	if err != nil {
		closeListeners()
		mock.Close()
		return nil, err
	}
	mock.Attach(srv)

	mux := http.NewServeMux()
	if dash != nil {
		page := server.LoopbackOnly(dash.Handler())
		mux.Handle("GET "+dashboard.PathPage+"{$}", page)
		mux.Handle(dashboard.PathPrefix, page)
	}
	mux.Handle("/", srv.Handler())
	mux.Handle(driver.Prefix+"/", srv.LoopbackOnly(mock.DriverHandler(driver.ProfileOf(prof))))
	hs := server.NewHTTPServer(mux, server.DefaultHTTPLimits)
	hs.TLSConfig = tlsCfg
	hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	inst := &Instance{
		WSURL: wsScheme + "://" + local + lmp.PathWebSocket, BaseURL: scheme + "://" + local,
		PublicURL: public, TLSFingerprint: fp, DataDir: o.DataDir, Profile: prof,
		srv: srv, mock: mock, http: hs, done: make(chan error, 1),
	}
	inst.PairURL = inst.BaseURL + lmp.PathPairNew
	inst.DriverURL = inst.BaseURL + driver.Prefix
	if dash != nil {
		hs.RegisterOnShutdown(dash.Close) // its event streams would hold Shutdown
	}
	errs := make(chan error, len(listeners))
	for _, l := range listeners {
		go func() {
			var err error
			if useTLS {
				err = hs.ServeTLS(l, "", "")
			} else {
				err = hs.Serve(l)
			}
			if errors.Is(err, http.ErrServerClosed) {
				err = nil
			}
			errs <- err
		}()
	}
	go func() {
		// The first failure of any listener, or nil once all are closed.
		var err error
		for range listeners {
			if err = <-errs; err != nil {
				break
			}
		}
		inst.done <- err
	}()
	log.Info("lmp-server listening", "addr", ln.Addr().String(), "public_url", public, "data", o.DataDir, "tls", useTLS)
	return inst, nil
}

// Done delivers the serve loop's error (nil after Close).
func (i *Instance) Done() <-chan error { return i.done }

// Close stops accepting connections, stops the mock Hermes, closes every
// WebSocket with 1001 and flushes the store.
func (i *Instance) Close(ctx context.Context) error {
	err := i.http.Shutdown(ctx)
	i.mock.Close()
	if serr := i.srv.Shutdown(ctx); serr != nil && err == nil {
		err = serr
	}
	return err
}

// newDashboard builds the dashboard when o asks for one, and the frame
// observer it needs; nil, nil otherwise. It mints pairing codes through
// the instance's own loopback pairing endpoint, pairURL.
func newDashboard(o Options, mock *mockhermes.Mock, pairURL, fp string, log *slog.Logger) (*dashboard.Dashboard, server.FrameObserver) {
	if !o.Dashboard {
		return nil, nil
	}
	dash := dashboard.New(dashboard.Options{
		Pair: func(ctx context.Context, ttl time.Duration) (lmp.PairResponse, error) {
			return client.Pair(ctx, pairURL, ttl, selfClient(fp))
		},
		Approvals: mock, Logger: log.With("component", "dashboard"),
	})
	return dash, dash.Observe
}

// selfClient talks to this instance's own loopback listener. With TLS it
// accepts exactly the instance's certificate (fp), whatever names it holds.
func selfClient(fp string) *http.Client {
	if fp == "" {
		return &http.Client{Timeout: 10 * time.Second}
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		InsecureSkipVerify: true, // replaced by the pin below
		VerifyConnection: func(cs tls.ConnectionState) error {
			sum := sha256.Sum256(cs.PeerCertificates[0].Raw)
			if hex.EncodeToString(sum[:]) != fp {
				return errors.New("not this server's certificate")
			}
			return nil
		},
	}}}
}

// version is the module version the binary was built from, or "dev".
func version() string {
	if v := buildinfo.Version(); v != "" && v != "(devel)" {
		return v
	}
	return server.DefaultVersion
}

// loopbackHostPort is how a process on this host reaches the listener:
// its own address, or 127.0.0.1 for a wildcard bind.
func loopbackHostPort(a *net.TCPAddr) string {
	ip := a.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), fmt.Sprint(a.Port))
}

// advertisedHostPort is how a phone reaches the listener: its own address,
// or for a wildcard bind the first non-loopback IPv4 address of the host.
func advertisedHostPort(a *net.TCPAddr) string {
	if a.IP != nil && !a.IP.IsUnspecified() {
		return net.JoinHostPort(a.IP.String(), fmt.Sprint(a.Port))
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, ad := range addrs {
			if n, ok := ad.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
				return net.JoinHostPort(n.IP.String(), fmt.Sprint(a.Port))
			}
		}
	}
	return loopbackHostPort(a)
}
