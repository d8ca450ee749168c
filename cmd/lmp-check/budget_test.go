package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// dropAfterFirstPing serves LMP in front of upstream (http://host:port)
// and drops every WebSocket connection right after the first ping the
// upstream sends on it: a server whose heartbeat is broken.
func dropAfterFirstPing(t *testing.T, upstream string) *httptest.Server {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	// No forwarding headers: the loopback-only endpoints refuse them.
	plain := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != lmp.PathWebSocket {
			plain.ServeHTTP(w, r)
			return
		}
		up, _, err := websocket.Dial(r.Context(), "ws://"+u.Host+lmp.PathWebSocket, nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer up.CloseNow()
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			defer cancel()
			for {
				typ, data, err := c.Read(ctx)
				if err != nil || up.Write(ctx, typ, data) != nil {
					return
				}
			}
		}()
		for {
			typ, data, err := up.Read(ctx)
			if err != nil || c.Write(ctx, typ, data) != nil {
				return
			}
			if strings.Contains(string(data), `"type":"ping"`) {
				return // the deferred CloseNow drops the connection
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

var budgetLine = regexp.MustCompile(`run budget (\S+):`)

// TestVerdictWithinBudgetAgainstABrokenHeartbeat runs lmp-check against a
// server that drops every connection after its first ping: the timer
// specs and their probes, the approval-timeout probe among them, fail at
// once with how the connection ended, and the run ends with a verdict and
// its reports within the budget it printed at the start.
func TestVerdictWithinBudgetAgainstABrokenHeartbeat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs lmp-check against a broken server")
	}
	bin := buildBinary(t)
	s := startServerProcess(t)
	broken := dropAfterFirstPing(t, "http://"+s.addr)
	report := filepath.Join(t.TempDir(), "report.json")
	start := time.Now()
	code, stdout, stderr := runBinary(t, bin, "run", "--url", "ws"+strings.TrimPrefix(broken.URL, "http")+lmp.PathWebSocket,
		"--pair-url", broken.URL+lmp.PathPairNew, "--driver-url", broken.URL,
		"--ping-interval", "3s", "--pong-timeout", "1s", "--auth-timeout", "1500ms", "--approval-timeout", "20s",
		"--label-filter", "section:heartbeat || section:multidevice || section:auth", "--keep-devices", "--json-report", report)
	took := time.Since(start)
	m := budgetLine.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("lmp-check printed no run budget:\n%s\n%s", stdout, stderr)
	}
	budget, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if code != check.ExitNotConformant {
		t.Errorf("exit code %d against a server that drops every connection, want %d\n%s\n%s", code, check.ExitNotConformant, stdout, stderr)
	}
	if took > budget {
		t.Errorf("lmp-check took %v, beyond the budget of %v it printed", took.Round(time.Second), budget)
	}
	rep := readReport(t, report)
	var probeClosed bool
	for _, sp := range rep.Specs {
		if strings.Contains(sp.Reason, "closed the probe's connection") {
			probeClosed = true
		}
	}
	if !probeClosed {
		t.Errorf("no spec says that the server closed a probe's connection:\n%s", stdout)
	}
	t.Logf("verdict after %v, within the budget of %v", took.Round(time.Second), budget)
}

// TestRunTimeoutCutsTheRun: a run cut by --run-timeout fails the specs it
// did not finish, naming the cap, and still writes its report.
func TestRunTimeoutCutsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs lmp-check")
	}
	bin := buildBinary(t)
	report := filepath.Join(t.TempDir(), "report.json")
	start := time.Now()
	code, stdout, stderr := runBinary(t, bin, "run", "--run-timeout", "2s", "--label-filter", "section:heartbeat", "--json-report", report)
	if code != check.ExitNotConformant {
		t.Errorf("exit code %d, want %d\n%s\n%s", code, check.ExitNotConformant, stdout, stderr)
	}
	if !strings.Contains(stdout, "--run-timeout caps it at 2s") {
		t.Errorf("the start of the run does not say that --run-timeout caps it:\n%s", stdout)
	}
	rep := readReport(t, report)
	cut := 0
	for _, sp := range rep.Specs {
		if sp.Verdict == string(check.Pass) {
			continue
		}
		if strings.Contains(sp.Reason, "the run reached --run-timeout 2s") {
			cut++
		}
	}
	if cut == 0 {
		t.Errorf("no spec of the report says the run reached --run-timeout 2s:\n%s", stdout)
	}
	t.Logf("%d of %d specs cut after %v", cut, len(rep.Specs), time.Since(start).Round(time.Second))
}
