// streamroute adapter (spec/protocol.md, version 1) for the Vercel AI SDK (`ai` with
// `@ai-sdk/openai`): `streamText({ model: openai.responses(...) }).fullStream`. Run as
// `node adapters/vercel-ai/adapter.js FOLDER`: FOLDER holds the node_modules of one pinned release
// (its package.json and package-lock.json are in a folder beside this file). Each vector is one
// `streamText` call whose provider's `fetch` answers with the vector's stream as text/event-stream
// bytes; the adapter reads `fullStream` as an application does and maps each part it is handed to
// the outcome it means. The vector's tools are declared without `execute`, so a call is handed
// over, never run. See README.md.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { createRequire } = require("node:module");
const { Tally, body, serve, clientTools } = require("../node-common/responses_events.js");

const installed = path.resolve(process.argv[2] ?? ".");
const fromInstalled = createRequire(path.join(installed, "package.json"));
const { streamText, tool } = fromInstalled("ai");
const { createOpenAI } = fromInstalled("@ai-sdk/openai");
const { z } = fromInstalled("zod");
const version = (name) =>
  JSON.parse(fs.readFileSync(path.join(installed, "node_modules", name, "package.json"), "utf8")).version;

// The SDK pipes the stream through several transforms; the body reads the next event only after
// this many turns of the event loop, so that each part is credited to the event that produced it.
const SETTLE_TURNS = 64;
const settle = async () => {
  for (let turn = 0; turn < SETTLE_TURNS; turn++) await new Promise(setImmediate);
};

// What the application is shown, per outcome kind (spec/observation.md). The SDK has no lifecycle
// parts, no final text of a part, no refusal channel of its own and nothing for an event it does
// not route; its argument deltas name the call id, not the item. Its refusals of a call are the
// invalid tool-call parts, whose input does not parse or fails the schema: it has no notice of a
// call still open when the response ends, nor of one it does not hand over.
const OBSERVES = {
  "text.delta": ["item_id", "delta", "phase"],
  "reasoning.delta": ["item_id", "delta"],
  "tool.arguments.delta": ["delta"],
  "tool.call": ["item_id", "call_id", "name", "namespace", "tool_type", "arguments", "input"],
  "tool.error": { fields: ["item_id", "call_id", "code"], codes: ["invalid_json", "invalid_arguments"] },
  "error": ["code", "message"],
  "end": ["status"],
};

// The vector's tools, as the SDK's documentation declares them: a zod `inputSchema` (the schema
// the vector states, as zod's own converter writes it), which the SDK validates each call's input
// against; no `execute`, so the SDK hands each call over. A server tool of the vector (programmatic
// tool calling) has no tool of the SDK's: it makes no call.
function sdkTools(declared, openai) {
  const tools = {};
  for (const declaration of clientTools(declared)) {
    if (declaration.type === "custom") {
      tools[declaration.name] = openai.tools.customTool({ description: declaration.description });
      continue;
    }
    const namespace = declaration.namespace;
    tools[declaration.name] = tool({
      description: declaration.description ?? "",
      inputSchema: z.fromJSONSchema(declaration.parameters ?? { type: "object", properties: {} }),
      ...(namespace ? { providerOptions: { openai: { namespace: { name: namespace, description: namespace } } } } : {}),
    });
  }
  return tools;
}

// The end the `finish-step` part states: the SDK's unified reason, and the raw reason, which is
// the response's `incomplete_details.reason` (or "error" for a failure). Without one, the model
// call ended on an error part, or the stream before any part that finishes it.
function endStatus(step, errorTold) {
  if (step === null) return errorTold ? "failed" : "truncated";
  if (step.finishReason === "interrupted") return "truncated";
  if (step.finishReason === "error") return "failed";
  return typeof step.rawFinishReason === "string" ? "incomplete" : "completed";
}

// One run's parts into outcomes: each part as the application is handed it, one to one.
class Parts {
  constructor(declared) {
    this.declared = declared;
    this.textParts = new Map(); // a text part's id -> the item id and phase its text-start stated
    this.hostedInputs = new Set(); // the ids of tool inputs the provider executes (a hosted tool's)
    this.step = null; // the finish-step part, which states how the response ended
    this.errorTold = false; // an error part was handed over
  }

