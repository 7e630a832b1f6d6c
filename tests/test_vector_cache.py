"""The cache of vector files already read (conformance/vector_cache.py) is untrusted input: entries
planted or damaged by anyone change no verdict, crash nothing and hang nothing, and no entry
outlives a change to what a verdict depends on."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from conftest import hello, write_vector
from streamroute.conformance import vector_cache, vectors
from streamroute.conformance.cli import main
from streamroute.conformance.report import Report
from streamroute.conformance.schemas import BUNDLED_VECTORS
from streamroute.conformance.vector_cache import VectorCache, checks_digest
from streamroute.conformance.vectors import load_vectors

pytest_plugins = ["pytester"]
posix_only = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="the cache checks POSIX owners and rights")

# A router that routes nothing: it ends the stream and says nothing else.
DO_NOTHING = """
class Router:
    def __init__(self, tools):
        pass

    def feed(self, event):
        return []

    def close(self):
        return [{"kind": "end", "status": "completed"}]
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache and a state directory of the test's own, outside CI: the cache's entries are in
    `home / ENTRIES`, its key is `home / KEY`."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home" / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "home" / "state"))
    monkeypatch.delenv("CI", raising=False)
    return tmp_path / "home"


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every vector file content parsed from its YAML (not taken from the cache)."""
    made: list[bytes] = []
    parse = vectors._parse

    def counted(content: bytes) -> Any:
        made.append(content)
        return parse(content)

    monkeypatch.setattr(vectors, "_parse", counted)
    return made


# Where, under `home`, the cache keeps its entries and its key.
ENTRIES = Path("cache") / "streamroute" / "vectors"
KEY = Path("state") / "streamroute" / "vector-cache.key"


def _entries(home: Path) -> list[Path]:
    directory = home / ENTRIES
    return sorted(directory.iterdir()) if directory.is_dir() else []


def _loaded(root: Path) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """The vectors' documents, the bad files and the cache's warnings of one load with the cache."""
    cache = VectorCache()
    loaded, errors = load_vectors([root], cache)
    return [vector.data for vector in loaded], [str(error) for error in errors], cache.warnings


def _forged(entry: Path, text: bytes) -> None:
    """Write `text` into `entry` as the cache would, with the user's key: what code that reads the key
    can do (the key keeps out everyone else; what an entry holds is checked all the same)."""
    cache = VectorCache()
    assert cache._usable() is not None  # the key is read
    entry.write_bytes(cache._mac(entry.name, text) + b"\n" + text)


def test_a_content_is_parsed_once_and_a_changed_content_again(home: Path, parses: list[bytes]) -> None:
    root = home.parent / "vectors"
    path = write_vector(root, hello())
    first = _loaded(root)
    assert _loaded(root) == first
    assert len(parses) == 1
    path.write_text(path.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    assert _loaded(root)[1] == []
    assert len(parses) == 2
    bad = hello()
    bad["expect"]["outcomes"][1]["delta"] = 5
    write_vector(root, bad)
    assert _loaded(root)[1] != []
    assert _loaded(root)[1] != []
    assert len(parses) == 4  # a content that failed is parsed every time
    assert len(_entries(home)) == 2


def test_a_known_content_still_needs_its_id_to_be_its_path(home: Path, parses: list[bytes]) -> None:
    write_vector(home.parent / "vectors", hello())
    assert _loaded(home.parent / "vectors")[1] == []
    write_vector(home.parent / "moved", hello(), name="core/elsewhere.yaml")
    [error] = _loaded(home.parent / "moved")[1]
    assert "must be its path under the vectors root" in error
    assert len(parses) == 1


@posix_only
def test_the_key_and_the_entries_are_the_users_alone(home: Path) -> None:
    write_vector(home.parent / "vectors", hello())
    _loaded(home.parent / "vectors")
    key = home / KEY
    assert key.stat().st_mode & 0o777 == 0o600
    assert len(key.read_bytes()) == vector_cache.KEY_BYTES
    assert (home / KEY.parent).stat().st_mode & 0o777 == 0o700
    assert (home / ENTRIES).stat().st_mode & 0o777 == 0o700
    [entry] = _entries(home)
    assert entry.stat().st_mode & 0o077 == 0


def _unkeyed(document: dict[str, Any]) -> bytes:
    """An entry as streamroute 1.3 wrote one: its name, an unkeyed digest of the document, the document."""
    text = json.dumps(document).encode()
    return b"\n".join([b"0" * 40, hashlib.blake2b(text, digest_size=20).hexdigest().encode(), text])


def _one_outcome(data: dict[str, Any]) -> dict[str, Any]:
    """What a router that routes nothing passes: the vector with `end` as its only outcome."""
    return {
        **data,
        "expect": {"compare": ["end"], "outcomes": [{"at": "close", "kind": "end", "status": "completed"}]},
    }


@posix_only
@pytest.mark.slow
def test_planted_entries_for_every_bundled_vector_change_no_verdict(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The attack of issue 26: each entry replaced by a one-outcome document under its file's id, so
    that a router that routes nothing would pass every vector. No entry made without the user's key
    is used: each is dropped with a warning, and every verdict is the one a run without the cache
    gives."""
    (tmp_path / "nothing.py").write_text(DO_NOTHING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = ["run", "--adapter", "nothing:Router", "-q"]
    assert main([*run, "--no-cache", "--report", "fresh.jsonl"]) == 1
    assert _entries(home) == []  # --no-cache: nothing read, nothing written
    assert main([*run, "--report", "filled.jsonl"]) == 1
    entries = _entries(home)
    assert len(entries) >= 390  # every bundled vector, less one too large to keep
    documents = {vector.id: vector.data for vector in load_vectors([BUNDLED_VECTORS])[0]}
    planted = iter(documents.values())
    for entry in entries:  # the names are there to see; the key is not
        entry.write_bytes(_unkeyed(_one_outcome(next(planted))))
    capsys.readouterr()
    assert main([*run, "--report", "planted.jsonl"]) == 1
    warnings = capsys.readouterr().err.splitlines()
    assert len([w for w in warnings if w.endswith("was not made with this user's key: dropped")]) == len(
        entries
    )

    def verdicts(name: str) -> dict[str, str]:
        return {line["id"]: line["status"] for line in Report.load(tmp_path / name).vectors}

    assert verdicts("planted.jsonl") == verdicts("filled.jsonl") == verdicts("fresh.jsonl")
    assert sum(status == "passed" for status in verdicts("fresh.jsonl").values()) < len(documents) // 2
    assert len(_entries(home)) == len(entries)  # each dropped entry made again, from its file


@posix_only
def test_planted_entries_change_no_verdict_under_pytest(home: Path, pytester: pytest.Pytester) -> None:
    """The same attack through the plugin, on vectors of the test's own."""
    pytester.makepyfile(nothing=DO_NOTHING)
    root = pytester.path / "vectors"
    for name in ("hello", "again", "more"):
        write_vector(root, hello(id=f"core/{name}"))
    options = [
        "--streamroute-adapter",
        "nothing:Router",
        "--streamroute-vectors",
        str(root),
        "-p",
        "no:cacheprovider",
    ]
    pytester.runpytest(*options).assert_outcomes(failed=3)
    entries = _entries(home)
    assert len(entries) == 3
    for entry in entries:
        document = json.loads(entry.read_bytes().partition(b"\n")[2])
        entry.write_bytes(_unkeyed(_one_outcome(document)))
    result = pytester.runpytest(*options)
    result.assert_outcomes(failed=3, warnings=3)
    result.stdout.fnmatch_lines(["*vector cache entry * was not made with this user's key: dropped*"])


@posix_only
def test_an_entry_moved_to_another_contents_name_is_dropped(home: Path) -> None:
    """An entry's MAC covers its name: one content's genuine entry does not answer for another."""
    root = home.parent / "vectors"
    write_vector(root, hello())
    write_vector(root, hello(id="core/other", title="Another"))
    _loaded(root)
    first, second = _entries(home)
    first.write_bytes(second.read_bytes())
    documents, errors, warnings = _loaded(root)
    assert errors == []
    assert sorted(document["id"] for document in documents) == ["core/hello", "core/other"]
    assert warnings == [f"vector cache entry {first} was not made with this user's key: dropped"]


def _replaced(make: Any) -> Any:
    """A planting that puts something else at the entry's name."""

    def plant(entry: Path) -> None:
        entry.unlink()
        make(entry)

    return plant


def _deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@posix_only
@pytest.mark.parametrize(
    ("plant", "why"),
    [
        (_replaced(os.mkfifo), "is not a regular file"),  # would block a reader for ever
        (_replaced(lambda entry: entry.symlink_to("/dev/zero")), "is not a regular file"),  # never ends
        (_replaced(lambda entry: entry.symlink_to(entry.with_name("nowhere"))), "is a broken symbolic link"),
        (lambda entry: entry.write_bytes(entry.read_bytes()[:-7]), "was not made with this user's key"),
        (lambda entry: entry.write_bytes(b"x" * (4 << 20) + b"x"), "(the vector file size limit)"),
        (lambda entry: _forged(entry, _deep(100_000)), "holds no document: nests arrays and objects deeper"),
        (
            lambda entry: _forged(entry, b'{"id": "core/hello"}'),
            "holds no vector: does not match the vector schema",
        ),
        (lambda entry: _forged(entry, b"\xff"), "holds no document"),
    ],
    ids=["fifo", "dev-zero", "broken-link", "truncated", "too-large", "deep", "no-tools", "not-ascii"],
)
def test_a_damaged_entry_is_one_warning_and_a_normal_run(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], plant: Any, why: str
) -> None:
    root = tmp_path / "vectors"
    write_vector(root, hello())
    assert main(["run", "--vectors", str(root), "-q"]) == 0
    [entry] = _entries(home)
    plant(entry)
    capsys.readouterr()
    report = tmp_path / "report.jsonl"
    assert main(["run", "--vectors", str(root), "-q", "--report", str(report)]) == 0
    [warning] = capsys.readouterr().err.splitlines()
    assert warning.startswith(f"warning: vector cache entry {entry} ")
    assert why in warning
    assert warning.endswith(": dropped")
    assert [line["status"] for line in Report.load(report).vectors] == ["passed"]
    assert _loaded(root)[2] == []  # the entry made again from the file, and good


