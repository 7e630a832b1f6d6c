"""Writes openai-python-<version>.json: the type names the SDK's Responses unions hold.

Run with the SDK installed (`pip install openai==3.57.0`, into an environment of its own):
`python tests/api-types/snapshot.py > tests/api-types/openai-python-3.57.0.json`. Each list is
the `type` literal of every member of one union of `src/openai/types/`, in the union's order:
what a Responses stream (SSE, or WebSocket mode) can carry as an event, what a client sends on
a WebSocket, and what an output item can be. tests/test_api_types.py holds the spec to it,
offline. The other APIs of `types/beta` (Assistants threads, Realtime, ChatKit, agent
sessions) stream no Responses events and are not listed.
"""

from __future__ import annotations

import importlib
import json
import sys
import typing
from typing import Any, get_args, get_origin

import openai

UNIONS = {
    "events": [
        "responses/response_stream_event.py:ResponseStreamEvent",
        "beta/beta_response_stream_event.py:BetaResponseStreamEvent",
        "beta/beta_responses_server_event.py:BetaResponsesServerEvent",
    ],
    "client_events": ["beta/beta_responses_client_event.py:BetaResponsesClientEvent"],
    "output_items": [
        "responses/response_output_item.py:ResponseOutputItem",
        "beta/beta_response_output_item.py:BetaResponseOutputItem",
    ],
}


def _members(union: Any) -> list[Any]:
    while get_origin(union) is typing.Annotated:
        union = get_args(union)[0]
    if get_origin(union) is typing.Union:
        return [member for argument in get_args(union) for member in _members(argument)]
    return [] if union is type(None) else [union]


def _type_names(where: str) -> list[str]:
    path, alias = where.split(":")
    module = importlib.import_module("openai.types." + path.removesuffix(".py").replace("/", "."))
    members = _members(getattr(module, alias))
    return [name for member in members for name in get_args(member.model_fields["type"].annotation)]


def main() -> None:
    snapshot = {
        "source": f"openai-python {openai.__version__} (PyPI), src/openai/types/",
        "note": "written by tests/api-types/snapshot.py; each list is one union's members' `type` literals",
        **{kind: {where: _type_names(where) for where in unions} for kind, unions in UNIONS.items()},
    }
    json.dump(snapshot, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
