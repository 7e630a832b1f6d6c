"""The streamroute reference router: sans-IO, standard library only."""

from .consumers import CATALOGUE, DiffConsumer, Finished, Rejected, consumers_for
from .router import EVENT_TYPES, Outcome, Router, ToolCallPoint

__all__ = [
    "CATALOGUE",
    "EVENT_TYPES",
    "DiffConsumer",
    "Finished",
    "Outcome",
    "Rejected",
    "Router",
    "ToolCallPoint",
    "consumers_for",
]
