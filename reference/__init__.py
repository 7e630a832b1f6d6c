"""The streamroute reference router: sans-IO, standard library only."""

from .router import EVENT_TYPES, Outcome, Router, ToolCallPoint

__all__ = ["EVENT_TYPES", "Outcome", "Router", "ToolCallPoint"]
