package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The behaviour tests run `lmp-check validate` as a real process: this test
// binary re-executed with mainEnv set, whose main is exactly the
// dispatcher's validate branch. TestBuiltCommand also runs the real
// cmd/lmp-check binary.
const mainEnv = "LMPCHECK_VALIDATE_TEST_MAIN"

var bin string

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		args := os.Args[1:]
		if len(args) == 0 || args[0] != "validate" {
			os.Stderr.WriteString("test main: want validate\n")
			os.Exit(2)
		}
		os.Exit(Run(args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	bin = exe
	os.Exit(m.Run())
}

// lmpCheck runs the built command and returns its exit code and output.
func lmpCheck(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errOut.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errOut.String()
	}
	t.Fatalf("run lmp-check: %v", err)
	return 0, "", ""
}

// ndjson compacts the named examples into NDJSON, one frame per line.
func ndjson(t *testing.T, dir string, names ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, n := range names {
		raw, err := os.ReadFile(filepath.Join("../../schema/examples", dir, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Compact(&b, raw); err != nil {
			t.Fatal(err)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var session = []string{"s2c/hello.ok.json", "s2c/run.started.json", "s2c/run.delta.json", "s2c/run.tool_started.json",
	"s2c/run.tool_finished.json", "s2c/run.completed.json", "s2c/unknown-type.json", "s2c/ping.json"}

func TestValidNDJSONExitsZero(t *testing.T) {
	p := writeFile(t, "session.ndjson", ndjson(t, "valid", session...))
	code, out, errOut := lmpCheck(t, nil, "validate", p)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errOut)
	}
	for i, want := range []string{"hello.ok", "run.started", "run.delta", "run.tool_started", "run.tool_finished", "run.completed", `"run.usage" (unknown type: envelope only, V-1)`, "ping"} {
		line := "frame " + itoa(i+1) + " (line " + itoa(i+1) + ") " + want + ": ok"
		if !strings.Contains(out, line+"\n") {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	if !strings.Contains(out, "8 frames: 8 valid, 0 invalid\n") {
		t.Errorf("no summary:\n%s", out)
	}
}

func TestInvalidNDJSONExitsOne(t *testing.T) {
	in := ndjson(t, "valid", "s2c/run.started.json")
	in = append(in, ndjson(t, "invalid", "s2c/run.delta.enum-kind.json")...)
	in = append(in, "\n{\"v\":1,\"seq\":\n"...) // a damaged line, after a blank one
	in = append(in, ndjson(t, "invalid", "s2c/envelope.event_id-mismatch.json")...)
	p := writeFile(t, "capture.ndjson", in)
	code, out, _ := lmpCheck(t, nil, "validate", "--dir", "s2c", p)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		"frame 1 (line 1) run.started: ok\n",
		"frame 2 (line 2) run.delta: INVALID\n",
		`    run.delta: /payload/kind: must be one of "text", "reasoning" (F-1)` + "\n",
		"frame 3 (line 4) frame: INVALID\n",
		"(T-3)\n",
		"frame 4 (line 5) run.delta: INVALID\n",
		"    run.delta: /event_id: ",
		"(E-3)\n",
		"4 frames: 1 valid, 3 invalid\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestStdinArrayAndClientDirection(t *testing.T) {
	var frames []json.RawMessage
	for _, l := range bytes.Split(bytes.TrimSpace(ndjson(t, "valid", "c2s/hello.json", "c2s/session.send.json", "c2s/run.cancel.json")), []byte("\n")) {
		frames = append(frames, l)
	}
	arr, _ := json.MarshalIndent(frames, "", "  ")
	code, out, errOut := lmpCheck(t, arr, "validate", "--dir", "c2s", "-")
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "frame 2 (line 1, element 2) session.send: ok\n") {
		t.Errorf("unexpected output:\n%s", out)
	}
	// The same client frames read as server frames lack the server envelope.
	code, out, _ = lmpCheck(t, arr, "validate", "-")
	if code != 1 || !strings.Contains(out, "/seq: required field \"seq\" is missing (E-1)") {
		t.Errorf("as s2c: exit %d, want 1 naming /seq:\n%s", code, out)
	}
}

func TestUnreadableInputExitsTwo(t *testing.T) {
	good := writeFile(t, "good.json", ndjson(t, "valid", "s2c/run.delta.json"))
	notJSON := writeFile(t, "notes.txt", []byte("this is\nnot json at all\n"))
	empty := writeFile(t, "empty.ndjson", []byte("\n\n"))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"validate", good, filepath.Join(t.TempDir(), "absent.ndjson")}, "absent.ndjson"},
		{"not JSON", []string{"validate", notJSON}, "no JSON frame found"},
		{"empty", []string{"validate", empty}, "no JSON frame found"},
		{"no files", []string{"validate"}, "usage: lmp-check validate"},
		{"bad dir", []string{"validate", "--dir", "up", good}, "--dir must be s2c or c2s"},
	} {
		code, out, errOut := lmpCheck(t, nil, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, want 2 with %q on stderr\nstdout: %s\nstderr: %s", tc.name, code, tc.want, out, errOut)
		}
	}
}

func TestSplit(t *testing.T) {
	pretty := []byte("{\n  \"v\": 1,\n  \"type\": \"ping\",\n  \"payload\": {}\n}\n\n{\"v\":1,\"type\":\"pong\",\"payload\":{}}\n")
	frames, err := split(pretty)
	if err != nil || len(frames) != 2 || frames[0].line != 1 || frames[1].line != 7 {
		t.Fatalf("pretty stream: %+v, %v", frames, err)
	}
	frames, err = split([]byte("{\"a\":1}\nnot json\n[1,2]\n"))
	if err != nil || len(frames) != 3 || frames[1].line != 2 || string(frames[2].raw) != "[1,2]" {
		t.Fatalf("damaged NDJSON: %+v, %v", frames, err)
	}
	frames, err = split([]byte("\xef\xbb\xbf{\"a\":1}\n{\"b\":2}\n"))
	if err != nil || len(frames) != 2 || string(frames[0].raw) != `{"a":1}` {
		t.Fatalf("NDJSON with a byte order mark: %+v, %v", frames, err)
	}
	if _, err := split([]byte("  \n")); !errors.Is(err, errNotJSON) {
		t.Fatalf("blank input: %v, want errNotJSON", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestBuiltCommand builds cmd/lmp-check and checks that its validate
// subcommand is this package's Run, with its exit codes.
func TestBuiltCommand(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "lmp-check")
	build := exec.Command("go", "build", "-o", exe, "github.com/loomi-lmp/lmpkit/cmd/lmp-check")
	if out, err := build.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "no required module provides package github.com/loomi-lmp/lmpkit/") {
			// The tree is mid-assembly: the command links packages not
			// written yet. Everything else here still runs the same Run.
			t.Skipf("cmd/lmp-check does not build yet:\n%s", out)
		}
		t.Fatalf("go build cmd/lmp-check: %v\n%s", err, out)
	}
	good := writeFile(t, "good.ndjson", ndjson(t, "valid", session...))
	bad := writeFile(t, "bad.ndjson", ndjson(t, "invalid", "s2c/run.delta.enum-kind.json"))
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"validate", good}, 0},
		{[]string{"validate", good, bad}, 1},
		{[]string{"validate", filepath.Join(t.TempDir(), "absent")}, 2},
		{[]string{"frobnicate"}, 2},
	} {
		cmd := exec.Command(exe, tc.args...)
		out, _ := cmd.CombinedOutput()
		if got := cmd.ProcessState.ExitCode(); got != tc.code {
			t.Errorf("lmp-check %v: exit %d, want %d\n%s", tc.args, got, tc.code, out)
		}
	}
}
