// The streamroute adapter protocol (spec/protocol.md) around router.js.
//
// One JSON command per line on stdin, one JSON reply per line on stdout;
// logs go to stderr. Run it with `streamroute run --adapter-command "node adapter.js"`.
"use strict";

const readline = require("node:readline");
const { PROTOCOL_VERSION } = require("../node-common/protocol.js");
const { Router } = require("./router.js");

const IMPLEMENTATION = {
  name: "streamroute-node-example",
  version: "1.0.0",
  language: "javascript",
  profiles: ["core"],
  options: { tool_call_point: "output_item_done" },
};

function run(seq, vector) {
  try {
    const router = new Router();
    const events = vector.events.map((event) => router.feed(event));
    return { seq, events, close: router.close() };
  } catch (exc) {
    return { seq, errored: true, message: String(exc), details: String(exc && exc.stack) };
  }
}

function answer(command) {
  switch (command.cmd) {
    case "start":
      // Answer the version spoken here; the harness refuses a mismatch.
      return { version: PROTOCOL_VERSION, implementation: IMPLEMENTATION };
    case "run":
      return run(command.seq, command.vector);
    case "stop":
      return null;
    default:
      throw new Error(`unknown command ${JSON.stringify(command.cmd)}`);
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  const reply = answer(JSON.parse(line));
  if (reply === null) {
    lines.close();
    return;
  }
  // JSON.stringify escapes lone surrogates, so the line is valid UTF-8 whatever the strings hold.
  process.stdout.write(JSON.stringify(reply) + "\n");
});
