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
