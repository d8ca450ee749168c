package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/internal/lmpservertest"
	"github.com/loomi-lmp/lmpkit/lmp"
)

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lmp-server-bin-*")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "lmp-server")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func freeAddr(t *testing.T) string { return lmpservertest.FreeAddr(t) }

// proc is a real lmp-server process, logging JSON.
type proc struct{ *lmpservertest.Process }

// startProcess starts the real binary serving on addr, without waiting.
func startProcess(t *testing.T, dir, addr string, extra ...string) *proc {
	t.Helper()
	return &proc{lmpservertest.Start(t, bin, dir, addr, append([]string{"--log-format", "json"}, extra...)...)}
}

// startServer runs the real binary and waits for /health.
func startServer(t *testing.T, dir, addr string, extra ...string) *proc {
	t.Helper()
	p := startProcess(t, dir, addr, extra...)
	p.WaitHealthy(t, 15*time.Second)
	return p
}

func (p *proc) ws() string { return "ws://" + p.Addr + lmp.PathWebSocket }

// pairDevice mints a token on the server and pairs a device with it.
func (p *proc) pairDevice(t *testing.T) (lmp.PairResponse, *client.Conn, client.Device) {
	t.Helper()
	pr, err := client.Pair(ctxT(t), "http://"+p.Addr+lmp.PathPairNew, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, dev, _, err := client.PairDevice(ctxT(t), p.ws(), pr.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pr, c, dev
}

func (p *proc) notify(t *testing.T, texts ...string) {
	t.Helper()
	dc := driver.New("http://"+p.Addr, nil)
	for _, s := range texts {
		if _, err := dc.Send(ctxT(t), driver.SendRequest{Content: s}); err != nil {
			t.Fatal(err)
		}
	}
}

func nextNotification(t *testing.T, c *client.Conn) client.Frame {
	t.Helper()
	f, err := c.ExpectType(ctxT(t), lmp.TypeNotification)
	if err != nil {
		t.Fatalf("%v\n%s", err, c.Transcript())
	}
	return f
}

func TestKill9KeepsDevicesAndSeqMonotonic(t *testing.T) { // note 4, E-2, E-6
	dir, addr := t.TempDir(), freeAddr(t)
	p := startServer(t, dir, addr)
	pr, c, dev := p.pairDevice(t)
	p.notify(t, "a", "b", "c")
	var last int64
	for i := 0; i < 3; i++ {
		last = nextNotification(t, c).Seq
	}
	if last != 3 {
		t.Fatalf("seq %d after 3 events", last)
	}
	c.CloseNow()

	// kill -9: no shutdown, no flush.
	if err := p.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.Exited()
	p2 := startServer(t, dir, addr)
	c2, ok, err := client.Connect(ctxT(t), p2.ws(), dev, &last, nil)
	if err != nil {
		t.Fatalf("paired device refused after kill -9: %v", err)
	}
	defer c2.CloseNow()
	if !ok.Truncated {
		t.Fatal("numbers skipped by the crash were not reported as truncated")
	}
	p2.notify(t, "after")
	f := nextNotification(t, c2)
	if f.Seq <= last {
		t.Fatalf("seq went back after kill -9: %d after %d", f.Seq, last)
	}
	if f.EventID != lmp.EventID(f.Seq) {
		t.Fatalf("%s", f.Raw)
	}
	after := f.Seq

	// A second crash right away still never reuses a number.
	_ = p2.Cmd.Process.Signal(syscall.SIGKILL)
	<-p2.Exited()
	p3 := startServer(t, dir, addr)
	c3, _, err := client.Connect(ctxT(t), p3.ws(), dev, &after, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c3.CloseNow()
	p3.notify(t, "again")
	if f := nextNotification(t, c3); f.Seq <= after {
		t.Fatalf("seq %d after %d across the second crash", f.Seq, after)
	}
	checkNoSecrets(t, p.Stderr.String()+p2.Stderr.String()+p3.Stderr.String(), pr.Token, dev.Credential)
}

func TestSIGTERMIsGraceful(t *testing.T) { // close 1001, store flushed
	dir, addr := t.TempDir(), freeAddr(t)
	p := startServer(t, dir, addr)
	pr, _ := client.Pair(ctxT(t), "http://"+addr+lmp.PathPairNew, 0, nil)
	c, dev, _, err := client.PairDevice(ctxT(t), p.ws(), pr.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.notify(t, "a", "b")
	nextNotification(t, c)
	last := nextNotification(t, c).Seq
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	ce, err := c.WaitClosed(ctxT(t))
	if err != nil || ce.Code != 1001 {
		t.Fatalf("close on SIGTERM: %v %v", ce, err)
	}
	<-p.Exited()
	if code := p.Cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d: %s", code, p.Stderr)
	}
	p2 := startServer(t, dir, addr)
	c2, ok, err := client.Connect(ctxT(t), p2.ws(), dev, &last, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.CloseNow()
	if ok.Truncated {
		t.Fatal("clean restart with nothing missed reported truncated")
	}
	p2.notify(t, "c")
	if f := nextNotification(t, c2); f.Seq != last+1 {
		t.Fatalf("seq after clean restart %d, want %d", f.Seq, last+1)
	}
}

func runCLI(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

func TestRefusesInsecureBind(t *testing.T) { // S-3
	_, stderr, code := runCLI(t, []string{"LOOMI_ALLOW_INSECURE_BIND="}, "serve", "--addr", "0.0.0.0:"+strconv.Itoa(0), "--data", t.TempDir())
	if code == 0 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "LOOMI_ALLOW_INSECURE_BIND") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestAdminCommands(t *testing.T) { // S-5, P-1
	addr := freeAddr(t)
	_, stderr, code := runCLI(t, nil, "devices", "--addr", addr)
	if code != 1 || strings.TrimSpace(stderr) != "lmp-server: no lmp-server is listening on "+addr+": start one with `lmp-server`" {
		t.Fatalf("no server: exit %d %q", code, stderr)
	}
	p := startServer(t, t.TempDir(), addr)
	// The QR is printed just after the listener is up.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(p.Stdout.String(), "expires at"); {
		if time.Now().After(deadline) {
			t.Fatalf("no QR printed at start:\n%s", p.Stdout)
		}
		time.Sleep(10 * time.Millisecond) // polling the process's output
	}
	if !strings.Contains(p.Stdout.String(), `"token":`) || !strings.Contains(p.Stdout.String(), "▀") {
		t.Fatalf("no QR printed at start:\n%s", p.Stdout)
	}
	out, _, code := runCLI(t, nil, "pair", "--addr", addr, "--json", "--ttl", "90s")
	var pr lmp.PairResponse
	if code != 0 || json.Unmarshal([]byte(out), &pr) != nil || pr.Token == "" {
		t.Fatalf("pair --json: %d %q", code, out)
	}
	if left := time.Until(lmp.TimeOf(pr.ExpiresAt)); left > 91*time.Second || left < 80*time.Second {
		t.Fatalf("--ttl 90s: expires in %v", left)
	}
	c, dev, _, err := client.PairDevice(ctxT(t), p.ws(), pr.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	out, _, _ = runCLI(t, nil, "devices", "--addr", addr)
	if !strings.Contains(out, dev.ID) || !strings.Contains(out, "online (1)") {
		t.Fatalf("devices:\n%s", out)
	}
	// Seconds are accepted as well as Go durations.
	out, _, code = runCLI(t, nil, "pair", "--addr", addr, "--json", "--ttl", "60")
	if code != 0 || json.Unmarshal([]byte(out), &pr) != nil {
		t.Fatalf("pair --ttl 60: %d %q", code, out)
	}
	if left := time.Until(lmp.TimeOf(pr.ExpiresAt)); left > 61*time.Second || left < 50*time.Second {
		t.Fatalf("--ttl 60: expires in %v", left)
	}
	// DEVICE_ID before the flags.
	out, stderr, code = runCLI(t, nil, "revoke", dev.ID, "--addr", addr)
	if code != 0 || !strings.Contains(out, "revoked "+dev.ID) {
		t.Fatalf("revoke: %d %s %s", code, out, stderr)
	}
	ce, err := c.WaitClosed(ctxT(t))
	if err != nil || ce.Code != 1008 {
		t.Fatalf("revoked device's connection: %v %v", ce, err)
	}
	_, stderr, code = runCLI(t, nil, "revoke", "--addr", addr, "dev_unknown")
	if code != 1 || !strings.Contains(stderr, "no device") {
		t.Fatalf("revoke unknown: %d %q", code, stderr)
	}
	checkNoSecrets(t, p.Stderr.String(), pr.Token, dev.Credential)
}

func checkNoSecrets(t *testing.T, logs string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(logs, s) {
			t.Fatalf("secret %s found in the server's logs", lmp.Fingerprint(s))
		}
	}
}

func TestPairingOnNetworkAddress(t *testing.T) { // P-1, S-6
	var ip net.IP
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			ip = n.IP
			break
		}
	}
	if ip == nil {
		t.Skip("this host has no non-loopback IPv4 address")
	}
	_, port, _ := net.SplitHostPort(freeAddr(t))
	addr := net.JoinHostPort(ip.String(), port)
	t.Setenv("LOOMI_ALLOW_INSECURE_BIND", "true")
	// Not startServer: it polls /health on addr, and tests send traffic to
	// loopback addresses only. The QR printed at start proves the token was
	// minted through the loopback listener.
	p := startProcess(t, t.TempDir(), addr)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(p.Stdout.String(), "expires at"); {
		if time.Now().After(deadline) || strings.Contains(p.Stderr.String(), "could not mint") {
			t.Fatalf("no QR printed at start:\n%s\n%s", p.Stdout, p.Stderr)
		}
		time.Sleep(10 * time.Millisecond) // polling the process's output
	}
	out, stderr, code := runCLI(t, nil, "pair", "--addr", addr, "--json")
	var pr lmp.PairResponse
	if code != 0 || json.Unmarshal([]byte(out), &pr) != nil || pr.URL != "ws://"+addr+lmp.PathWebSocket {
		t.Fatalf("pair --addr %s: %d %q %q", addr, code, out, stderr)
	}
}

func TestBadHermesQuirksIsAUsageError(t *testing.T) {
	_, stderr, code := runCLI(t, nil, "serve", "--addr", freeAddr(t), "--data", t.TempDir(), "--hermes-quirks", "reorder,shuffle")
	if code != 2 || !strings.Contains(stderr, `--hermes-quirks: unknown quirk "shuffle"`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestBadHermesOptionsAreUsageErrors(t *testing.T) {
	for _, c := range []struct{ flag, value, want string }{
		{"--hermes-busy-input", "steer", `--hermes-busy-input: busy input mode "steer": want interrupt or queue`},
		{"--hermes-profile", "Work:1", `--hermes-profile: gateway profile "Work:1": a Hermes profile name is lower-case letters`},
	} {
		_, stderr, code := runCLI(t, nil, "serve", "--addr", freeAddr(t), "--data", t.TempDir(), c.flag, c.value)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s %s: exit %d, stderr %q, want exit 2 and %q", c.flag, c.value, code, stderr, c.want)
		}
	}
}

// TestServeDefaultsToLoopback: S-2, `lmp-server` with no --addr binds
// 127.0.0.1:8787.
func TestServeDefaultsToLoopback(t *testing.T) {
	_, stderr, code := runCLI(t, nil, "serve", "-h")
	if code != 2 && code != 0 || !strings.Contains(stderr, `(default "127.0.0.1:8787")`) {
		t.Fatalf("serve -h: exit %d, stderr %q", code, stderr)
	}
}

// TestHelpAndVersion: -h and --help alike on every subcommand, exit 0;
// --version names the module.
func TestHelpAndVersion(t *testing.T) {
	for _, sub := range [][]string{{}, {"serve"}, {"pair"}, {"devices"}, {"revoke"}} {
		o1, e1, c1 := runCLI(t, nil, append(sub, "-h")...)
		o2, e2, c2 := runCLI(t, nil, append(sub, "--help")...)
		if c1 != 0 || c2 != 0 || o1+e1 != o2+e2 || !strings.Contains(strings.ToLower(o1+e1), "usage") && !strings.Contains(o1+e1, "-addr") {
			t.Errorf("%v: -h exit %d, --help exit %d\n%s%s\n---\n%s%s", sub, c1, c2, o1, e1, o2, e2)
		}
	}
	out, _, code := runCLI(t, nil, "--version")
	if code != 0 || !strings.HasPrefix(out, "lmp-server github.com/loomi-lmp/lmpkit ") {
		t.Errorf("--version: exit %d %q", code, out)
	}
}

// TestLogsPhonesAtInfo: a phone's pairing, reconnection, message and
// departure are info lines naming the device, without any secret (S-1).
func TestLogsPhonesAtInfo(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	p := startServer(t, dir, addr, "--no-qr")
	pr, c, dev := p.pairDevice(t)
	c.CloseNow()
	var last int64
	c, _, err := client.Connect(ctxT(t), p.ws(), dev, &last, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(ctxT(t), lmp.SessionSend{Text: "hello there", RequestID: "r1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectType(ctxT(t), lmp.TypeRunStarted); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()

	want := []string{"device paired", "device connected", "message from device", "connection ended"}
	seen := map[string]map[string]any{}
	allSeen := func() bool {
		for _, m := range want {
			if seen[m] == nil {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(10 * time.Second); !allSeen(); {
		for _, line := range strings.Split(p.Stderr.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) != nil || rec["device"] != dev.ID {
				continue
			}
			msg, _ := rec["msg"].(string)
			seen[msg] = rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("log lines seen %v, want %v:\n%s", seen, want, p.Stderr)
		}
		time.Sleep(10 * time.Millisecond) // polling the process's output
	}
	for _, msg := range want {
		if rec := seen[msg]; rec == nil || rec["level"] != "INFO" {
			t.Errorf("%q: %v", msg, rec)
		}
	}
	if seen["message from device"]["chars"] != float64(len("hello there")) || strings.Contains(p.Stderr.String(), "hello there") {
		t.Errorf("the message line should give its length, not its text: %v", seen["message from device"])
	}
	checkNoSecrets(t, p.Stderr.String(), pr.Token, dev.Credential)
}

// TestApprovalTimeoutFlag: --approval-timeout sets the mock Hermes'
// approval timeout, as --ping-interval sets the heartbeat's: an approval
// nobody answers says so in deadline_ts and times out (note 15) within
// seconds, not Hermes' 300 s, so that lmp-check's approval-timeout spec
// can run against a real process.
func TestApprovalTimeoutFlag(t *testing.T) {
	const timeout = 2 * time.Second
	p := startServer(t, t.TempDir(), freeAddr(t), "--approval-timeout", timeout.String())
	_, c, _ := p.pairDevice(t)
	defer c.CloseNow()
	if err := c.Send(ctxT(t), lmp.SessionSend{Text: "/mock approval", RequestID: "rq-timeout"}); err != nil {
		t.Fatal(err)
	}
	f, err := c.ExpectType(ctxT(t), lmp.TypeApprovalRequired)
	if err != nil {
		t.Fatalf("%v\n%s", err, c.Transcript())
	}
	req, err := lmp.DecodePayload[lmp.ApprovalRequired](f.Type, f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if d := req.DeadlineTS - f.TS; d < 1 || d > 4 {
		t.Errorf("deadline_ts lies %.1f s after the prompt, want about %v", d, timeout)
	}
	f, err = c.Expect(ctxT(t), func(f client.Frame) bool { return f.Type == lmp.TypeApprovalResolved })
	if err != nil {
		t.Fatalf("%v\n%s", err, c.Transcript())
	}
	res, err := lmp.DecodePayload[lmp.ApprovalResolved](f.Type, f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if res.DecidedBy != lmp.DecidedByTimeout || res.ApprovalID != req.ApprovalID {
		t.Errorf("approval.resolved %+v, want approval %s decided_by timeout", res, req.ApprovalID)
	}
}
