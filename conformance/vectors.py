"""Loading vector files: YAML (safe subset, no duplicate keys), then the vector schema.

A file that cannot be used is never skipped: it becomes a `VectorFileError`
naming the file and, where it applies, the line or the JSON pointer of the
fault, and every runner reports it as a failure. That includes every entry
named like a YAML file that is not a readable `.yaml` file (a `.yml` one, a
broken link, a link loop, a pipe), and every file past the size and depth
limits of spec/protocol.md section 9: a file is read only up to its size
limit, and its aliases are measured before anything expands them.

A vector file holds JSON data written as YAML: what JSON cannot hold (a key that
is not a string, a date, a set, `!!pairs`, NaN) is refused with its line, and an
integer written as a float (`2.0`) where the harness counts (`at`, `cuts`,
`dispatched`) is read as the integer (spec/vectors.md section 1).

A front end hands `load_vectors` the user's cache of files already read
(conformance/vector_cache.py), so that a content seen before is not parsed
again; what the cache gives is checked like what a file gives.
"""

from __future__ import annotations

import base64
import binascii
import errno
import functools
import itertools
import math
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from streamroute.wire.session import is_step

from .limits import MAX_JSON_DEPTH, MAX_VECTOR_EXPANDED, MAX_VECTOR_FILE_BYTES, TOO_DEEP, extent, loads
from .schemas import VECTOR, first_error, json_pointer, schema

if TYPE_CHECKING:  # the cache reads its entries as this module reads vector files
    from .vector_cache import VectorCache

At = int | Literal["close"]


# libyaml's parser when PyYAML has it: the same safe subset, several times faster.
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeLoader):  # type: ignore[misc]
    """A safe YAML loader of JSON data: it refuses duplicate mapping keys instead of keeping the last,
    keys that are not strings, and the values JSON has no place for (below)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, str):  # JSON's names are strings: `1:` would read as "1" there
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {key!r} is not a string, as JSON's are", key_node.start_mark
                )
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep)
        return mapping


def _json_scalar(loader: _UniqueKeyLoader, node: yaml.ScalarNode) -> Any:
    """`!json '<JSON text>'`: the JSON value the scalar holds. YAML cannot state a lone surrogate
    (libyaml refuses `\\ud83d`), JSON text can, and producers send them (spec/vectors.md)."""
    try:
        return loads(loader.construct_scalar(node))
    except ValueError as exc:
        raise yaml.constructor.ConstructorError(
            None, None, f"!json holds no JSON value: {exc}", node.start_mark
        ) from None


_UniqueKeyLoader.add_constructor("!json", _json_scalar)


def _not_json(what: str) -> Any:
    def refuse(loader: _UniqueKeyLoader, node: yaml.Node) -> Any:
        raise yaml.constructor.ConstructorError(
            None, None, f"{what} is not JSON data (a vector file holds JSON data only)", node.start_mark
        )

    return refuse


# What YAML can state and JSON cannot: each is refused where it is written, never turned into
# something else on the way to the schema check (a `!!pairs` list of tuples reads as arrays there).
for _tag, _what in [
    ("binary", "a YAML !!binary value"),
    ("timestamp", "a YAML timestamp (quote a date to make it a string)"),
    ("set", "a YAML !!set"),
    ("omap", "a YAML !!omap"),
    ("pairs", "a YAML !!pairs"),
]:
    _UniqueKeyLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _not_json(_what))


def _json_float(loader: _UniqueKeyLoader, node: yaml.ScalarNode) -> float:
    value: float = loader.construct_yaml_float(node)
    if not math.isfinite(value):
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value} is not a JSON number (JSON has no NaN or infinity)", node.start_mark
        )
    return value


_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:float", _json_float)


@functools.cache
def _server_tools() -> frozenset[str]:
    return frozenset(schema(VECTOR + "#/$defs/server_tool")["enum"])


@dataclass(frozen=True)
class VectorFileError:
    path: Path
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class Vector:
    path: Path
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def title(self) -> str:
        return str(self.data["title"])

    @property
    def profile(self) -> str:
        return str(self.data["profile"])

    @property
    def spec(self) -> list[str]:
        return list(self.data["spec"])

    @property
    def level(self) -> str:
        return str(self.data["level"])

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.data.get("options", {}))

    @property
    def producer_faults(self) -> list[str]:
        return list(self.data.get("producer_faults", []))

    @property
    def conformance_class(self) -> str:
        """`robustness` for a stream that breaks producer rules, `routing` otherwise (spec/vectors.md 4)."""
        return "robustness" if self.producer_faults else "routing"

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list(self.data["tools"])

    @property
    def call_types(self) -> frozenset[str]:
        """The call types an implementation must route to run it (spec/core.md section 5.1): those
        of its tools, but for a tool the server runs (vector.schema.json `$defs/server_tool`)."""
        return frozenset(tool["type"] for tool in self.data["tools"]) - _server_tools()

    @property
    def events(self) -> list[Any]:
        return list(self.data["events"])

    @property
    def expected(self) -> list[dict[str, Any]]:
        return list(self.data["expect"]["outcomes"])

    @property
    def compare(self) -> frozenset[str] | None:
        kinds = self.data["expect"].get("compare")
        return None if kinds is None else frozenset(kinds)

    @functools.cached_property
    def stream(self) -> bytes | None:
        """An sse vector's bytes on the wire (spec/sse.md section 7); None for a vector of events.
        Joined once: a stream in pieces may join tens of MiB."""
        return _stream_bytes(self.data)

    def __getstate__(self) -> dict[str, Any]:
        # A pickle (a worker's request) holds the data, not the joined stream a second time.
        return {name: value for name, value in vars(self).items() if name != "stream"}

    @property
    def dispatched(self) -> int | None:
        """How many SSE events an sse vector's stream dispatches."""
        count = self.data["expect"].get("dispatched")
        return None if count is None else int(count)

    def cuts(self) -> list[Cut]:
        """An sse vector's stream, cut in each of the ways it states."""
        stream = self.stream
        assert stream is not None, "only sse vectors have cuts"
        return [_cut(stream, spec) for spec in self.data["cuts"]]


