"""Loading vector files: YAML (safe subset, no duplicate keys), then the vector schema.

A file that cannot be used is never skipped: it becomes a `VectorFileError`
naming the file and, where it applies, the line or the JSON pointer of the
fault, and every runner reports it as a failure. That includes every entry
named like a YAML file that is not a readable `.yaml` file (a `.yml` one, a
broken link, a link loop, a pipe), and every file past the size and depth
limits of spec/protocol.md section 9: a file is read only up to its size
limit, and its aliases are measured before anything expands them.

A file's content is read and checked once, not at every run: the content that
passed is remembered in the user's cache directory, with its parsed document
(see `_Checked`).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import errno
import hashlib
import importlib.metadata
import itertools
import json
import os
import stat
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml

from .limits import MAX_JSON_DEPTH, MAX_VECTOR_EXPANDED, MAX_VECTOR_FILE_BYTES, TOO_DEEP, extent, loads
from .schemas import SPEC_DIR, VECTOR, first_error

At = int | Literal["close"]


# libyaml's parser when PyYAML has it: the same safe subset, several times faster.
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeLoader):  # type: ignore[misc]
    """A safe YAML loader that refuses duplicate mapping keys instead of keeping the last."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
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
    def events(self) -> list[Any]:
        return list(self.data["events"])

    @property
    def expected(self) -> list[dict[str, Any]]:
        return list(self.data["expect"]["outcomes"])

    @property
    def compare(self) -> frozenset[str] | None:
        kinds = self.data["expect"].get("compare")
        return None if kinds is None else frozenset(kinds)

    @property
    def stream(self) -> bytes | None:
        """An sse vector's bytes on the wire (spec/sse.md section 7); None for a vector of events."""
        return _stream_bytes(self.data)

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
        return str(data["stream"]).encode("utf-8")
    if "stream_base64" in data:  # whitespace is ignored, so a long value can be folded
        return base64.b64decode("".join(str(data["stream_base64"]).split()), validate=True)
    return None


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
    """What the schema cannot see: base64 that does not decode, offsets out of order or past the end."""
    try:
        stream = _stream_bytes(data)
    except binascii.Error as exc:
        return f"stream_base64 is not base64: {exc}"
    if stream is None:
        return None
    for index, spec in enumerate(data["cuts"]):
        if isinstance(spec, list) and (spec != sorted(spec) or any(o > len(stream) for o in spec)):
            return f"cut {index} must be offsets in order, at most the stream's length ({len(stream)} bytes)"
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


class _Unusable(Exception):
    """A vector file refused before its content is looked at; the message says why."""


