package model_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/model"
)

const tools = `[{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}},{"type":"function","function":{"name":"terminal","parameters":{"type":"object"}}}]`

func post(t *testing.T, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readSSE reads a stream's events: the chunks, and whether data: [DONE]
// ended it.
func readSSE(t *testing.T, r io.Reader) (chunks []rawChunk, done bool) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("a line that is not an SSE data line: %q", line)
		}
		if done {
			t.Fatalf("an event after [DONE]: %q", line)
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var c rawChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		chunks = append(chunks, c)
	}
	return chunks, done
}

func newServer(t *testing.T, opts model.Options) *httptest.Server {
	srv := httptest.NewServer(model.New(opts))
	t.Cleanup(srv.Close)
	return srv
}

// TestStreamOnTheWire reads the SSE bytes themselves: headers, the reply's
// chunk order, tool calls whose index, id and name come once and then only
// argument fragments, the usage chunk and data: [DONE]. Unknown request
// fields and any bearer token (or none) are accepted.
func TestStreamOnTheWire(t *testing.T) {
	srv := newServer(t, model.Options{Chunk: 5})
	for _, auth := range []string{"Bearer sk-anything", ""} {
		resp := post(t, srv.URL, `{"model":"x","stream":true,"stream_options":{"include_usage":true},"reasoning_effort":"low","think":{"budget":1},"extra_body":[1],"tools":`+tools+`,"messages":[{"role":"user","content":"lmp-model:reply"}]}`, "Authorization", auth)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("auth %q: %d %s", auth, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		chunks, done := readSSE(t, resp.Body)
		if !done {
			t.Errorf("the stream did not end with data: [DONE]")
		}
		checkReplyChunks(t, chunks)
	}

	resp := post(t, srv.URL, `{"stream":true,"tools":`+tools+`,"messages":[{"role":"user","content":"lmp-model:tools"}]}`)
	chunks, done := readSSE(t, resp.Body)
	if !done {
		t.Fatalf("no [DONE]")
	}
	type call struct{ id, name, args string }
	calls := map[int]*call{}
	var finish string
	for i, c := range chunks {
		if len(c.Choices) == 0 {
			continue
		}
		if fr := c.Choices[0].FinishReason; fr != nil {
			finish = *fr
		}
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			if tc.Index == nil {
				t.Fatalf("chunk %d: a tool call delta without index", i)
			}
			cl, seen := calls[*tc.Index]
			switch {
			case !seen:
				if tc.ID == "" || tc.Function.Name == "" {
					t.Errorf("chunk %d: call %d opens without id or name: %+v", i, *tc.Index, tc)
				}
				calls[*tc.Index] = &call{id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments}
			case tc.ID != "" || tc.Function.Name != "":
				t.Errorf("chunk %d: call %d repeats its id or name", i, *tc.Index)
			default:
				cl.args += tc.Function.Arguments
			}
		}
	}
	if finish != "tool_calls" || len(calls) != 2 || calls[0].name != "read_file" || calls[1].name != "read_file" || calls[0].id == calls[1].id {
		t.Fatalf("finish %q, calls %+v %+v: want two read_file calls with their own ids", finish, calls[0], calls[1])
	}
	for i, c := range calls {
		var args map[string]string
		if err := json.Unmarshal([]byte(c.args), &args); err != nil || args["path"] == "" {
			t.Errorf("call %d: arguments %q joined from fragments: %v", i, c.args, err)
		}
	}
}