@dataclass(frozen=True)
class Cut:
    label: str  # for messages: "every byte", "cut at 10, 25"
    chunks: list[bytes]


def _stream_bytes(data: dict[str, Any]) -> bytes | None:
    if "stream" in data:
        return b"".join(_pieces(data["stream"]))
    if "stream_base64" in data:  # whitespace is ignored, so a long value can be folded
        return base64.b64decode("".join(str(data["stream_base64"]).split()), validate=True)
    return None


def _pieces(stream: Any) -> list[bytes]:
    """A `stream`'s bytes in order: a string's UTF-8, or its pieces' (strings and lists of
    pieces, which YAML aliases share: each shared piece is encoded once)."""
    encoded: dict[int, bytes] = {}
    found: list[bytes] = []
    pending = [stream]  # what is still to read, the next piece last
    while pending:
        piece = pending.pop()
        if isinstance(piece, list):
            pending.extend(reversed(piece))
            continue
        if id(piece) not in encoded:
            encoded[id(piece)] = str(piece).encode("utf-8")
        found.append(encoded[id(piece)])
    return found


def _joined_length(stream: Any, errors: str = "strict") -> int:
    """The bytes a `stream` joins (a string, or pieces), each shared piece measured once, without
    joining it; a lone surrogate raises UnicodeEncodeError unless `errors` lets it pass."""
    sizes: dict[int, int] = {}  # id -> the joined bytes of a piece measured

    def size(piece: Any) -> int:  # depth is bounded by MAX_JSON_DEPTH (extent): recursion is safe
        if id(piece) not in sizes:
            if isinstance(piece, list):
                sizes[id(piece)] = sum(size(part) for part in piece)
            else:
                sizes[id(piece)] = len(str(piece).encode("utf-8", errors))
        return sizes[id(piece)]

    return size(stream)


def _joined_stream_problem(stream: Any) -> str | None:
    """What is wrong with a `stream` in pieces before it is joined: a list inside itself, pieces
    nested too deep, or more bytes joined than the vector schema's `x-joined-bytes`; None for a
    string or anything else, which the schema judges."""
    if not isinstance(stream, list):
        return None
    problem = extent(stream, MAX_JSON_DEPTH, None)
    if problem is not None:
        return f"stream {problem}"
    limit: int = schema(VECTOR + "#/properties/stream")["x-joined-bytes"]
    joined = _joined_length(stream, "surrogatepass")
    return None if joined <= limit else f"stream joins {joined} bytes, more than a vector's {limit}"


def _cut(stream: bytes, spec: Any) -> Cut:
    if spec == "every_byte":
        return Cut("every byte", [stream[i : i + 1] for i in range(len(stream))])
    if isinstance(spec, dict):
        size = spec["every"]
        return Cut(f"every {size} bytes", [stream[i : i + size] for i in range(0, len(stream), size)])
    bounds = [0, *spec, len(stream)]
    label = f"cut at {', '.join(map(str, spec))}" if spec else "one chunk"
    return Cut(label, [stream[start:end] for start, end in itertools.pairwise(bounds)])


