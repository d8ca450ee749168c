// Drives lmp-check's scripted model with the official openai package, as
// Hermes' openai client drives its model: streamed chat completions with
// tools and stream_options.include_usage. model/sdk_test.go runs it and
// judges what it prints: one JSON object a line, {"section": …, …}.
//
//   node sdk.mjs BASE_URL
import OpenAI from "openai";

const baseURL = process.argv[2];
const client = new OpenAI({ baseURL, apiKey: "any-token-will-do", maxRetries: 0 });
const out = (section, data) => console.log(JSON.stringify({ section, ...data }));

// The tools Hermes offers, in the function format (a few of them).
const tool = (name) => ({ type: "function", function: { name, description: name, parameters: { type: "object", properties: {} } } });
const tools = ["read_file", "search_files", "terminal", "memory"].map(tool);
const user = (text) => [{ role: "user", content: text }];
const streamed = { stream: true, stream_options: { include_usage: true }, reasoning_effort: "low", extra_hermes_field: { x: 1 } };

// 1. The raw chunks of a streamed reply, the usage chunk included.
{
  const chunks = [];
  const stream = await client.chat.completions.create({ model: "lmp-scripted", messages: user("lmp-model:reply"), tools, ...streamed });
  for await (const c of stream) chunks.push(c);
  out("raw", { chunks });
}

// 2. finalChatCompletion() rebuilds each scenario's first response.
for (const name of ["reply", "tools", "interim", "approval", "retry"]) {
  const runner = client.chat.completions.stream({ model: "lmp-scripted", messages: user(`final ${name}: lmp-model:${name}`), tools, ...streamed });
  try {
    const final = await runner.finalChatCompletion();
    out("final", { scenario: name, choice: final.choices[0], usage: final.usage });
  } catch (err) {
    out("final", { scenario: name, error: err.constructor.name, status: err.status });
  }
}

// 3. A tool-call loop: the tool results go back until the final answer.
for (const name of ["tools", "interim", "approval"]) {
  const messages = user(`Please run the ${name} scenario. lmp-model:${name}`);
  const rounds = [];
  for (let i = 0; i < 8; i++) {
    const final = await client.chat.completions.stream({ model: "lmp-scripted", messages, tools, ...streamed }).finalChatCompletion();
    const msg = final.choices[0].message;
    rounds.push({ finish_reason: final.choices[0].finish_reason, content: msg.content, tools: (msg.tool_calls || []).map((c) => c.function.name) });
    if (final.choices[0].finish_reason !== "tool_calls") break;
    // Hermes sends the assistant turn back with null content when it only called tools.
    messages.push({ role: "assistant", content: msg.content || null, tool_calls: msg.tool_calls, reasoning_content: "earlier reasoning" });
    for (const c of msg.tool_calls) messages.push({ role: "tool", tool_call_id: c.id, content: `result of ${c.function.name}` });
  }
  out("loop", { scenario: name, rounds });
}

// 4. Errors: the classes, Retry-After, and the SDK's own retry honouring it.
{
  const errOf = async (p) => {
    try { await p; return { error: null }; } catch (err) {
      return { error: err.constructor.name, status: err.status, retry_after: err.headers?.get?.("retry-after") ?? null, type: err.type ?? null, code: err.code ?? null, message: err.error?.message ?? null };
    }
  };
  out("error", { scenario: "fail", ...(await errOf(client.chat.completions.create({ model: "lmp-scripted", messages: user("lmp-model:fail"), tools, ...streamed }))) });
  const again = user("again: lmp-model:retry");
  out("error", { scenario: "retry-first", ...(await errOf(client.chat.completions.create({ model: "lmp-scripted", messages: again, tools, ...streamed }))) });
  const second = await client.chat.completions.stream({ model: "lmp-scripted", messages: again, tools, ...streamed }).finalChatCompletion();
  out("error", { scenario: "retry-second", content: second.choices[0].message.content });
  const retrying = new OpenAI({ baseURL, apiKey: "another-token", maxRetries: 2 });
  const started = Date.now();
  const final = await retrying.chat.completions.stream({ model: "lmp-scripted", messages: user("sdk retries: lmp-model:retry"), tools, ...streamed }).finalChatCompletion();
  out("error", { scenario: "retry-sdk", content: final.choices[0].message.content, elapsed_ms: Date.now() - started });
  out("error", { scenario: "not-found", ...(await errOf(client.get("/api/tags"))) });
}

// 5. models.list().
{
  const models = [];
  for await (const m of client.models.list()) models.push(m);
  out("models", { models });
}

// 6. Non-streaming.
{
  const c = await client.chat.completions.create({ model: "lmp-scripted", messages: user("lmp-model:tools"), tools });
  out("plain", { choice: c.choices[0], usage: c.usage });
}

// 7. An abort ends the long stream; the test watches the server's side.
{
  const controller = new AbortController();
  const stream = await client.chat.completions.create({ model: "lmp-scripted", messages: user("lmp-model:long"), tools, ...streamed }, { signal: controller.signal });
  let n = 0;
  try {
    for await (const c of stream) {
      if (c.choices[0]?.delta?.content) n++;
      if (n === 3) {
        out("abort", { event: "aborting", content_chunks: n });
        controller.abort();
      }
    }
    out("abort", { event: "ended", error: null });
  } catch (err) {
    out("abort", { event: "ended", error: err.constructor.name });
  }
}
out("done", {});
