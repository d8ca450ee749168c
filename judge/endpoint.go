package judge

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// DefaultListen is the judge's plaintext address when Config.Listen is
// empty: loopback, beside lmp-server's 8787 and the scripted model's 8788.
const DefaultListen = "127.0.0.1:8789"

// incoming is a WebSocket connection the app opened.
type incoming struct {
	ws  *websocket.Conn
	tls bool
}

// endpoint is the judge's HTTP side: /ws and /health on a plaintext
// listener and, for the certificate scenario, on a TLS listener whose
// certificate the scenario switches; the page with the QR on loopback.
type endpoint struct {
	j        *judgeRun
	plain    net.Listener
	tlsLn    net.Listener
	servers  []*http.Server
	conns    chan incoming
	wsURL    string // the plaintext URL the pairing JSON names
	wssURL   string
	goodCert tls.Certificate
	badCert  tls.Certificate
	goodFP   string

	mu sync.Mutex
	// wrongCert makes the TLS listener present badCert.
	wrongCert bool
	// tlsHellos counts TLS ClientHellos during the wrong-certificate phase.
	tlsHellos int
	// tlsRequests counts HTTP requests read on a wrong-certificate
	// connection: the app sent something to a server it must not trust.
	tlsRequests int
	// tlsRefused counts wrong-certificate connections that ended before
	// any request.
	tlsRefused int
	tlsEvent   chan struct{}
}

func startEndpoint(ctx context.Context, j *judgeRun, cfg Config) (*endpoint, error) {
	addr := cfg.Listen
	if addr == "" {
		addr = DefaultListen
	}
	// The same fail-closed rule as lmp-server (S-3): plaintext on the
	// network only when the user says so.
	if err := server.CheckBind(addr, false); err != nil {
		return nil, err
	}
	e := &endpoint{j: j, conns: make(chan incoming, 16), tlsEvent: make(chan struct{}, 64)}
	var err error
	if e.plain, err = net.Listen("tcp", addr); err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	host, _, _ := net.SplitHostPort(e.plain.Addr().String())
	if e.tlsLn, err = net.Listen("tcp", net.JoinHostPort(host, "0")); err != nil {
		e.plain.Close()
		return nil, fmt.Errorf("listen for wss on %s: %w", host, err)
	}
	if e.goodCert, err = selfSigned("lmp-check judge"); err == nil {
		e.badCert, err = selfSigned("lmp-check judge (a certificate the QR does not pin)")
	}
	if err != nil {
		e.close()
		return nil, err
	}
	sum := sha256.Sum256(e.goodCert.Certificate[0])
	e.goodFP = hex.EncodeToString(sum[:]) // P-2: lowercase hex, no colons

	e.wsURL = "ws://" + e.plain.Addr().String() + lmp.PathWebSocket
	if cfg.PublicURL != "" {
		e.wsURL = cfg.PublicURL
	}
	_, tlsPort, _ := net.SplitHostPort(e.tlsLn.Addr().String())
	publicHost := host
	if u, err := parseWS(e.wsURL); err == nil {
		publicHost = u.Hostname()
	}
	e.wssURL = "wss://" + net.JoinHostPort(publicHost, tlsPort) + lmp.PathWebSocket

	quiet := log.New(discard{}, "", 0)
	plainSrv := &http.Server{Handler: e.mux(false), ReadHeaderTimeout: 10 * time.Second, ErrorLog: quiet}
	tlsSrv := &http.Server{Handler: e.mux(true), ReadHeaderTimeout: 10 * time.Second, ErrorLog: quiet,
		ConnState: e.tlsConnState,
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"},
			GetCertificate: e.certificate}}
	e.servers = []*http.Server{plainSrv, tlsSrv}
	go func() { _ = plainSrv.Serve(e.plain) }()
	go func() { _ = tlsSrv.ServeTLS(e.tlsLn, "", "") }()
	return e, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func (e *endpoint) mux(isTLS bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true,"v":1}`))
	})
	mux.HandleFunc("GET "+lmp.PathWebSocket, func(w http.ResponseWriter, r *http.Request) {
		if isTLS && e.presentingWrongCert() {
			// Counted by tlsConnState; refused so that nothing goes on.
			http.Error(w, "lmp-check: this certificate does not match the QR's fp", http.StatusForbidden)
			return
		}
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		// The judge takes connections when a scenario waits for one; one
		// that nobody takes is told to come back later, not held forever.
		t := time.NewTimer(30 * time.Second)
		defer t.Stop()
		select {
		case e.conns <- incoming{ws: ws, tls: isTLS}:
		case <-t.C:
			_ = ws.Close(websocket.StatusTryAgainLater, "lmp-check: not waiting for a connection now")
		case <-r.Context().Done():
			_ = ws.CloseNow()
		}
		// The judge holds the connection; this handler returns only when
		// the server shuts down (the hijacked connection outlives it).
	})
	if !isTLS {
		mux.Handle("GET /{$}", server.LoopbackOnly(http.HandlerFunc(e.j.page.serve)))
	}
	return mux
}

// pageURL is the page's address on loopback, where it is served.
func (e *endpoint) pageURL() string {
	_, port, _ := net.SplitHostPort(e.plain.Addr().String())
	host, _, _ := net.SplitHostPort(e.plain.Addr().String())
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return "http://" + e.plain.Addr().String() + "/"
	}
	return "http://" + net.JoinHostPort("127.0.0.1", port) + "/"
}

func (e *endpoint) presentingWrongCert() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.wrongCert
}

func (e *endpoint) certificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.wrongCert {
		e.tlsHellos++
		e.signal()
		return &e.badCert, nil
	}
	return &e.goodCert, nil
}

func (e *endpoint) tlsConnState(c net.Conn, st http.ConnState) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.wrongCert {
		return
	}
	switch st {
	case http.StateActive:
		e.tlsRequests++
		e.signal()
	case http.StateClosed, http.StateHijacked:
		e.tlsRefused++
		e.signal()
	}
}

func (e *endpoint) signal() {
	select {
	case e.tlsEvent <- struct{}{}:
	default:
	}
}

func (e *endpoint) setWrongCert(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.wrongCert = on
	e.tlsHellos, e.tlsRequests, e.tlsRefused = 0, 0, 0
}

// tlsCounts returns the wrong-certificate phase's counts.
func (e *endpoint) tlsCounts() (hellos, requests, refused int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.tlsHellos, e.tlsRequests, e.tlsRefused
}

func (e *endpoint) close() {
	for _, s := range e.servers {
		_ = s.Close()
	}
	if e.plain != nil {
		e.plain.Close()
	}
	if e.tlsLn != nil {
		e.tlsLn.Close()
	}
}

// selfSigned makes a fresh self-signed certificate: the QR's fp pins it,
// so no CA is involved.
func selfSigned(name string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// writePairingFile writes the pairing JSON to path atomically: a
// temporary file in the same directory, then a rename, so that a harness
// polling the file never reads half of one.
func writePairingFile(path string, qr lmp.QRPayload) error {
	raw, err := json.Marshal(qr)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".lmp-check-pairing-*")
	if err != nil {
		return fmt.Errorf("pairing file: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(append(raw, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("pairing file: %w", err)
	}
	return nil
}
