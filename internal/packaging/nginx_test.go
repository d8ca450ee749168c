package packaging

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/internal/lmpservertest"
)

// hostBinaries builds lmp-server and lmp-check for this machine, once per
// test binary, and returns their directory.
var hostBinaries = sync.OnceValues(func() (string, error) {
	dir, err := toolsDir()
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "bin")
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/lmp-server", "./cmd/lmp-check")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &exec.Error{Name: "go build ./cmd/lmp-server ./cmd/lmp-check: " + string(out), Err: err}
	}
	return dir, nil
})

func binary(t *testing.T, name string) string {
	t.Helper()
	dir, err := hostBinaries()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

// TestS6ThroughNginx runs the conformance specs of S-6 (the WebSocket
// through a reverse proxy) and of the heartbeat that keeps a proxied
// connection alive (T-4, T-5), with /health (T-2), through a real nginx
// configured by deploy/nginx.conf, the file the compose example mounts:
// TLS with a certificate of the test's own, the upgrade headers, the
// timeouts. Only the host names, ports and certificate paths are put in
// for this machine. Docker cannot run here, so the compose file itself is
// not started; nginx is Debian's (.ci/run installs nginx-light).
func TestS6ThroughNginx(t *testing.T) {
	t.Parallel()
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx = "/usr/sbin/nginx"
		if _, err := os.Stat(nginx); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("no nginx under CI: .ci/run installs Debian's nginx-light")
			}
			t.Skip("no nginx on PATH: install Debian's nginx-light (apt-get install nginx-light) to run this test")
		}
	}
	dir := t.TempDir()
	certs := filepath.Join(dir, "certs")
	writeCert(t, certs)
	srvAddr, proxyAddr := lmpservertest.FreeAddr(t), lmpservertest.FreeAddr(t)

	srv := lmpservertest.Start(t, binary(t, "lmp-server"), filepath.Join(dir, "data"), srvAddr, "--no-qr",
		"--ping-interval", "2s", "--pong-timeout", "2s", "--auth-timeout", "3s")

	site := readRepoFile(t, "deploy/nginx.conf")
	for old, repl := range map[string]string{
		"listen 443 ssl;":        "listen " + proxyAddr + " ssl;",
		"${LMP_HOST}":            "127.0.0.1",
		"/etc/nginx/certs/":      certs + "/",
		"http://lmp-server:8787": "http://" + srvAddr,
	} {
		if !strings.Contains(site, old) {
			t.Fatalf("deploy/nginx.conf has no %q to put this machine's value in", old)
		}
		site = strings.ReplaceAll(site, old, repl)
	}
	for _, want := range []string{"proxy_set_header Upgrade $http_upgrade;", `proxy_set_header Connection "upgrade";`, "proxy_read_timeout 600s;"} {
		if !strings.Contains(site, want) {
			t.Errorf("deploy/nginx.conf lacks %s (lmp-v1.md §3)", want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "site.conf"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	// The main configuration the nginx package would give, reduced to a
	// process of the test's own.
	main := `daemon off;
worker_processes 1;
pid ` + dir + `/nginx.pid;
error_log stderr notice;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path ` + dir + `/tmp;
    proxy_temp_path ` + dir + `/tmp;
    include ` + dir + `/site.conf;
}
`
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	var proxyLog lmpservertest.Buffer
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	proxy := exec.Command(nginx, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", "stderr")
	proxy.Stdout, proxy.Stderr = &proxyLog, &proxyLog
	startUntilEnd(t, proxy)

	// Wait for both to answer /health through the proxy.
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(readFile(t, filepath.Join(certs, "fullchain.pem"))))
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := hc.Get("https://" + proxyAddr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /health through nginx: %v\nnginx:\n%s\nlmp-server:\n%s", err, proxyLog.String(), srv.Stderr)
		}
		time.Sleep(50 * time.Millisecond) // polling for both to listen
	}
	// /internal/ is not proxied.
	if resp, err := hc.Post("https://"+proxyAddr+"/internal/pair/new", "application/json", strings.NewReader("{}")); err == nil {
		resp.Body.Close()
		if resp.StatusCode/100 == 2 {
			t.Errorf("POST /internal/pair/new through nginx: %d, want it refused", resp.StatusCode)
		}
	}

	report := filepath.Join(dir, "report.json")
	check := exec.Command(binary(t, "lmp-check"), "--url", "wss://"+proxyAddr+"/ws", "--ca", filepath.Join(certs, "fullchain.pem"),
		"--pair-url", "http://"+srvAddr+"/internal/pair/new", "--triggers", "mock",
		"--ping-interval", "2s", "--pong-timeout", "2s", "--auth-timeout", "3s",
		"--label-filter", "S-6 || T-2 || T-4 || T-5", "--json-report", report)
	out, err := check.CombinedOutput()
	if err != nil {
		t.Fatalf("lmp-check through nginx: %v\n%s\nnginx:\n%s", err, out, proxyLog.String())
	}
	var rep struct {
		Specs []struct {
			Text, Verdict string
			Rules         []string
		}
	}
	readJSON(t, report, &rep)
	passed := map[string]int{}
	for _, s := range rep.Specs {
		if s.Verdict == "pass" {
			for _, r := range s.Rules {
				passed[r]++
			}
		}
	}
	for _, r := range []string{"S-6", "T-2", "T-4", "T-5"} {
		if passed[r] == 0 {
			t.Errorf("no %s spec passed through nginx:\n%s", r, out)
		}
	}
	t.Logf("through nginx: %v specs passed per rule\n%s", passed, out)
}

// startUntilEnd starts cmd and stops it with SIGINT at the end of the
// test (SIGKILL after 10 s): nginx then stops its workers too.
func startUntilEnd(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
}

// writeCert writes a self-signed certificate for 127.0.0.1 as
// fullchain.pem and its key as privkey.pem, the names certbot gives.
func writeCert(t *testing.T, dir string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, block := range map[string]*pem.Block{
		"fullchain.pem": {Type: "CERTIFICATE", Bytes: der},
		"privkey.pem":   {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