def _stream_problem(data: dict[str, Any]) -> str | None:
    """What the schema cannot see: a `stream` with no UTF-8 bytes, base64 that does not decode,
    offsets out of order or past the end."""
    try:  # measured, not joined: a stream in pieces may join tens of MiB
        length = _joined_length(data["stream"]) if "stream" in data else len(_stream_bytes(data) or b"")
    except UnicodeEncodeError as exc:  # a lone surrogate, which only `!json` can write
        where = f"U+{ord(exc.object[exc.start]):04X} at character {exc.start}"
        return (
            f"stream holds a lone surrogate ({where}), which has no UTF-8 bytes; "
            "write bytes that are not UTF-8 as stream_base64"
        )
    except binascii.Error as exc:
        return f"stream_base64 is not base64: {exc}"
    if "cuts" not in data:  # a vector of events
        return None
    for index, spec in enumerate(data["cuts"]):
        if isinstance(spec, list) and (spec != sorted(spec) or any(o > length for o in spec)):
            return f"cut {index} must be offsets in order, at most the stream's length ({length} bytes)"
    return None


SUFFIX = ".yaml"


def _named_as_yaml(name: str) -> bool:
    return name.lower().endswith((".yaml", ".yml"))


def _walk(root: Path) -> tuple[list[Path], list[VectorFileError]]:
    """Every entry under `root` named like a YAML file, and the directories that cannot be
    searched. Links to directories are followed, each directory searched once: one reached
    again (a link loop) is an error, not an endless walk."""
    found: list[Path] = []
    errors: list[VectorFileError] = []
    searched: set[tuple[int, int]] = set()
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            identity = directory.stat()
            with os.scandir(directory) as entries:
                listed = sorted(entries, key=lambda entry: entry.name)
        except OSError as exc:
            errors.append(VectorFileError(directory, f"cannot search this directory: {exc}"))
            continue
        if (identity.st_dev, identity.st_ino) in searched:
            errors.append(VectorFileError(directory, "is a directory already searched (a link loop)"))
            continue
        searched.add((identity.st_dev, identity.st_ino))
        for entry in listed:
            path = directory / entry.name
            if os.path.isdir(path):  # False for a broken link and a link loop: they are files here
                pending.append(path)
            elif _named_as_yaml(entry.name):
                found.append(path)
    return sorted(found), errors


class Unusable(Exception):
    """A file refused before its content is looked at; the message says why."""


def read_bounded(path: Path) -> bytes:
    """The bytes of a vector file (or of a cache entry, read as one): never more than the size limit
    is read, and nothing that is not a regular file is read (a pipe would block, a device such as
    /dev/zero never ends): it is opened without waiting, and checked once open."""
    try:
        status = path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Unusable("is a symbolic link in a loop") from None
        if path.is_symlink():
            raise Unusable(f"is a broken symbolic link (to {os.readlink(path)})") from None
        raise Unusable(f"cannot read: {exc}") from None
    if not stat.S_ISREG(status.st_mode):
        raise Unusable("is not a regular file")
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(descriptor, "rb") as file:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):  # replaced since it was looked at
                raise Unusable("is not a regular file")
            data = file.read(MAX_VECTOR_FILE_BYTES + 1)
    except OSError as exc:
        raise Unusable(f"cannot read: {exc}") from None
    if len(data) > MAX_VECTOR_FILE_BYTES:
        raise Unusable(f"is larger than {MAX_VECTOR_FILE_BYTES} bytes (the vector file size limit)")
    return data


def read_yaml(text: str) -> Any:
    """The YAML document in `text`, as every vector file is read: the safe subset, duplicate keys
    refused, `!json` scalars. Nothing else is checked: that is `load_file`'s work."""
    return yaml.load(text, Loader=_UniqueKeyLoader)


