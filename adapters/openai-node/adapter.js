// streamroute adapter (spec/protocol.md) for the `openai` npm package's
// client.responses.stream(). Run as `node adapters/openai-node/adapter.js FOLDER`: FOLDER holds
// the node_modules of the pinned release (its package.json and package-lock.json are in the
// folder beside this file named for its version). Each vector is one request: the client's
// `fetch` option answers it with a Response whose body is the vector's stream as
// text/event-stream bytes, read on demand, so the bytes go through the SDK's SSE decoder, its
// Stream and its ResponseStream. See README.md for what it drives and how each behaviour maps.
"use strict";

const path = require("node:path");
const { createRequire } = require("node:module");
const { Translation, Tally, body, serve, errored } = require("../node-common/responses_events.js");

const installed = path.resolve(process.argv[2] ?? ".");
const fromInstalled = createRequire(path.join(installed, "package.json"));
const { OpenAI, APIError, OpenAIError } = fromInstalled("openai");
const { VERSION } = fromInstalled("openai/version");

async function run(vector) {
  const tally = new Tally(vector.events.length);
  const translation = new Translation({ textPhase: true }); // the SDK emits output_item.added, phase and all
  const client = new OpenAI({
    apiKey: "sk-streamroute",
    baseURL: "http://streamroute.invalid/v1",
    maxRetries: 0,
    fetch: async () => new Response(body(vector.events, tally), { headers: { "content-type": "text/event-stream" } }),
  });
  // The request's tools are not given: the SDK reads them only to parse strict function
  // arguments into the final response, after the stream (see README.md).
  const stream = client.responses.stream({ model: "gpt-5.1", input: "streamroute" });
  stream.on("event", (event) => tally.add(translation.outcomes(event)));
  try {
    await stream.done();
  } catch (exc) {
    // APIError is the producer's error; any other OpenAIError the SDK throwing on purpose, refusing a
    // stream it cannot accumulate (README.md): both are what the application is told. Anything else
    // (a TypeError, say) is the SDK crashing.
    if (!(exc instanceof OpenAIError)) return errored(tally.where(), exc);
    tally.add(translation.error(exc instanceof APIError ? exc.code : null, exc.message));
  }
  tally.closing();
  tally.close.push(...translation.end());
  return tally.reply();
}

serve(
  {
    name: "openai-node client.responses.stream()",
    version: VERSION,
    language: "javascript",
    homepage: "https://github.com/openai/openai-node",
    profiles: ["core"],
    // The SDK hands over the arguments' text, throws at every error event, takes only whole streams (README.md).
    // ResponseStream throws at the first inconsistency of the stream (README.md): spec/core.md 12.8.
    options: {
      call_arguments: "json_text",
      error_event: "ends_stream",
      stream_start: "response_created",
      producer_fault: "ends_stream",
    },
  },
  async (vector) => {
    if (vector.chunks !== undefined) {
      return { skipped: true, reason: "the SDK's SSE decoder cannot be tapped to number its dispatches" };
    }
    return run(vector);
  },
);
