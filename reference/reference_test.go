package reference_test

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
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/mockhermes"
	"github.com/loomi-lmp/lmpkit/reference"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func start(t *testing.T, o reference.Options) *reference.Instance {
	t.Helper()
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.DataDir == "" {
		o.DataDir = t.TempDir()
	}
	inst, err := reference.Start(ctxT(t), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inst.Close(context.Background()) })
	return inst
}

func TestEndToEndWithMockHermes(t *testing.T) {
	inst := start(t, reference.Options{})
	pr, err := client.Pair(ctxT(t), inst.PairURL, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pr.URL != inst.WSURL || pr.FP != "" {
		t.Fatalf("QR %+v, ws %s", pr.QRPayload, inst.WSURL)
	}
	c, _, _, err := client.PairDevice(ctxT(t), pr.URL, pr.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	dc := driver.New(inst.DriverURL, nil)
	prof, err := dc.Profile(ctxT(t))
	if err != nil || prof.PingIntervalMS != lmp.DefaultPingInterval.Milliseconds() || prof.ReplayWindow != 512 {
		t.Fatalf("profile %+v %v", prof, err)
	}
	if _, err := dc.Send(ctxT(t), driver.SendRequest{ChatID: "t1", Content: "hello from cron"}); err != nil {
		t.Fatal(err)
	}
	f, err := c.ExpectType(ctxT(t), lmp.TypeNotification)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := lmp.DecodePayload[lmp.Notification](f.Type, f.Payload); n.Text != "hello from cron" {
		t.Fatalf("%+v", n)
	}
	// A message from the phone reaches the mock, which plays its reply.
	if err := c.Send(ctxT(t), lmp.SessionSend{Text: "hi", RequestID: "r1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectType(ctxT(t), lmp.TypeAck); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectType(ctxT(t), lmp.TypeRunCompleted); err != nil {
		t.Fatalf("no run from the mock's reply: %v\n%s", err, c.Transcript())
	}
	// The driver API is loopback only, like pairing.
	req, _ := http.NewRequest("GET", inst.DriverURL+driver.RouteProfile, nil)
	req.Header.Set("X-Forwarded-For", "198.51.100.1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("driver API through a proxy: %d", resp.StatusCode)
	}
}

func TestRefusesInsecureBind(t *testing.T) { // S-3
	t.Setenv("LOOMI_ALLOW_INSECURE_BIND", "")
	_, err := reference.Start(ctxT(t), reference.Options{Addr: "0.0.0.0:0", DataDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "LOOMI_ALLOW_INSECURE_BIND") {
		t.Fatalf("non-loopback without TLS: %v", err)
	}
}

func TestTLSFingerprintInQR(t *testing.T) { // P-2
	certFile, keyFile, der := selfSigned(t)
	t.Setenv("LOOMI_ALLOW_INSECURE_BIND", "")
	inst := start(t, reference.Options{Addr: "0.0.0.0:0", TLSCert: certFile, TLSKey: keyFile})
	sum := sha256.Sum256(der)
	if inst.TLSFingerprint != hex.EncodeToString(sum[:]) || !strings.HasPrefix(inst.WSURL, "wss://") {
		t.Fatalf("fp %s, ws %s", inst.TLSFingerprint, inst.WSURL)
	}
	pool := x509.NewCertPool()
	cert, _ := x509.ParseCertificate(der)
	pool.AddCert(cert)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	pr, err := client.Pair(ctxT(t), inst.PairURL, 0, hc)
	if err != nil {
		t.Fatal(err)
	}
	if pr.FP != inst.TLSFingerprint {
		t.Fatalf("QR fp %q", pr.FP)
	}
	c, _, _, err := client.PairDevice(ctxT(t), inst.WSURL, pr.Token, &client.Options{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// TestDashboardPairsOverTLS: with TLS the dashboard mints its pairing
// code through the instance's own listener, trusting exactly its
// certificate, and serves nothing without Options.Dashboard.
func TestDashboardPairsOverTLS(t *testing.T) {
	certFile, keyFile, der := selfSigned(t)
	inst := start(t, reference.Options{TLSCert: certFile, TLSKey: keyFile, Dashboard: true})
	pool := x509.NewCertPool()
	cert, _ := x509.ParseCertificate(der)
	pool.AddCert(cert)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := hc.Post(inst.BaseURL+"/dashboard/pair", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p struct {
		Token string `json:"token"`
		FP    string `json:"fp"`
		SVG   string `json:"svg"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.StatusCode != 200 || p.Token == "" || p.FP != inst.TLSFingerprint || !strings.HasPrefix(p.SVG, "<svg") {
		t.Fatalf("dashboard pairing over TLS: %d %+v %v", resp.StatusCode, p, err)
	}
	c, _, _, err := client.PairDevice(ctxT(t), inst.WSURL, p.Token, &client.Options{HTTPClient: hc})
	if err != nil {
		t.Fatalf("the dashboard's token does not pair: %v", err)
	}
	c.Close()

	plain := start(t, reference.Options{})
	resp, err = http.Get(plain.BaseURL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("without Options.Dashboard / answers %d", resp.StatusCode)
	}
}

func selfSigned(t *testing.T) (certFile, keyFile string, der []byte) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lmp test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	_ = os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	_ = os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600)
	return certFile, keyFile, der
}

// nonLoopbackIPv4 is an address of this host other than loopback, or nil.
func nonLoopbackIPv4() net.IP {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP
		}
	}
	return nil
}

func TestPairingReachableWhenBoundToNetworkAddress(t *testing.T) { // P-1, S-6
	ip := nonLoopbackIPv4()
	if ip == nil {
		t.Skip("this host has no non-loopback IPv4 address")
	}
	t.Setenv("LOOMI_ALLOW_INSECURE_BIND", "true")
	inst := start(t, reference.Options{Addr: net.JoinHostPort(ip.String(), "0")})
	if !strings.HasPrefix(inst.PairURL, "http://127.0.0.1:") {
		t.Fatalf("PairURL %s is not on loopback", inst.PairURL)
	}
	pr, err := client.Pair(ctxT(t), inst.PairURL, 0, nil)
	if err != nil {
		t.Fatalf("pairing unreachable on this host: %v", err)
	}
	if !strings.Contains(pr.URL, "://"+ip.String()+":") {
		t.Fatalf("QR url %s does not name the bound address %s", pr.URL, ip)
	}
	// Tests send traffic to loopback addresses only: the phone's side, the
	// QR's URL on the network address, is exercised by hand (docs/deployment.md).
}

// TestHermesQuirksReachTheMock plays reply with every stream delta dropped:
// the run still starts and completes, and no run.delta reaches the phone.
func TestHermesQuirksReachTheMock(t *testing.T) {
	inst := start(t, reference.Options{HermesQuirks: mockhermes.Faults{DropEvery: 1}})
	pr, err := client.Pair(ctxT(t), inst.PairURL, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _, _, err := client.PairDevice(ctxT(t), pr.URL, pr.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The phone asks for the turn, so that the turn runs in a chat of the
	// adapter's (a turn in a session it never saw is not shown, note 19).
	if err := c.Send(ctxT(t), lmp.SessionSend{Text: "/mock reply", RequestID: "rq-quirks"}); err != nil {
		t.Fatal(err)
	}
	ackFrame, err := c.ExpectType(ctxT(t), lmp.TypeAck)
	if err != nil {
		t.Fatal(err)
	}
	task := lmp.Deref(ackFrame.TaskID)
	end, err := c.Expect(ctxT(t), func(f client.Frame) bool {
		return lmp.Deref(f.TaskID) == task && (f.Type == lmp.TypeRunCompleted || f.Type == lmp.TypeRunFailed)
	})
	if err != nil || end.Type != lmp.TypeRunCompleted {
		t.Fatalf("terminal frame %s, %v", end.Type, err)
	}
	for _, f := range c.Pending() {
		if f.Type == lmp.TypeRunDelta && lmp.Deref(f.TaskID) == task {
			t.Fatalf("a delta reached the phone although the mock drops every one: %s", f.Raw)
		}
	}
}

// TestDefaultAddrIsLoopback: S-2, the server binds 127.0.0.1 by default.
func TestDefaultAddrIsLoopback(t *testing.T) {
	host, port, err := net.SplitHostPort(reference.DefaultAddr)
	if err != nil || host != "127.0.0.1" || port != "8787" {
		t.Fatalf("DefaultAddr = %q, want 127.0.0.1:8787", reference.DefaultAddr)
	}
	inst := start(t, reference.Options{Addr: "127.0.0.1:0"})
	if !strings.HasPrefix(inst.BaseURL, "http://127.0.0.1:") {
		t.Fatalf("BaseURL %s", inst.BaseURL)
	}
}

// TestHermesOptionsReachTheMock: the Hermes behaviours lmp-server sets are
// the mock's, as the driver's profile says; a busy-input mode Hermes does
// not have is refused by name.
func TestHermesOptionsReachTheMock(t *testing.T) {
	inst := start(t, reference.Options{HermesReasoningDeltas: true, HermesCrosstalk: true, HermesBusyInput: mockhermes.BusyQueue})
	p, err := driver.New(inst.DriverURL, nil).Profile(ctxT(t))
	if err != nil || p.Hermes == nil {
		t.Fatalf("profile = %+v, %v", p, err)
	}
	if h := p.Hermes; !h.StreamReasoningDeltas || !h.Crosstalk || h.BusyInputMode != mockhermes.BusyQueue || h.Surface != "loomi" {
		t.Fatalf("hermes profile = %+v", h)
	}
	_, err = reference.Start(ctxT(t), reference.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir(), HermesBusyInput: "steer"})
	if err == nil || !strings.Contains(err.Error(), `"steer"`) {
		t.Fatalf("busy input steer: %v", err)
	}
}
