// streamroute adapter (spec/protocol.md, version 1) for the `openai` npm
// package's client.responses.stream(). Run from a folder where `npm install`
// put the pinned package beside this file: `node adapter.js`. Each vector is
// one request: the client's `fetch` option answers it with a Response whose
// body is the vector's stream as text/event-stream bytes, read on demand, so
// the bytes go through the SDK's SSE decoder, its Stream and its
// ResponseStream. See README.md for what it drives and how each behaviour maps.
"use strict";

const readline = require("node:readline");
const { OpenAI, APIError } = require("openai");
const { VERSION } = require("openai/version");

const IMPLEMENTATION = {
  name: "openai-node client.responses.stream()",
  version: VERSION,
  language: "javascript",
  homepage: "https://github.com/openai/openai-node",
  profiles: ["core"],
  options: {},
};

const LIFECYCLE = {
  "response.created": "created",
  "response.queued": "queued",
  "response.in_progress": "in_progress",
  "response.completed": "completed",
  "response.failed": "failed",
  "response.incomplete": "incomplete",
};
const TERMINAL = new Set(["completed", "failed", "incomplete"]);
// Handed over, and nothing for the outcome vocabulary to route: the call comes from its done item.
const SILENT = new Set([
  "response.output_item.added",
  "response.function_call_arguments.done",
  "response.custom_tool_call_input.done",
]);
// The channel deltas: outcome kind, and the fields the outcome copies from the event.
const CHANNELS = {
  "response.output_text.delta": ["text.delta", ["item_id", "output_index", "content_index", "delta"]],
  "response.output_text.done": ["text.done", ["item_id", "content_index", "text"]],
  "response.refusal.delta": ["refusal.delta", ["item_id", "content_index", "delta"]],
  "response.reasoning_text.delta": ["reasoning.delta", ["item_id", "content_index", "delta"]],
  "response.reasoning.delta": ["reasoning.delta", ["item_id", "content_index", "delta"]],
  "response.reasoning_summary_text.delta": ["reasoning.delta", ["item_id", "summary_index", "delta"]],
  "response.function_call_arguments.delta": ["tool.arguments.delta", ["item_id", "delta"]],
  "response.custom_tool_call_input.delta": ["tool.arguments.delta", ["item_id", "delta"]],
};

const field = (value, name) => (value !== null && typeof value === "object" ? value[name] ?? null : null);

// One stream's events, as the application is handed them, into outcomes: one to
// one, adding nothing (no parsing, no checking, no state but the end status).
class Translation {
  constructor() {
    this.status = null; // of the first terminal event handed over
    this.raised = false;
  }

  outcomes(event) {
    const kind = field(event, "type");
    if (kind in LIFECYCLE) return this.lifecycle(LIFECYCLE[kind], field(event, "response"));
    if (kind === "error") return [{ kind: "error", code: field(event, "code"), message: field(event, "message") }];
    if (kind in CHANNELS) {
      const [outcome, names] = CHANNELS[kind];
      return [Object.fromEntries([["kind", outcome], ...names.map((name) => [name, field(event, name)])])];
    }
    if (kind === "response.output_item.done") return this.doneItem(field(event, "item"));
    if (SILENT.has(kind)) return [];
    return [{ kind: "ignored", type: kind }];
  }

  // The error the SDK threw through its documented API: the stream is over for the application.
  error(code, message) {
    this.raised = true;
    return [{ kind: "error", code: typeof code === "string" ? code : null, message }];
  }

  end() {
    return [{ kind: "end", status: this.status ?? (this.raised ? "failed" : "truncated") }];
  }

  lifecycle(name, response) {
    const out = [{ kind: "lifecycle", event: name, response_id: field(response, "id") }];
    if (TERMINAL.has(name) && this.status === null) {
      this.status = field(response, "status") === "cancelled" ? "cancelled" : name;
    }
    const error = field(response, "error");
    if (name === "failed" && error !== null) {  // without one, the SDK hands over no error
      out.push({ kind: "error", code: field(error, "code"), message: field(error, "message") });
    }
    return out;
  }

  // The complete call, as the SDK hands it over: arguments are the text it keeps.
  doneItem(item) {
    const type = field(item, "type");
    if (type !== "function_call" && type !== "custom_tool_call") return [];
    const call = { kind: "tool.call", item_id: field(item, "id"), call_id: field(item, "call_id"), name: field(item, "name") };
    if (field(item, "namespace") !== null) call.namespace = field(item, "namespace");
    if (type === "function_call") {
      call.tool_type = "function";
      call.arguments = field(item, "arguments");
    } else {
      call.tool_type = "custom";
      call.input = field(item, "input");
    }
    return [call];
  }
}

// The outcomes of one run, each under the event the SDK was handling when it produced it:
// an event's list starts when the SDK reads that event's bytes, close's when the body ends.
class Tally {
  constructor(count) {
    this.events = [];
    this.close = [];
    this.current = null;
    this.count = count;
  }

  nextEvent() {
    this.current = [];
    this.events.push(this.current);
  }

  closing() {
    this.current = this.close;
  }

  add(outcomes) {
    if (this.current === null) throw new Error("outcomes before the SDK read any event");
    this.current.push(...outcomes);
  }

  where() {
    if (this.current === null) return "the request";
    return this.current === this.close ? "close" : `event ${this.events.length - 1}`;
  }

  reply() {
    const unread = Array.from({ length: this.count - this.events.length }, () => []);
    return { events: [...this.events, ...unread], close: this.close };
  }
}

// One event as the API sends it: an `event:` line naming its type, its JSON on a `data:` line.
function sseEvent(event) {
  const kind = field(event, "type");
  const named = typeof kind === "string" && !/[\r\n]/.test(kind);
  return new TextEncoder().encode((named ? `event: ${kind}\n` : "") + `data: ${JSON.stringify(event)}\n\n`);
}

// The response body: one event each time the SDK reads (highWaterMark 0: nothing is read ahead).
function body(events, tally) {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next < events.length) {
        tally.nextEvent();
        controller.enqueue(sseEvent(events[next++]));
      } else {
        tally.closing();
        controller.close();
      }
    },
  }, { highWaterMark: 0 });
}

async function run(vector) {
  const tally = new Tally(vector.events.length);
  const translation = new Translation();
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
    if (!(exc instanceof APIError)) {  // the SDK refused or crashed: that is the finding
      const message = `${tally.where()}: ${exc && exc.name}: ${exc && exc.message}`.replace(/\n/g, " ").slice(0, 300);
      return { errored: true, message, details: String(exc && exc.stack) };
    }
    tally.add(translation.error(exc.code, exc.message));  // the SDK's documented error: what the application is told
  }
  tally.closing();
  tally.close.push(...translation.end());
  return tally.reply();
}

async function answer(command) {
  if (command.cmd === "start") return { version: 1, implementation: IMPLEMENTATION };
  if (command.vector.chunks !== undefined) {
    return { seq: command.seq, skipped: true, reason: "the SDK's SSE decoder cannot be tapped to number its dispatches" };
  }
  return { seq: command.seq, ...(await run(command.vector)) };
}

// What the SDK logs must not reach the protocol: stdout carries replies only.
console.log = console.info = console.debug = console.error;

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
let queue = Promise.resolve(); // one command at a time, in order
lines.on("line", (line) => {
  const command = JSON.parse(line);
  queue = queue.then(async () => {
    if (command.cmd === "stop") process.exit(0);
    process.stdout.write(JSON.stringify(await answer(command)) + "\n");
  });
});
lines.on("close", () => queue.then(() => process.exit(0)));
