// A streamroute `core` router in plain JavaScript (no dependencies).
//
// It follows spec/core.md: feed(event) takes one decoded event and returns
// the outcomes it causes, close() ends the stream. Requirement ids in the
// comments (CORE-...) point at the rule each piece implements. Tool calls
// fire at the call's output_item.done (the canonical tool_call_point).
//
// State: the stream is open until the first terminal event; each announced
// output item is an entry of `items`, keyed by its id, holding its text parts
// and, for calls, the argument deltas and the complete text that gives them.
// A handler checks every field it reads before it looks up the event's item
// (CORE-EVT-8) and before changing any state: a bad field throws a Violation,
// which becomes one `error` outcome.
"use strict";

const CALL_TYPES = new Map([
  ["function_call", "function"],
  ["custom_tool_call", "custom"],
]);
// The field carrying a call's complete text, in its `.done` event and its item.
const COMPLETE_FIELD = new Map([
  ["function_call", "arguments"],
  ["custom_tool_call", "input"],
]);
const TERMINAL = new Set(["response.completed", "response.failed", "response.incomplete"]);

class Violation extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// -- reading fields: each returns a value of the promised type or throws ----

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

function typeName(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function malformed(field, wanted, value) {
  return new Violation("malformed_event", `field '${field}' must be ${wanted}, got ${typeName(value)}`);
}

function requiredString(obj, field, where = "") {
  const value = obj[field];
  if (typeof value !== "string") throw malformed(where + field, "a string", value);
  return value;
}

function optionalString(obj, field, where = "") {
  const value = obj[field];
  if (value !== undefined && value !== null && typeof value !== "string") {
    throw malformed(where + field, "a string", value);
  }
  return typeof value === "string" ? value : null;
}

function optionalIndex(obj, field) {
  const value = obj[field];
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || value < 0) throw malformed(field, "a non-negative integer", value);
  return value;
}

function requiredObject(obj, field) {
  const value = obj[field];
  if (!isObject(value)) throw malformed(field, "an object", value);
  return value;
}

function optionalObject(obj, field) {
  const value = obj[field];
  if (value !== undefined && value !== null && !isObject(value)) throw malformed(field, "an object", value);
  return isObject(value) ? value : null;
}

const error = (code, message) => ({ kind: "error", code, message });
// A text outcome with its message's labels, phase and agent, when the message states them
// (CORE-TEXT-9, CORE-TEXT-12).
// The `agent_name` of an item's `agent`, when it is an object that names one (CORE-TEXT-12).
const agentName = (agent) =>
  agent !== null && typeof agent === "object" && typeof agent.agent_name === "string" ? agent.agent_name : null;

const withLabels = (outcome, item) => {
  const labels = {};
  if (item.phase !== null) labels.phase = item.phase;
  if (item.agent !== null) labels.agent = item.agent;
  return { ...outcome, ...labels };
};

// -- text: deltas until done, then its complete text -------------------------

const MAX_BUFFERED_BYTES = 1 << 20; // CORE-LIMIT-1, CORE-LIMIT-3
const MAX_ARGUMENTS_DEPTH = 128; // CORE-LIMIT-2

// Texts are compared as a UTF-8 decoder makes each string: a lone surrogate is U+FFFD
// (CORE-TEXT-8), as String.prototype.toWellFormed (Node.js 20) makes it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const wellFormed = (text) => text.replace(LONE_SURROGATE, "\uFFFD");
const sameText = (one, other) => one === other || wellFormed(one) === wellFormed(other);

class Part {
  constructor() {
    this.deltas = []; // each as CORE-TEXT-8 compares it
    this.done = false;
    this.complete = null;
    this.size = 0; // UTF-8 bytes of the buffered deltas, a lone surrogate as 3 (CORE-LIMIT-4)
    this.dropped = false; // they passed the limit: nothing is buffered any more
  }

  // Buffer a delta; false when it takes the buffer past the limit, which drops it for good.
  append(delta) {
    this.size += Buffer.byteLength(delta, "utf8"); // U+FFFD for a lone surrogate: 3 bytes
    if (this.size > MAX_BUFFERED_BYTES) {
      this.deltas = [];
      this.dropped = true;
      return false;
    }
    this.deltas.push(wellFormed(delta));
    return true;
  }

