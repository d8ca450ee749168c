// Package mockhermes is a scripted mock of the Hermes gateway. It
// implements server.Hermes, calls a server.Adapter with the real hook names
// and keyword arguments, records every call the adapter makes into it, and
// plays scenarios written in a small YAML format (schema/mockscript.schema.json).
//
// The behaviour it imitates is that of Hermes' gateway: per-model-call
// stream hooks within one turn, tool hooks carrying tool_call_id and
// duration_ms, the approval queue of tools/approval.py (a count returned,
// request_id targeting, FIFO otherwise, deny blocks and anything else
// grants, a timeout after the wait), handle_message queueing on a busy
// session, /stop releasing a waiting approval as cancelled, and a read-only
// session store whose rows are live while ended_at is null.
//
// A phone reaches every scenario in band: a user message "/mock <scenario>
// [args]" plays it, "/mock help" lists them, and any other text plays reply.
// A test harness reaches it through the driver API (package driver), served
// by DriverHandler.
package mockhermes
