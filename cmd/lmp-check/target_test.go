package main

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
)

// serverCtl is a real lmp-server process driven by testdata/serverctl.sh,
// the worked example of CI.md: lmp-check meets it as it would meet a server
// that is not ours, through target commands only.
type serverCtl struct {
	script, addr, dir string
	env               []string
}

// startServerProcess builds lmp-server and starts it through the script
// with a store in a temporary directory, listening on loopback.
func startServerProcess(t *testing.T) *serverCtl {
	t.Helper()
	return startServerProcessOn(t, "127.0.0.1")
}

// startServerProcessOn is startServerProcess listening on host: "0.0.0.0"
// for every interface, with LOOMI_ALLOW_INSECURE_BIND=true (S-3).
func startServerProcessOn(t *testing.T, host string) *serverCtl {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "lmp-server")
	if out, err := exec.Command("go", "build", "-o", bin, "../lmp-server").CombinedOutput(); err != nil {
		t.Fatalf("build lmp-server: %v\n%s", err, out)
	}
	script, err := filepath.Abs("testdata/serverctl.sh")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(freeAddr(t))
	s := &serverCtl{script: script, addr: net.JoinHostPort(host, port), dir: dir}
	s.env = append(os.Environ(), "LMP_SERVER="+bin, "LMP_ADDR="+s.addr, "LMP_DIR="+dir,
		"LMP_FLAGS=--ping-interval 3s --pong-timeout 1s --auth-timeout 1500ms")
	if !net.ParseIP(host).IsLoopback() {
		s.env = append(s.env, "LOOMI_ALLOW_INSECURE_BIND=true")
	}
	s.run(t, "start")
	t.Cleanup(func() { s.run(t, "stop") })
	// The script starts the server in the background, as a CI job would;
	// like the job, wait until it answers.
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + s.addr + "/health")
		if err == nil {
			resp.Body.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("lmp-server did not answer /health within 30 s: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freeAddr is a loopback address with a port nothing listens on: the
// server keeps it across restarts.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func (s *serverCtl) run(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(s.script, args...)
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("serverctl.sh %v: %v\n%s", args, err, out)
	}
}

// cmd is a target command line running the script with the process's
// settings.
func (s *serverCtl) cmd(args string) string {
	return "LMP_SERVER=" + shellWord(s.env, "LMP_SERVER") + " LMP_ADDR=" + s.addr + " LMP_DIR=" + s.dir +
		" LMP_FLAGS='" + shellWord(s.env, "LMP_FLAGS") + "' " + s.script + " " + args
}

func shellWord(env []string, key string) string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, key+"="); ok {
			return v
		}
	}
	return ""
}