  // A complete source against the deltas received (CORE-ARGS-6, CORE-TEXT-2), which it drops.
  check(complete, what) {
    if (this.deltas.length === 0) return [];
    const joined = this.deltas.join("");
    this.deltas = [];
    if (joined === wellFormed(complete)) return [];
    return [error("done_mismatch", `${what} ${JSON.stringify(complete)} disagrees with its deltas ${JSON.stringify(joined)}`)];
  }
}

// Whether more than `limit` `[` and `{` are open at once in JSON text, strings aside
// (CORE-LIMIT-2): one pass, constant memory.
function nestsDeeper(text, limit) {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      // to the closing quote, past escaped characters; an unterminated string runs to the end
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (c === "[" || c === "{") {
      if (++depth > limit) return true;
    } else if ((c === "]" || c === "}") && depth > 0) {
      depth--;
    }
  }
  return false;
}

// JSON text (RFC 8259) with the two rules of I-JSON (RFC 7493) that parsers disagree on: a
// member name stated twice in one object (CORE-CALL-10) and a number no binary64 holds
// (CORE-CALL-11) are errors. JSON.parse would keep the last member and read 1e999 as
// Infinity. Recursion is bounded: the text nests at most MAX_ARGUMENTS_DEPTH levels.
const JSON_STRING = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;
const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const JSON_SPACE = /[ \t\n\r]*/y;
const JSON_LITERALS = new Map([["true", true], ["false", false], ["null", null]]);

function parseStrictJson(text) {
  let at = 0;
  const fail = (what) => {
    throw new SyntaxError(`${what} at position ${at}`);
  };
  const token = (pattern) => {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (match === null) return null;
    at = pattern.lastIndex;
    return match[0];
  };
  const space = () => token(JSON_SPACE);
  const expect = (char) => {
    space();
    if (text[at] !== char) fail(`expected '${char}'`);
    at++;
  };
  const string = () => {
    const literal = token(JSON_STRING);
    if (literal === null) fail("expected a string");
    return JSON.parse(literal);
  };
  const value = () => {
    space();
    const c = text[at];
    if (c === "{") {
      at++;
      const members = new Map();
      space();
      if (text[at] === "}") {
        at++;
        return {};
      }
      do {
        space();
        const name = string();
        if (members.has(name)) fail(`the member name ${JSON.stringify(name)} appears twice in one object`);
        expect(":");
        members.set(name, value());
        space();
      } while (text[at] === "," && ++at);
      expect("}");
      return Object.fromEntries(members); // own properties, "__proto__" included
    }
    if (c === "[") {
      at++;
      const items = [];
      space();
      if (text[at] === "]") {
        at++;
        return items;
      }
      do items.push(value());
      while ((space(), text[at] === ",") && ++at);
      expect("]");
      return items;
    }
    if (c === '"') return string();
    const number = token(JSON_NUMBER);
    if (number !== null) {
      const parsed = Number(number);
      if (!Number.isFinite(parsed)) fail(`the number ${number.slice(0, 20)} is beyond the range of a binary64`);
      return parsed;
    }
    for (const [name, literal] of JSON_LITERALS) {
      if (text.startsWith(name, at)) {
        at += name.length;
        return literal;
      }
    }
    return fail("expected a JSON value");
  };
  const parsed = value();
  space();
  if (at !== text.length) fail("unexpected text after the value");
  return parsed;
}

function parseArguments(text) {
  if (nestsDeeper(text, MAX_ARGUMENTS_DEPTH)) {
    return { code: "too_deep", message: `arguments nest deeper than ${MAX_ARGUMENTS_DEPTH} levels` };
  }
  // CORE-CALL-3: JSON text, an object.
  let value;
  try {
    value = parseStrictJson(text);
  } catch (exc) {
    return { code: "invalid_json", message: `arguments are not valid JSON: ${exc.message}` };
  }
  if (!isObject(value)) {
    return { code: "invalid_arguments", message: `arguments must be a JSON object, got ${typeName(value)}` };
  }
  return { value };
}

// -- the router --------------------------------------------------------------

