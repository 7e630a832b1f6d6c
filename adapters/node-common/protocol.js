// The adapter protocol version (spec/protocol.md), read at start-up from its one source: the
// start command's schema, spec/protocol-start.schema.json, found relative to this file.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const START_SCHEMA = path.join(__dirname, "..", "..", "spec", "protocol-start.schema.json");
const PROTOCOL_VERSION = JSON.parse(fs.readFileSync(START_SCHEMA, "utf8")).$defs.version.const;

module.exports = { PROTOCOL_VERSION };