def _read(path: Path) -> bytes:
    """The file's bytes: never more than the size limit is read, and nothing that is not a
    regular file is opened (a pipe would block)."""
    try:
        status = path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _Unusable("is a symbolic link in a loop") from None
        if path.is_symlink():
            raise _Unusable(f"is a broken symbolic link (to {os.readlink(path)})") from None
        raise _Unusable(f"cannot read: {exc}") from None
    if not stat.S_ISREG(status.st_mode):
        raise _Unusable("is not a regular file")
    try:
        with path.open("rb") as file:
            data = file.read(MAX_VECTOR_FILE_BYTES + 1)
    except OSError as exc:
        raise _Unusable(f"cannot read: {exc}") from None
    if len(data) > MAX_VECTOR_FILE_BYTES:
        raise _Unusable(f"is larger than {MAX_VECTOR_FILE_BYTES} bytes (the vector file size limit)")
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
        raise _Unusable(f"cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        raise _Unusable(f"not valid YAML: {exc}") from None
    except RecursionError:  # the pure-Python loader's own limit, far past the depth limit
        raise _Unusable(TOO_DEEP) from None
    problem = extent(document, MAX_JSON_DEPTH, MAX_VECTOR_EXPANDED)
    if problem is not None:
        raise _Unusable(problem)
    return document


@cache
def _checks_digest() -> bytes:
    """A digest of all that a file's verdict depends on besides its bytes: the spec's schemas,
    the code that checks (this module and those it checks with), and the Python, YAML loader
    and JSON Schema libraries that run it. Any change to one of them is a new digest, so no
    verdict outlives it."""
    digest = hashlib.blake2b(b"streamroute vector checks 1\0", digest_size=20)
    modules = [sys.modules[name] for name in (__name__, extent.__module__, first_error.__module__)]
    for path in [*sorted(SPEC_DIR.glob("*.schema.json")), *(Path(str(m.__file__)) for m in modules)]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    libraries = [importlib.metadata.version(name) for name in ("jsonschema", "referencing")]
    digest.update("\0".join([sys.version, yaml.__version__, _SafeLoader.__name__, *libraries]).encode())
    return digest.digest()


class _Checked:
    """The vector file contents known to pass every check of `load_file` that depends on the
    content alone (YAML, the limits, the vector schema, the stream), each with its document as
    parsed, kept in the user's cache directory (XDG_CACHE_HOME, else ~/.cache): one file per
    content, named by the digest of the bytes and `_checks_digest()`, holding that name, the
    digest of the document's JSON and the JSON, as a compiled module beside its source. A
    document JSON cannot hold as it is (a date, a key that is not a string) is not kept. An
    entry that holds anything else is not trusted, and a directory that cannot be written
    means no cache, never an error."""

    def __init__(self) -> None:
        configured = os.environ.get("XDG_CACHE_HOME", "")
        try:  # the XDG Base Directory rule: a relative XDG_CACHE_HOME is ignored
            base = Path(configured) if os.path.isabs(configured) else Path.home() / ".cache"
        except RuntimeError:  # no home directory to be found
            self.directory: Path | None = None
        else:
            self.directory = base / "streamroute" / "vectors"

    @staticmethod
    def key(content: bytes) -> str:
        return hashlib.blake2b(_checks_digest() + content, digest_size=20).hexdigest()

    @staticmethod
    def _digest(text: bytes) -> bytes:
        return hashlib.blake2b(text, digest_size=20).hexdigest().encode()

    def document(self, content: bytes) -> Any | None:
        """The parsed document of a content that passed, or None."""
        if self.directory is None:
            return None
        key = self.key(content)
        try:
            entry = (self.directory / key).read_bytes()
        except OSError:
            return None
        name, _, rest = entry.partition(b"\n")
        digest, _, text = rest.partition(b"\n")
        if name != key.encode() or digest != self._digest(text):
            return None
        try:
            return json.loads(text)
        except ValueError:
            return None

    def add(self, content: bytes, document: Any) -> None:
        if self.directory is None:
            return
        try:
            text = json.dumps(document, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode()
        except (TypeError, ValueError):
            return
        if json.loads(text) != document:  # JSON would not give it back as it is
            return
        key = self.key(content)
        try:  # written whole, then renamed: a reader never sees half an entry
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, written = tempfile.mkstemp(dir=self.directory, prefix=".entry-")
        except OSError:
            self.directory = None  # not writable: no cache for the rest of this load
            return
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(b"\n".join([key.encode(), self._digest(text), text]))
            os.replace(written, self.directory / key)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(written)
            self.directory = None


def load_file(path: Path, root: Path, checked: _Checked | None = None) -> Vector | VectorFileError:
    """The vector in `path`, whose id must be its path under `root`; `checked` remembers the
    contents that passed, so that the same content is not read and checked again."""
    try:
        if path.suffix != SUFFIX:
            raise _Unusable(f"vector files end in {SUFFIX}")
        content = _read(path)
        data = None if checked is None else checked.document(content)
        known = data is not None
        if data is None:
            data = _parse(content)
    except _Unusable as exc:
        return VectorFileError(path, str(exc))
    if not known:
        problem = first_error(VECTOR, data)
        if problem is not None:
            return VectorFileError(path, f"does not match the vector schema: {problem}")
        problem = _stream_problem(data)
        if problem is not None:
            return VectorFileError(path, problem)
        if checked is not None:
            checked.add(content, data)
    expected_id = path.relative_to(root).with_suffix("").as_posix()
    if data["id"] != expected_id:
        return VectorFileError(
            path, f"id {data['id']!r} must be its path under the vectors root, {expected_id!r}"
        )
    return Vector(path, data)


def load_vectors(roots: Sequence[Path]) -> tuple[list[Vector], list[VectorFileError]]:
    """Every vector under `roots`, in id order, and every file that could not be used."""
    checked = _Checked()
    vectors: dict[str, Vector] = {}
    errors: list[VectorFileError] = []
    for root in roots:
        if not root.is_dir():
            errors.append(VectorFileError(root, "is not a directory of vectors"))
            continue
        paths, unsearchable = _walk(root)
        errors += unsearchable
        for path in paths:
            loaded = load_file(path, root, checked)
            if isinstance(loaded, VectorFileError):
                errors.append(loaded)
            elif loaded.id in vectors:
                errors.append(
                    VectorFileError(path, f"duplicate id {loaded.id!r}, also in {vectors[loaded.id].path}")
                )
            else:
                vectors[loaded.id] = loaded
    return [vectors[key] for key in sorted(vectors)], errors
