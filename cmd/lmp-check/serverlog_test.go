package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
)

// logServer is a reference server logging to a file, as an implementer's
// server would for --server-log. A leaking one also logs every pairing
// token it mints, raw (S-1 broken): lmp-check then pairs through a
// loopback relay that writes the token into the server's log.
type logServer struct {
	inst    *reference.Instance
	logPath string
	pairURL string
}

func startLogServer(t *testing.T, leaking bool) logServer {
	t.Helper()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "server.log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() }) // after the server's Close
	inst, err := reference.Start(context.Background(), reference.Options{
		Addr: "127.0.0.1:0", DataDir: filepath.Join(dir, "data"),
		Profile: reference.ShortProfile,
		Logger:  slog.New(slog.NewTextHandler(f, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = inst.Close(ctx)
	})
	srv := logServer{inst: inst, logPath: logPath, pairURL: inst.PairURL}
	if leaking {
		relay := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// A plain client request from loopback, not a proxied one:
			// the pairing endpoint serves it.
			resp, err := http.Post(inst.PairURL, r.Header.Get("Content-Type"), r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var p struct {
				Token string `json:"token"`
			}
			if json.Unmarshal(body, &p) == nil && p.Token != "" {
				fmt.Fprintf(f, "level=INFO msg=\"pairing token minted\" token=%s\n", p.Token)
			}
			w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
			w.WriteHeader(resp.StatusCode)
			_, _ = w.Write(body)
		}))
		t.Cleanup(relay.Close)
		srv.pairURL = relay.URL
	}
	return srv
}

func (s logServer) args(extra ...string) []string {
	return append([]string{"--url", s.inst.WSURL, "--pair-url", s.pairURL, "--driver-url", s.inst.DriverURL,
		"--label-filter", "section:security"}, extra...)
}

// s1Spec returns the S-1 spec of a JSON report that reads the server log
// (another S-1 spec looks at the frames).
func s1Spec(t *testing.T, path string) (verdict, reason string) {
	t.Helper()
	rep := readReport(t, path)
	for _, s := range rep.Specs {
		if len(s.Rules) == 1 && s.Rules[0] == "S-1" && strings.Contains(s.Text, "server log") {
			return s.Verdict, s.Reason
		}
	}
	t.Fatalf("%s has no S-1 spec", path)
	return "", ""
}

// TestServerLog checks --server-log end to end (S-1): a server that logs
// raw pairing tokens fails the run, and no report repeats them; a server that
// logs fingerprints passes; without the flag the spec is skipped.
func TestServerLog(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary against in-process servers")
	}
	bin := buildBinary(t)

	t.Run("leaking server fails without repeating the secrets", func(t *testing.T) {
		srv := startLogServer(t, true)
		dir := t.TempDir()
		jsonRep, junit := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
		code, stdout, stderr := runBinary(t, bin, srv.args("--server-log", srv.logPath, "--json-report", jsonRep, "--junit-report", junit)...)
		if code != check.ExitNotConformant {
			t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, check.ExitNotConformant, stdout, stderr)
		}
		verdict, reason := s1Spec(t, jsonRep)
		if verdict != string(check.Fail) {
			t.Fatalf("S-1 spec verdict %q, want fail (%s)", verdict, reason)
		}
		// The secrets the faulty server logged, read back from its log.
		logs, err := os.ReadFile(srv.logPath)
		if err != nil {
			t.Fatal(err)
		}
		var secrets []string
		for _, m := range regexp.MustCompile(`(?:token|credential)=([A-Za-z0-9_-]{20,})`).FindAllStringSubmatch(string(logs), -1) {
			secrets = append(secrets, m[1])
		}
		if len(secrets) == 0 {
			t.Fatal("the leaking server logged no raw token")
		}
		jsonRaw, _ := os.ReadFile(jsonRep)
		junitRaw, _ := os.ReadFile(junit)
		outputs := map[string]string{"stdout": stdout, "stderr": stderr, "JSON report": string(jsonRaw), "JUnit report": string(junitRaw)}
		for name, text := range outputs {
			for _, s := range secrets {
				if strings.Contains(text, s) {
					t.Errorf("%s holds the secret with fingerprint %s (S-1)", name, lmp.Fingerprint(s))
				}
			}
		}
		// The failure names the leaked secrets by fingerprint and line.
		named := 0
		for _, s := range secrets {
			if strings.Contains(reason, lmp.Fingerprint(s)) {
				named++
			}
		}
		if named == 0 || !strings.Contains(reason, "line") {
			t.Errorf("the S-1 failure names no leaked secret by fingerprint and line:\n%s", reason)
		}
		if !strings.Contains(stdout, "NOT CONFORMANT") {
			t.Errorf("stdout lacks the verdict:\n%s", stdout)
		}
	})

	t.Run("pristine server passes", func(t *testing.T) {
		srv := startLogServer(t, false)
		jsonRep := filepath.Join(t.TempDir(), "r.json")
		code, stdout, stderr := runBinary(t, bin, srv.args("--server-log", srv.logPath, "--json-report", jsonRep)...)
		if code != check.ExitConformant {
			t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		if verdict, reason := s1Spec(t, jsonRep); verdict != string(check.Pass) {
			t.Fatalf("S-1 spec verdict %q, want pass (%s)", verdict, reason)
		}
	})

	t.Run("without --server-log the spec is skipped", func(t *testing.T) {
		srv := startLogServer(t, true)
		jsonRep := filepath.Join(t.TempDir(), "r.json")
		code, stdout, stderr := runBinary(t, bin, srv.args("--json-report", jsonRep)...)
		if code != check.ExitConformant {
			t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		verdict, reason := s1Spec(t, jsonRep)
		if verdict != string(check.Skipped) || !strings.Contains(reason, "needs --server-log FILE") {
			t.Fatalf("S-1 spec: %s (%s), want skipped: needs --server-log FILE", verdict, reason)
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		srv := startLogServer(t, false)
		for name, args := range map[string][]string{
			"missing file":  srv.args("--server-log", filepath.Join(t.TempDir(), "no-such.log")),
			"stdin":         srv.args("--server-log", "-"),
			"a directory":   srv.args("--server-log", t.TempDir()),
			"without --url": {"--server-log", srv.logPath},
		} {
			code, stdout, stderr := runBinary(t, bin, args...)
			if code != check.ExitUsage || !strings.Contains(stderr, "--server-log") {
				t.Errorf("%s: exit code %d, want %d with a message naming --server-log\nstdout:\n%s\nstderr:\n%s", name, code, check.ExitUsage, stdout, stderr)
			}
		}
	})
}