class Router {
  constructor() {
    this.eventsSeen = 0;
    this.items = new Map(); // id -> item, in announcement order
    this.itemAtOutputIndex = new Map();
    this.itemWithCallId = new Map();
    this.calledIds = new Set();
    this.endStatus = null; // set by the first terminal event
    this.errorSeen = false;
    this.closed = false;
  }

  feed(event) {
    if (this.closed) return []; // CORE-LIFE-5: end was the last outcome
    const index = this.eventsSeen++;
    try {
      if (!isObject(event)) {
        throw new Violation("malformed_event", `an event must be an object, got ${typeName(event)}`);
      }
      const type = requiredString(event, "type"); // CORE-EVT-1
      if (this.endStatus !== null) {
        throw new Violation("event_after_terminal", `${type} after the terminal event`); // CORE-LIFE-4
      }
      const route = ROUTES.get(type);
      if (route) return route.call(this, event);
      // Unknown, vendor-prefixed (`acme:...`) and unrouted types alike (CORE-EVT-3, -4, -5).
      return [{ kind: "ignored", type }];
    } catch (exc) {
      if (!(exc instanceof Violation)) throw exc;
      return [error(exc.code, `event ${index}: ${exc.message}`)]; // CORE-EVT-2
    }
  }

  close() {
    if (this.closed) return [];
    this.closed = true;
    const outcomes = this.failOpenCalls(); // CORE-CALL-6
    const status = this.endStatus ?? (this.errorSeen ? "failed" : "truncated");
    outcomes.push({ kind: "end", status }); // CORE-LIFE-5
    return outcomes;
  }

  // -- lifecycle and errors ---------------------------------------------------

  lifecycle(event) {
    const response = optionalObject(event, "response") ?? {};
    const responseId = optionalString(response, "id", "response.");
    const status = optionalString(response, "status", "response."); // CORE-LIFE-6: on every lifecycle event
    const name = event.type.slice("response.".length);
    const outcomes = [{ kind: "lifecycle", event: name, response_id: responseId }]; // CORE-LIFE-1
    if (!TERMINAL.has(event.type)) return outcomes;
    if (event.type === "response.failed") {
      // CORE-LIFE-3: a failure is never swallowed.
      const failure = optionalObject(response, "error") ?? {};
      const code = optionalString(failure, "code", "response.error.");
      const message = optionalString(failure, "message", "response.error.");
      outcomes.push(error(code, message || "the response failed"));
    }
    this.endStatus = status === "cancelled" ? "cancelled" : name; // CORE-LIFE-2
    return outcomes.concat(this.failOpenCalls());
  }

  errorEvent(event) {
    // CORE-ERR-1: flat (OpenAI) or nested (Open Responses); not terminal. An `error` that is
    // present and not null is the nested shape, and must be an object (CORE-ERR-2).
    const nested = optionalObject(event, "error");
    const [source, where] = nested !== null ? [nested, "error."] : [event, ""];
    const message = requiredString(source, "message", where);
    const code = optionalString(source, "code", where);
    this.errorSeen = true;
    return [error(code, message)];
  }

  // -- items -----------------------------------------------------------------

  // An item's identity as an event states it (CORE-ITEM-1), every field routing reads
  // checked (CORE-ITEM-9); the caller registers it.
  announce(item, event) {
    const id = requiredString(item, "id", "item.");
    const type = requiredString(item, "type", "item.");
    const outputIndex = optionalIndex(event, "output_index") ?? this.items.size;
    return {
      id,
      type,
      outputIndex,
      callId: optionalString(item, "call_id", "item."),
      name: optionalString(item, "name", "item."),
      namespace: optionalString(item, "namespace", "item."),
      status: optionalString(item, "status", "item."), // read at done only
      phase: typeof item.phase === "string" ? item.phase : null, // CORE-TEXT-9: a label, never checked
      agent: agentName(item.agent), // CORE-TEXT-12: a label too
      done: false,
      resolved: false,
      parts: new Map(),
      arguments: new Part(),
    };
  }

  register(item) {
    this.items.set(item.id, item);
    this.itemAtOutputIndex.set(item.outputIndex, item);
    if (item.callId !== null) this.itemWithCallId.set(item.callId, item);
  }

