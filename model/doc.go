// Package model is a scripted, OpenAI-compatible chat-completions model:
// the model a real Hermes gateway talks to when lmp-check checks a plugin
// inside it (CI.md, "A plugin inside a real Hermes").
//
// Hermes takes any OpenAI-compatible endpoint as its model (provider
// custom, base_url). This one answers from scenarios instead of weights,
// so that a real Hermes, with a real platform plugin, produces on cue the
// events the conformance suites need: a streamed reply with reasoning, a
// turn of several model calls with tool calls, commentary between tools
// (on_interim_message), a dangerous command that asks for an exec
// approval, a failed turn, a retried call, and a stream that runs until
// the client goes away.
//
// A scenario is chosen by a marker in the conversation (Marker): in the
// last user message, or, when the last messages are tool results, in the
// ids of the tool calls the model made in the assistant turn before them.
// So the choice survives everything Hermes does to a user message on the
// way (quotes, sender prefixes, skills put in front) and needs no state
// between calls. A request with no marker (a title, a review, a
// compression) gets a short plain answer, and is logged.
//
// The wire is what Hermes' openai SDK client expects (../shared/hermes.md,
// "How Hermes calls its model"):
//
//	POST /v1/chat/completions   streamed (SSE) or not; unknown fields ignored, any bearer token
//	GET  /v1/models, /models    the model, with its context length
//	anything else               404, Hermes' local-server probes included
//
// A stream starts with a role delta, sends reasoning_content and content
// deltas, tool calls with index, id and function name once and then
// argument fragments, and ends with a finish_reason chunk, a usage chunk
// with no choices and data: [DONE]. Errors are real HTTP statuses with
// OpenAI's error body; a 429 carries Retry-After.
//
// Use it as a handler (New) or as a server of its own (Start); `lmp-check
// model` serves it from the command line.
package model
