// streamroute adapter (spec/protocol.md) for the OpenAI Agents SDK for JavaScript
// (`@openai/agents`): `run(agent, input, { stream: true })`. Run as
// `node adapters/openai-agents-js/adapter.js FOLDER [ERROR_EVENT]`: FOLDER holds the node_modules
// of one pinned release (each version's package.json and package-lock.json are in a folder beside
// this file), ERROR_EVENT is that release's `error_event` value (default ends_stream). Each vector
// is one agent run. The agent's model is the SDK's `OpenAIResponsesModel` over an `OpenAI` client
// whose `fetch` answers with the vector's stream as text/event-stream bytes; the adapter iterates
// the streamed result as an application does, and each function tool of the vector is an agent
// tool (`tool()`) that records what the SDK executes it with. See README.md.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { createRequire } = require("node:module");
const { Translation, Tally, body, serve, errored } = require("../node-common/responses_events.js");

const installed = path.resolve(process.argv[2] ?? ".");
// What the release does at an `error` event (spec/core.md 12.2), as matrix.yaml states it for each
// pinned release: 0.20.0 throws at it (openaiResponsesModel.js, `terminalError`), 0.11.2 hands it
// over and reads on.
const errorEvent = process.argv[3] ?? "ends_stream";
const fromInstalled = createRequire(path.join(installed, "package.json"));
const { OpenAI } = fromInstalled("openai");
const { z } = fromInstalled("zod");
const {
  Agent, AgentsError, MaxTurnsExceededError, OpenAIResponsesModel, run, setTracingDisabled, tool, toolNamespace,
} = fromInstalled("@openai/agents");

setTracingDisabled(true); // traces are exported over the network otherwise

// The SDK reads the model's stream in a loop of its own and queues what it hands over; the body
// reads the next event only after this many turns of the event loop, so that each outcome is
// credited to the event that produced it, not to a later one.
const SETTLE_TURNS = 64;
const settle = async () => {
  for (let turn = 0; turn < SETTLE_TURNS; turn++) await new Promise(setImmediate);
};

// What an application decides of a raw done call item (Translation.doneItem).
const DECIDED = new Set(["tool.call", "tool.error"]);

// The agent's tools, as the SDK's documentation declares them: zod `parameters` (the schema the
// vector states, as zod's own converter writes it), strict by default, which the SDK parses each
// call's input with. Each execution is the call the SDK acts on, with the input it parsed.
function tools(declared, tally) {
  const out = [];
  for (const declaration of declared) {
    const fn = tool({
      name: declaration.name,
      description: declaration.description ?? "",
      parameters: z.fromJSONSchema(declaration.parameters ?? { type: "object", properties: {} }),
      execute: async (input, context, details) => {
        const item = details?.toolCall ?? {};
        const call = { kind: "tool.call", item_id: item.id ?? null, call_id: item.callId ?? null, name: item.name ?? null };
        if (item.namespace !== undefined) call.namespace = item.namespace;
        tally.add([{ ...call, tool_type: "function", arguments: input }]);
        return "done";
      },
    });
    const namespace = declaration.namespace;
    out.push(...(namespace ? toolNamespace({ name: namespace, description: namespace, tools: [fn] }) : [fn]));
  }
  return out;
}

async function runVector(vector) {
  const tally = new Tally(vector.events.length);
  const translation = new Translation({ textPhase: true });
  const client = new OpenAI({
    apiKey: "sk-streamroute",
    baseURL: "http://streamroute.invalid/v1",
    maxRetries: 0,
    fetch: async () => new Response(body(vector.events, tally, settle), { headers: { "content-type": "text/event-stream" } }),
  });
  const agent = new Agent({
    name: "streamroute",
    model: new OpenAIResponsesModel(client, "gpt-5.1"),
    tools: tools(vector.tools, tally),
  });
  let told = false; // whether a handed-over event already told the application of an error
  try {
    const result = await run(agent, "streamroute", { stream: true, maxTurns: 1 });
    for await (const event of result) {
      if (event.type !== "raw_model_stream_event" || event.data.type !== "model") continue;
      // A call is acted on when the agent executes its tool, never at its raw done item: what an
      // application would decide of that item is the SDK's to decide.
      const seen = translation.outcomes(event.data.event).filter((outcome) => !DECIDED.has(outcome.kind));
      told = told || seen.some((outcome) => outcome.kind === "error");
      tally.add(seen);
    }
    await result.completed;
    if (result.error) throw result.error;
  } catch (exc) {
    if (exc instanceof MaxTurnsExceededError) {
      // the turn ran and its calls were executed; the SDK would now ask the model again
    } else if (exc instanceof AgentsError || exc instanceof OpenAI.APIError) {
      const raised = translation.error(exc.code ?? null, exc.message); // the SDK's documented errors end the run
      tally.add(told ? [] : raised); // raised for the error event or failed response just handed over
    } else {
      return errored(tally.where(), exc); // the SDK refused or crashed: that is the finding
    }
  }
  tally.closing();
  tally.close.push(...translation.end());
  return tally.reply();
}

serve(
  {
    name: "@openai/agents run(stream: true)",
    version: JSON.parse(fs.readFileSync(path.join(installed, "node_modules/@openai/agents/package.json"), "utf8")).version,
    language: "javascript",
    homepage: "https://github.com/openai/openai-agents-js",
    profiles: ["core"],
    // The runner runs a turn's calls once its response has completed (README.md): spec/core.md 12.7.
    options: { error_event: errorEvent, tool_call_point: "response_done" },
  },
  async (vector) => {
    if (vector.chunks !== undefined) {
      return { skipped: true, reason: "the SDK's SSE decoder (openai-node's) cannot be tapped to number its dispatches" };
    }
    if (vector.tools.some((declaration) => declaration.type === "custom")) {
      return { skipped: true, reason: "the SDK has no custom tools: a custom tool cannot be given to the agent" };
    }
    return runVector(vector);
  },
);
