"""The one interface through which the harness reaches every implementation.

An implementation is anything with a name, the profiles and options it
declares, and `produce(vector)`: run the vector's events through a fresh
router and return every outcome with the event that produced it;
`produce_stream(vector, chunks)` does the same for an sse vector's bytes, cut
into chunks, and answers per dispatched SSE event (spec/sse.md section 6).
Failures of the implementation itself (it raised, answered something that is
not a list) are `AdapterFailure`, never an exception that escapes the harness;
a vector the implementation declines is `AdapterSkipped`. `info` is what
reports say about it, and `close()` releases what it holds (an adapter
process).

An in-process adapter (`module:callable`) runs under the rules of an adapter
command. Whatever it raises, `BaseException`s included (SystemExit,
GeneratorExit, pytest's skip, xfail and fail outcomes), errors the vector,
and so does an answer that is not plain JSON data; what reaches the harness
is a JSON copy, never the adapter's own objects. A KeyboardInterrupt it
raises itself errors the vector too; the user's Ctrl-C (SIGINT) still stops
the run, even when the adapter catches it.

The deadline (`timeout` seconds for each vector, or each cut of an sse
vector, as an adapter command has for each answer): on the main thread a
real-time interval timer (SIGALRM) raises `DeadlinePassed`, a
BaseException, inside the adapter, and the vector is errored; an adapter that
catches it and returns late is errored all the same. As the last resort, a
watchdog thread ends the whole run, with one line on stderr and exit status
1, when a call is still running one more timeout (at least a second) after
its deadline: the adapter ignores the deadline, or is stuck outside Python
code where no signal reaches it. Native code that holds the interpreter lock (a regular expression
that backtracks for ever, say) stops that thread too. Nor can anything in one
process stop an adapter that ends the process itself (`os._exit`). So the
front ends run an in-process adapter in a worker process
(conformance/worker.py), whose parent errors the vector when the worker ends
or stops answering; `PythonImplementation` alone, as tests use it, has only
the rules above.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.metadata
import itertools
import json
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Protocol, TypeVar

from .declarations import CLASSES, OBSERVES, OPTIONS_DECLARED, PROFILES
from .declarations import problem as declaration_problem
from .declined import Declined
from .limits import MAX_DETAILS_CHARS, MAX_MESSAGE_CHARS, Shown, clip, loads, printable
from .observation import observes_problem
from .options import DEFAULT_TIMEOUT
from .schemas import VECTOR, option_defaults, schema
from .vectors import At, Vector

# The longest timeout: a day, well within what the interval timer can be set to.
MAX_TIMEOUT = 86_400.0
# Outcomes one call of an in-process adapter may answer (a vector's own are a few hundred).
OUTCOMES_PER_CALL = 100_000
# How often the watchdog looks at the running call, and the least time it leaves a call past its
# deadline before it ends the run.
_WATCH_PERIOD = 0.25
_LEAST_GRACE = 1.0
# The interval timer and SIGALRM are POSIX's: elsewhere only the watchdog holds the deadline.
_TIMER = hasattr(signal, "setitimer")

_T = TypeVar("_T")


def known_profiles() -> list[str]:
    return list(schema(VECTOR + "#/$defs/profile")["enum"])


def unknown_profiles(names: Iterable[str]) -> str | None:
    """What is wrong with a list of profile names, in one line, or None when the spec defines each."""
    unknown = sorted(set(names) - set(known_profiles()))
    if not unknown:
        return None
    return f"unknown profile {', '.join(unknown)}; known: {', '.join(known_profiles())}"


@dataclass(frozen=True)
class Produced:
    at: At
    outcome: Any


@dataclass(frozen=True)
class Streamed:
    """The answer to a stream of bytes: the outcomes of each dispatched SSE event, in order, then close's."""

    events: list[list[Any]]
    close: list[Any]

    @property
    def produced(self) -> list[Produced]:
        """Every outcome with the index of the SSE event that produced it, as the harness numbers them."""
        produced = [
            Produced(index, outcome) for index, outcomes in enumerate(self.events) for outcome in outcomes
        ]
        return produced + [Produced("close", outcome) for outcome in self.close]


