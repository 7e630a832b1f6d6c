"""The user's cache of vector files already read: each content that passed every check of
conformance/vectors.py, with its parsed document, so that a later run need not parse its YAML
again (most of what loading the bundled vectors costs).

An entry is untrusted input, as a vector file is: code running as the user (an implementation's
build or tests, another job on the same runner) can write the cache directory, and a cache
directory restored from elsewhere (a CI cache, a copied home) brings entries another run made.
So an entry is used only when all of this holds:

- It was made with this user's key. An entry's name is an HMAC-SHA256 of the file's content and
  of `checks_digest()`, and the entry holds an HMAC of its name and its document, both keyed
  with a secret of 32 random bytes that only the user can read (0600). The key is kept in the
  user's state directory (XDG_STATE_HOME, else ~/.local/state), apart from the entries, so that a
  cache directory copied or restored from elsewhere does not bring the key that made it. Code
  that can read the user's files can read the key too, as it could rewrite streamroute itself;
  what the key keeps out is every entry made without it.
- It is read as a vector file is (`vectors.read_bounded`): a regular file only (a pipe would
  block, a link to /dev/zero never ends), at most the vector file size limit, its JSON within
  the depth limit.
- What it holds passes the vector schema and the stream's checks again, as a document parsed
  from YAML does (`vectors.load_file`): the key says who wrote an entry, the checks what it is.
- Its directory, and the key's, belong to the user and no one else can write them.

An entry that fails any of these is dropped (deleted) with a one-line warning; a cache that cannot
be used safely is not used, with a warning, and one that cannot be written is not used, silently.
Neither is ever an error. The digest every name covers changes with anything else a verdict
depends on, so no entry outlives a change to it. `--no-cache` turns the cache off, and so does a
CI environment (`CI` set), where a run starts on a fresh machine or from a cache it did not make.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import stat
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import yaml

from .limits import MAX_VECTOR_FILE_BYTES, loads
from .schemas import SPEC_DIR
from .vectors import Unusable, read_bounded

# The modules of this package: the checks of a vector file are among them, and so is what they use.
PACKAGE = Path(__file__).resolve().parent
KEY_BYTES = 32
_KEY_FILE = Path("streamroute") / "vector-cache.key"
_ENTRIES = Path("streamroute") / "vectors"


def enabled(no_cache: bool) -> bool:
    """Whether a front end uses the cache: not when asked not to (`--no-cache`), not in CI (`CI` set),
    and only where a file's owner and rights can be checked (POSIX)."""
    return not no_cache and not os.environ.get("CI") and hasattr(os, "geteuid")


@cache
def checks_digest() -> bytes:
    """A digest of all that a file's verdict depends on besides its bytes: the spec's schemas, every
    module of this package (the checks and what they run on), streamroute's version, and the
    Python, YAML loader and JSON Schema libraries that run them. Any change to one is a new digest,
    so no entry outlives it: a fix to the schema predicates (schema_check.py) is read again."""
    digest = hashlib.sha256(b"streamroute vector checks 2\0")
    for path in [*sorted(SPEC_DIR.glob("*.schema.json")), *sorted(PACKAGE.glob("*.py"))]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    versions = [version(name) for name in ("streamroute", "jsonschema", "referencing")]
    digest.update("\0".join([*versions, sys.version, yaml.__version__, str(yaml.__with_libyaml__)]).encode())
    return digest.digest()


class _NoCache(Exception):
    """Why the cache cannot be used safely, in one line."""


def _base(variable: str, default: str) -> Path:
    """An XDG base directory: a relative value is ignored, as the XDG Base Directory rules say."""
    configured = os.environ.get(variable, "")
    return Path(configured) if os.path.isabs(configured) else Path.home() / default


def _owned(path: Path, status: os.stat_result, rights: int) -> None:
    """_NoCache unless `path` belongs to the user and no one else has the `rights` (mode bits)."""
    if status.st_uid != os.geteuid():
        raise _NoCache(f"{path} belongs to user id {status.st_uid}, not to this user ({os.geteuid()})")
    if status.st_mode & rights:
        raise _NoCache(f"{path} is open to others (mode {stat.filemode(status.st_mode)})")


