// What the JavaScript library adapters share (spec/protocol.md), for libraries that
// hand their application the Responses API's own events: `Translation` maps each event to
// outcomes one to one, adding nothing; `Tally` puts each outcome under the event the library
// was handling when it produced it; `body` is the fake HTTP response body, one event per
// read; `serve` answers the protocol's commands on stdin. Node.js built-ins only: the library
// under test is installed in a folder of its own, which the adapter requires it from.
"use strict";

const readline = require("node:readline");
const { PROTOCOL_VERSION } = require("./protocol.js");

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

// One stream's events, as the application is handed them, into outcomes: one to one, adding
// nothing (no parsing, no checking, no state but the end status and the messages' phases) but the
// application's own decision whether to run a done call item (`doneItem`), which a raw SDK
// leaves to its application.
// `textPhase` says whether each text outcome carries the `phase` its message's
// output_item.added stated (spec/core.md, CORE-TEXT-9); each adapter states its own value.
class Translation {
  constructor({ textPhase }) {
    this.status = null; // of the first terminal event handed over
    this.errorTold = false;  // an error event was emitted, or an APIError thrown: the end is failed
    this.phases = textPhase ? new Map() : null;  // each message's `phase`, by item id
  }

  outcomes(event) {
    const kind = field(event, "type");
    if (kind in LIFECYCLE) return this.lifecycle(LIFECYCLE[kind], field(event, "response"));
    if (kind === "error") {
      this.errorTold = true;
      return [{ kind: "error", code: field(event, "code"), message: field(event, "message") }];
    }
    if (kind in CHANNELS) {
      const [outcome, names] = CHANNELS[kind];
      const out = Object.fromEntries([["kind", outcome], ...names.map((name) => [name, field(event, name)])]);
      const phase = outcome.startsWith("text.") ? this.phases?.get(field(event, "item_id")) : undefined;
      if (phase !== undefined) out.phase = phase;  // the item's label, on its text
      return [out];
    }
    if (kind === "response.output_item.added") return this.addedItem(field(event, "item"));
    if (kind === "response.output_item.done") return this.doneItem(field(event, "item"));
    if (SILENT.has(kind)) return [];
    return [{ kind: "ignored", type: kind }];
  }

  // The error the SDK threw through its documented API: the stream is over for the application.
  error(code, message) {
    this.errorTold = true;
    return [{ kind: "error", code: typeof code === "string" ? code : null, message }];
  }

  end() {
    return [{ kind: "end", status: this.status ?? (this.errorTold ? "failed" : "truncated") }];
  }

  lifecycle(name, response) {
    const out = [{ kind: "lifecycle", event: name, response_id: field(response, "id") }];
    if (TERMINAL.has(name) && this.status === null) {
      this.status = field(response, "status") === "cancelled" ? "cancelled" : name;
    }
    if (name === "failed") {  // the failure the SDK hands over, with its error object or without
      const error = field(response, "error");
      const message = error === null ? "the response failed and states no error" : field(error, "message");
      out.push({ kind: "error", code: field(error, "code"), message });
    }
    return out;
  }

  // An item starts: nothing to route; a message's string `phase` is kept for its text.
  addedItem(item) {
    if (this.phases !== null && field(item, "type") === "message" && typeof field(item, "phase") === "string") {
      this.phases.set(field(item, "id"), field(item, "phase"));
    }
    return [];
  }

  // A done call item, decided as an application reading its documented fields decides it: a call
  // the item states whole (call id, name, arguments or input) and does not mark `status:
  // incomplete` is run, its arguments the text the SDK keeps; any other is refused as incomplete,
  // never run (CORE-CALL-5).
  doneItem(item) {
    const type = field(item, "type");
    if (type !== "function_call" && type !== "custom_tool_call") return [];
    const ids = { item_id: field(item, "id"), call_id: field(item, "call_id") };
    const source = field(item, type === "function_call" ? "arguments" : "input");
    if (field(item, "status") === "incomplete" || [ids.call_id, field(item, "name"), source].includes(null)) {
      return [{ kind: "tool.error", ...ids, code: "incomplete", message: "the call item is incomplete: the application does not run it" }];
    }
    const call = { kind: "tool.call", ...ids, name: field(item, "name") };
    if (field(item, "namespace") !== null) call.namespace = field(item, "namespace");
    if (type === "function_call") {
      call.tool_type = "function";
      call.arguments = source;
    } else {
      call.tool_type = "custom";
      call.input = source;
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

// The response body: one event each time the library reads (highWaterMark 0: nothing is read
// ahead). `settle`, when given, is awaited before each event after the first: for a library that
// hands over what it read from a queue of its own, it lets what the last event produced reach
// the application before the next event is read.
function body(events, tally, settle = null) {
  let next = 0;
  return new ReadableStream({
    async pull(controller) {
      if (settle !== null && next > 0) await settle();
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

// The reply for an error the library threw that is not one of its documented ones, at `where`.
function errored(where, exc) {
  const message = `${where}: ${exc && exc.name}: ${exc && exc.message}`.replace(/\n/g, " ").slice(0, 300);
  return { errored: true, message, details: String(exc && exc.stack) };
}

// Answer each command on stdin with one line on stdout, one at a time and in order. `run(vector)`
// returns the reply for a vector (what it throws errors the vector); what the library logs must
// not reach the protocol.
function serve(implementation, run) {
  console.log = console.info = console.debug = console.warn = console.error;
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let queue = Promise.resolve();
  lines.on("line", (line) => {
    const command = JSON.parse(line);
    queue = queue.then(async () => {
      if (command.cmd === "stop") process.exit(0);
      if (command.cmd === "start") {
        process.stdout.write(JSON.stringify({ version: PROTOCOL_VERSION, implementation }) + "\n");
        return;
      }
      let reply;
      try {
        reply = await run(command.vector);
      } catch (exc) {
        reply = errored("the run", exc);
      }
      process.stdout.write(JSON.stringify({ seq: command.seq, ...reply }) + "\n");
    });
  });
  lines.on("close", () => queue.then(() => process.exit(0)));
}

module.exports = { Translation, Tally, body, serve, errored };
