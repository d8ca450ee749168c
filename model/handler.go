package model

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// DefaultName is the model's id in /models and in the config fragment.
const DefaultName = "lmp-scripted"

// DefaultContextLength is the context length /models reports: above the
// 64,000 below which Hermes refuses to start (agent/model_metadata.py).
const DefaultContextLength = 131072

// BridgeTool is Hermes' tool_search/tool_call bridge's calling tool: a
// scenario's call of a tool the request does not offer goes through it,
// as {"name": TOOL, "arguments": ARGS}, when the request offers it.
const BridgeTool = "tool_call"

// maxBody bounds a request body: Hermes sends whole conversations, but
// never this much to a test model.
const maxBody = 32 << 20

// Options configure a Model. The zero value is usable.
type Options struct {
	// Name is the model's id (default DefaultName).
	Name string
	// ContextLength is the context length /models reports (default
	// DefaultContextLength).
	ContextLength int
	// Tick is the pause between the long scenario's chunks (default 1 s):
	// one real chunk a second keeps Hermes' stale-stream detector quiet.
	Tick time.Duration
	// Chunk is the number of characters per text or reasoning delta
	// (default 12).
	Chunk int
	// Logf, when set, is told about every request that plays no scenario
	// and every error the model answers on purpose.
	Logf func(format string, args ...any)
}

// Model is the scripted model, an http.Handler serving the paths of an
// OpenAI-compatible endpoint under /v1 (and /models). Its only state is the
// attempts of the calls a scenario fails first (FailFirst), so that the
// retry of the same conversation gets the answer.
type Model struct {
	opts Options
	mux  *http.ServeMux

	mu       sync.Mutex
	attempts map[string]int // conversation fingerprint → attempts so far
}

// maxAttempts bounds the attempts map; it is cleared when full (a retry
// comes seconds after its first attempt).
const maxAttempts = 4096

// New returns the scripted model.
func New(opts Options) *Model {
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if opts.ContextLength == 0 {
		opts.ContextLength = DefaultContextLength
	}
	if opts.Tick <= 0 {
		opts.Tick = time.Second
	}
	if opts.Chunk <= 0 {
		opts.Chunk = 12
	}
	m := &Model{opts: opts, attempts: map[string]int{}}
	m.mux = http.NewServeMux()
	m.mux.HandleFunc("POST /v1/chat/completions", m.chatCompletions)
	m.mux.HandleFunc("GET /v1/models", m.models)
	m.mux.HandleFunc("GET /models", m.models)
	m.mux.HandleFunc("/", notFound)
	return m
}

// Name is the model's id.
func (m *Model) Name() string { return m.opts.Name }

// ServeHTTP serves the endpoint. Any bearer token is accepted.
func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.mux.ServeHTTP(w, r) }

// notFound answers every other path, Hermes' local-server probes
// (/api/v1/models, /api/tags, /v1/props, /props, /version) included: a 200
// there would make Hermes take the endpoint for another server type.
func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, &Error{Status: http.StatusNotFound, Type: "invalid_request_error", Code: "not_found",
		Message: fmt.Sprintf("no such path: %s %s", r.Method, r.URL.Path)})
}

func (m *Model) models(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id": m.opts.Name, "object": "model", "created": 0, "owned_by": "lmp-check",
			"context_length": m.opts.ContextLength,
		}},
	})
}

func (m *Model) logf(format string, args ...any) {
	if m.opts.Logf != nil {
		m.opts.Logf(format, args...)
	}
}

func (m *Model) chatCompletions(w http.ResponseWriter, r *http.Request) {
	var req Request
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		status := http.StatusBadRequest
		if errors.As(err, &tooBig) {
			status = http.StatusRequestEntityTooLarge
		}
		writeError(w, &Error{Status: status, Type: "invalid_request_error", Code: "invalid_json",
			Message: "the request body is not a chat-completions request: " + err.Error()})
		return
	}
	if len(req.Messages) == 0 {
		p := "messages"
		writeErrorParam(w, &Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "missing_messages",
			Message: "messages is empty"}, &p)
		return
	}
	reply := m.reply(&req)
	if reply.Err != nil {
		m.logf("model: %s: answering HTTP %d on purpose", describe(&req), reply.Err.Status)
		writeError(w, reply.Err)
		return
	}
	if !req.Stream {
		if reply.Endless {
			writeError(w, &Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "stream_only",
				Message: "the long scenario only streams: send stream: true"})
			return
		}
		m.writeCompletion(w, &req, reply)
		return
	}
	m.writeStream(w, r, &req, reply)
}

