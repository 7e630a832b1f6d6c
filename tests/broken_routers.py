"""Deliberately broken routers: each makes one mistake real libraries made.

Each wraps the reference router and changes one behaviour, so it fails
exactly the vectors that check that behaviour and passes the rest.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from streamroute.reference import EVENT_TYPES, Outcome, Router, consumers_for


class EarlyCall:
    """Fires tool.call at a function call's first argument delta, from the partial text."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router()
        self.items: dict[str, dict[str, Any]] = {}
        self.buffers: dict[str, str] = {}
        self.fired: set[str] = set()

    def feed(self, event: Any) -> list[Outcome]:
        outcomes = self.router.feed(event)
        if isinstance(event, dict) and event.get("type") == "response.output_item.added":
            item = event.get("item")
            if isinstance(item, dict) and item.get("type") == "function_call":
                self.items[item["id"]] = item
        result = []
        for outcome in outcomes:
            item_id = outcome.get("item_id")
            if outcome["kind"] in ("tool.call", "tool.error") and item_id in self.fired:
                continue
            result.append(outcome)
            if outcome["kind"] == "tool.arguments.delta" and item_id in self.items:
                self.buffers[item_id] = self.buffers.get(item_id, "") + outcome["delta"]
                if item_id not in self.fired:
                    self.fired.add(item_id)
                    result.append(self._call(self.items[item_id], self.buffers[item_id]))
        return result

    @staticmethod
    def _call(item: dict[str, Any], partial: str) -> Outcome:
        try:
            arguments = json.loads(partial)
        except ValueError:
            arguments = {}
        return {
            "kind": "tool.call",
            "item_id": item["id"],
            "call_id": item.get("call_id", ""),
            "name": item.get("name", ""),
            "tool_type": "function",
            "arguments": arguments if isinstance(arguments, dict) else {},
        }

    def close(self) -> list[Outcome]:
        return [o for o in self.router.close() if o.get("item_id") not in self.fired]


class TextMix:
    """Shows function-call argument deltas as answer text."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router()
        self.functions: set[str] = set()

    def feed(self, event: Any) -> list[Outcome]:
        outcomes = self.router.feed(event)
        if isinstance(event, dict) and event.get("type") == "response.output_item.added":
            item = event.get("item")
            if isinstance(item, dict) and item.get("type") == "function_call":
                self.functions.add(item["id"])
        return [self._as_text(o, event) if self._is_argument_delta(o) else o for o in outcomes]

    def _is_argument_delta(self, outcome: Outcome) -> bool:
        return outcome["kind"] == "tool.arguments.delta" and outcome["item_id"] in self.functions

    @staticmethod
    def _as_text(outcome: Outcome, event: dict[str, Any]) -> Outcome:
        output_index = event.get("output_index")
        return {
            "kind": "text.delta",
            "item_id": outcome["item_id"],
            "output_index": output_index if isinstance(output_index, int) else 0,
            "content_index": 0,
            "delta": outcome["delta"],
        }

    def close(self) -> list[Outcome]:
        return self.router.close()


class RaiseOnUnknown:
    """Raises on an event type it does not know, instead of ignoring it."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router()

    def feed(self, event: Any) -> list[Outcome]:
        if (
            isinstance(event, dict)
            and isinstance(event.get("type"), str)
            and event["type"] not in EVENT_TYPES
        ):
            raise ValueError(f"unknown event type {event['type']}")
        return self.router.feed(event)

    def close(self) -> list[Outcome]:
        return self.router.close()


class InvalidOutcome:
    """Answers a text delta without its required fields."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router()

    def feed(self, event: Any) -> list[Outcome]:
        return [{"kind": o["kind"]} if o["kind"] == "text.delta" else o for o in self.router.feed(event)]

    def close(self) -> list[Outcome]:
        return self.router.close()


class NotAList:
    """Answers close() with None."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router()

    def feed(self, event: Any) -> list[Outcome]:
        return self.router.feed(event)

    def close(self) -> None:
        return None


class _CustomToolsRouter(Router):
    """The reference with the consumer catalogue, claiming custom-tools: a base for one mistake."""

    profiles = ("core", "custom-tools")

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(consumers_for(tools))


