"""Generated streams: a plan cut into deltas and rendered, as Hypothesis strategies.

`stream_plans(profile)` draws a plan, `streams_from(plan)` cuts each part's text
at drawn positions into deltas and renders the steps as events (and, for the
`sse` profile, bytes: wire.py), so one plan cut twice gives the same stream cut
two ways; `streams(profile)` does both.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from .choices import Choices, Drawn
from .drawing import draw_plan
from .plans import StreamPlan
from .rendering import Cuts, render_events, restyled
from .vocabulary import Profile
from .wire import Wire, wire


@dataclass(frozen=True, eq=False)
class GeneratedStream:
    """A plan cut into deltas and rendered: `events[i]` is the entry of `plan.steps[i]`; an sse
    stream also has its bytes (`wire`)."""

    plan: StreamPlan
    cuts: Cuts
    events: tuple[Any, ...]
    wire: Wire | None = None

    @property
    def profile(self) -> Profile:
        return self.plan.profile

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tool registry the stream is routed with (a vector's `tools`)."""
        return copy.deepcopy(list(self.plan.tools))


_TAIL = 60_000  # a text longer than this is cut in its last characters as often as anywhere


def _place(c: Choices, text: str) -> int:
    """Where to cut: anywhere, or, in a long text, near its end, where it passes a limit (a line
    buffer's 64 KiB, CORE-LIMIT-1's 1 MiB), so that deltas come after the one that does."""
    if len(text) > _TAIL and c.coin():
        return c.integer(len(text) - _TAIL, len(text))
    return c.integer(0, len(text))


def cut(c: Choices, text: str, count: int) -> tuple[str, ...]:
    """`text` cut at drawn places into `count` pieces (none when `count` is 0)."""
    if count == 0:
        return ()
    bounds = sorted(_place(c, text) for _ in range(count - 1))
    edges = [0, *bounds, len(text)]
    return tuple(text[start:end] for start, end in itertools.pairwise(edges))


def rendered(c: Choices, plan: StreamPlan) -> GeneratedStream:
    """The plan cut into deltas and rendered as events (and bytes, for sse)."""
    cuts = tuple(tuple(cut(c, part.streamed, part.pieces) for part in item.parts) for item in plan.items)
    events = tuple(restyled(render_events(plan, cuts), agent=c.chance(8), float_indexes=c.chance(10)))
    return GeneratedStream(plan, cuts, events, wire(c, events) if plan.profile == "sse" else None)


@st.composite
def stream_plans(draw: st.DrawFn, profile: Profile = "core", max_items: int = 5) -> StreamPlan:
    """A response as its producer decided it, for one profile, not yet cut into deltas."""
    return draw_plan(Drawn(draw), profile, max_items)


@st.composite
def streams_from(draw: st.DrawFn, plan: StreamPlan) -> GeneratedStream:
    """The plan cut into deltas at drawn positions, and rendered as events (and bytes, for sse)."""
    return rendered(Drawn(draw).seeded(), plan)


@st.composite
def streams(draw: st.DrawFn, profile: Profile = "core", max_items: int = 5) -> GeneratedStream:
    """Generated streams of one profile with their ground truth; see `stream_plans`."""
    return stream(Drawn(draw), profile, max_items)


def stream(c: Choices, profile: Profile = "core", max_items: int = 5) -> GeneratedStream:
    """The stream `streams` draws, of the decisions `c` takes."""
    return rendered(c.seeded(), draw_plan(c, profile, max_items))