  itemAdded(event) {
    const item = this.announce(requiredObject(event, "item"), event);
    if (this.items.has(item.id)) {
      throw new Violation("duplicate_event", `item '${item.id}' was already announced`); // CORE-ITEM-5
    }
    this.register(item);
    return [];
  }

  itemDone(event) {
    const done = requiredObject(event, "item");
    const stated = this.announce(done, event);
    const completeField = COMPLETE_FIELD.get(stated.type);
    const complete = completeField ? optionalString(done, completeField, "item.") : null;
    let item = this.items.get(stated.id);
    if (item === undefined) {
      item = stated; // CORE-ITEM-6: a done item announces itself
      this.register(item);
    } else if (item.type !== stated.type) {
      throw new Violation("item_type_mismatch", `item '${item.id}' was announced as ${item.type}, done as ${stated.type}`); // CORE-ITEM-4
    } else if (item.done) {
      throw new Violation("duplicate_event", `item '${item.id}' is already done`); // CORE-CALL-1
    }
    item.done = true;
    if (!CALL_TYPES.has(item.type)) return [];
    let outcomes = [];
    for (const [field, name] of [["callId", "call_id"], ["name", "name"], ["namespace", "namespace"]]) {
      // CORE-CALL-17: what the done item states is the call's, as the conversation keeps it.
      if (stated[field] === null) continue;
      if (field !== "callId" && item[field] !== null && stated[field] !== item[field]) {
        // CORE-CALL-18: another tool than the previews showed; a restated call id is none (CORE-CALL-19)
        outcomes.push(error("done_mismatch", `done item states ${name} '${stated[field]}', not '${item[field]}'`));
      }
      item[field] = stated[field];
      if (field === "callId" && !this.itemWithCallId.has(stated.callId)) {
        this.itemWithCallId.set(stated.callId, item);
      }
    }
    if (complete !== null) {
      outcomes = outcomes.concat(this.completeArguments(item, complete, `the done item's ${completeField}`));
    }
    item.arguments.done = true;
    if (stated.status === "incomplete") {
      return outcomes.concat(this.resolveAsError(item, "incomplete", "the call item is incomplete")); // CORE-CALL-5
    }
    return outcomes.concat(this.resolve(item)); // CORE-CALL-2
  }

  // The item an item event belongs to (CORE-ITEM-2, CORE-ITEM-3, CORE-ITEM-4, CORE-ITEM-8).
  findItem(event, itemType) {
    const itemId = optionalString(event, "item_id");
    const outputIndex = optionalIndex(event, "output_index");
    const customInput = CUSTOM_INPUT_EVENTS.has(event.type);
    const callId = customInput ? optionalString(event, "call_id") : null;
    let item;
    if (itemId !== null) {
      item = this.items.get(itemId);
      if (item === undefined) throw new Violation("unknown_item", `item '${itemId}' was never announced`);
    } else if (callId !== null) {
      item = this.itemWithCallId.get(callId);
      if (item === undefined) throw new Violation("unknown_item", `no item was announced with call_id '${callId}'`);
    } else if (outputIndex !== null) {
      item = this.itemAtOutputIndex.get(outputIndex);
      if (item === undefined) {
        throw new Violation("unknown_item", `no item was announced at output_index ${outputIndex}`);
      }
    } else {
      const ids = customInput ? "item_id, call_id nor output_index" : "item_id nor output_index";
      throw new Violation("malformed_event", `the event has neither ${ids}`); // never a guess
    }
    if (item.type !== itemType) {
      throw new Violation("item_type_mismatch", `${event.type} does not apply to ${item.type} item '${item.id}'`);
    }
    return item;
  }

  part(item, contentIndex) {
    if (!item.parts.has(contentIndex)) item.parts.set(contentIndex, new Part());
    return item.parts.get(contentIndex);
  }

  // -- channels --------------------------------------------------------------