class IgnoresCallIdFilter(_CustomToolsRouter):
    """Feeds every routed custom input delta to the active consumer, whatever call it names."""

    def _consumer_takes(self, slot: Any, item: Any, event: Any) -> bool:
        return True


class BuildsCallFromBuffer(_CustomToolsRouter):
    """Runs a custom call that has a consumer with the input the consumer saw, not the complete input."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.seen: dict[str, str] = {}

    def _consume(self, item: Any, event: Any, delta: str) -> list[Outcome]:
        slot = self._slot
        if slot is not None and self._consumer_takes(slot, item, event):
            self.seen[item.id] = self.seen.get(item.id, "") + delta
        return super()._consume(item, event, delta)

    def _resolve(self, item: Any) -> list[Outcome]:
        watched = self._slot is not None and self._slot.item is item
        outcomes = super()._resolve(item)
        for outcome in outcomes:
            if watched and outcome["kind"] == "tool.call":
                outcome["input"] = self.seen.get(item.id, "")
        return outcomes


class FinishAfterCall(_CustomToolsRouter):
    """Runs the consumer's finish after routing the call, as if finish were a mere cleanup."""

    def _resolve(self, item: Any) -> list[Outcome]:
        outcomes = super()._resolve(item)
        finish = [o for o in outcomes if o["kind"].startswith("diff.") or o.get("code") == "consumer_failed"]
        return [o for o in outcomes if o not in finish] + finish


class FiresSiblingsEarly:
    """Under tool_call_point arguments_done, at one call's arguments .done also fires every other
    open call whose deltas parse so far, from those deltas (CORE-CALL-8, CORE-ARGS-5)."""

    options: Mapping[str, str] = {"tool_call_point": "arguments_done"}

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router(tool_call_point="arguments_done")
        self.items: dict[str, dict[str, Any]] = {}
        self.buffers: dict[str, str] = {}
        self.fired: set[str] = set()

    def feed(self, event: Any) -> list[Outcome]:
        outcomes = self.router.feed(event)
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == "response.output_item.added" and isinstance(event.get("item"), dict):
            self.items[event["item"]["id"]] = event["item"]
        result = [o for o in outcomes if not (o["kind"] == "tool.call" and o.get("item_id") in self.fired)]
        for outcome in outcomes:
            if outcome["kind"] == "tool.arguments.delta":
                self.buffers[outcome["item_id"]] = self.buffers.get(outcome["item_id"], "") + outcome["delta"]
        if kind == "response.function_call_arguments.done":
            own = event.get("item_id")
            self.fired.add(str(own))
            for item_id, text in self.buffers.items():
                if item_id in (own, *self.fired) or item_id not in self.items:
                    continue
                try:
                    arguments = json.loads(text)
                except ValueError:
                    continue
                item = self.items[item_id]
                self.fired.add(item_id)
                result.append(
                    {
                        "kind": "tool.call",
                        "item_id": item_id,
                        "call_id": item.get("call_id", ""),
                        "name": item.get("name", ""),
                        "tool_type": "function",
                        "arguments": arguments,
                    }
                )
        return result

    def close(self) -> list[Outcome]:
        return self.router.close()


class OneStreamWrong:
    """Ends one stream `failed` when it completed: the stream whose tools and events hash to
    $STREAMROUTE_PLANTED, as the fuzzer names a case (a fault only one of a campaign's shards draws)."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router()
        self.tools = json.dumps(tools, sort_keys=True).encode()
        self.events: list[Any] = []

    def feed(self, event: Any) -> list[Outcome]:
        self.events.append(event)
        return self.router.feed(event)

    def close(self) -> list[Outcome]:
        outcomes = self.router.close()
        fed = json.dumps(self.events, sort_keys=True).encode()
        if hashlib.sha256(self.tools + fed).hexdigest()[:12] == os.environ.get("STREAMROUTE_PLANTED"):
            outcomes[-1] = {"kind": "end", "status": "failed"}
        return outcomes


class ParsesUnderJsonText(Router):
    """Declares call_arguments json_text and hands each function call's arguments over parsed, as
    under the canonical option (CORE-JSON-1: under json_text they are the call's text)."""

    options: Mapping[str, str] = {"call_arguments": "json_text"}

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__()
