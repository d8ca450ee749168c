package server_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

func TestRevokeLiveDevice(t *testing.T) { // S-5
	e := newEnv(t)
	a, d := e.pair()
	b, _ := e.pair()
	resp, body := httpDo(t, "POST", e.hs.URL+"/internal/devices/"+d.ID+"/revoke", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("revoke: %d %s", resp.StatusCode, body)
	}
	expectErrorClose(t, a, lmp.CodeDeviceRevoked, 1008)
	c, _ := client.Dial(ctxT(t), e.wsURL, nil)
	_ = c.Send(ctxT(t), lmp.Hello{ProtocolVersion: 1, DeviceID: d.ID, Credential: d.Credential})
	expectErrorClose(t, c, lmp.CodeDeviceRevoked, 1008)
	// The other device is untouched.
	e.notify(1, "x")
	expectType[lmp.Notification](t, b)

	var list server.DeviceList
	_, body = httpDo(t, "GET", e.hs.URL+server.PathDevices, nil)
	if err := json.Unmarshal(body, &list); err != nil || len(list.Devices) != 2 {
		t.Fatalf("devices %s", body)
	}
	for _, dv := range list.Devices {
		if (dv.DeviceID == d.ID) != (dv.RevokedAt != nil) {
			t.Fatalf("revoked state wrong: %s", body)
		}
	}
	if strings.Contains(string(body), d.Credential) || strings.Contains(string(body), "hash") {
		t.Fatal("device list leaks credential material")
	}
	if resp, _ := httpDo(t, "POST", e.hs.URL+"/internal/devices/dev_nope/revoke", nil); resp.StatusCode != 404 {
		t.Fatalf("revoke unknown: %d", resp.StatusCode)
	}
}

func TestInternalEndpointsLoopbackOnly(t *testing.T) { // P-1, note 13
	e := newEnv(t)
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Real-IP"} {
		for _, path := range []string{lmp.PathPairNew, server.PathDevices} {
			method := "POST"
			if path == server.PathDevices {
				method = "GET"
			}
			resp, body := httpDo(t, method, e.hs.URL+path, http.Header{h: {"203.0.113.9"}})
			if resp.StatusCode != 403 || !strings.Contains(string(body), h) {
				t.Fatalf("%s %s with %s: %d %s", method, path, h, resp.StatusCode, body)
			}
		}
	}
	// A peer that is not loopback (the handler sees the remote address).
	req := httptest.NewRequest("POST", lmp.PathPairNew, nil)
	req.RemoteAddr = "192.0.2.7:5555"
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 403 || !strings.Contains(rec.Body.String(), "192.0.2.7") {
		t.Fatalf("non-loopback peer: %d %s", rec.Code, rec.Body)
	}
	// Bad pairing bodies.
	for _, b := range []string{`{"ttl":-1}`, `{"ttl":"x"}`, `{"ttl":1e9}`} {
		req, _ := http.NewRequest("POST", e.hs.URL+lmp.PathPairNew, strings.NewReader(b))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Fatalf("body %s: %d", b, resp.StatusCode)
		}
	}
}

func TestCheckBind(t *testing.T) { // S-2, S-3
	t.Setenv(server.EnvAllowInsecureBind, "")
	for _, tc := range []struct {
		addr string
		tls  bool
		ok   bool
	}{
		{"127.0.0.1:8787", false, true},
		{"[::1]:8787", false, true},
		{"localhost:8787", false, true},
		{"0.0.0.0:8787", false, false},
		{":8787", false, false},
		{"192.168.1.5:8787", false, false},
		{"192.168.1.5:8787", true, true},
		{"nonsense", false, false},
	} {
		err := server.CheckBind(tc.addr, tc.tls)
		if (err == nil) != tc.ok {
			t.Errorf("CheckBind(%q, %v) = %v", tc.addr, tc.tls, err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("reason is not one line: %q", err)
		}
	}
	t.Setenv(server.EnvAllowInsecureBind, "true")
	if err := server.CheckBind("0.0.0.0:8787", false); err != nil {
		t.Fatalf("with %s=true: %v", server.EnvAllowInsecureBind, err)
	}
}

func TestShutdownClosesWith1001(t *testing.T) {
	e := newEnv(t)
	a, _ := e.pair()
	go e.stop()
	expectErrorClose(t, a, lmp.CodeShuttingDown, 1001)
}

func TestLogsNeverHoldSecrets(t *testing.T) { // S-1
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			buf := &syncBuffer{}
			e := newEnv(t, func(c *server.Config) {
				opts := &slog.HandlerOptions{Level: slog.LevelDebug}
				if format == "json" {
					c.Logger = slog.New(slog.NewJSONHandler(buf, opts))
				} else {
					c.Logger = slog.New(slog.NewTextHandler(buf, opts))
				}
			})
			var secrets []string
			a, d := e.pair()
			secrets = append(secrets, d.Credential)
			c, _ := e.connect(d, ptr(int64(0)))
			c.Close()
			// Failures: wrong credential, used token, token with identity.
			pr := e.token(0)
			secrets = append(secrets, pr.Token)
			_, d2, _, err := client.PairDevice(ctxT(t), e.wsURL, pr.Token, nil)
			if err != nil {
				t.Fatal(err)
			}
			secrets = append(secrets, d2.Credential)
			for _, h := range []lmp.Hello{
				{ProtocolVersion: 1, Token: pr.Token},
				{ProtocolVersion: 1, DeviceID: d.ID, Credential: d.Credential + "A"},
				{ProtocolVersion: 1, Token: e.token(0).Token, DeviceID: d.ID},
			} {
				secrets = append(secrets, h.Token, h.Credential)
				x, _ := client.Dial(ctxT(t), e.wsURL, nil)
				_ = x.Send(ctxT(t), h)
				_, _ = x.WaitClosed(ctxT(t))
			}
			httpDo(t, "POST", e.hs.URL+"/internal/devices/"+d.ID+"/revoke", nil)
			_, _ = a.WaitClosed(ctxT(t))
			e.stop()
			logs := buf.String()
			if !strings.Contains(logs, "device paired") || !strings.Contains(logs, "authentication refused") {
				t.Fatalf("expected log lines missing:\n%s", logs)
			}
			for _, s := range secrets {
				if s != "" && strings.Contains(logs, s) {
					t.Fatalf("secret %s… found in logs", lmp.Fingerprint(s))
				}
			}
			// Anything shaped like a 32-byte secret is a leak too.
			if m := regexp.MustCompile(`[A-Za-z0-9_-]{43}`).FindString(logs); m != "" {
				t.Fatalf("secret-shaped string in logs (fingerprint %s)", lmp.Fingerprint(m))
			}
		})
	}
}