def _private_directory(path: Path) -> Path:
    """`path`, made if absent (readable by the user alone), and checked: no one else may write it."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    status = path.stat()
    if not stat.S_ISDIR(status.st_mode):
        raise _NoCache(f"{path} is not a directory")
    _owned(path, status, stat.S_IWGRP | stat.S_IWOTH)
    return path


def _read_key(path: Path) -> bytes | None:
    """The key in `path`, None if there is none: a regular file (not a link) of the user's, that no
    one else can read or write."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:  # ELOOP for a symbolic link, which O_NOFOLLOW does not follow
        raise _NoCache(f"cannot read the key {path}: {exc.strerror}") from None
    with open(descriptor, "rb") as file:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise _NoCache(f"the key {path} is not a regular file")
        _owned(path, status, stat.S_IRWXG | stat.S_IRWXO)
        key = file.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise _NoCache(f"the key {path} holds {len(key)} bytes, not {KEY_BYTES}")
    return key


def _key(path: Path) -> bytes:
    """The user's key, made the first time: written whole, then linked into place, so that of two
    runs that make one at once, both use the one linked first."""
    directory = _private_directory(path.parent)
    key = _read_key(path)
    if key is None:
        handle, written = tempfile.mkstemp(dir=directory, prefix=".key-")  # readable by the user alone
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(secrets.token_bytes(KEY_BYTES))
            with contextlib.suppress(FileExistsError):
                os.link(written, path)
        finally:
            os.unlink(written)
        key = _read_key(path)
    if key is None:
        raise _NoCache(f"the key {path} was removed as it was made")
    return key


class VectorCache:
    """The user's cache of vector files already read (see the module docstring). `warnings`: each
    thing of it that could not be used, in one line."""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        self._opened = False
        self._directory: Path | None = None
        self._key = b""

    def _usable(self) -> Path | None:
        """The directory of the entries, once the key and it are found safe; None: no cache."""
        if not self._opened:
            self._opened = True
            try:
                self._key = _key(_base("XDG_STATE_HOME", ".local/state") / _KEY_FILE)
                self._directory = _private_directory(_base("XDG_CACHE_HOME", ".cache") / _ENTRIES)
            except _NoCache as exc:
                self.warnings.append(f"the vector cache is not used: {exc}")
            except (OSError, RuntimeError):  # cannot be written, or no home directory: no cache
                pass
        return self._directory

    def _name(self, content: bytes) -> str:
        return hmac.new(self._key, b"name\0" + checks_digest() + content, "sha256").hexdigest()

    def _mac(self, name: str, text: bytes) -> bytes:
        return hmac.new(self._key, b"entry\0" + name.encode() + b"\0" + text, "sha256").hexdigest().encode()

    def _drop(self, path: Path, why: str) -> None:
        with contextlib.suppress(OSError):
            path.unlink()
        self.warnings.append(f"vector cache entry {path} {why}: dropped")

    def document(self, content: bytes, problem: Callable[[Any], str | None]) -> Any | None:
        """The document of a vector file's content read before, or None; `problem` says what keeps a
        document from being a vector, as for one parsed from YAML."""
        directory = self._usable()
        if directory is None:
            return None
        name = self._name(content)
        path = directory / name
        if not os.path.lexists(path):
            return None
        try:
            entry = read_bounded(path)
        except Unusable as exc:
            self._drop(path, str(exc))
            return None
        mac, _, text = entry.partition(b"\n")
        if not hmac.compare_digest(mac, self._mac(name, text)):
            self._drop(path, "was not made with this user's key")
            return None
        try:
            document = loads(text.decode("ascii"))
        except (UnicodeDecodeError, ValueError) as exc:
            self._drop(path, f"holds no document: {exc}")
            return None
        wrong = problem(document)
        if wrong is not None:
            self._drop(path, f"holds no vector: {wrong}")
            return None
        return document

    def add(self, content: bytes, document: Any) -> None:
        """Keep the document of a content that passed; one too large to be read back is not kept."""
        directory = self._usable()
        if directory is None:
            return
        name = self._name(content)
        text = json.dumps(document, ensure_ascii=True, separators=(",", ":")).encode("ascii")
        entry = self._mac(name, text) + b"\n" + text
        if len(entry) > MAX_VECTOR_FILE_BYTES:
            return
        try:  # written whole, then renamed: a reader never sees half an entry
            handle, written = tempfile.mkstemp(dir=directory, prefix=".entry-")
        except OSError:
            self._directory = None  # not writable: no cache for the rest of this load
            return
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(entry)
            os.replace(written, directory / name)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(written)
            self._directory = None
