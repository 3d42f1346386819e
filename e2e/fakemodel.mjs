// A scripted model on loopback for the real agent clients: a small fake of
// the Anthropic Messages API (streaming events) for Claude Code, reached
// through ANTHROPIC_BASE_URL, and of the OpenAI Responses API for Codex,
// reached through a model_providers entry with wire_api = "responses".
// Every request is recorded, so a test asserts on what the model received.
//
// The event shapes follow the APIs' documented streams: message_start,
// content_block_start/delta/stop, message_delta, message_stop for
// Messages; response.created, response.output_item.done and
// response.completed for Responses (as codex-rs's own tests build them).
import http from "node:http";

// startFakeModel starts the server. script(turn) decides the main
// conversation's next answer: turn.kind is "anthropic" or "openai",
// turn.body the request, turn.results the number of tool results the
// conversation holds so far (the step the script is at). It returns
// { text } or { tool, input } (Claude: a tool_use block; Codex: a
// function_call, with namespace when the tool has one).
export async function startFakeModel(script) {
  const requests = [];
  let ids = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      let parsed = null;
      try {
        parsed = body ? JSON.parse(body) : null;
      } catch {
        parsed = { unparsed: body };
      }
      const url = req.url || "";
      const kind = url.startsWith("/v1/messages") ? "anthropic" : url.startsWith("/v1/responses") ? "openai" : "other";
      requests.push({ method: req.method, url, kind, body: parsed });
      if (url.startsWith("/v1/messages/count_tokens")) return json(res, { input_tokens: 100 });
      if (kind === "anthropic") {
        const main = Array.isArray(parsed?.tools) && parsed.tools.some((t) => t.name === "Bash");
        const step = main ? script({ kind, body: parsed, results: anthropicResults(parsed) }) : { text: "ok" };
        if (!parsed?.stream) return json(res, anthropicMessage(parsed, step, ++ids));
        return sse(res, anthropicEvents(parsed, step, ++ids));
      }
      if (kind === "openai") {
        const step = script({ kind, body: parsed, results: openaiResults(parsed) });
        return sse(res, openaiEvents(step, ++ids));
      }
      if (url.startsWith("/v1/models")) return json(res, { data: [], models: [] });
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((r) => server.close(r)),
  };
}

function json(res, v) {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(v));
}

function sse(res, events) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

function anthropicResults(body) {
  let n = 0;
  for (const m of body?.messages || []) {
    if (Array.isArray(m.content)) n += m.content.filter((b) => b.type === "tool_result").length;
  }
  return n;
}

function openaiResults(body) {
  return (body?.input || []).filter((i) => i.type === "function_call_output" || i.type === "custom_tool_call_output").length;
}

const usage = { input_tokens: 10, output_tokens: 5 };

function anthropicBlock(step, id) {
  if (step.tool) return { type: "tool_use", id: `toolu_${id}`, name: step.tool, input: step.input };
  return { type: "text", text: step.text };
}

function anthropicMessage(body, step, id) {
  return {
    id: `msg_${id}`, type: "message", role: "assistant", model: body?.model || "claude",
    content: [anthropicBlock(step, id)], stop_reason: step.tool ? "tool_use" : "end_turn", stop_sequence: null, usage,
  };
}

function anthropicEvents(body, step, id) {
  const block = anthropicBlock(step, id);
  const start = block.type === "tool_use" ? { ...block, input: {} } : { type: "text", text: "" };
  const delta = block.type === "tool_use"
    ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
    : { type: "text_delta", text: block.text };
  return [
    { type: "message_start", message: { id: `msg_${id}`, type: "message", role: "assistant", model: body?.model || "claude", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: start },
    { type: "content_block_delta", index: 0, delta },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: block.type === "tool_use" ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: "message_stop" },
  ];
}

function openaiEvents(step, id) {
  let item;
  if (step.tool) {
    item = { type: "function_call", id: `fc_${id}`, call_id: `call_${id}`, name: step.tool, arguments: JSON.stringify(step.input), status: "completed" };
    if (step.namespace) item.namespace = step.namespace;
  } else {
    item = { type: "message", role: "assistant", id: `msg_${id}`, content: [{ type: "output_text", text: step.text }] };
  }
  return [
    { type: "response.created", response: { id: `resp_${id}` } },
    { type: "response.output_item.done", item },
    { type: "response.completed", response: { id: `resp_${id}`, usage: { input_tokens: 10, input_tokens_details: null, output_tokens: 5, output_tokens_details: null, total_tokens: 15 } } },
  ];
}
