"""Hypothesis strategies for generated cases, each drawn with its ground truth.

Hand-written vectors are finite; stream bugs live in the cuts, interleavings
and producer mistakes nobody wrote down. These strategies draw cases whose
meaning is decided *before* they are cut into events, so every case comes
with what a conforming implementation must make of it.

Theory of operation
-------------------
A `StreamPlan` (plans.py) is what the producer decided: the items of one
response and what each states where, and the *steps* of the stream in order,
one typed class per kind of entry (steps.py), named by what it means, never by
its JSON. It is drawn (drawing.py) from a profile's shape: items (items.py)
calling the profile's tools (tools.py), texts and arguments with their meaning
(texts.py, patches.py), and the producer's deviations the spec gives an
outcome for, each a registered function (deviations.py). The decisions come
from `Choices` (choices.py): the shape of a case from Hypothesis, its details
from seeds Hypothesis draws.

`streams_from(plan)` (streams.py) cuts each part's text into deltas and
renders the steps as events (rendering.py); for the `sse` profile it also
writes them as bytes on the wire, with the ways to cut them (wire.py).

`expected_outcomes(stream, point)` (truth.py) runs the steps through the
outcome model (outcomes.py: the stream's, items', parts' and calls' states and
their transition tables, the consumer slot, the catalogue's consumers of
consumers.py) and, for `execution`, the executor model (executor.py). It
reads the plan, never an event's JSON, and never runs the reference.
`check_properties` (properties.py) says in words how outcomes part from it;
`spec_ids` (citations.py) names the requirements a stream checks.

Catalogue calls (catalogue.py) and sessions (sessions.py) are drawn with each
event's outcomes beside it.
"""

from .catalogue import CATALOGUE_CALL_TYPES, CatalogueStream, catalogue_stream, catalogue_streams
from .citations import POINT_REQUIREMENTS, cited, spec_ids
from .deviations import DEVIATIONS, Deviation
from .outcomes import utf8_size, well_formed
from .plans import ItemPlan, PartPlan, StreamPlan, Verdict
from .properties import check_properties
from .sessions import GeneratedSession, session, sessions
from .streams import GeneratedStream, stream, stream_plans, streams, streams_from
from .truth import Truths, expected_at_points, expected_outcomes
from .vocabulary import (
    CANONICAL_POINT,
    HOSTED,
    POINTS,
    PROFILES,
    UNKNOWN_TYPES,
    UNROUTED_TYPES,
    Outcome,
    Profile,
    ToolCallPoint,
)
from .wire import Wire

__all__ = [
    "CANONICAL_POINT",
    "CATALOGUE_CALL_TYPES",
    "DEVIATIONS",
    "HOSTED",
    "POINTS",
    "POINT_REQUIREMENTS",
    "PROFILES",
    "UNKNOWN_TYPES",
    "UNROUTED_TYPES",
    "CatalogueStream",
    "Deviation",
    "GeneratedSession",
    "GeneratedStream",
    "ItemPlan",
    "Outcome",
    "PartPlan",
    "Profile",
    "StreamPlan",
    "ToolCallPoint",
    "Truths",
    "Verdict",
    "Wire",
    "catalogue_stream",
    "catalogue_streams",
    "check_properties",
    "cited",
    "expected_at_points",
    "expected_outcomes",
    "session",
    "sessions",
    "spec_ids",
    "stream",
    "stream_plans",
    "streams",
    "streams_from",
    "utf8_size",
    "well_formed",
]