// reply is the answer to req: the scenario's reply, or a plain answer.
func (m *Model) reply(req *Request) resolved {
	rt, why, ok := RouteOf(req)
	if !ok {
		m.logf("model: %s: %s; a plain answer", describe(req), why)
		return resolved{Text: "OK."}
	}
	rp := rt.Scenario.Replies[rt.Reply]
	if rp.FailFirst != nil && m.firstAttempt(req, rt) {
		return resolved{Err: rp.FailFirst}
	}
	if rp.Err != nil {
		return resolved{Err: rp.Err}
	}
	out := resolved{Reasoning: rp.Reasoning, Text: rp.Text, Endless: rp.Endless}
	nonce := newNonce()
	for _, c := range rp.Calls {
		name, callArgs := c.Tool, any(c.Args)
		switch {
		case req.offers(name):
		case req.offers(BridgeTool): // Hermes keeps some tools behind its bridge
			name, callArgs = BridgeTool, map[string]any{"name": c.Tool, "arguments": c.Args}
		default:
			m.logf("model: scenario %s: the request offers neither the tool %s nor %s; the call is left out", rt.Scenario.Name, c.Tool, BridgeTool)
			continue
		}
		args, _ := json.Marshal(callArgs)
		out.Calls = append(out.Calls, wireToolCall{ID: callID(rt.Scenario.Name, rt.Reply, len(out.Calls), nonce), Type: "function",
			Function: functionDelta{Name: name, Arguments: string(args)}})
	}
	if len(rp.Calls) > 0 && len(out.Calls) == 0 && out.Text == "" {
		out.Text = fmt.Sprintf("The %s scenario needs tools this request does not offer.", rt.Scenario.Name)
	}
	return out
}

// resolved is a reply made concrete for one request: the tools the request
// offers, the call ids minted.
type resolved struct {
	Reasoning, Text string
	Calls           []wireToolCall
	Err             *Error
	Endless         bool
}

func (r resolved) finishReason() string {
	if len(r.Calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// firstAttempt records an attempt of the call rt of this conversation and
// reports whether it is the first.
func (m *Model) firstAttempt(req *Request, rt Route) bool {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d", rt.Scenario.Name, rt.Reply, len(req.Messages))
	for _, msg := range req.Messages {
		fmt.Fprintf(h, "\x00%s\x00%s", msg.Role, msg.Content)
		for _, c := range msg.ToolCalls {
			fmt.Fprintf(h, "\x00%s", c.ID)
		}
	}
	key := hex.EncodeToString(h.Sum(nil))
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.attempts) >= maxAttempts {
		clear(m.attempts)
	}
	m.attempts[key]++
	return m.attempts[key] == 1
}

func newNonce() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// describe names a request in a log line, without its text: a
// conversation may hold anything.
func describe(req *Request) string {
	last := "none"
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1].Role
	}
	return fmt.Sprintf("request of %d messages (last: %s), %d tools, stream %t", len(req.Messages), last, len(req.Tools), req.Stream)
}

func writeError(w http.ResponseWriter, e *Error) { writeErrorParam(w, e, nil) }

func writeErrorParam(w http.ResponseWriter, e *Error, param *string) {
	var b errorBody
	b.Error.Message, b.Error.Type, b.Error.Param = e.Message, e.Type, param
	if e.Code != "" {
		code := e.Code
		b.Error.Code = &code
	}
	if e.RetryAfter > 0 {
		secs := int((e.RetryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", fmt.Sprint(secs))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(b)
}

// tokens is a rough token count (four bytes a token) for usage.
func tokens(s string) int { return (len(s) + 3) / 4 }

func promptTokens(req *Request) int {
	n := 0
	for _, m := range req.Messages {
		n += tokens(string(m.Content)) + 4
	}
	return n
}

func completionTokens(r resolved) int {
	n := tokens(r.Reasoning) + tokens(r.Text)
	for _, c := range r.Calls {
		n += tokens(c.Function.Name) + tokens(c.Function.Arguments)
	}
	return n
}

// splitText cuts s into pieces of at most n runes.
func splitText(s string, n int) []string {
	var out []string
	var b strings.Builder
	count := 0
	for _, r := range s {
		b.WriteRune(r)
		count++
		if count == n {
			out = append(out, b.String())
			b.Reset()
			count = 0
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}