  textDelta(event) {
    const contentIndex = optionalIndex(event, "content_index") ?? 0; // CORE-ITEM-7
    const delta = requiredString(event, "delta");
    const item = this.findItem(event, "message");
    const part = this.part(item, contentIndex);
    if (part.done || item.done) {
      throw new Violation("late_delta", `text delta after part ${contentIndex} of '${item.id}' was done`); // CORE-TEXT-6
    }
    const outcomes = [
      withLabels(
        {
          kind: "text.delta",
          item_id: item.id,
          output_index: item.outputIndex, // the item's, whatever the event states (CORE-ITEM-16)
          content_index: contentIndex,
          delta,
        },
        item,
      ),
    ]; // CORE-TEXT-1
    if (!part.dropped && !part.append(delta)) {
      // CORE-LIMIT-3: shown, but no longer compared
      outcomes.push(error("too_large", `part ${contentIndex} of '${item.id}' passes ${MAX_BUFFERED_BYTES} bytes: not compared`));
    }
    return outcomes;
  }

  textDone(event) {
    const contentIndex = optionalIndex(event, "content_index") ?? 0;
    const text = requiredString(event, "text");
    const item = this.findItem(event, "message");
    const part = this.part(item, contentIndex);
    if (part.done || item.done) {
      throw new Violation("duplicate_event", `part ${contentIndex} of '${item.id}' is already done`); // CORE-TEXT-7
    }
    part.done = true;
    const outcomes = part.check(text, "output_text.done text"); // CORE-TEXT-2
    outcomes.push(withLabels({ kind: "text.done", item_id: item.id, content_index: contentIndex, text }, item));
    return outcomes;
  }

  refusalDelta(event) {
    const contentIndex = optionalIndex(event, "content_index") ?? 0;
    const delta = requiredString(event, "delta");
    const item = this.findItem(event, "message");
    const part = item.parts.get(contentIndex); // CORE-TEXT-6: a part is its index, whatever the channel
    if (item.done || (part !== undefined && part.done)) {
      throw new Violation("late_delta", `refusal delta after part ${contentIndex} of '${item.id}' was done`);
    }
    return [{ kind: "refusal.delta", item_id: item.id, content_index: contentIndex, delta }]; // CORE-TEXT-4
  }

  reasoningDelta(event) {
    const indexField = event.type.includes("summary") ? "summary_index" : "content_index";
    const index = optionalIndex(event, indexField) ?? 0;
    const delta = requiredString(event, "delta");
    const item = this.findItem(event, "reasoning");
    if (item.done) throw new Violation("late_delta", `reasoning delta after item '${item.id}' was done`);
    return [{ kind: "reasoning.delta", item_id: item.id, [indexField]: index, delta }]; // CORE-TEXT-5
  }

  // -- arguments and calls ---------------------------------------------------

  argumentsDelta(event) {
    const delta = requiredString(event, "delta");
    const item = this.findItem(event, CALL_ITEM_OF.get(event.type));
    if (item.arguments.done) {
      throw new Violation("late_delta", `delta after the arguments of '${item.id}' were complete`); // CORE-ARGS-4
    }
    const args = item.arguments;
    if (args.dropped) throw new Violation("too_large", `delta dropped: the arguments of '${item.id}' passed the limit`);
    if (!args.append(delta)) {
      // CORE-LIMIT-1: the call can never run
      return this.resolveAsError(item, "too_large", `the arguments of '${item.id}' pass ${MAX_BUFFERED_BYTES} bytes`);
    }
    // CORE-ARGS-1, CORE-ARGS-2, CORE-ARGS-3: buffered
    return [{ kind: "tool.arguments.delta", item_id: item.id, delta }];
  }

  argumentsDone(event) {
    const itemType = CALL_ITEM_OF.get(event.type);
    const completeField = COMPLETE_FIELD.get(itemType);
    const complete = requiredString(event, completeField);
    const item = this.findItem(event, itemType);
    if (item.arguments.done) {
      throw new Violation("duplicate_event", `the arguments of '${item.id}' are already complete`); // CORE-ARGS-7
    }
    item.arguments.done = true;
    // Canonically nothing fires here: the call waits for its done item (CORE-CALL-2).
    return this.completeArguments(item, complete, `${event.type} ${completeField}`);
  }