  outcomes(part) {
    const openai = part.providerMetadata?.openai ?? {};
    switch (part.type) {
      case "text-start":
        this.textParts.set(part.id, { itemId: openai.itemId ?? null, phase: openai.phase });
        return [];
      case "text-delta": {
        const started = this.textParts.get(part.id) ?? { itemId: part.id };
        const out = { kind: "text.delta", item_id: started.itemId, delta: part.text };
        if (typeof started.phase === "string") out.phase = started.phase;
        return [out];
      }
      case "reasoning-delta":
        return [{ kind: "reasoning.delta", item_id: openai.itemId ?? null, delta: part.text }];
      case "tool-input-start":
        if (part.providerExecuted) this.hostedInputs.add(part.id);
        return [];
      case "tool-input-delta": // a hosted tool's input is not a call of the application's
        return this.hostedInputs.has(part.id) ? [] : [{ kind: "tool.arguments.delta", delta: part.delta }];
      case "tool-call": // a call the provider executed (a hosted tool) is not the application's to run
        return part.providerExecuted ? [] : [this.call(part, openai)];
      case "error":
        this.errorTold = true;
        return [{ kind: "error", code: errorCode(part.error), message: errorMessage(part.error) }];
      case "finish-step":
        this.step = part;
        return [];
      default: // stream and step bounds, tool-input-end, the tool-error that follows an invalid call
        return [];
    }
  }

  call(part, openai) {
    const ids = { item_id: openai.itemId ?? null, call_id: part.toolCallId };
    if (part.invalid) return { kind: "tool.error", ...ids, code: refusalCode(part.error), message: errorMessage(part.error) };
    const call = { kind: "tool.call", ...ids, name: part.toolName };
    if (openai.namespace != null) call.namespace = openai.namespace;
    const custom = this.declared.some((d) => d.type === "custom" && d.name === part.toolName);
    return custom
      ? { ...call, tool_type: "custom", input: part.input }
      : { ...call, tool_type: "function", arguments: part.input };
  }

  end() {
    return [{ kind: "end", status: endStatus(this.step, this.errorTold) }];
  }
}

// The code an error part's error states: an event the provider's schema refuses is a malformed
// event; otherwise the producer's code, as the SDK's provider error keeps it.
const errorCode = (error) => {
  if (error?.name === "AI_TypeValidationError") return "malformed_event";
  const code = error?.code ?? error?.data?.code ?? error?.data?.error?.code;
  return typeof code === "string" ? code : null;
};
// Why the SDK refused a call, by the error its invalid tool-call part carries: arguments that are
// not JSON, or JSON its tool's input schema refuses. Any other refusal (a call of a tool the request
// does not declare, `AI_NoSuchToolError`) has no code of the outcome vocabulary: it carries the
// error's own name, a code `observes` does not show.
const refusalCode = (error) => {
  const cause = error?.cause?.name;
  if (cause === "AI_JSONParseError") return "invalid_json";
  return cause === "AI_TypeValidationError" ? "invalid_arguments" : error?.name ?? null;
};
const errorMessage = (error) => (error instanceof Error ? error.message : String(error));

async function runVector(vector) {
  const tally = new Tally(vector.events.length);
  const openai = createOpenAI({
    apiKey: "sk-streamroute",
    baseURL: "http://streamroute.invalid/v1",
    fetch: async () =>
      new Response(body(vector.events, tally, settle), { headers: { "content-type": "text/event-stream" } }),
  });
  const parts = new Parts(vector.tools);
  const result = streamText({
    model: openai.responses("gpt-5.1"),
    prompt: "streamroute",
    tools: sdkTools(vector.tools, openai),
    maxRetries: 0,
    onError: () => {}, // the error parts of fullStream tell the application
  });
  for await (const part of result.fullStream) {
    const outcomes = parts.outcomes(part);
    if (outcomes.length > 0) tally.add(outcomes);
  }
  tally.closing();
  tally.close.push(...parts.end());
  return tally.reply();
}

serve(
  {
    name: "Vercel AI SDK streamText() (@ai-sdk/openai responses)",
    version: `${version("ai")} (@ai-sdk/openai ${version("@ai-sdk/openai")})`,
    language: "javascript",
    homepage: "https://github.com/vercel/ai",
    profiles: ["core"],
    // A call's input is read with JSON.parse (secureJsonParse, @ai-sdk/provider-utils): README.md.
    options: { arguments_parser: "platform" },
    observes: OBSERVES,
  },
  async (vector) => {
    if (vector.chunks !== undefined) {
      return { skipped: true, reason: "the SDK's SSE decoder (eventsource-parser) cannot be tapped to number its dispatches" };
    }
    return runVector(vector);
  },
);
