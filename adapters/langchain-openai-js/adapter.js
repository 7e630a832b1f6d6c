// streamroute adapter (spec/protocol.md) for LangChain.js's OpenAI integration (`@langchain/openai`):
// `new ChatOpenAI({ useResponsesApi: true }).stream()`. Run as
// `node adapters/langchain-openai-js/adapter.js FOLDER`: FOLDER holds the node_modules of one pinned
// release (its package.json and package-lock.json are in a folder beside this file). Each vector is
// one `.stream()` call of a model whose client's `fetch` answers with the vector's stream as
// text/event-stream bytes; the adapter reads each `AIMessageChunk` as an application does, adds the
// chunks up (`full.concat(chunk)`, the documented way to get the calls) and reads the calls of the
// sum once the stream has ended. See README.md.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { createRequire } = require("node:module");
const { Tally, body, serve, errored, clientTools } = require("../node-common/responses_events.js");

const installed = path.resolve(process.argv[2] ?? ".");
const fromInstalled = createRequire(path.join(installed, "package.json"));
const { ChatOpenAI } = fromInstalled("@langchain/openai");
// The OpenAI client @langchain/openai itself uses, for the errors it throws.
const { APIError } = createRequire(fromInstalled.resolve("@langchain/openai"))("openai");
const version = (name) =>
  JSON.parse(fs.readFileSync(path.join(installed, "node_modules", name, "package.json"), "utf8")).version;

// What the application is shown, per outcome kind (spec/observation.md). A chunk's content blocks and
// tool call chunks carry the delta and the event's own index, not the item; calls are those of the
// summed message, with their call id and no item; errors are the OpenAI client's, thrown.
const OBSERVES = {
  "text.delta": ["delta"],
  "reasoning.delta": ["delta"],
  "tool.arguments.delta": ["delta"],
  "tool.call": ["call_id", "name", "tool_type", "arguments", "input"],
  "tool.error": ["call_id"],
  "error": ["code", "message"],
  "end": ["status"],
};

// The vector's tools in the Responses API's own form, which `bindTools` passes on; a server tool
// (programmatic tool calling) has no langchain tool, and makes no call.
function boundTools(declared) {
  return clientTools(declared).map((tool) =>
    tool.type === "custom"
      ? { type: "custom", name: tool.name, description: tool.description ?? "" }
      : {
          type: "function",
          name: tool.name,
          description: tool.description ?? "",
          parameters: tool.parameters ?? { type: "object", properties: {} },
        },
  );
}

// The deltas one chunk hands over: its text blocks' text (a block with a `phase` labels a message,
// it is not text), its reasoning blocks' text, and its tool call chunks' args (a chunk with the
// call's `name` is the call's start, and hands over only the arguments it has).
function deltas(chunk) {
  const out = [];
  for (const block of Array.isArray(chunk.content) ? chunk.content : []) {
    if (block?.type === "text" && typeof block.text === "string" && block.phase === undefined && !block.annotations) {
      out.push({ kind: "text.delta", delta: block.text });
    } else if (block?.type === "reasoning" && typeof block.reasoning === "string") {
      out.push({ kind: "reasoning.delta", delta: block.reasoning });
    }
  }
  for (const piece of chunk.tool_call_chunks ?? []) {
    if (typeof piece.args === "string" && (piece.args !== "" || piece.name === undefined)) {
      out.push({ kind: "tool.arguments.delta", delta: piece.args });
    }
  }
  return out;
}

// The calls of the summed message: those whose arguments parsed, then those that did not. A custom
// call's free text is its `args.input` (langchain-core's form for a custom tool's raw input).
function calls(full, declared) {
  if (full === null) return [];
  const custom = new Set(declared.filter((tool) => tool.type === "custom").map((tool) => tool.name));
  const out = (full.tool_calls ?? []).map((call) => {
    const named = { kind: "tool.call", call_id: call.id ?? null, name: call.name };
    return custom.has(call.name)
      ? { ...named, tool_type: "custom", input: call.args?.input ?? null }
      : { ...named, tool_type: "function", arguments: call.args };
  });
  for (const call of full.invalid_tool_calls ?? []) {
    out.push({ kind: "tool.error", call_id: call.id ?? null, message: call.error ?? "invalid tool call" });
  }
  return out;
}

