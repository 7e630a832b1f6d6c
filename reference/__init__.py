"""The streamroute reference router: sans-IO, standard library only."""

from .router import Outcome, Router, ToolCallPoint

__all__ = ["Outcome", "Router", "ToolCallPoint"]