@posix_only
def test_a_directory_at_an_entrys_name_is_a_warning_and_no_cache_for_the_run(home: Path) -> None:
    root = home.parent / "vectors"
    write_vector(root, hello())
    _loaded(root)
    [entry] = _entries(home)
    entry.unlink()
    entry.mkdir()
    documents, errors, warnings = _loaded(root)
    assert ([document["id"] for document in documents], errors) == (["core/hello"], [])
    assert warnings == [f"vector cache entry {entry} is not a regular file: dropped"]


def _open_to_others(path: Path, mode: int) -> Any:
    def plant(home: Path, monkeypatch: pytest.MonkeyPatch) -> str:
        (home / path).chmod(mode)
        return f"{home / path} is open to others (mode {stat.filemode((home / path).stat().st_mode)})"

    return plant


def _not_the_users(home: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    owner = (home / ENTRIES).stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)
    return f"belongs to user id {owner}, not to this user ({owner + 1})"


def _key_a_link(home: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    moved = (home / KEY).with_name("elsewhere")
    (home / KEY).rename(moved)
    (home / KEY).symlink_to(moved)
    return "cannot read the key"


def _key_short(home: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (home / KEY).write_bytes(b"short")
    return "holds 5 bytes, not 32"


@posix_only
@pytest.mark.parametrize(
    "fault",
    [
        _open_to_others(ENTRIES, 0o777),
        _open_to_others(KEY.parent, 0o770),
        _not_the_users,
        _open_to_others(KEY, 0o644),
        _key_a_link,
        _key_short,
    ],
    ids=[
        "others write the entries",
        "others write the key's directory",
        "not the user's",
        "key readable by others",
        "key a link",
        "key short",
    ],
)
def test_a_cache_others_could_change_is_not_used(
    home: Path, monkeypatch: pytest.MonkeyPatch, parses: list[bytes], fault: Any
) -> None:
    """Entries in a directory another user can write, or that is not the user's, or under a key
    others could know, are not read, not even a genuine one: one warning says why, and every file
    is parsed."""
    root = home.parent / "vectors"
    write_vector(root, hello())
    _loaded(root)
    expected = fault(home, monkeypatch)
    documents, errors, [warning] = _loaded(root)
    assert (len(documents), errors) == (1, [])
    assert warning.startswith("the vector cache is not used: ")
    assert expected in warning
    assert len(parses) == 2


@pytest.mark.parametrize("how", ["--no-cache", "CI"])
def test_no_cache_and_ci_read_every_file_and_write_nothing(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parses: list[bytes], how: str
) -> None:
    root = tmp_path / "vectors"
    write_vector(root, hello())
    options = ["--no-cache"] if how == "--no-cache" else []
    if how == "CI":
        monkeypatch.setenv("CI", "true")
    for command in (["run", "-q"], ["lint"]):
        assert main([*command, "--vectors", str(root), *options]) == 0
    assert len(parses) == 2
    assert _entries(home) == []
    assert not (home / "state").exists()


def test_the_plugin_takes_no_cache_too(home: Path, pytester: pytest.Pytester, parses: list[bytes]) -> None:
    root = pytester.path / "vectors"
    write_vector(root, hello())
    result = pytester.runpytest("--streamroute", "--streamroute-vectors", str(root), "--streamroute-no-cache")
    assert result.ret == 0
    assert _entries(home) == []
    assert pytester.runpytest("--streamroute", "--streamroute-vectors", str(root)).ret == 0
    assert len(_entries(home)) == 1


def _copy_of_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    package = tmp_path / "conformance"
    shutil.copytree(vector_cache.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(vector_cache, "PACKAGE", package)
    return package


def test_the_checks_digest_covers_every_module_of_the_package_and_its_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _copy_of_the_package(tmp_path, monkeypatch)
    modules = sorted(package.glob("*.py"))
    assert {"schema_check.py", "vectors.py", "vector_cache.py", "limits.py", "schemas.py"} <= {
        module.name for module in modules
    }
    digests = set()
    for module in [None, *modules]:
        if module is not None:
            module.write_bytes(module.read_bytes() + b"\n")
        checks_digest.cache_clear()
        digests.add(checks_digest())
    versions = {"streamroute": "9.9.9"}
    monkeypatch.setattr(vector_cache, "version", lambda name: versions.get(name, "0"))
    checks_digest.cache_clear()
    digests.add(checks_digest())
    checks_digest.cache_clear()
    assert len(digests) == len(modules) + 2


def test_the_checks_digest_covers_every_schema_of_the_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = tmp_path / "spec"
    shutil.copytree(vector_cache.SPEC_DIR, spec, ignore=shutil.ignore_patterns("*.md", "VERSION"))
    monkeypatch.setattr(vector_cache, "SPEC_DIR", spec)
    digests = set()
    for schema in [None, *sorted(spec.iterdir())]:
        if schema is not None:
            schema.write_bytes(schema.read_bytes() + b" ")
        checks_digest.cache_clear()
        digests.add(checks_digest())
    checks_digest.cache_clear()
    assert len(digests) == 1 + len(list(spec.iterdir())) > 4


def test_a_fix_to_the_schema_predicates_is_not_outlived_by_the_cache(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    parses: list[bytes],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 26, attack 5: a predicate that wrongly accepts a file, then fixed in schema_check.py. The
    file is bad at the next lint: the fix is a new digest, so its content is parsed again."""
    package = _copy_of_the_package(tmp_path, monkeypatch)
    root = tmp_path / "vectors"
    bad = hello()
    bad["expect"]["outcomes"][1]["delta"] = 5
    write_vector(root, bad)
    lint = ["lint", "--vectors", str(root)]
    checked = vectors.first_error
    monkeypatch.setattr(vectors, "first_error", lambda ref, instance: None)  # the buggy predicate
    checks_digest.cache_clear()
    try:
        assert main(lint) == 0
        assert len(_entries(home)) == 1
        monkeypatch.setattr(vectors, "first_error", checked)  # the fix, and its file changed with it
        fixed = package / "schema_check.py"
        fixed.write_text(fixed.read_text(encoding="utf-8") + "# fixed\n", encoding="utf-8")
        checks_digest.cache_clear()
        capsys.readouterr()
        assert main(lint) == 1
    finally:
        checks_digest.cache_clear()
    assert "/expect/outcomes/1/delta" in capsys.readouterr().out
    assert len(parses) == 2


@pytest.mark.parametrize("where", ["a file", "relative"])
def test_a_cache_that_cannot_be_written_means_no_cache(
    home: Path, monkeypatch: pytest.MonkeyPatch, parses: list[bytes], where: str
) -> None:
    if where == "a file":
        home.mkdir()
        (home / "cache").write_text("not a directory", encoding="utf-8")
    else:  # a relative XDG_CACHE_HOME is ignored: ~/.cache it is, and here HOME is a file too
        monkeypatch.setenv("XDG_CACHE_HOME", "cache")
        monkeypatch.setenv("HOME", str(home.parent / "file-home"))
        (home.parent / "file-home").write_text("not a directory", encoding="utf-8")
    write_vector(home.parent / "vectors", hello())
    for _ in range(2):
        documents, errors, warnings = _loaded(home.parent / "vectors")
        assert ([document["id"] for document in documents], errors, warnings) == (["core/hello"], [], [])
    assert len(parses) == 2


def test_a_process_that_makes_the_key_as_another_does_uses_the_same(home: Path) -> None:
    """Two runs that start at once both make a key: the one linked first is the key of both."""
    path = home / KEY
    first = vector_cache._key(path)
    path.unlink()
    made = iter([first])
    original = os.link

    def linked_by_another_first(source: Any, target: Any) -> None:
        Path(target).write_bytes(next(made))
        Path(target).chmod(0o600)
        original(source, target)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "link", linked_by_another_first)
        assert vector_cache._key(path) == first
