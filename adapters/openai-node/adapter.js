// streamroute adapter (spec/protocol.md, version 1) for the `openai` npm
// package's accumulateResponse(event, snapshot), the accumulator behind
// client.responses.stream(). Run from a folder where `npm install` put the
// pinned package beside this file: `node adapter.js`. See README.md for the
// mapping and for what the library does not offer.
"use strict";

const readline = require("node:readline");
const { accumulateResponse } = require("openai/lib/responses/ResponseAccumulator");
const { VERSION } = require("openai/version");

const IMPLEMENTATION = {
  name: "openai-node accumulateResponse",
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
// Accepted by the accumulator, and nothing for the outcome vocabulary to route.
const SILENT = new Set([
  "response.output_item.added",
  "response.function_call_arguments.done",
  "response.custom_tool_call_input.done",
]);

class Adapter {
  constructor() {
    this.snapshot = undefined;
    this.status = null;
  }

  // The event, once the accumulator has taken it (it throws on what it refuses).
  feed(event) {
    this.snapshot = accumulateResponse(event, this.snapshot);
    const type = event.type;
    const s = this.snapshot;
    if (type in LIFECYCLE) {
      const name = LIFECYCLE[type];
      const out = [{ kind: "lifecycle", event: name, response_id: s.id ?? null }];
      if (["completed", "failed", "incomplete"].includes(name) && this.status === null) {
        this.status = s.status === "cancelled" ? "cancelled" : name;
      }
      if (name === "failed" && s.error) {  // without one, the snapshot holds no error
        out.push({ kind: "error", code: s.error.code ?? null, message: s.error.message });
      }
      return out;
    }
    switch (type) {
      case "error":
        return [{ kind: "error", code: event.code ?? null, message: event.message }];
      case "response.output_text.delta":
        return [{ kind: "text.delta", item_id: event.item_id, output_index: event.output_index,
                  content_index: event.content_index, delta: event.delta }];
      case "response.output_text.done":
        return [{ kind: "text.done", item_id: event.item_id, content_index: event.content_index,
                  text: event.text }];
      case "response.refusal.delta":
        return [{ kind: "refusal.delta", item_id: event.item_id, content_index: event.content_index,
                  delta: event.delta }];
      case "response.reasoning_text.delta":
        return [{ kind: "reasoning.delta", item_id: event.item_id, content_index: event.content_index,
                  delta: event.delta }];
      case "response.reasoning_summary_text.delta":
        return [{ kind: "reasoning.delta", item_id: event.item_id, summary_index: event.summary_index,
                  delta: event.delta }];
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta":
        return [{ kind: "tool.arguments.delta", item_id: event.item_id, delta: event.delta }];
      case "response.output_item.done":
        return this.doneItem(s.output[event.output_index]);
    }
    if (SILENT.has(type)) return [];
    return [{ kind: "ignored", type }];
  }

  // The complete call as the snapshot holds it: arguments stay the string the library keeps.
  doneItem(item) {
    if (!item || (item.type !== "function_call" && item.type !== "custom_tool_call")) return [];
    const call = { kind: "tool.call", item_id: item.id, call_id: item.call_id, name: item.name };
    if (item.namespace !== undefined && item.namespace !== null) call.namespace = item.namespace;
    if (item.type === "function_call") {
      call.tool_type = "function";
      call.arguments = item.arguments;
    } else {
      call.tool_type = "custom";
      call.input = item.input;
    }
    return [call];
  }

  // The library has no close: the end status is the first terminal event it accepted.
  close() {
    return [{ kind: "end", status: this.status ?? "truncated" }];
  }
}

function run(seq, vector) {
  const adapter = new Adapter();
  const events = [];
  let where = "";
  try {
    vector.events.forEach((event, index) => {
      where = `event ${index}`;
      events.push(adapter.feed(event));
    });
    where = "close";
    return { seq, events, close: adapter.close() };
  } catch (exc) {
    const message = `${where}: ${exc && exc.name}: ${exc && exc.message}`.replace(/\n/g, " ").slice(0, 300);
    return { seq, errored: true, message, details: String(exc && exc.stack) };
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  const command = JSON.parse(line);
  let reply;
  if (command.cmd === "stop") {
    lines.close();
    return;
  } else if (command.cmd === "start") {
    reply = { version: 1, implementation: IMPLEMENTATION };
  } else if (command.vector.chunks !== undefined) {
    reply = { seq: command.seq, skipped: true, reason: "the adapter claims core only" };
  } else {
    reply = run(command.seq, command.vector);
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