// The calls of a response that did not complete, which the application runs none of: each is a call
// not run, `tool.error`.
function notRun(full) {
  if (full === null) return [];
  return [...(full.tool_calls ?? []), ...(full.invalid_tool_calls ?? [])].map((call) => ({
    kind: "tool.error",
    call_id: call.id ?? null,
    message: "the response did not complete",
  }));
}

// The statuses of a terminal response that did not complete, as its chunk's response_metadata states.
const UNFINISHED = ["incomplete", "cancelled"];

// How the response ended: the chunk made of the terminal response states its status; without one,
// the stream ended before the response did.
function endStatus(last) {
  const status = last?.response_metadata?.status;
  return ["completed", "incomplete", "cancelled"].includes(status) ? status : "truncated";
}

async function runVector(vector) {
  const tally = new Tally(vector.events.length);
  const model = new ChatOpenAI({
    model: "gpt-5.1",
    apiKey: "sk-streamroute",
    useResponsesApi: true,
    maxRetries: 0,
    configuration: {
      baseURL: "http://streamroute.invalid/v1",
      fetch: async () => new Response(body(vector.events, tally), { headers: { "content-type": "text/event-stream" } }),
    },
  });
  const tools = boundTools(vector.tools);
  const runnable = tools.length > 0 ? model.bindTools(tools) : model;
  let full = null;
  let last = null;
  let failed = false;
  try {
    for await (const chunk of await runnable.stream("streamroute")) {
      const outcomes = deltas(chunk);
      if (outcomes.length > 0) tally.add(outcomes);
      full = full === null ? chunk : full.concat(chunk);
      last = chunk;
      if (UNFINISHED.includes(chunk.response_metadata?.status)) tally.add(notRun(full)); // the terminal chunk says so
    }
  } catch (exc) {
    // The OpenAI client's errors, which @langchain/openai passes on (`wrapOpenAIClientError`): the
    // stream is over for the application. Any other exception is the library crashing.
    if (!(exc instanceof APIError)) return errored(tally.where(), exc);
    tally.add([{ kind: "error", code: typeof exc.code === "string" ? exc.code : null, message: exc.message }]);
    failed = true;
  }
  tally.closing();
  const status = failed ? "failed" : endStatus(last);
  // A stream that threw made no message: its chunks so far are no response whose calls one runs.
  // The application runs the calls of a completed response only (README.md): those of one that ended
  // incomplete were refused at its terminal chunk, those of a cut one are refused now.
  const handed = status === "completed" ? calls(full, vector.tools) : status === "truncated" ? notRun(full) : [];
  tally.close.push(...handed, { kind: "end", status });
  return tally.reply();
}

serve(
  {
    name: "@langchain/openai ChatOpenAI(useResponsesApi: true).stream()",
    version: `${version("@langchain/openai")} (@langchain/core ${version("@langchain/core")})`,
    language: "javascript",
    homepage: "https://github.com/langchain-ai/langchainjs",
    profiles: ["core"],
    // The calls are those of the chunks' sum, read once the stream has ended, their arguments read
    // with JSON.parse (README.md).
    options: { error_event: "ends_stream", tool_call_point: "response_done", arguments_parser: "platform" },
    observes: OBSERVES,
  },
  async (vector) => {
    if (vector.chunks !== undefined) {
      return { skipped: true, reason: "the OpenAI client's SSE decoder (openai-node's) cannot be tapped to number its dispatches" };
    }
    return runVector(vector);
  },
);