def _parse(data: bytes) -> Any:
    """The YAML document, refused before anything expands its aliases past the limits (the
    schema check would, and so would every copy of the events)."""
    try:
        document = read_yaml(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise Unusable(f"cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        raise Unusable(f"not valid YAML: {exc}") from None
    except RecursionError:  # the pure-Python loader's own limit, far past the depth limit
        raise Unusable(TOO_DEEP) from None
    # A stream in pieces is measured as the bytes it joins; everything else as nodes and characters.
    pieces = document.get("stream") if isinstance(document, dict) else None
    rest = {k: v for k, v in document.items() if k != "stream"} if isinstance(pieces, list) else document
    problem = extent(rest, MAX_JSON_DEPTH, MAX_VECTOR_EXPANDED) or _joined_stream_problem(pieces)
    if problem is not None:
        raise Unusable(problem)
    return document


def _integers(data: dict[str, Any]) -> None:
    """An integer written as a float (`2.0`), which JSON Schema takes for an integer, as the integer,
    wherever the harness counts with it: `at`, `cuts`, `dispatched` (spec/vectors.md section 1).
    Everywhere else (events, stated fields) a number is handed on and compared as written."""
    for outcome in data["expect"]["outcomes"]:
        if isinstance(outcome["at"], float):
            outcome["at"] = int(outcome["at"])
    if isinstance(data["expect"].get("dispatched"), float):
        data["expect"]["dispatched"] = int(data["expect"]["dispatched"])
    for index, cut in enumerate(data.get("cuts", [])):
        if isinstance(cut, dict):
            cut["every"] = int(cut["every"])
        elif isinstance(cut, list):
            data["cuts"][index] = [int(offset) for offset in cut]


def _problem(data: Any) -> str | None:
    """What is wrong with a parsed document, or None when it is a vector (its integers then read
    as integers)."""
    problem = first_error(VECTOR, data)
    if problem is not None:
        return f"does not match the vector schema: {problem}"
    _integers(data)
    return _stream_problem(data) or _placement_problem(data) or _tool_schema_problem(data)


def _placement_problem(data: dict[str, Any]) -> str | None:
    """An expected outcome at an event the vector does not have: no run can be judged against it.
    An sse vector's `at` counts its dispatched SSE events (spec/sse.md section 7)."""
    events = len(data["events"]) if "events" in data else data["expect"].get("dispatched", 0)
    for index, outcome in enumerate(data["expect"]["outcomes"]):
        if outcome["at"] != "close" and outcome["at"] >= events:
            return f"expected outcome {index} names event {outcome['at']}, but there are {events}"
    return None


def _tool_schema_problem(data: dict[str, Any]) -> str | None:
    """A tool's `parameters` or `permitted` that is no JSON Schema: an executor would refuse the
    tool as it builds it, so no run could be judged. A restart step declares tools too."""
    declared = [(f"tools/{i}", tool) for i, tool in enumerate(data["tools"])]
    for index, step in enumerate(data.get("events", [])):
        if is_step(step):
            declared += [(f"events/{index}/tools/{i}", tool) for i, tool in enumerate(step.get("tools", []))]
    for where, tool in declared:
        for field in ("parameters", "permitted"):
            if field in tool:
                try:
                    Draft202012Validator.check_schema(tool[field])
                except SchemaError as exc:
                    at = json_pointer([*where.split("/"), field, *exc.path])
                    return f"{where}/{field} is no JSON Schema: {exc.message} (at {at})"
    return None


def load_file(path: Path, root: Path, cache: VectorCache | None = None) -> Vector | VectorFileError:
    """The vector in `path`, whose id must be its path under `root`; `cache` gives the document of a
    content read before (checked as a parsed one is) and keeps the documents that pass."""
    try:
        if path.suffix != SUFFIX:
            raise Unusable(f"vector files end in {SUFFIX}")
        content = read_bounded(path)
        data: Any = None if cache is None else cache.document(content, _problem)
        if data is None:
            data = _parse(content)
            problem = _problem(data)
            if problem is not None:
                raise Unusable(problem)
            if cache is not None:
                cache.add(content, data)
    except Unusable as exc:
        return VectorFileError(path, str(exc))
    expected_id = path.relative_to(root).with_suffix("").as_posix()
    if data["id"] != expected_id:
        return VectorFileError(
            path, f"id {data['id']!r} must be its path under the vectors root, {expected_id!r}"
        )
    return Vector(path, data)


def load_vectors(
    roots: Sequence[Path], cache: VectorCache | None = None
) -> tuple[list[Vector], list[VectorFileError]]:
    """Every vector under `roots`, in id order, and every file that could not be used; `cache`, the
    files read before (none: every file is parsed)."""
    vectors: dict[str, Vector] = {}
    errors: list[VectorFileError] = []
    for root in roots:
        if not root.is_dir():
            errors.append(VectorFileError(root, "is not a directory of vectors"))
            continue
        paths, unsearchable = _walk(root)
        errors += unsearchable
        for path in paths:
            loaded = load_file(path, root, cache)
            if isinstance(loaded, VectorFileError):
                errors.append(loaded)
            elif loaded.id in vectors:
                errors.append(
                    VectorFileError(path, f"duplicate id {loaded.id!r}, also in {vectors[loaded.id].path}")
                )
            else:
                vectors[loaded.id] = loaded
    return [vectors[key] for key in sorted(vectors)], errors