// TestNotStreamed answers a request without stream as one completion.
func TestNotStreamed(t *testing.T) {
	srv := newServer(t, model.Options{})
	resp := post(t, srv.URL, `{"tools":`+tools+`,"messages":[{"role":"user","content":"lmp-model:interim"}]}`)
	var c struct {
		Object  string
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Role      string
				Content   *string
				ToolCalls []struct{ ID, Type string } `json:"tool_calls"`
			}
		}
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.Object != "chat.completion" || len(c.Choices) != 1 || c.Choices[0].FinishReason != "tool_calls" ||
		c.Choices[0].Message.Content == nil || len(c.Choices[0].Message.ToolCalls) != 1 || c.Usage.TotalTokens == 0 {
		t.Errorf("completion %+v: want the interim text and one tool call", c)
	}
	long := post(t, srv.URL, `{"messages":[{"role":"user","content":"lmp-model:long"}]}`)
	if long.StatusCode != http.StatusBadRequest {
		t.Errorf("the long scenario without streaming: %d, want 400", long.StatusCode)
	}
}

// TestPaths: the models list on both paths with a context length Hermes
// accepts; every other path, Hermes' local-server probes included, 404
// with OpenAI's error body.
func TestPaths(t *testing.T) {
	srv := newServer(t, model.Options{})
	for _, p := range []string{"/v1/models", "/models"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		var l struct {
			Object string
			Data   []struct {
				ID            string
				ContextLength int `json:"context_length"`
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&l)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || l.Object != "list" || len(l.Data) != 1 || l.Data[0].ID != model.DefaultName || l.Data[0].ContextLength < 64000 {
			t.Errorf("GET %s: %d %+v %v", p, resp.StatusCode, l, err)
		}
	}
	for _, p := range []string{"/api/v1/models", "/api/tags", "/v1/props", "/props", "/version", "/", "/v1/completions", "/v1/embeddings", "/chat/completions"} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			req, _ := http.NewRequest(method, srv.URL+p, strings.NewReader("{}"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var e struct {
				Error struct{ Message, Type string }
			}
			err = json.NewDecoder(resp.Body).Decode(&e)
			resp.Body.Close()
			if resp.StatusCode != 404 || err != nil || e.Error.Message == "" {
				t.Errorf("%s %s: %d %+v %v, want 404 with an error body", method, p, resp.StatusCode, e, err)
			}
		}
	}
	resp, err := http.Get(srv.URL + "/v1/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /v1/chat/completions: %d, want 404", resp.StatusCode)
	}
}

// TestErrors: the scripted errors are real statuses with OpenAI's body, a
// 429 carries Retry-After and the same conversation again gets the answer;
// a body that is not a request is a 400 that says so.
func TestErrors(t *testing.T) {
	var mu sync.Mutex
	var logged []string
	srv := newServer(t, model.Options{Logf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(f, a...))
	}})
	errorOf := func(resp *http.Response) (typ, msg string) {
		var e struct {
			Error struct {
				Message, Type string
				Code          *string
			}
		}
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
			t.Fatal(err)
		}
		return e.Error.Type, e.Error.Message
	}
	fail := post(t, srv.URL, `{"stream":true,"tools":`+tools+`,"messages":[{"role":"user","content":"lmp-model:fail"}]}`)
	if typ, msg := errorOf(fail); fail.StatusCode != 400 || typ == "" || msg == "" || fail.Header.Get("Retry-After") != "" {
		t.Errorf("fail: %d %q %q", fail.StatusCode, typ, msg)
	}
	// Hermes' classifier handles a 400 otherwise when its message names
	// these (agent/error_classifier.py): the fail scenario's must not.
	_, msg := errorOf(post(t, srv.URL, `{"stream":true,"tools":`+tools+`,"messages":[{"role":"user","content":"lmp-model:fail"}]}`))
	for _, w := range []string{"context", "token", "rate", "stream", "unsupported", "unknown", "not found", "does not exist", "image", "quota", "limit"} {
		if strings.Contains(strings.ToLower(msg), w) {
			t.Errorf("the fail scenario's message %q names %q: Hermes would not take it for a plain 400", msg, w)
		}
	}
	body := `{"stream":true,"tools":` + tools + `,"messages":[{"role":"user","content":"lmp-model:retry"}]}`
	first := post(t, srv.URL, body)
	if first.StatusCode != 429 || first.Header.Get("Retry-After") != "1" {
		t.Errorf("retry, first attempt: %d Retry-After %q, want 429 and 1", first.StatusCode, first.Header.Get("Retry-After"))
	}
	again := post(t, srv.URL, body)
	if chunks, done := readSSE(t, again.Body); again.StatusCode != 200 || !done || len(chunks) < 3 {
		t.Errorf("retry, second attempt: %d, %d chunks", again.StatusCode, len(chunks))
	}
	for _, bad := range []string{`{`, `{"messages": "no"}`, `{"messages": []}`, `[]`} {
		resp := post(t, srv.URL, bad)
		if typ, msg := errorOf(resp); resp.StatusCode != 400 || typ != "invalid_request_error" || msg == "" {
			t.Errorf("%s: %d %q %q, want 400 naming the problem", bad, resp.StatusCode, typ, msg)
		}
	}
	plain := post(t, srv.URL, `{"tools":`+tools+`,"messages":[{"role":"user","content":"Generate a title"}]}`)
	if plain.StatusCode != 200 {
		t.Errorf("a request with no marker: %d", plain.StatusCode)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logged) == 0 || !strings.Contains(strings.Join(logged, "\n"), "plain answer") {
		t.Errorf("the plain answer was not logged: %q", logged)
	}
	for _, l := range logged {
		if strings.Contains(l, "Generate a title") {
			t.Errorf("a log line repeats the conversation's text: %q", l)
		}
	}
}