class AdapterFailure(Exception):
    """The implementation failed to answer; the vector is `errored`."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class AdapterSkipped(Exception):
    """The implementation declines the vector, with a reason: `skipped`, never passed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Implementation(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def profiles(self) -> frozenset[str]: ...

    @property
    def options(self) -> dict[str, Any]: ...

    @property
    def info(self) -> dict[str, Any]:
        """The implementation object of spec/protocol-start-reply.schema.json."""
        ...

    def produce(self, vector: Vector) -> list[Produced]: ...

    def produce_stream(self, vector: Vector, chunks: Sequence[bytes]) -> Streamed: ...

    def close(self) -> None: ...


def non_canonical(options: Mapping[str, Any]) -> str:
    """The options whose value is not the canonical one, in a few words (`tool_call_point=arguments_done,
    call_types=function`); `canonical` when there is none."""
    defaults = option_defaults()
    shown = [
        f"{name}={','.join(map(str, value)) if isinstance(value, list) else value}"
        for name, value in sorted(options.items())
        if value != defaults.get(name)
    ]
    return ", ".join(shown) or "canonical"


def _shown_of(declared: Any) -> str:
    """One kind's declaration in words: its fields, and the codes it names, if any."""
    if isinstance(declared, Mapping):
        return f"{' '.join(declared['fields'])}; codes {' '.join(declared['codes'])}".lstrip("; ")
    return " ".join(declared)


def described(info: Mapping[str, Any]) -> str:
    """An implementation in one line, from its `info`: name, version, language, profiles, and the
    options it does not leave canonical; escaped, as what it says of itself may hold line breaks and
    control characters."""
    profiles = ", ".join(info["profiles"]) or "none"
    line = (
        f"{info['name']} ({info['language']}), version {info['version']}; "
        f"profiles: {profiles}; options: {non_canonical(info.get('options', {}))}"
    )
    if "observes" in info:  # spec/observation.md: what its API shows, when not everything
        shown = ", ".join(f"{kind} ({_shown_of(names)})" for kind, names in sorted(info["observes"].items()))
        line += f"; observes: {shown or 'nothing'}"
    return printable(line, Shown.LINE)


class AdapterLoadError(Exception):
    """An adapter that cannot even be loaded: a usage error, reported before any vector runs."""


def declared_options(declared: object, source: str) -> dict[str, Any]:
    """The declared options with defaults filled in, checked against the options schema."""
    problem = declaration_problem(OPTIONS_DECLARED, declared)
    if problem is not None:
        raise AdapterLoadError(f"{source} {problem}")
    assert isinstance(declared, dict)
    return {**option_defaults(), **declared}


def declared_observes(declared: object, source: str) -> dict[str, list[str]] | None:
    """The declared `observes` (spec/observation.md), checked; None when none is declared."""
    if declared is None:
        return None
    problem = declaration_problem(OBSERVES, declared)
    if problem is not None:
        raise AdapterLoadError(f"{source} {problem}")
    assert isinstance(declared, dict)
    meaning = observes_problem(declared)
    if meaning is not None:
        raise AdapterLoadError(
            f"{source} declares an invalid `observes`: {meaning}; see {OBSERVES.documented}"
        )
    return declared


def declared_classes(declared: object, source: str) -> list[str] | None:
    """The declared conformance classes (spec/README.md), checked; None when none are declared
    (it claims both)."""
    if declared is None:
        return None
    problem = declaration_problem(CLASSES, declared)
    if problem is not None:
        raise AdapterLoadError(f"{source} {problem}")
    assert isinstance(declared, list)
    return declared


def declared_profiles(declared: object, source: str) -> frozenset[str]:
    """The declared profiles, each one the spec defines."""
    problem = declaration_problem(PROFILES, declared)
    if problem is not None:
        raise AdapterLoadError(f"{source} {problem}")
    assert isinstance(declared, list)
    return frozenset(declared)


class DeadlinePassed(BaseException):
    """Raised inside an in-process adapter at its deadline; a BaseException, so that `except
    Exception` in the adapter does not catch it."""


@dataclass
class _Call:
    """One call of adapter code under the deadline."""

    implementation: str
    vector: str | None  # None while the adapter is loaded
    timeout: float
    step: str
    grace: float = 0.0  # how long past its deadline the watchdog lets it run
    abandon_at: float = 0.0  # when the watchdog ends the run
    expired: str | None = None  # the step at which the deadline passed, and DeadlinePassed was raised

    @property
    def where(self) -> str:
        return f"{self.step} of vector {self.vector}" if self.vector is not None else self.step

    def late(self, what: str = "") -> AdapterFailure:
        return AdapterFailure(f"{self.expired or self.step} did not return within {self.timeout:g} s{what}")


class _Deadlines:
    """The deadline of the running in-process call: one per process, as signals and the timer are."""

    def __init__(self) -> None:
        self.current: _Call | None = None
        self.interrupted = False  # the user pressed Ctrl-C while the call ran
        self.before_abandon: Callable[[], object] | None = None  # a front end's, e.g. pytest's capture
        self.watchdog = True  # False in a worker, whose parent holds the last deadline
        self._watchdog_pid = 0

    def start(self, call: _Call) -> None:
        if self.watchdog and self._watchdog_pid != os.getpid():  # one per process; a fork has none
            self._watchdog_pid = os.getpid()
            threading.Thread(target=self._watch, name="streamroute watchdog", daemon=True).start()
        self.interrupted = False
        call.grace = least_grace(call.timeout)
        call.abandon_at = time.monotonic() + call.timeout + call.grace
        self.current = call
        if _TIMER and threading.current_thread() is threading.main_thread():
            if signal.getsignal(signal.SIGALRM) is not _on_alarm:
                signal.signal(signal.SIGALRM, _on_alarm)
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                signal.signal(signal.SIGINT, _on_interrupt)
            signal.setitimer(signal.ITIMER_REAL, call.timeout)

    def stop(self) -> None:
        """Idempotent: the harness calls it again when the deadline interrupted it."""
        if _TIMER and threading.current_thread() is threading.main_thread():
            signal.setitimer(signal.ITIMER_REAL, 0)
        self.current = None

    def _watch(self) -> None:
        while True:
            call = self.current
            if call is not None and time.monotonic() >= call.abandon_at and self.current is call:
                self._abandon(call)
            time.sleep(_WATCH_PERIOD)

    def _abandon(self, call: _Call) -> None:
        if self.before_abandon is not None:
            with contextlib.suppress(Exception):  # the line below matters more than the front end's tidiness
                self.before_abandon()
        line = (
            f"streamroute: {call.implementation} is still running {call.where} {call.grace:g} s "
            f"past its {call.timeout:g} s deadline, and cannot be interrupted "
            "(it ignores the deadline or is stuck outside Python code); the run ends here\n"
        )
        os.write(2, line.encode("utf-8", "replace"))
        os._exit(1)


_DEADLINES = _Deadlines()


def least_grace(timeout: float) -> float:
    """How long past its deadline a call may run before the run gives up on it."""
    return max(timeout, _LEAST_GRACE)


def run_by_a_worker() -> None:
    """This process is a worker (conformance/worker.py): no watchdog, its parent kills it instead."""
    _DEADLINES.watchdog = False


def before_abandoning(hook: Callable[[], object] | None) -> Callable[[], object] | None:
    """Have the watchdog call `hook` before it ends the run (pytest restores the terminal with it);
    answers the hook it replaces."""
    previous, _DEADLINES.before_abandon = _DEADLINES.before_abandon, hook
    return previous


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    call = _DEADLINES.current
    if call is not None and call.expired is None:  # once: the harness's handling is never interrupted
        call.expired = call.step
        raise DeadlinePassed


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    """Python's own SIGINT handler, noting that the user, not the adapter, interrupted."""
    _DEADLINES.interrupted = True
    signal.default_int_handler(signum, frame)


def _text(render: Callable[[], str], fallback: str) -> str:
    """Text made by the adapter's objects (an exception's `__str__`), which may fail in any way."""
    try:
        return render()
    except BaseException:  # a user's Ctrl-C is noted by _on_interrupt and stops the run after
        return fallback


def _failure(call: _Call, exc: BaseException) -> AdapterFailure:
    if isinstance(exc, AdapterFailure):  # the harness's own finding about the answer
        return exc
    if isinstance(exc, DeadlinePassed):
        return call.late()
    if isinstance(exc, _BadAnswer):
        return AdapterFailure(f"{call.step} answered {exc}")
    if isinstance(exc, KeyboardInterrupt) and signal.getsignal(signal.SIGINT) is not _on_interrupt:
        _DEADLINES.interrupted = True  # whose it is cannot be told: the user's, so the run stops
    name = type(exc).__name__

    def named() -> str:
        text = str(exc)
        return f"{name}: {text}" if text else name

    return AdapterFailure(
        f"{call.step} raised {clip(_text(named, name), MAX_MESSAGE_CHARS)}",
        clip(_text(lambda: "".join(traceback.format_exception(exc)), ""), MAX_DETAILS_CHARS),
    )


def _guarded(
    implementation: str, vector: str | None, timeout: float, step: str, body: Callable[[_Call], _T]
) -> _T:
    """`body(call)`, adapter code, under the deadline; its answer, or AdapterFailure for whatever it
    raised. `body` names what it is doing in `call.step`. KeyboardInterrupt only for the user's Ctrl-C."""
    call = _Call(implementation, vector, timeout, step)
    failure: AdapterFailure | AdapterSkipped | None = None
    _DEADLINES.start(call)
    try:
        try:
            answer = body(call)
        except Declined as declined:
            failure = _declined(call, declined)
        except BaseException as exc:
            failure = _failure(call, exc)
        finally:
            _DEADLINES.stop()
    except DeadlinePassed:  # it passed while the harness described a failure or stopped the timer
        _DEADLINES.stop()
        failure = call.late()
    if _DEADLINES.interrupted:
        raise KeyboardInterrupt
    if isinstance(failure, AdapterFailure):
        raise failure
    if call.expired is not None:  # declining late is answering late
        raise call.late(", caught the deadline and went on")
    if failure is not None:
        raise failure
    return answer


def _declined(call: _Call, declined: Declined) -> AdapterSkipped | AdapterFailure:
    """The vector skipped, with the reason the adapter gives (and where it is tracked); errored when
    it gives none, as a `skipped` reply without one is out of protocol."""
    reason = _text(lambda: declined.reason if isinstance(declined.reason, str) else "", "")
    if not reason.strip():
        return AdapterFailure(f"{call.step} raised Declined with no reason; Declined(reason) needs one")
    url = _text(lambda: declined.issue_url if isinstance(declined.issue_url, str) else "", "")
    return AdapterSkipped(clip(reason + (f" ({url})" if url else ""), MAX_MESSAGE_CHARS))


class _BadAnswer(Exception):
    """What the harness finds wrong with an answer (the adapter raised nothing)."""


def _listed(answer: object, what: str) -> list[Any]:
    """An iterable answer as a list, of a bounded length."""
    if type(answer) is list and len(answer) <= OUTCOMES_PER_CALL:  # the usual answer: a copy, at once
        return answer[:]
    if isinstance(answer, (str, bytes, dict)) or not isinstance(answer, Iterable):
        raise _BadAnswer(f"not an iterable of {what} but {type(answer).__name__}")
    listed = list(itertools.islice(answer, OUTCOMES_PER_CALL + 1))
    if len(listed) > OUTCOMES_PER_CALL:
        raise _BadAnswer(f"more than {OUTCOMES_PER_CALL} {what} from one call")
    return listed


def _fresh(value: _T) -> _T:
    """A deep copy of vector data (the adapter may change what it is handed; the vector stays as
    it is), made by pickle, which copies such data many times faster than `copy.deepcopy`."""
    copied: _T = pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
    return copied


def _as_json(value: _T) -> _T:
    """A fresh copy of `value` made of JSON data alone (dicts, lists, strings, numbers) within the
    JSON depth limit, as an adapter command's answer is; TypeError or ValueError when it is not."""
    try:
        copied: _T = _plain_copy(value, 0)
    except _NotPlain:  # written as JSON text and read back, which says what is wrong, if anything
        copied = loads(json.dumps(value, allow_nan=False))
    return copied


class _NotPlain(Exception):
    """A value `_plain_copy` leaves to JSON text: not plain JSON data, or nested deeply."""


_PLAIN_DEPTH = 64  # deeper values take the way through JSON text, which holds the depth limit


def _plain_copy(value: Any, depth: int) -> Any:
    """`value` copied as its JSON text read back would be, when it is made of plain dicts with
    string keys, lists, strings, integers, booleans, None and finite floats (the usual answer,
    copied without writing its strings out); else _NotPlain."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if value - value == 0.0:  # finite: NaN and the infinities are no JSON
            return value
        raise _NotPlain
    if depth == _PLAIN_DEPTH:
        raise _NotPlain
    if kind is list:
        return [_plain_copy(member, depth + 1) for member in value]
    if kind is dict:
        copied: dict[str, Any] = {}
        for name, member in value.items():
            if type(name) is not str:  # JSON text would write it as a string
                raise _NotPlain
            copied[name] = _plain_copy(member, depth + 1)
        return copied
    raise _NotPlain


def _json_outcomes(call: _Call, produced: list[Produced]) -> list[Any]:
    """The outcomes as JSON data, in order; AdapterFailure naming the first that is not JSON."""
    call.step = "reading its outcomes"  # their own methods run: a dict subclass's `items`
    try:
        return _as_json([entry.outcome for entry in produced])
    except (TypeError, ValueError, RecursionError) as exc:
        problem = exc
    for index, entry in enumerate(produced):
        try:
            _as_json(entry.outcome)
        except (TypeError, ValueError, RecursionError) as exc:
            raise AdapterFailure(f"outcome {index} (from event {entry.at}): {exc}") from None
    raise problem  # not JSON together, but each alone: outcomes that change as they are read


@dataclass
class PythonImplementation:
    """An implementation given as `module:callable` (see the README's adapter contract), run in this
    process under the rules of the module docstring."""

    name: str
    factory: Any
    profiles: frozenset[str] = field(default_factory=frozenset)
    options: dict[str, Any] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    observes: dict[str, list[str]] | None = None  # None: it shows every kind and field
    classes: list[str] | None = None  # None: it claims both conformance classes

    @classmethod
    def load(cls, spec: str, timeout: float = DEFAULT_TIMEOUT) -> PythonImplementation:
        module_name, sep, attribute = spec.partition(":")
        if not sep or not module_name or not attribute:
            raise AdapterLoadError(f"adapter {spec!r} must be given as module:callable")
        if os.getcwd() not in sys.path:  # as `python -m` does: the user's adapter sits beside them
            sys.path.insert(0, os.getcwd())

        def read(call: _Call) -> tuple[Any, dict[str, Any]]:
            target: Any = importlib.import_module(module_name)
            call.step = f"reading {attribute}"
            for part in attribute.split("."):
                target = getattr(target, part)
            call.step = "reading its profiles, options, classes and observes"
            profiles = getattr(target, "profiles", ("core",))
            listed = None if isinstance(profiles, str) else _listed(profiles, "profiles")
            return target, _as_json(
                {
                    "profiles": listed,
                    "options": getattr(target, "options", {}),
                    "observes": getattr(target, "observes", None),
                    "classes": getattr(target, "classes", None),
                }
            )

        try:
            target, declared = _guarded(spec, None, timeout, "importing it", read)
        except AdapterFailure as exc:
            raise AdapterLoadError(f"cannot load adapter {spec!r}: {exc.message}") from None
        except AdapterSkipped as exc:  # Declined declines a vector; there is none yet
            problem = f"cannot load adapter {spec!r}: it declined while loading: {exc.reason}"
            raise AdapterLoadError(problem) from None
        if not callable(target):
            raise AdapterLoadError(f"adapter {spec!r} is not callable")
        profiles = declared_profiles(declared["profiles"], f"adapter {spec!r}")
        options = declared_options(declared["options"], f"adapter {spec!r}")
        observes = declared_observes(declared["observes"], f"adapter {spec!r}")
        classes = declared_classes(declared["classes"], f"adapter {spec!r}")
        return cls(spec, target, profiles, options, timeout, observes, classes)

    @property
    def info(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": _distribution_version(self.name.partition(".")[0].partition(":")[0]),
            "language": "python",
            "profiles": sorted(self.profiles),
            "options": self.options,
            **({} if self.observes is None else {"observes": self.observes}),
            **({} if self.classes is None else {"classes": self.classes}),
        }

    def close(self) -> None:
        pass  # nothing to release: the implementation runs in this process

    def produce(self, vector: Vector) -> list[Produced]:
        def run(call: _Call) -> list[Produced]:
            router = self.factory(_fresh(vector.tools))
            produced: list[Produced] = []
            for index, event in enumerate(_fresh(vector.events)):
                call.step = f"feed(event {index})"
                produced += (Produced(index, outcome) for outcome in _listed(router.feed(event), "outcomes"))
            call.step = "close()"
            produced += (Produced("close", outcome) for outcome in _listed(router.close(), "outcomes"))
            outcomes = _json_outcomes(call, produced)
            return [Produced(entry.at, outcome) for entry, outcome in zip(produced, outcomes, strict=True)]

        return _guarded(self.name, vector.id, self.timeout, "building the router", run)

    def produce_stream(self, vector: Vector, chunks: Sequence[bytes]) -> Streamed:
        def run(call: _Call) -> Streamed:
            router = self.factory(_fresh(vector.tools))
            events: list[list[Any]] = []
            for index, chunk in enumerate(chunks):
                call.step = f"feed_bytes(chunk {index})"
                for outcomes in _listed(router.feed_bytes(chunk), "lists of outcomes"):
                    events.append(_listed(outcomes, "outcomes"))
            call.step = "close()"
            streamed = Streamed(events, _listed(router.close(), "outcomes"))
            outcomes = iter(_json_outcomes(call, streamed.produced))
            return Streamed([[next(outcomes) for _ in event] for event in events], list(outcomes))

        return _guarded(self.name, vector.id, self.timeout, "building the router", run)


@functools.cache  # reports read `info` once per vector; the installed distributions stay as they are
def _distribution_version(top_level_module: str) -> str:
    """The version of the installed distribution that holds the module, or why there is none."""
    for distribution in importlib.metadata.packages_distributions().get(top_level_module, []):
        return importlib.metadata.version(distribution)
    return f"unknown: module {top_level_module} is in no installed distribution"
