package model_test

import (
	"strings"
	"testing"
)

// rawChunk is a chat.completion.chunk as a client reads it.
type rawChunk struct {
	Object  string
	Choices []struct {
		Delta struct {
			Role             string
			Content          *string
			ReasoningContent *string `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    *int
				ID       string
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		}
		FinishReason *string `json:"finish_reason"`
	}
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
}

// checkReplyChunks checks the chunks of the reply scenario's stream: the
// role delta first, reasoning before content, one finish_reason chunk, and
// last a usage chunk with choices: [].
func checkReplyChunks(t *testing.T, chunks []rawChunk) {
	t.Helper()
	if len(chunks) < 5 {
		t.Fatalf("%d chunks, want role, reasoning, content, finish and usage chunks", len(chunks))
	}
	if c := chunks[0]; len(c.Choices) != 1 || c.Choices[0].Delta.Role != "assistant" {
		t.Errorf("first chunk %+v, want the role delta", c)
	}
	var reasoning, content strings.Builder
	seenContent, finishes := false, 0
	for i, c := range chunks[:len(chunks)-1] {
		if c.Object != "chat.completion.chunk" || len(c.Choices) != 1 {
			t.Fatalf("chunk %d: object %q with %d choices", i, c.Object, len(c.Choices))
		}
		d := c.Choices[0].Delta
		if d.ReasoningContent != nil {
			if seenContent {
				t.Errorf("chunk %d: reasoning after content", i)
			}
			reasoning.WriteString(*d.ReasoningContent)
		}
		if d.Content != nil && *d.Content != "" {
			seenContent = true
			content.WriteString(*d.Content)
		}
		if fr := c.Choices[0].FinishReason; fr != nil {
			finishes++
			if *fr != "stop" || i != len(chunks)-2 {
				t.Errorf("chunk %d: finish_reason %q, want stop in the chunk before the usage chunk", i, *fr)
			}
		}
	}
	if finishes != 1 {
		t.Errorf("%d finish_reason chunks, want 1", finishes)
	}
	if reasoning.Len() == 0 || content.Len() == 0 {
		t.Errorf("reasoning %q, content %q: want both", reasoning.String(), content.String())
	}
	last := chunks[len(chunks)-1]
	if last.Choices == nil || len(last.Choices) != 0 || last.Usage == nil || last.Usage.TotalTokens != last.Usage.PromptTokens+last.Usage.CompletionTokens || last.Usage.TotalTokens == 0 {
		t.Errorf("last chunk %+v, want choices: [] and a usage", last)
	}
}
