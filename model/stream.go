package model

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// sse writes one chat-completions stream. Every event is flushed as it is
// written: a client sees each chunk when the model sends it.
type sse struct {
	w     *bufio.Writer
	rc    *http.ResponseController
	id    string
	model string
	now   int64
	err   error
}

func (s *sse) event(c chunk) {
	if s.err != nil {
		return
	}
	c.ID, c.Object, c.Created, c.Model = s.id, "chat.completion.chunk", s.now, s.model
	b, err := json.Marshal(c)
	if err != nil {
		s.err = err
		return
	}
	s.raw(b)
}

func (s *sse) raw(data []byte) {
	if s.err != nil {
		return
	}
	_, _ = s.w.WriteString("data: ")
	_, _ = s.w.Write(data)
	_, _ = s.w.WriteString("\n\n")
	if s.err = s.w.Flush(); s.err == nil {
		s.err = s.rc.Flush()
	}
}

func (s *sse) delta(d delta) { s.event(chunk{Choices: []chunkChoice{{Delta: d}}}) }

func (m *Model) writeStream(w http.ResponseWriter, r *http.Request, req *Request, rp resolved) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sse{w: bufio.NewWriter(w), rc: http.NewResponseController(w), id: "chatcmpl-lmp" + newNonce(),
		model: m.opts.Name, now: time.Now().Unix()}
	empty := ""
	s.delta(delta{Role: "assistant", Content: &empty}) // the role delta comes first
	for _, p := range splitText(rp.Reasoning, m.opts.Chunk) {
		s.delta(delta{ReasoningContent: &p})
	}
	for _, p := range splitText(rp.Text, m.opts.Chunk) {
		s.delta(delta{Content: &p})
	}
	if rp.Endless {
		m.endless(r, s)
		return // the client went away: there is nobody to end the stream for
	}
	for i, c := range rp.Calls {
		// index, id, type and name once; then the arguments in fragments.
		s.delta(delta{ToolCalls: []toolCallDelta{{Index: i, ID: c.ID, Type: "function", Function: functionDelta{Name: c.Function.Name}}}})
		for _, p := range splitText(c.Function.Arguments, m.opts.Chunk) {
			s.delta(delta{ToolCalls: []toolCallDelta{{Index: i, Function: functionDelta{Arguments: p}}}})
		}
	}
	finish := rp.finishReason()
	s.event(chunk{Choices: []chunkChoice{{Delta: delta{}, FinishReason: &finish}}})
	pt, ct := promptTokens(req), completionTokens(rp)
	s.event(chunk{Choices: []chunkChoice{}, Usage: &usage{PromptTokens: pt, CompletionTokens: ct, TotalTokens: pt + ct}})
	s.raw([]byte("[DONE]"))
}

// endless sends one real chunk every Tick until the request's context ends
// (the client closed the stream) or a write fails.
func (m *Model) endless(r *http.Request, s *sse) {
	t := time.NewTicker(m.opts.Tick)
	defer t.Stop()
	for n := 1; s.err == nil; n++ {
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
			p := "Chunk " + strconv.Itoa(n) + " of an endless answer. "
			s.delta(delta{Content: &p})
		}
	}
}

func (m *Model) writeCompletion(w http.ResponseWriter, req *Request, rp resolved) {
	msg := completionMessage{Role: "assistant", ToolCalls: rp.Calls}
	if rp.Text != "" || len(rp.Calls) == 0 {
		msg.Content = &rp.Text
	}
	if rp.Reasoning != "" {
		msg.ReasoningContent = &rp.Reasoning
	}
	pt, ct := promptTokens(req), completionTokens(rp)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(completion{
		ID: "chatcmpl-lmp" + newNonce(), Object: "chat.completion", Created: time.Now().Unix(), Model: m.opts.Name,
		Choices: []completionChoice{{Message: msg, FinishReason: rp.finishReason()}},
		Usage:   usage{PromptTokens: pt, CompletionTokens: ct, TotalTokens: pt + ct},
	})
}
