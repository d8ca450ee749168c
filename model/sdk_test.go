package model_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/model"
)

// sdkDir holds the npm project of the official openai package (a
// lockfile; .ci/run installs it with npm ci).
const sdkDir = "testdata/sdk"

// needSDK returns the node binary, or skips the test with the reason; under
// CI=true a missing Node.js or package fails it instead.
func needSDK(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	why := ""
	switch {
	case err != nil:
		why = "no node on PATH (Node.js 18 or later runs the official openai package)"
	default:
		if _, err := os.Stat(filepath.Join(sdkDir, "node_modules", "openai", "package.json")); err != nil {
			why = "the openai package is not installed: npm ci --prefix model/testdata/sdk"
		}
	}
	if why == "" {
		return node
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: %s (.ci/run installs both)", why)
	}
	t.Skip(why)
	return ""
}

// sdkLine is one line sdk.mjs prints.
type sdkLine struct {
	Section  string          `json:"section"`
	Scenario string          `json:"scenario"`
	Event    string          `json:"event"`
	Raw      json.RawMessage `json:"-"`
}

// TestOpenAISDK drives the model with the official openai npm package, the
// JavaScript twin of the Python client Hermes uses: raw chunks and the
// usage chunk; finalChatCompletion() rebuilding every scenario's tool calls
// and finish reason; a tool-call loop fed with tool results until the
// answer; error classes, Retry-After and the SDK's own retry; models.list();
// and an abort that ends the long stream on the server.
func TestOpenAISDK(t *testing.T) {
	node := needSDK(t)
	longEnded := make(chan struct{}, 4)
	m := model.New(model.Options{Tick: 20 * time.Millisecond})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		m.ServeHTTP(w, r)
		if bytes.Contains(body, []byte(model.Marker(model.ScenarioLong))) {
			longEnded <- struct{}{} // the handler of the long stream returned
		}
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "sdk.mjs", srv.URL+"/v1")
	cmd.Dir = sdkDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []sdkLine
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l sdkLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("sdk.mjs printed %q: %v", sc.Text(), err)
		}
		l.Raw = append(json.RawMessage(nil), sc.Bytes()...)
		if l.Section == "abort" && l.Event == "aborting" {
			// The long stream never ends on its own: its handler returns
			// only because the client went away. The bound is a hang
			// guard, not a speed the test asks of a loaded machine.
			select {
			case <-longEnded:
			case <-time.After(30 * time.Second):
				t.Errorf("the long stream's handler still runs 30 s after the client aborted")
			}
		}
		lines = append(lines, l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node sdk.mjs: %v\n%s", err, stderr.String())
	}
	if len(lines) == 0 || lines[len(lines)-1].Section != "done" {
		t.Fatalf("sdk.mjs did not finish; stderr:\n%s", stderr.String())
	}
	by := func(section, scenario string) []byte {
		t.Helper()
		for _, l := range lines {
			if l.Section == section && l.Scenario == scenario {
				return l.Raw
			}
		}
		t.Fatalf("sdk.mjs printed no %s line for %q", section, scenario)
		return nil
	}

	t.Run("raw chunks and the usage chunk", func(t *testing.T) {
		var v struct{ Chunks []rawChunk }
		mustJSON(t, by("raw", ""), &v)
		checkReplyChunks(t, v.Chunks)
	})

	t.Run("finalChatCompletion rebuilds tool calls and finish reasons", func(t *testing.T) {
		want := map[string]struct {
			finish string
			tools  []string
			text   bool
		}{
			"reply":    {"stop", nil, true},
			"tools":    {"tool_calls", []string{"read_file", "read_file"}, false},
			"interim":  {"tool_calls", []string{"terminal"}, true},
			"approval": {"tool_calls", []string{"terminal"}, true},
		}
		for name, w := range want {
			var v struct {
				Choice struct {
					FinishReason string `json:"finish_reason"`
					Message      struct {
						Content   *string
						ToolCalls []struct {
							ID       string
							Function struct{ Name, Arguments string }
						} `json:"tool_calls"`
					}
				}
				Usage *struct {
					TotalTokens int `json:"total_tokens"`
				}
			}
			mustJSON(t, by("final", name), &v)
			if v.Choice.FinishReason != w.finish {
				t.Errorf("%s: finish_reason %q, want %q", name, v.Choice.FinishReason, w.finish)
			}
			var got []string
			for _, c := range v.Choice.Message.ToolCalls {
				got = append(got, c.Function.Name)
				var args map[string]any
				if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil || len(args) == 0 {
					t.Errorf("%s: the arguments of %s rebuilt as %q: %v", name, c.ID, c.Function.Arguments, err)
				}
			}
			if strings.Join(got, ",") != strings.Join(w.tools, ",") {
				t.Errorf("%s: tool calls %v, want %v", name, got, w.tools)
			}
			if (v.Choice.Message.Content != nil && *v.Choice.Message.Content != "") != w.text {
				t.Errorf("%s: content %v, want text: %t", name, v.Choice.Message.Content, w.text)
			}
			if v.Usage == nil || v.Usage.TotalTokens == 0 {
				t.Errorf("%s: no usage in the final completion", name)
			}
		}
		var retry struct {
			Error  string
			Status int
		}
		mustJSON(t, by("final", "retry"), &retry)
		if retry.Error != "RateLimitError" || retry.Status != 429 {
			t.Errorf("retry's first attempt without SDK retries: %+v, want RateLimitError 429", retry)
		}
	})

	t.Run("a tool-call loop ends with the final answer", func(t *testing.T) {
		want := map[string][]string{
			"tools":    {"tool_calls:read_file,read_file", "tool_calls:terminal", "stop:"},
			"interim":  {"tool_calls:terminal", "stop:"},
			"approval": {"tool_calls:terminal", "stop:"},
		}
		for name, w := range want {
			var v struct {
				Rounds []struct {
					FinishReason string `json:"finish_reason"`
					Content      *string
					Tools        []string
				}
			}
			mustJSON(t, by("loop", name), &v)
			var got []string
			for _, r := range v.Rounds {
				got = append(got, r.FinishReason+":"+strings.Join(r.Tools, ","))
			}
			if strings.Join(got, " ") != strings.Join(w, " ") {
				t.Errorf("%s: rounds %v, want %v", name, got, w)
			}
			if last := v.Rounds[len(v.Rounds)-1]; last.Content == nil || *last.Content == "" {
				t.Errorf("%s: the last round has no answer", name)
			}
		}
	})

	t.Run("error classes and Retry-After", func(t *testing.T) {
		type errLine struct {
			Error      *string
			Status     int
			RetryAfter *string `json:"retry_after"`
			Type       *string
			Message    *string
			Content    string
			ElapsedMS  int `json:"elapsed_ms"`
		}
		check := func(name, class string, status int, retryAfter string) {
			var v errLine
			mustJSON(t, by("error", name), &v)
			if v.Error == nil || *v.Error != class || v.Status != status {
				t.Errorf("%s: %s %d, want %s %d", name, deref(v.Error), v.Status, class, status)
			}
			if deref(v.RetryAfter) != retryAfter {
				t.Errorf("%s: Retry-After %q, want %q", name, deref(v.RetryAfter), retryAfter)
			}
			if v.Type == nil || v.Message == nil || *v.Message == "" {
				t.Errorf("%s: the SDK read no OpenAI error body (type %v, message %v)", name, v.Type, v.Message)
			}
		}
		check("fail", "BadRequestError", 400, "")
		check("retry-first", "RateLimitError", 429, "1")
		check("not-found", "NotFoundError", 404, "")
		var second, sdk errLine
		mustJSON(t, by("error", "retry-second"), &second)
		if second.Content == "" {
			t.Errorf("the retry of the same conversation got no answer")
		}
		mustJSON(t, by("error", "retry-sdk"), &sdk)
		if sdk.Content == "" || sdk.ElapsedMS < 1000 {
			t.Errorf("the SDK's own retry: answer %q after %d ms, want an answer after Retry-After's 1000 ms", sdk.Content, sdk.ElapsedMS)
		}
	})

	t.Run("models.list", func(t *testing.T) {
		var v struct {
			Models []struct {
				ID            string
				ContextLength int `json:"context_length"`
			}
		}
		mustJSON(t, by("models", ""), &v)
		if len(v.Models) != 1 || v.Models[0].ID != model.DefaultName || v.Models[0].ContextLength < 64000 {
			t.Errorf("models.list(): %+v, want %s with a context length of at least 64000", v.Models, model.DefaultName)
		}
	})

	t.Run("without streaming", func(t *testing.T) {
		var v struct {
			Choice struct {
				FinishReason string `json:"finish_reason"`
				Message      struct {
					ToolCalls []struct{ ID string } `json:"tool_calls"`
				}
			}
		}
		mustJSON(t, by("plain", ""), &v)
		if v.Choice.FinishReason != "tool_calls" || len(v.Choice.Message.ToolCalls) != 2 {
			t.Errorf("non-streaming tools: %+v, want two tool calls", v.Choice)
		}
	})

	t.Run("an abort ends the long stream", func(t *testing.T) {
		found := false
		for _, l := range lines {
			found = found || l.Section == "abort" && l.Event == "aborting"
		}
		if !found {
			t.Fatalf("sdk.mjs never aborted the long stream (it saw fewer than three chunks)")
		}
	})
}

func mustJSON(t *testing.T, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