// TestTargetCommands runs the restart, crash, listing and revoke specs
// against a real lmp-server process with triggers only (no driver): the
// restarts and kill -9 happen for real, the devices are listed by
// `lmp-server devices` through --list-cmd, and every device the run paired
// is revoked through --revoke-cmd at the end.
func TestTargetCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and restarts a real lmp-server")
	}
	bin := buildBinary(t)
	s := startServerProcess(t)
	var rep struct {
		Specs []struct {
			Section, Text, Level, Verdict, Reason string
			Rules                                 []string
			Notes                                 []struct{ Name, Text string }
		}
	}
	start := time.Now()
	stdout := passingRun(t, bin, &rep, "--url", "ws://"+s.addr+"/ws", "--triggers", "mock",
		"--restart-cmd", s.cmd("restart"), "--crash-cmd", s.cmd("crash"), "--revoke-cmd", s.cmd("revoke {device_id}"),
		"--list-cmd", s.cmd("devices"), "--label-filter", "section:restart || S-5")
	t.Logf("restart, crash, listing and revoke specs in %v", time.Since(start).Round(time.Millisecond))
	restarts, revoke, listing := 0, 0, 0
	stops := 0                  // the restarts and crashes the specs asked for
	gaps := map[string]string{} // the gap spec's text → its gap note
	for _, sp := range rep.Specs {
		for _, n := range sp.Notes {
			if n.Name == "gap" || n.Name == "restart" || n.Name == "crash" {
				t.Logf("%s: %s", sp.Text, n.Text)
			}
			if n.Name == "restart" || n.Name == "crash" {
				stops++
			}
			if n.Name == "gap" {
				gaps[sp.Text] = n.Text
			}
		}
		switch {
		case sp.Reason == "not selected":
			continue
		case sp.Verdict != "pass":
			t.Errorf("%s: %s %s", sp.Text, sp.Verdict, sp.Reason)
		case strings.HasPrefix(sp.Section, "§2 Envelope, ordering, replay / Restarts"):
			restarts++
		case sp.Section == "§3 Pairing, identity, security / Devices":
			listing++
		case sp.Level == "MUST" && slices.Contains(sp.Rules, "S-5"):
			revoke++
		}
	}
	// Seq, authentication and the gap, each across a restart and a crash;
	// S-5 through --revoke-cmd; and every listing spec through --list-cmd,
	// the two across a restart and a crash included.
	if restarts != 6 || revoke == 0 || listing != 8 {
		t.Errorf("%d restart specs, %d S-5 revocation specs and %d listing specs passed, want 6, at least 1 and 8", restarts, revoke, listing)
	}
	// lmp-server keeps its replay buffer across a clean restart, so the
	// gap spec takes its exact branch there and compares the events; a
	// kill -9 loses the buffer, and the gap is truncated (note 4).
	for what, want := range map[string][]string{
		"after a clean restart": {"truncated: false", "3 events after seq", "compared with the original for seq and content"},
		"after a kill -9":       {"truncated: true"},
	} {
		note := gaps[what+", a gap is re-sent exactly or answered with truncated: true (note 4)"]
		for _, w := range want {
			if !strings.Contains(note, w) {
				t.Errorf("the gap spec %s says %q, want it to say %q", what, note, w)
			}
		}
	}
	if !strings.Contains(stdout, "revoked them all") {
		t.Errorf("the summary does not say the run's devices were revoked:\n%s", stdout)
	}
	// The server really restarted and crashed: its log shows one start
	// per restart and per crash the specs noted, plus the first; the three
	// restart specs of each kind are among them.
	log, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
	if n := strings.Count(string(log), `msg="lmp-server listening"`); stops < 6 || n != 1+stops {
		t.Errorf("the server started %d times, want %d (1 + the %d restarts and crashes the specs noted, at least 6)\n%s", n, 1+stops, stops, log)
	}
}

// TestLANDeployment runs the LAN specs against a real lmp-server process
// listening on every interface, as `lmp-server serve --addr 0.0.0.0:PORT`
// serves a phone on the LAN: its pairing endpoint refuses this host's
// network addresses (P-1), and /ws and /health answer at the pairing
// JSON's url (S-6, T-2). lmp-check is given the loopback URL only.
func TestLANDeployment(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts a real lmp-server")
	}
	if len(client.NetworkAddresses()) == 0 {
		t.Skip("this host has no address besides loopback: no LAN to check")
	}
	bin := buildBinary(t)
	s := startServerProcessOn(t, "0.0.0.0")
	_, port, _ := net.SplitHostPort(s.addr)
	var rep struct {
		Specs []struct{ Section, Text, Verdict, Reason string }
	}
	stdout := passingRun(t, bin, &rep, "--url", "ws://127.0.0.1:"+port+"/ws", "--triggers", "mock", "--label-filter", "section:lan")
	passed := 0
	for _, sp := range rep.Specs {
		switch {
		case sp.Reason == "not selected":
		case sp.Verdict == "pass":
			passed++
		default:
			t.Errorf("%s: %s %s", sp.Text, sp.Verdict, sp.Reason)
		}
	}
	if passed != 3 {
		t.Errorf("%d LAN specs passed, want 3\n%s", passed, stdout)
	}
}