  // One complete source of a call's text (CORE-ARGS-5, CORE-ARGS-6): the first is compared
  // with the deltas, the done item with the .done, and the done item's text stands.
  completeArguments(item, complete, what) {
    const args = item.arguments;
    const stated = args.complete;
    args.complete = complete;
    if (stated === null) return args.check(complete, what);
    if (!sameText(complete, stated)) {
      return [error("done_mismatch", `${what} ${JSON.stringify(complete)} disagrees with the .done's ${JSON.stringify(stated)}`)];
    }
    return [];
  }

  // The call's one tool.call or tool.error (CORE-CALL-1).
  resolve(item) {
    if (item.resolved) return [];
    const complete = item.arguments.complete;
    if (item.callId === null || item.name === null || complete === null) {
      const missing = [["call_id", item.callId], ["name", item.name], ["arguments", complete]]
        .filter(([, value]) => value === null)
        .map(([name]) => name);
      return this.resolveAsError(item, "incomplete", `the call has no ${missing.join(", ")}`); // CORE-CALL-5
    }
    if (this.calledIds.has(item.callId)) {
      return this.resolveAsError(item, "duplicate_call_id", `call id '${item.callId}' was already called`); // CORE-CALL-7
    }
    const call = {
      kind: "tool.call",
      item_id: item.id,
      call_id: item.callId,
      name: item.name,
      tool_type: CALL_TYPES.get(item.type),
    };
    if (item.type === "function_call") {
      const parsed = parseArguments(complete);
      if (parsed.code) return this.resolveAsError(item, parsed.code, parsed.message);
      call.arguments = parsed.value;
    } else {
      call.input = complete; // free text, never parsed
    }
    if (item.namespace !== null) call.namespace = item.namespace;
    item.resolved = true;
    this.calledIds.add(item.callId);
    return [call];
  }

  resolveAsError(item, code, message) {
    if (item.resolved) return [];
    item.resolved = true;
    const outcome = { kind: "tool.error", item_id: item.id, code, message };
    if (item.callId !== null) outcome.call_id = item.callId;
    return [outcome];
  }

  // CORE-CALL-6: calls still open when the response ends will never come.
  failOpenCalls() {
    const outcomes = [];
    for (const item of this.items.values()) {
      if (CALL_TYPES.has(item.type)) {
        outcomes.push(...this.resolveAsError(item, "incomplete", "the response ended before the call completed"));
      }
    }
    return outcomes;
  }
}

const CUSTOM_INPUT_EVENTS = new Set(["response.custom_tool_call_input.delta", "response.custom_tool_call_input.done"]);

const CALL_ITEM_OF = new Map([
  ["response.function_call_arguments.delta", "function_call"],
  ["response.function_call_arguments.done", "function_call"],
  ["response.custom_tool_call_input.delta", "custom_tool_call"],
  ["response.custom_tool_call_input.done", "custom_tool_call"],
]);

// The routing table of spec/core.md, section 9.
const ROUTES = new Map([
  ["response.created", Router.prototype.lifecycle],
  ["response.queued", Router.prototype.lifecycle],
  ["response.in_progress", Router.prototype.lifecycle],
  ["response.completed", Router.prototype.lifecycle],
  ["response.failed", Router.prototype.lifecycle],
  ["response.incomplete", Router.prototype.lifecycle],
  ["error", Router.prototype.errorEvent],
  ["response.output_item.added", Router.prototype.itemAdded],
  ["response.output_item.done", Router.prototype.itemDone],
  ["response.output_text.delta", Router.prototype.textDelta],
  ["response.output_text.done", Router.prototype.textDone],
  ["response.refusal.delta", Router.prototype.refusalDelta],
  ["response.reasoning_text.delta", Router.prototype.reasoningDelta],
  ["response.reasoning.delta", Router.prototype.reasoningDelta],
  ["response.reasoning_summary_text.delta", Router.prototype.reasoningDelta],
  ["response.function_call_arguments.delta", Router.prototype.argumentsDelta],
  ["response.function_call_arguments.done", Router.prototype.argumentsDone],
  ["response.custom_tool_call_input.delta", Router.prototype.argumentsDelta],
  ["response.custom_tool_call_input.done", Router.prototype.argumentsDone],
]);

module.exports = { Router };
