package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/dashboard"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// TestCrossSiteRequestsRefused sends, to a real lmp-server process, the
// requests a web page open in the developer's browser can make to the
// loopback surface without a preflight, with the headers a browser adds,
// and expects each refused with 403 before it has any effect; the same
// requests from the dashboard's own page, a typed address, a followed link
// and the CLI (no Origin, no Sec-Fetch-Site) are served.
func TestCrossSiteRequestsRefused(t *testing.T) {
	addr := freeAddr(t)
	p := startServer(t, t.TempDir(), addr, "--no-qr")
	base := "http://" + addr
	own := base // the dashboard page's origin
	type req struct {
		name, method, path, body string
		headers                  map[string]string
	}
	evil := map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Content-Type": "text/plain"}
	originOnly := map[string]string{"Origin": "https://evil.example", "Content-Type": "text/plain"} // a browser without Fetch Metadata
	sameSite := map[string]string{"Origin": "http://localhost:3000", "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors"}
	nullOrigin := map[string]string{"Origin": "null", "Content-Type": "text/plain"}
	metadataOnly := map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"} // <img src>: no Origin
	formPost := map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document", "Content-Type": "application/x-www-form-urlencoded"}
	sendBody := `{"chat_id":"","content":"from a web page"}`
	refused := []req{
		{"pairing, simple POST", "POST", lmp.PathPairNew, "", evil},
		{"pairing, Origin only", "POST", lmp.PathPairNew, "", originOnly},
		{"pairing, same-site page", "POST", lmp.PathPairNew, "", sameSite},
		{"pairing, null origin", "POST", lmp.PathPairNew, "", nullOrigin},
		{"pairing, form navigation", "POST", lmp.PathPairNew, "", formPost},
		{"devices list", "GET", server.PathDevices, "", metadataOnly},
		{"revoke", "POST", "/internal/devices/dev_x/revoke", "", evil},
		{"driver send", "POST", driver.Prefix + driver.RouteSend, sendBody, evil},
		{"driver send, Origin only", "POST", driver.Prefix + driver.RouteSend, sendBody, originOnly},
		{"dashboard pair", "POST", dashboard.PathPair, "{}", evil},
		{"dashboard event stream", "GET", dashboard.PathEvents, "", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}},
		{"dashboard in a frame", "GET", dashboard.PathPage, "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe"}},
	}
	do := func(r req) (int, string) {
		t.Helper()
		hr, err := http.NewRequestWithContext(ctxT(t), r.method, base+r.path, strings.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range r.headers {
			hr.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return resp.StatusCode, string(b)
	}
	for _, r := range refused {
		if code, body := do(r); code != http.StatusForbidden || !strings.Contains(body, "cross-site request refused") {
			t.Errorf("%s (%s %s): expected 403 naming the cross-site refusal, got %d %s", r.name, r.method, r.path, code, body)
		}
	}
	// None of them had an effect: no notification was sent, no device exists.
	out, _, code := runCLI(t, nil, "devices", "--addr", addr)
	if code != 0 || strings.Contains(out, "dev_") {
		t.Fatalf("devices after refused requests: exit %d\n%s", code, out)
	}
	if strings.Contains(p.Stderr.String(), "from a web page") {
		t.Fatalf("a refused driver request reached the mock:\n%s", p.Stderr)
	}

	served := []req{
		{"pairing from the dashboard", "POST", dashboard.PathPair, "{}", map[string]string{"Origin": own, "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Content-Type": "application/json"}},
		{"devices, typed address", "GET", server.PathDevices, "", map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}},
		{"dashboard, followed link", "GET", dashboard.PathPage, "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}},
		{"pairing, no browser headers", "POST", lmp.PathPairNew, "", nil},
		{"driver send, no browser headers", "POST", driver.Prefix + driver.RouteSend, sendBody, map[string]string{"Content-Type": "application/json"}},
	}
	for _, r := range served {
		if code, body := do(r); code != http.StatusOK {
			t.Errorf("%s (%s %s): expected 200, got %d %s", r.name, r.method, r.path, code, body)
		}
	}
	// The CLI sends neither header and keeps working.
	if out, stderr, code := runCLI(t, nil, "pair", "--addr", addr, "--json"); code != 0 || !strings.Contains(out, `"token"`) {
		t.Fatalf("lmp-server pair: exit %d\n%s%s", code, out, stderr)
	}
}
