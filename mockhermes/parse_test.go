package mockhermes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/schema"
)

func TestScriptErrorsNameLine(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		want      string
	}{
		{"syntax", "name: x\nsteps:\n  - stream: \"open\n", 3, "YAML syntax"},
		{"no steps", "name: x\n", 1, "needs steps"},
		{"no name", "steps:\n  - wait: 1s\n", 1, "needs a name"},
		{"unknown key", "name: x\nsteps:\n  - stream: hi\n    speed: 3\n", 4, `unknown key "speed"`},
		{"two actions", "name: x\nsteps:\n  - stream: hi\n    wait: 1s\n", 4, "two actions"},
		{"no action", "name: x\nsteps:\n  - chunk: 3\n", 3, "no action"},
		{"bad duration", "name: x\nsteps:\n  - wait: 2 seconds\n", 3, "duration"},
		{"bad status", "name: x\nsteps:\n  - tools:\n      - name: t\n        status: fine\n", 5, "ok, error or blocked"},
		{"approval without command", "name: x\nsteps:\n  - approval:\n      description: d\n", 4, "needs a command"},
		{"repeat over limit", "name: x\nsteps:\n  - repeat: 100001\n    steps:\n      - wait: 1ms\n", 3, "limit of 100000"},
		{"undeclared arg", "name: x\nsteps:\n  - stream: \"${who}\"\n", 3, "unknown reference ${who}"},
		{"bad category", "name: x\nsteps:\n  - notify:\n      text: t\n      category: urgent\n", 5, "result or diagnostic"},
		{"step not mapping", "name: x\nsteps:\n  - just text\n", 3, "must be a mapping"},
		{"bad branch", "name: x\nsteps:\n  - approval: {command: ls}\n    granted:\n      - strem: hi\n", 5, "no action"},
		{"bad name", "name: Bad Name\nsteps:\n  - wait: 1ms\n", 1, "lower case"},
		{"int default", "name: x\nargs:\n  - name: n\n    type: int\n    default: lots\nsteps:\n  - wait: 1ms\n", 3, "integer default"},
		{"unknown hook", "name: x\nsteps:\n  - hook: on_strem_delta\n", 3, `"on_strem_delta" is not one of Hermes' hooks`},
		{"bad smart", "name: x\nsteps:\n  - approval: {command: ls, smart: maybe}\n", 3, "approve or deny"},
		{"empty retry", "name: x\nsteps:\n  - retry: \"\"\n", 3, "retry needs a non-empty error message"},
		// The YAML decoder's own errors carry their lines too.
		{"not a boolean", "name: x\nsteps:\n  - tools:\n      - name: t\n    parallel: maybe\n", 5, `expected true or false, got "maybe"`},
		{"not an integer", "name: x\nsteps:\n  - stream: hi\n    chunk: many\n", 4, `expected an integer, got "many"`},
		{"duplicate key", "name: x\nsteps:\n  - wait: 1s\nname: y\n", 4, `duplicate key "name"`},
		{"unknown tool key", "name: x\nsteps:\n  - tools:\n      - name: t\n        speed: 3\n", 5, `tool call: unknown key "speed"`},
		{"number for a string", "name: x\nsteps:\n  - stream: 5\n", 3, "stream must be a string, got a number 5"},
		{"modifier of another action", "name: x\nsteps:\n  - wait: 1s\n    chunk: 2\n", 4, `wait step: unknown key "chunk"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseScenario("bad.yaml", []byte(c.src))
			var es ScriptErrors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("err = %v, want ScriptErrors", err)
			}
			if es[0].File != "bad.yaml" || es[0].Line != c.line || !strings.Contains(es[0].Msg, c.want) {
				t.Fatalf("first error = %v, want line %d containing %q", es[0], c.line, c.want)
			}
			if !strings.HasPrefix(err.Error(), "bad.yaml:") {
				t.Fatalf("error text %q does not name the file", err)
			}
		})
	}
}

// The published schema must reject what the Go checks reject, so that
// other tools validating scripts with it agree with the mock.
func TestSchemaRejectsBadScripts(t *testing.T) {
	for _, src := range []string{
		"name: x\nsteps:\n  - stream: hi\n    speed: 3\n",
		"name: x\nsteps:\n  - stream: hi\n    wait: 1s\n",
		"name: x\nsteps:\n  - wait: 2 seconds\n",
		"name: x\nsteps:\n  - approval:\n      description: d\n",
		"name: x\nsteps:\n  - repeat: 100001\n    steps:\n      - wait: 1ms\n",
		"name: x\nsteps:\n  - notify:\n      text: t\n      category: urgent\n",
		"name: x\n",
	} {
		var doc yamlDoc
		root := doc.parse(t, src)
		if errs := schemaErrors("s.yaml", root); len(errs) == 0 {
			t.Errorf("schema accepted:\n%s", src)
		} else if errs[0].Line < 1 {
			t.Errorf("schema error without line: %v", errs[0])
		}
	}
}

func TestSchemaKnowsScripts(t *testing.T) {
	found := false
	for _, n := range schema.Names() {
		found = found || n == ScriptSchema
	}
	if !found {
		t.Fatalf("package schema has no %s; it has %v", ScriptSchema, schema.Names())
	}
}

func TestLoadScript(t *testing.T) {
	m, f := newTestMock(t, Options{})
	dir := t.TempDir()
	good := filepath.Join(dir, "hello.yaml")
	os.WriteFile(good, []byte(`name: hello
description: greets
args:
  - name: who
    default: world
steps:
  - stream: "hello ${who}"
    chunk: 100
  - notify:
      text: "greeted ${who}"
      category: diagnostic
`), 0o600)
	if err := m.LoadScript(good); err != nil {
		t.Fatal(err)
	}
	waitDone(t, play(t, m, "hello", "mars"))
	evs := f.snapshot() // pre_llm_call on_stream_start on_stream_delta send …
	if evs[2].Kwargs["delta"] != "hello mars" || evs[3].Text != "greeted mars" || evs[3].Meta["category"] != "diagnostic" {
		t.Fatalf("events = %s", names(evs))
	}
	// Overriding a built-in works; a bad file names file and line.
	bad := filepath.Join(dir, "reply.yaml")
	os.WriteFile(bad, []byte("name: reply\nsteps:\n  - stream: hi\n  - wait: soon\n"), 0o600)
	err := m.LoadScript(bad)
	if err == nil || !strings.Contains(err.Error(), bad+":4:") {
		t.Fatalf("bad script err = %v", err)
	}
	if err := m.LoadScript(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestScriptFeatures(t *testing.T) {
	m, f := newTestMock(t, Options{})
	err := m.LoadScriptBytes("features.yaml", []byte(`name: features
args:
  - name: pause
    default: 1ms
  - name: words
    type: text
    default: none given
steps:
  - stream: "${words}"
    chunk: 100
  - hook: on_stream_delta
    kwargs: {turn_id: "${turn_id}", iteration: "${iteration}", delta: raw, kind: text, nested: ["${task_id}"]}
  - repeat: forever
    for: 30ms
    steps:
      - wait: ${pause}
`))
	if err != nil {
		t.Fatal(err)
	}
	pb := play(t, m, "features", "2ms", "several", "words", "here")
	waitDone(t, pb) // "forever" ended by its "for"
	evs := f.snapshot()
	if evs[2].Kwargs["delta"] != "several words here" {
		t.Fatalf("text arg = %v", evs[2].Kwargs["delta"])
	}
	raw := evs[3].Kwargs
	if raw["turn_id"] != pb.TurnID || raw["iteration"] != "1" || raw["nested"].([]any)[0] != pb.TaskID || raw["telemetry_schema_version"] != TelemetrySchemaVersion {
		t.Fatalf("raw hook = %v", raw)
	}
	if last := evs[len(evs)-2]; last.Name != "on_session_end" || evs[len(evs)-3].Kwargs["finished"] != true || evs[len(evs)-1].Meta["notify"] != true {
		t.Fatalf("turn did not end with its final reply: %s", names(evs))
	}

	// A bad value reaching a duration at run time fails the open turn
	// and reports the problem to a waiting caller.
	pb = play(t, m, "features", "soon")
	if err := pb.Wait(context.Background()); err == nil || !strings.Contains(err.Error(), `bad duration "soon"`) {
		t.Fatalf("bad duration: %v", err)
	}
	evs = f.snapshot()
	if end := evs[len(evs)-2]; end.Name != "on_stream_end" || !strings.Contains(end.Kwargs["error"].(string), "soon") ||
		evs[len(evs)-1].Name != "on_session_end" || evs[len(evs)-1].Kwargs["completed"] != false {
		t.Fatalf("turn not failed: %s", names(evs))
	}
}
