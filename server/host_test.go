package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
	"github.com/loomi-lmp/lmpkit/server"
)

// rawRequest sends one HTTP/1.1 request with exactly these headers over a
// fresh loopback connection and returns the status and body (a WebSocket
// upgrade is answered 101 with no body).
func rawRequest(t *testing.T, addr, method, path, host string, hdr map[string]string) (int, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	var b strings.Builder
	b.WriteString(method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 0\r\n")
	for k, v := range hdr {
		b.WriteString(k + ": " + v + "\r\n")
	}
	b.WriteString("\r\n")
	if _, err := conn.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return resp.StatusCode, ""
	}
	var body strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&body)
	return resp.StatusCode, body.String()
}

var upgrade = map[string]string{
	"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
	"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
}

func withOrigin(h map[string]string, origin string) map[string]string {
	out := map[string]string{"Origin": origin}
	for k, v := range h {
		out[k] = v
	}
	return out
}

// refusedJSON checks a refusal: 403 with a JSON error body (schema/http/error).
func refusedJSON(t *testing.T, what string, code int, body string, names string) {
	t.Helper()
	var e lmp.HTTPError
	if code != http.StatusForbidden || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(strings.ToLower(e.Error), strings.ToLower(names)) {
		t.Errorf("%s: %d %q, want 403 with a JSON error naming %q", what, code, body, names)
	}
}

// TestHostCheckRefusesDNSRebinding: a page on an attacker's name that
// resolves to 127.0.0.1 reaches the server from the user's browser with
// the attacker's Host and a matching Origin. /internal/*, /ws and the
// driver API answer only a Host naming a loopback address or the public
// URL's host.
func TestHostCheckRefusesDNSRebinding(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inst, err := reference.Start(ctx, reference.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir(), PublicURL: "wss://hermes.example.com/ws"})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close(context.Background())
	addr := strings.TrimPrefix(inst.BaseURL, "http://")
	_, port, _ := net.SplitHostPort(addr)
	evil := "rebind.attacker.example:" + port
	for _, tc := range []struct{ method, path string }{
		{"POST", lmp.PathPairNew},
		{"GET", server.PathDevices},
		{"POST", "/internal/devices/dev_x/revoke"},
		{"GET", driver.Prefix + "/profile"},
	} {
		code, body := rawRequest(t, addr, tc.method, tc.path, evil, nil)
		refusedJSON(t, tc.method+" "+tc.path+" with Host "+evil, code, body, "rebind.attacker.example")
	}
	code, body := rawRequest(t, addr, "GET", lmp.PathWebSocket, evil, withOrigin(upgrade, "http://"+evil))
	refusedJSON(t, "/ws upgrade with Host and Origin "+evil, code, body, "rebind.attacker.example")

	// Loopback names and the public URL's host are this server.
	for _, host := range []string{addr, "localhost:" + port, "[::1]:" + port, "hermes.example.com", "HERMES.example.com:443"} {
		if code, body := rawRequest(t, addr, "POST", lmp.PathPairNew, host, nil); code != 200 {
			t.Errorf("pairing with Host %s: %d %s", host, code, body)
		}
		if code, body := rawRequest(t, addr, "GET", lmp.PathWebSocket, host, upgrade); code != http.StatusSwitchingProtocols {
			t.Errorf("/ws with Host %s: %d %s", host, code, body)
		}
	}
	if code, _ := rawRequest(t, addr, "GET", driver.Prefix+"/profile", "localhost:"+port, nil); code != 200 {
		t.Errorf("driver API on localhost: %d", code)
	}
	// The Origin rule stays: a foreign Origin with a good Host is refused.
	if code, _ := rawRequest(t, addr, "GET", lmp.PathWebSocket, addr, withOrigin(upgrade, "http://evil.example")); code != http.StatusForbidden {
		t.Errorf("/ws with a foreign Origin: %d", code)
	}
	// /health answers any Host: proxies and probes use their own names.
	if code, _ := rawRequest(t, addr, "GET", lmp.PathHealth, evil, nil); code != 200 {
		t.Errorf("/health with Host %s: %d", evil, code)
	}
}

// TestForwardingHeadersRefusedOnInternal: behind a proxy on the same host
// every caller is 127.0.0.1 (note 13); a request carrying any forwarding
// header is refused on /internal/*, naming the header.
func TestForwardingHeadersRefusedOnInternal(t *testing.T) {
	e := newEnv(t)
	addr := strings.TrimPrefix(e.hs.URL, "http://")
	names := append(server.ForwardingHeaders(), "X-Forwarded-Port", "X-Forwarded-Server", "X-Forwarded-Prefix")
	for _, h := range []string{"X-Forwarded-Host", "Via", "X-Client-IP", "True-Client-IP", "CF-Connecting-IP"} {
		found := false
		for _, n := range names {
			found = found || n == h
		}
		if !found {
			t.Fatalf("%s is not in the refused set", h)
		}
	}
	for _, h := range names {
		code, body := rawRequest(t, addr, "POST", lmp.PathPairNew, addr, map[string]string{h: "203.0.113.9"})
		refusedJSON(t, "pairing with "+h, code, body, http.CanonicalHeaderKey(h))
		code, body = rawRequest(t, addr, "GET", server.PathDevices, addr, map[string]string{h: "1.0 proxy"})
		refusedJSON(t, "devices with "+h, code, body, http.CanonicalHeaderKey(h))
	}
}
