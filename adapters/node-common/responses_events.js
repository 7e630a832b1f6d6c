// What the JavaScript library adapters share (spec/protocol.md), for libraries that
// hand their application the Responses API's own events: `Translation` maps each event to
// outcomes one to one, adding nothing; `Tally` puts each outcome under the event the library
// was handling when it produced it; `body` is the fake HTTP response body, one event per
// read; `serve` answers the protocol's commands on stdin. Node.js built-ins only: the library
// under test is installed in a folder of its own, which the adapter requires it from.
"use strict";

const readline = require("node:readline");
const { PROTOCOL_VERSION } = require("./protocol.js");

// The tables this module shares with ../responses_events.py, in one file both read.
const TABLES = require("../responses_events.json");
const LIFECYCLE = TABLES.lifecycle;
const TERMINAL = new Set(TABLES.terminal);
// Handed over, and nothing for the outcome vocabulary to route: the call comes from its done item.
const SILENT = new Set(TABLES.silent);
// The channel deltas: outcome kind, and the fields the outcome copies from the event.
const CHANNELS = TABLES.channels;

// What an application handed the API's own events is shown (spec/observation.md): every outcome
// `Translation` reads off them, with each field it copies, and no `tool.error`. An SDK that hands
// the events over has no notice of its own for a call it does not hand over to run: a done item the
// producer marked incomplete (the application decides that, `doneItem`), a call still open when the
// response ends (the terminal event tells the application the response is over). An agent SDK that
// runs the calls itself has none either, for a call it does not run.
const OBSERVES = TABLES.observes;

const field = (value, name) => (value !== null && typeof value === "object" ? value[name] ?? null : null);

// One stream's events, as the application is handed them, into outcomes: one to one, adding
// nothing (no parsing, no checking, no state but the end status and the messages' labels) but the
// application's own decision whether to run a done call item (`doneItem`), which a raw SDK
// leaves to its application.
// `textLabels` says whether each text outcome carries the labels its message's
// output_item.added stated: its `phase` (CORE-TEXT-9) and the name of its `agent` (CORE-TEXT-12);
// each adapter states its own value.
class Translation {
  constructor({ textLabels }) {
    this.status = null; // of the first terminal event handed over
    this.errorTold = false;  // an error event was emitted, or an APIError thrown: the end is failed
    this.labels = textLabels ? new Map() : null;  // each message's labels, by item id
  }

  outcomes(event) {
    const kind = field(event, "type");
    // No type the tables name (`in` would look an array up by its text): shown as it came.
    if (typeof kind !== "string") return [{ kind: "ignored", type: kind }];
    if (kind in LIFECYCLE) return this.lifecycle(LIFECYCLE[kind], field(event, "response"));
    if (kind === "error") {
      this.errorTold = true;
      return [{ kind: "error", code: field(event, "code"), message: field(event, "message") }];
    }
    if (kind in CHANNELS) {
      const [outcome, names] = CHANNELS[kind];
      const out = Object.fromEntries([["kind", outcome], ...names.map((name) => [name, field(event, name)])]);
      if (outcome.startsWith("text.")) Object.assign(out, this.labels?.get(field(event, "item_id")));  // the item's labels, on its text
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

  // An item starts: nothing to route; a message's string `phase`, and the string `agent_name` of
  // its `agent`, are kept for its text.
  addedItem(item) {
    if (this.labels !== null && field(item, "type") === "message") {
      const found = { phase: field(item, "phase"), agent: field(field(item, "agent"), "agent_name") };
      this.labels.set(field(item, "id"), Object.fromEntries(Object.entries(found).filter(([, value]) => typeof value === "string")));
    }
    return [];
  }

  // A done call item, decided as an application reading its documented fields decides it: a call
  // the item states whole (call id, name, arguments or input) and does not mark `status:
  // incomplete` is run, its arguments the text the SDK keeps; any other is not (CORE-CALL-5), and
  // produces nothing the SDK shows (OBSERVES).
  doneItem(item) {
    const type = field(item, "type");
    if (type !== "function_call" && type !== "custom_tool_call") return [];
    const ids = { item_id: field(item, "id"), call_id: field(item, "call_id") };
    const source = field(item, type === "function_call" ? "arguments" : "input");
    if (field(item, "status") === "incomplete" || [ids.call_id, field(item, "name"), source].includes(null)) return [];
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

// The tool types of a vector's registry whose calls the client runs; any other is a server tool
// (vector.schema.json `$defs/server_tool`), which the request declares and the server runs.
const CLIENT_TOOL_TYPES = new Set(["function", "custom"]);
const clientTools = (declared) => declared.filter((tool) => CLIENT_TOOL_TYPES.has(tool.type));
const serverTools = (declared) => new Set(declared.filter((tool) => !CLIENT_TOOL_TYPES.has(tool.type)).map((tool) => tool.type));

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

module.exports = { OBSERVES, Translation, Tally, body, serve, errored, clientTools, serverTools };
