// Package mockhermes is a scripted mock of the Hermes gateway, as real
// Hermes behaves (../shared/hermes.md). It implements hermes.Hermes, calls a
// hermes.Adapter with Hermes' hook names and keyword arguments (hermes.Hooks, built from the typed kwargs of package hermes),
// records the calls between the two, and plays scenarios written in a
// small YAML format (schema/mockscript.schema.json).
//
// A script says what the model does: the text of each response, the tools
// it asks for, the dangerous commands, the errors. One agent loop (agent.go)
// turns it into what Hermes' run_conversation fires: pre_llm_call once per
// turn; per model call on_stream_start, the visible deltas and
// on_stream_end(finished=true) after every successful call, tool calls or
// not; a failed call ends finished=false and may be retried under the same
// turn_id; tool hooks with tool_call_id and duration_ms, a pre_tool_call and
// one post_tool_call for every tool, the agent loop's own (todo, memory,
// session_search, clarify, delegate_task) included, as Hermes' tool
// executor fires them (its post says status "blocked" where the script
// has a plugin block the call); the final reply through send() with notify metadata;
// on_session_end after every turn.
//
// Around the loop the gateway keeps Hermes' three identities apart (chat
// id, session key, session-store id, which /new rolls over), refuses
// senders its allow-list does not name, lets a message to a busy chat
// interrupt its turn, takes /stop as a message and then calls the
// adapter's interrupt_session_activity, asks for approvals through the
// supports_exec_approval_buttons() gate with the 15 s prompt outcomes, smart
// and coalesced approvals and the resolve_gateway_approval queue, and
// serves a read-only session store of every platform. Stream hooks go
// through Hermes' dispatch: payloads over about 16 KiB are dropped whole,
// and on request (Faults) one queue and worker per hook.
//
// A phone reaches every scenario in band: a user message "/mock <scenario>
// [args]" plays it, "/mock help" lists them, and any other text plays reply.
// A test harness reaches it through the driver API (package driver), served
// by DriverHandler.
package mockhermes