// TestRestartSpecsFailAForgetfulServer: a server that loses its store
// when it stops starts seq again and forgets its devices; the restart
// specs fail it, and so does the listing spec across a restart.
func TestRestartSpecsFailAForgetfulServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and restarts a real lmp-server")
	}
	bin := buildBinary(t)
	s := startServerProcess(t)
	forgetful, err := filepath.Abs("testdata/forgetful.sh")
	if err != nil {
		t.Fatal(err)
	}
	restart := strings.Replace(s.cmd("restart"), s.script, forgetful, 1)
	code, stdout, stderr := runBinary(t, bin, "--url", "ws://"+s.addr+"/ws", "--triggers", "mock",
		"--restart-cmd", restart, "--list-cmd", s.cmd("devices"), "--label-filter", "section:restart || section:devices")
	if code != 1 {
		t.Fatalf("exit code %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"FAIL             [E-2]          MUST   seq never goes back or repeats for a device across a clean restart",
		"FAIL             [P-8]          MUST   paired devices still authenticate after a clean restart",
		"SKIPPED          [P-8]          MUST   paired devices still authenticate after a kill -9  (needs --crash-cmd)",
		"FAIL             [S-5]          MUST   a device paired before a clean restart is still listed after it",
		"PASS             [S-5]          MUST   a paired device that has gone offline is still listed",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
}

// TestListingSpecsNeedListCmd: against a server given by --url without
// --list-cmd, every listing spec skips saying which flag it needs, before
// it pairs a device.
func TestListingSpecsNeedListCmd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts a real lmp-server")
	}
	bin := buildBinary(t)
	s := startServerProcess(t)
	var rep struct {
		Specs []struct{ Text, Verdict, Reason string }
	}
	stdout := passingRun(t, bin, &rep, "--url", "ws://"+s.addr+"/ws", "--restart-cmd", s.cmd("restart"),
		"--crash-cmd", s.cmd("crash"), "--label-filter", "section:devices")
	skipped := 0
	for _, sp := range rep.Specs {
		switch {
		case sp.Reason == "not selected":
		case sp.Verdict == "skipped" && sp.Reason == "needs --list-cmd":
			skipped++
		default:
			t.Errorf("%s: %s %q, want skipped: needs --list-cmd", sp.Text, sp.Verdict, sp.Reason)
		}
	}
	if skipped != 8 || !strings.Contains(stdout, "the run paired none") {
		t.Errorf("%d listing specs skipped (want 8), and the summary says:\n%s", skipped, stdout)
	}
}

// TestInProcessRunUsesBothSources: without --url the event specs run
// through the built-in triggers, and the driver-first and driver specs
// through the in-process server's driver.
func TestInProcessRunUsesBothSources(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the event specs against an in-process server")
	}
	bin := buildBinary(t)
	var rep struct {
		Specs []struct {
			Text, Verdict, Source string
		}
	}
	passingRun(t, bin, &rep, "--label-filter", "events || driver")
	// The JSON report has no labels: tell the kinds apart through lmp-check list.
	_, list, _ := runBinary(t, bin, "list", "--label-filter", "driver || driver-first")
	bySource := map[string]int{}
	for _, sp := range rep.Specs {
		if sp.Verdict != "pass" {
			continue
		}
		bySource[sp.Source]++
		want := "triggers"
		if strings.Contains(list, sp.Text) {
			want = "driver"
		}
		if sp.Source != want {
			t.Errorf("%s ran through %q, want %q", sp.Text, sp.Source, want)
		}
	}
	if bySource["triggers"] < 10 || bySource["driver"] < 10 {
		t.Errorf("specs by source: %v", bySource)
	}
}

// TestInProcessRestart: without --url, lmp-check restarts its in-process
// server cleanly in place, so the clean-restart specs run (and the gap
// spec takes its exact branch); a kill -9 needs a process of its own, and
// those specs skip saying so.
func TestInProcessRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts an in-process server")
	}
	bin := buildBinary(t)
	var rep struct {
		Specs []struct {
			Text, Verdict, Reason string
			Notes                 []struct{ Name, Text string }
		}
	}
	stdout := passingRun(t, bin, &rep, "--label-filter", "section:restart")
	passed, exact := 0, false
	for _, sp := range rep.Specs {
		switch {
		case sp.Reason == "not selected":
		case strings.Contains(sp.Text, "kill -9"):
			if sp.Verdict != "skipped" || sp.Reason != "needs --crash-cmd" {
				t.Errorf("%s: %s %q, want skipped: needs --crash-cmd", sp.Text, sp.Verdict, sp.Reason)
			}
		case sp.Verdict == "pass":
			passed++
			for _, n := range sp.Notes {
				exact = exact || n.Name == "gap" && strings.Contains(n.Text, "truncated: false")
			}
		default:
			t.Errorf("%s: %s %s", sp.Text, sp.Verdict, sp.Reason)
		}
	}
	if passed != 3 || !exact {
		t.Errorf("%d clean-restart specs passed (want 3), exact replay observed: %v\n%s", passed, exact, stdout)
	}
}

// passingRun runs lmp-check with args and a JSON report, fails the test
// unless it exits 0, decodes the report into rep and returns stdout.
func passingRun(t *testing.T, bin string, rep any, args ...string) string {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := runBinary(t, bin, append(args, "--json-report", report)...)
	if code != 0 {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, rep); err != nil {
		t.Fatal(err)
	}
	return stdout
}
