package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/model"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// TestModelCommand: `lmp-check model` prints its base URL as the first
// line, serves the model there and stops when told to.
func TestModelCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- modelUntil(ctx, []string{"--listen", "127.0.0.1:0", "--quiet"}, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no first line: %v (stderr %q)", err, stderr.String())
	}
	base := strings.TrimSpace(line)
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
		t.Fatalf("first line %q, want the base URL http://127.0.0.1:PORT/v1", line)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	resp, err := http.Get(base + "/models")
	if err != nil {
		t.Fatal(err)
	}
	var l struct{ Data []struct{ ID string } }
	err = json.NewDecoder(resp.Body).Decode(&l)
	resp.Body.Close()
	if err != nil || len(l.Data) != 1 || l.Data[0].ID != model.DefaultName {
		t.Errorf("GET %s/models: %+v %v", base, l, err)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Errorf("exit %d after stop, want 0", c)
	}
}

// TestModelCommandUsage: the help names every scenario's marker, the config
// fragment is YAML with what Hermes needs, and bad flags are usage errors.
func TestModelCommandUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if c := run([]string{"model", "--help"}, nil, &out, &errb); c != 0 {
		t.Fatalf("--help: exit %d", c)
	}
	for _, sc := range model.Scenarios() {
		if !strings.Contains(errb.String(), sc.Marker()) {
			t.Errorf("--help does not name %s", sc.Marker())
		}
	}
	out.Reset()
	if c := run([]string{"model", "--hermes-config", "--listen", "127.0.0.1:9999"}, nil, &out, &errb); c != 0 {
		t.Fatalf("--hermes-config: exit %d: %s", c, errb.String())
	}
	var cfg struct {
		Model struct {
			Provider      string
			BaseURL       string `yaml:"base_url"`
			Default       string
			ContextLength int `yaml:"context_length"`
		}
		Approvals struct{ Mode string }
		Plugins   struct {
			StreamReasoningDeltas bool `yaml:"stream_reasoning_deltas"`
		}
		Auxiliary struct {
			TitleGeneration struct{ Enabled *bool } `yaml:"title_generation"`
		}
		Memory struct {
			NudgeInterval *int `yaml:"nudge_interval"`
		}
		Skills struct {
			CreationNudgeInterval *int `yaml:"creation_nudge_interval"`
		}
	}
	if err := yaml.Unmarshal(out.Bytes(), &cfg); err != nil {
		t.Fatalf("the fragment is not YAML: %v\n%s", err, out.String())
	}
	if cfg.Model.Provider != "custom" || cfg.Model.BaseURL != "http://127.0.0.1:9999/v1" || cfg.Model.Default != model.DefaultName ||
		cfg.Model.ContextLength < 64000 || cfg.Approvals.Mode != "manual" || !cfg.Plugins.StreamReasoningDeltas ||
		cfg.Auxiliary.TitleGeneration.Enabled == nil || *cfg.Auxiliary.TitleGeneration.Enabled ||
		cfg.Memory.NudgeInterval == nil || *cfg.Memory.NudgeInterval != 0 || cfg.Skills.CreationNudgeInterval == nil || *cfg.Skills.CreationNudgeInterval != 0 {
		t.Errorf("fragment %+v", cfg)
	}
	for _, args := range [][]string{
		{"model", "--context-length", "32000"}, {"model", "--tick", "0s"}, {"model", "extra"},
		{"model", "--hermes-config", "--listen", "127.0.0.1:0"}, {"model", "--listen", "256.0.0.1:1"},
	} {
		errb.Reset()
		if c := run(args, nil, io.Discard, &errb); c != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, c, errb.String())
		}
	}
}

// TestTriggersCommand prints each built-in set as a triggers file that
// parses and validates as one.
func TestTriggersCommand(t *testing.T) {
	for _, name := range conformance.BuiltinTriggers {
		var out, errb bytes.Buffer
		if c := run([]string{"triggers", name}, nil, &out, &errb); c != 0 {
			t.Fatalf("triggers %s: exit %d: %s", name, c, errb.String())
		}
		tr, err := conformance.ParseTriggers(name+".yaml", out.Bytes())
		if err != nil {
			t.Fatalf("triggers %s: %v", name, err)
		}
		want, _ := conformance.LoadTriggers(name)
		tr.Name = want.Name
		if *tr != *want {
			t.Errorf("triggers %s printed %+v, --triggers %s is %+v", name, *tr, name, *want)
		}
	}
	for _, args := range [][]string{{"triggers"}, {"triggers", "nope"}, {"triggers", "mock", "hermes"}} {
		var errb bytes.Buffer
		if c := run(args, nil, io.Discard, &errb); c != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, c, errb.String())
		}
	}
}

// TestHermesTriggersPlayInTheMock runs the event specs through the hermes
// triggers against the in-process lmp-server, checked as a server without
// a driver: the mock Hermes plays the scripted model's scenarios on their
// markers, so every spec whose event a real Hermes produces on cue passes,
// and the others skip for the reasons a run against a real Hermes gives.
func TestHermesTriggersPlayInTheMock(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the event specs against an in-process server")
	}
	bin := buildBinary(t)
	var rep check.JSONReport
	passingRun(t, bin, &rep, "--no-driver", "--triggers", "hermes", "--label-filter", "events")
	passed := map[string]bool{}
	for _, sp := range rep.Specs {
		switch {
		case sp.Verdict == "pass":
			if sp.Source != "triggers" {
				t.Errorf("%s ran through %q, want the triggers", sp.Text, sp.Source)
			}
			for _, r := range sp.Rules {
				passed[r] = true
			}
		case sp.Verdict == "skipped" && (sp.Reason == "not selected" || strings.Contains(sp.Reason, "no notifications trigger: a real Hermes") ||
			strings.Contains(sp.Reason, "--crash-cmd") || strings.Contains(sp.Reason, "driver")):
		default:
			t.Errorf("%s: %s (%s)", sp.Text, sp.Verdict, sp.Reason)
		}
	}
	// reply, tool_run, approval, failing_run and long_run: each rule below
	// needs at least one of them.
	for _, r := range []string{"E-1", "M-2", "F-1", "F-4", "F-5", "F-6", "F-7", "I-2", "H-1"} {
		if !passed[r] {
			t.Errorf("no %s spec passed through the hermes triggers", r)
		}
	}
}