// TestToolsNotOffered: a scenario calls only the tools the request offers.
func TestToolsNotOffered(t *testing.T) {
	srv := newServer(t, model.Options{})
	resp := post(t, srv.URL, `{"stream":true,"tools":[{"type":"function","function":{"name":"read_file"}}],"messages":[{"role":"user","content":"lmp-model:approval"}]}`)
	chunks, _ := readSSE(t, resp.Body)
	for _, c := range chunks {
		if len(c.Choices) > 0 && len(c.Choices[0].Delta.ToolCalls) > 0 {
			t.Fatalf("a call of a tool the request does not offer: %+v", c.Choices[0].Delta.ToolCalls)
		}
		if len(c.Choices) > 0 && c.Choices[0].FinishReason != nil && *c.Choices[0].FinishReason != "stop" {
			t.Errorf("finish_reason %q, want stop", *c.Choices[0].FinishReason)
		}
	}
}

// TestToolsThroughTheBridge: a tool the request offers only behind Hermes'
// tool_call bridge is called through it.
func TestToolsThroughTheBridge(t *testing.T) {
	srv := newServer(t, model.Options{})
	resp := post(t, srv.URL, `{"tools":[{"type":"function","function":{"name":"tool_search"}},{"type":"function","function":{"name":"tool_call"}}],"messages":[{"role":"user","content":"lmp-model:approval"}]}`)
	var c struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	calls := c.Choices[0].Message.ToolCalls
	var args struct {
		Name      string
		Arguments map[string]string
	}
	if len(calls) != 1 || calls[0].Function.Name != model.BridgeTool || json.Unmarshal([]byte(calls[0].Function.Arguments), &args) != nil ||
		args.Name != "terminal" || args.Arguments["command"] != model.ApprovalCommand {
		t.Errorf("calls %+v, want tool_call naming terminal and the approval command", calls)
	}
}

// TestStartAndClose: Start serves on its own listener, URL is the base URL,
// and Close ends an open long stream.
func TestStartAndClose(t *testing.T) {
	srv, err := model.Start("127.0.0.1:0", model.Options{Tick: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || !strings.HasSuffix(srv.URL, "/v1") {
		t.Errorf("URL %q", srv.URL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/chat/completions",
		strings.NewReader(`{"stream":true,"messages":[{"role":"user","content":"lmp-model:long"}]}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	for n := 0; n < 3; { // the role delta, the text, and a tick
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "data: ") {
			n++
		}
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	_, _ = io.ReadAll(r) // a cut connection reads as EOF or an error: both end it
	if ctx.Err() != nil {
		t.Errorf("the long stream outlived Close until the test's deadline")
	}
}
