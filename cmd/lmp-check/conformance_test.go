package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// built is the lmp-check binary the tests run, built once per test
// process (buildBinary) and removed by TestMain.
var built struct {
	once      sync.Once
	dir, path string
	err       error
}

// buildBinary returns the lmp-check binary, built on first use: every
// test runs the same one, so the package links it once, not once a test.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "lmp-check-test-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "lmp-check")
		if out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

func runBinary(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("run %v: %v", args, err)
	return -1, "", ""
}

// TestExitCodes runs the built binary: 0 conformant, 1 not conformant, 2
// usage error or unreachable target.
func TestExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary against in-process servers")
	}
	bin := buildBinary(t)
	t.Setenv("LOOMI_ALLOW_INSECURE_BIND", "") // the --listen case needs the opt-in unset
	dir := t.TempDir()
	junit, jsonRep := filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.json")
	expect := filepath.Join(dir, "expect.yaml")
	if err := os.WriteFile(expect, []byte("expectations:\n  - rule: T-2\n    reason: pretend /health is broken\n    link: https://example.org/1\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		args []string
		code int
		want string // in stdout or stderr
	}{
		{"conformant", []string{"--label-filter", "section:transport", "--junit-report", junit, "--json-report", jsonRep}, 0, "Result: CONFORMANT"},
		{"strict timing deviation", []string{"--strict", "--label-filter", "section:timing"}, 1, "NOT CONFORMANT"},
		{"unexpected pass", []string{"--label-filter", "T-2", "--expect", expect}, 1, "UNEXPECTED-PASS"},
		{"unreachable", []string{"--url", "ws://127.0.0.1:1/ws"}, 2, "unreachable"},
		{"not a ws url", []string{"--url", "http://127.0.0.1:1/ws"}, 2, "ws://"},
		{"remote without pairing", []string{"--url", "ws://lmp.invalid/ws"}, 2, "--pair-url"},
		{"bad flag", []string{"--no-such-flag"}, 2, "no-such-flag"},
		{"bad expectations", []string{"--expect", filepath.Join(dir, "missing.yaml")}, 2, "--expect"},
		{"list", []string{"list", "--label-filter", "T-2"}, 0, "[T-2]"},
		{"selection matches no spec", []string{"--focus", "no spec says this"}, 2, `the selection (--focus "no spec says this") matches no spec`},
		{"client rule in a server run", []string{"--label-filter", "C-3"}, 2, "matches no spec of a server run, but 2 of an app run: run lmp-check app"},
		{"bad triggers file", []string{"--triggers", expect}, 2, "--triggers"},
		{"missing triggers file", []string{"--triggers", filepath.Join(dir, "none.yaml")}, 2, "none.yaml"},
		{"restart without url", []string{"--restart-cmd", "true"}, 2, "--restart-cmd needs --url"},
		{"no driver", []string{"--no-driver", "--label-filter", "section:transport"}, 0, "Result: CONFORMANT"},
		{"no driver with url", []string{"--no-driver", "--url", "ws://127.0.0.1:1/ws"}, 2, "--no-driver checks the in-process server"},
		{"listen with url", []string{"--listen", ":0", "--url", "ws://127.0.0.1:1/ws"}, 2, "--listen sets where the in-process server listens"},
		{"listen on the network without the opt-in", []string{"--listen", ":0", "--label-filter", "section:lan"}, 2, "LOOMI_ALLOW_INSECURE_BIND=true"},
		// Ginkgo panics on a bad regexp and fails the suite on a bad label
		// filter: both must be usage errors, caught before anything starts.
		{"bad focus", []string{"--focus", "["}, 2, `--focus "["`},
		{"bad skip", []string{"--skip", "(a"}, 2, `--skip "(a"`},
		{"bad label filter", []string{"--label-filter", "((("}, 2, "Mismatched '('"},
		{"list bad focus", []string{"list", "--focus", "["}, 2, `--focus "["`},
		{"list bad label filter", []string{"list", "--label-filter", "P-4 &&"}, 2, "--label-filter"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runBinary(t, bin, c.args...)
			if code != c.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, stdout, stderr)
			}
			if !strings.Contains(stdout+stderr, c.want) {
				t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", c.want, stdout, stderr)
			}
		})
	}

	raw, err := os.ReadFile(jsonRep)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Conformant bool `json:"conformant"`
		Specs      []struct {
			Verdict string   `json:"verdict"`
			Rules   []string `json:"rules"`
		} `json:"specs"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil || !rep.Conformant || len(rep.Specs) == 0 {
		t.Errorf("JSON report: %v %+v", err, rep)
	}
	// The report a real run wrote validates against its published schema.
	schemaRaw, err := os.ReadFile(filepath.Join("..", "..", "schema", "report", "lmp-check-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat = true
	if err := c.AddResource("report.json", bytes.NewReader(schemaRaw)); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("report.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("JSON report breaks schema/report/lmp-check-report.json: %v", err)
	}
	if x, err := os.ReadFile(junit); err != nil || !bytes.Contains(x, []byte("<testsuites")) {
		t.Errorf("JUnit report: %v", err)
	}
}

// TestHelpAndVersion: -h and --help alike on every subcommand, exit 0;
// --version names the module.
func TestHelpAndVersion(t *testing.T) {
	bin := buildBinary(t)
	for _, sub := range [][]string{{}, {"run"}, {"app"}, {"list"}, {"rules"}, {"fuzz"}, {"validate"}, {"model"}, {"triggers"}} {
		c1, o1, e1 := runBinary(t, bin, append(sub, "-h")...)
		c2, o2, e2 := runBinary(t, bin, append(sub, "--help")...)
		if c1 != 0 || c2 != 0 || o1+e1 != o2+e2 || !strings.Contains(strings.ToLower(o1+e1), "usage") {
			t.Errorf("%v: -h exit %d, --help exit %d\n%s%s\n---\n%s%s", sub, c1, c2, o1, e1, o2, e2)
		}
	}
	code, out, _ := runBinary(t, bin, "--version")
	if code != 0 || !strings.HasPrefix(out, "lmp-check github.com/loomi-lmp/lmpkit ") {
		t.Errorf("--version: exit %d %q", code, out)
	}
}
