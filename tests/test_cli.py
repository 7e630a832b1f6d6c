"""The `streamroute` command, as a user runs it on a directory of their own."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib.metadata import version
from pathlib import Path

import pytest
from conftest import hello, write_vector
from streamroute.conformance.cli import main
from streamroute.conformance.report import Report
from streamroute.conformance.schemas import BUNDLED_VECTORS


def _mine(tmp_path: Path) -> Path:
    """A vector directory written by someone else: one passing, one failing vector."""
    root = tmp_path / "mine"
    write_vector(root, hello())
    wrong = hello(id="core/wrong")
    wrong["expect"]["outcomes"][1]["delta"] = "Help"
    write_vector(root, wrong)
    return root


def test_run_on_a_foreign_directory_reports_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--vectors", str(_mine(tmp_path))]) == 1
    out = capsys.readouterr().out
    assert "FAILED core/wrong" in out
    assert "outcome 1: field 'delta'" in out
    assert out.splitlines()[-1] == "streamroute: 1 passed, 1 failed, 0 errored"


def test_run_passes_with_the_failure_expected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listed = tmp_path / "expected.txt"
    listed.write_text("core/wrong\ncore/unheard-of\n", encoding="utf-8")
    code = main(["run", "--vectors", str(_mine(tmp_path)), "--expected-failures", str(listed)])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.splitlines()[-1] == "streamroute: 1 passed, 0 failed, 0 errored, 1 expected failure"
    assert "core/unheard-of matches no vector" in captured.err


def test_a_stale_expected_failure_fails_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listed = tmp_path / "expected.txt"
    listed.write_text("core/hello\ncore/wrong\n", encoding="utf-8")
    assert main(["run", "--vectors", str(_mine(tmp_path)), "--expected-failures", str(listed)]) == 1
    assert "stale expected failure" in capsys.readouterr().out


def test_a_bad_vector_file_fails_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _mine(tmp_path)
    write_vector(root, "format: [\n", name="core/bad.yaml")
    listed = tmp_path / "expected.txt"
    listed.write_text("core/wrong\n", encoding="utf-8")
    assert main(["run", "--vectors", str(root), "--expected-failures", str(listed)]) == 1
    out = capsys.readouterr().out
    assert f"BAD VECTOR FILE {root / 'core/bad.yaml'}: not valid YAML" in out
    assert "1 bad vector files" in out


@pytest.mark.parametrize(
    ("vectors", "why"),
    [
        ([], "none is selected"),
        ([hello(options={"tool_call_point": "arguments_done"})], "each is not applicable or skipped"),
    ],
)
def test_a_run_in_which_no_vector_ran_fails_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], vectors: list[dict[str, object]], why: str
) -> None:
    root = tmp_path / "mine"
    root.mkdir()
    for vector in vectors:
        write_vector(root, vector)
    assert main(["run", "--vectors", str(root)]) == 1
    assert capsys.readouterr().err == f"streamroute: no vector ran: {why}; --allow-empty accepts that\n"
    assert main(["run", "--vectors", str(root), "--allow-empty"]) == 0
    assert capsys.readouterr().err == ""


def test_the_implementation_is_named_before_anything_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _mine(tmp_path)
    main(["run", "--vectors", str(root)])
    first, second = capsys.readouterr().out.splitlines()[:2]
    assert first == (
        f"implementation: streamroute.reference.adapter:router (python), version {version('streamroute')}; "
        "profiles: core, custom-tools, execution, session, sse; "
        "options: call_types=function,custom,apply_patch,shell,local_shell,computer,tool_search,mcp_approval"
    )  # only the options it does not leave canonical
    assert (
        second == "implementation: the reference router, as neither --adapter nor --adapter-command names one"
    )
    main(["run", "--vectors", str(root), "--adapter", "broken_routers:TextMix"])
    first, second = capsys.readouterr().out.splitlines()[:2]
    assert first == (
        "implementation: broken_routers:TextMix (python), version unknown: module broken_routers is in no "
        "installed distribution; profiles: core; options: canonical"
    )
    assert not second.startswith("implementation:")


@pytest.mark.slow
def test_run_against_the_bundled_vectors_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run"]) == 0
    assert " 0 failed, 0 errored" in capsys.readouterr().out.splitlines()[-1]


def test_run_lists_errored_vectors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mine"
    write_vector(root, hello(events=[*hello()["events"], {"type": "acme:ping"}]))
    assert main(["run", "--vectors", str(root), "--adapter", "broken_routers:RaiseOnUnknown"]) == 1
    out = capsys.readouterr().out
    assert "ERRORED core/hello" in out
    assert out.splitlines()[-1] == "streamroute: 0 passed, 0 failed, 1 errored"


def test_a_failure_names_its_file_by_its_absolute_path_and_what_it_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    main(["run", "--vectors", _mine(tmp_path).name])
    out = capsys.readouterr().out
    lines = [
        f"FAILED core/wrong ({tmp_path / 'mine' / 'core' / 'wrong.yaml'})",
        "  A one-delta answer",
        "  checks CORE-TEXT-1, CORE-LIFE-5 (MUST)",
    ]
    assert "\n".join(lines) in out


def _raising_adapter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, message: str = "no ROUTER_URL"
) -> str:
    """An adapter whose router cannot be built (a module name per test: a module is imported once)."""
    (tmp_path / f"{module}.py").write_text(
        f"class Adapter:\n    def __init__(self, tools):\n        raise RuntimeError({message!r})\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"{module}:Adapter"


def test_identical_errors_are_shown_once_and_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "mine"
    for name in "abc":
        write_vector(root, hello(id=f"core/{name}"))
    assert (
        main(
            [
                "run",
                "--vectors",
                str(root),
                "--adapter",
                _raising_adapter(tmp_path, monkeypatch, "unconfigured"),
            ]
        )
        == 1
    )
    out = capsys.readouterr().out
    assert out.count("RuntimeError: no ROUTER_URL\n") == 2  # the message, and its traceback's last line
    assert "ERRORED core/b" not in out
    assert "the same error in 3 vectors (shown above for core/a):\n  core/a, core/b, core/c\n" in out
    assert out.splitlines()[-1] == "streamroute: 0 passed, 0 failed, 3 errored"


def test_what_an_adapter_says_is_printed_even_a_lone_surrogate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter = _raising_adapter(tmp_path, monkeypatch, "half_a_pair", "half a \ud83d pair")
    for quiet in ([], ["-q"]):
        assert main(["run", "--vectors", str(_mine(tmp_path)), "--adapter", adapter, *quiet]) == 1
        assert "RuntimeError: half a \\ud83d pair" in capsys.readouterr().out


def _two_wrong(tmp_path: Path) -> Path:
    root = _mine(tmp_path)
    also_wrong = hello(id="core/also-wrong")
    also_wrong["expect"]["outcomes"][1]["delta"] = "Hi"
    write_vector(root, also_wrong)
    write_vector(root, hello(id="core/zz"))
    return root


def test_quiet_is_one_line_per_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--vectors", str(_two_wrong(tmp_path)), "-q"]) == 1
    assert capsys.readouterr().out.splitlines()[2:] == [
        'FAILED core/also-wrong: outcome 1: field \'delta\': expected "Hi", got "Hello"',
        'FAILED core/wrong: outcome 1: field \'delta\': expected "Help", got "Hello"',
        "failures by class, profile and requirement (worst first):",
        "  robustness core: 2 vectors failed or errored",
        "    MUST   CORE-TEXT-1 (2)",
        "robustness: core fails (1 requirement failed: CORE-TEXT-1)",
        "streamroute: 2 passed, 2 failed, 0 errored",
    ]


@pytest.mark.parametrize(
    ("option", "failed"), [(["-x"], 1), (["--maxfail", "1"], 1), (["--maxfail", "2"], 2)]
)
def test_exitfirst_and_maxfail_stop_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str], failed: int
) -> None:
    report = tmp_path / "report.jsonl"
    root = _two_wrong(tmp_path)  # core/also-wrong, core/hello, core/wrong, core/zz: in this order
    assert main(["run", "--vectors", str(root), "-q", "--report", str(report), *option]) == 1
    lines = capsys.readouterr().out.splitlines()
    passed, not_run = (0, 3) if failed == 1 else (1, 1)
    vectors = "vector" if failed == 1 else "vectors"
    assert lines[-2] == f"streamroute: stopped after {failed} failed or errored {vectors} (--maxfail)"
    assert lines[-1] == f"streamroute: {passed} passed, {failed} failed, 0 errored, {not_run} not run"
    written = Report.load(report)
    assert (written.totals.not_run, written.failed) == (not_run, True)


def test_junit_xml_is_rendered_from_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report, junit = tmp_path / "report.jsonl", tmp_path / "junit.xml"
    assert (
        main(["run", "--vectors", str(_mine(tmp_path)), "--report", str(report), "--junitxml", str(junit)])
        == 1
    )
    capsys.readouterr()
    assert main(["summary", str(report), "--format", "junit"]) == 1
    assert capsys.readouterr().out == junit.read_text(encoding="utf-8")
    cases = {case.attrib["name"]: case for case in ET.fromstring(junit.read_bytes()).iter("testcase")}
    assert [(case.attrib["classname"], [child.tag for child in case]) for case in cases.values()] == [
        ("core", []),
        ("core", ["failure"]),
    ]


def test_lint_on_a_foreign_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--vectors", str(_mine(tmp_path))]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "streamroute lint: 2 vectors, 0 problems"
    assert main(["lint", "--vectors", str(_mine(tmp_path)), "--coverage"]) == 1


@pytest.mark.slow
def test_the_readme_adapter_example_passes_the_bundled_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    example = readme.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "my_adapter.py").write_text(example, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["run", "--adapter", "my_adapter:Adapter"]) == 0
    assert " 0 failed, 0 errored" in capsys.readouterr().out.splitlines()[-1]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """What the bad arguments below name: a report, a directory, a file that is not UTF-8, nothing."""
    root = tmp_path_factory.mktemp("files")
    report = root / "report.jsonl"
    assert main(["run", "--vectors", str(_mine(root)), "--report", str(report)]) == 1
    (root / "binary").write_bytes(b"\xff\xfe\x00")
    return {
        "report": str(report),
        "dir": str(root),
        "binary": str(root / "binary"),
        "absent": str(root / "absent"),
    }


# Every command, given a bad argument or path, and the start of the one line it answers.
BAD_ARGUMENTS = [
    ([], "the following arguments are required: command"),
    (["telepathy"], "argument command: invalid choice: 'telepathy'"),
    (["run", "--adapter", ""], "the adapter is empty; give it as module:callable"),
    (
        ["run", "--adapter", "nowhere_at_all:router"],
        "cannot load adapter 'nowhere_at_all:router': importing it raised ModuleNotFoundError",
    ),
    (["run", "--adapter-command", ""], "the adapter command is empty"),
    (
        ["run", "--adapter-command", "node 'adapter.js"],
        'the adapter command "node \'adapter.js" cannot be split',
    ),
    (
        ["run", "--adapter", "a:b", "--adapter-command", "c"],
        "give a Python adapter or an adapter command, not both",
    ),
    (
        ["run", "--profile", "telepathy"],
        "unknown profile telepathy; known: core, custom-tools, execution, sse",
    ),
    (["run", "--timeout", "0"], "the timeout must be a positive number of seconds, not 0"),
    (["run", "--timeout", "nan"], "the timeout must be a positive number of seconds, not nan"),
    (["run", "--timeout", "inf"], "the timeout must be at most 86400 seconds (a day), not inf"),
    (["run", "--timeout", "soon"], "run: argument --timeout: invalid float value: 'soon'"),
    (["run", "--vectors", "{absent}"], "{absent} is not a directory of vectors"),
    (["run", "--vectors", "{binary}"], "{binary} is not a directory of vectors"),
    (["run", "--expected-failures", "{absent}"], "cannot read the expected failures file {absent}"),
    (["run", "--expected-failures", "{binary}"], "cannot read the expected failures file {binary}"),
    (
        ["run", "--report", "{absent}/r.jsonl"],
        "cannot write {absent}/r.jsonl: there is no directory {absent}",
    ),
    (["run", "--report", "{dir}"], "cannot write {dir}: it is a directory"),
    (["run", "--no-such-option"], "unrecognized arguments: --no-such-option"),
    (["smoke"], "smoke: the following arguments are required: --adapter-command"),
    (["smoke", "--adapter-command", " "], "the adapter command is empty"),
    (
        ["smoke", "--adapter-command", "x", "--timeout", "-1"],
        "the timeout must be a positive number of seconds",
    ),
    (["summary", "{absent}"], "cannot read the report"),
    (["summary", "{dir}"], "cannot read the report"),
    (["summary", "{binary}"], "cannot read the report"),
    (["summary", "{report}", "--format", "html"], "summary: argument --format: invalid choice: 'html'"),
    (["run", "--maxfail", "0"], "--maxfail must be at least 1"),
    (["run", "--junitxml", "{dir}"], "cannot write {dir}: it is a directory"),
    (["run", "--junitxml", "{absent}/j.xml"], "cannot write {absent}/j.xml: there is no directory {absent}"),
    (
        ["badge", "{report}", "-o", "{absent}/b.json"],
        "cannot write {absent}/b.json: there is no directory {absent}",
    ),
    (["badge", "{report}", "-o", "{dir}"], "cannot write {dir}: it is a directory"),
    (["badge", "{absent}"], "cannot read the report"),
    (
        ["baseline", "{report}", "-o", "{absent}/x.txt"],
        "cannot write {absent}/x.txt: there is no directory {absent}",
    ),
    (["baseline", "{binary}"], "cannot read the report"),
    (["lint", "--vectors", "{absent}"], "{absent} is not a directory of vectors"),
    (["check-capture", "{absent}"], "cannot read the capture"),
    (["check-capture", "{dir}"], "cannot read the capture"),
    (
        ["check-capture", "{report}", "--format", "xml"],
        "check-capture: argument --format: invalid choice: 'xml'",
    ),
    (["matrix", "--config", "{absent}"], "cannot read the matrix file"),
    (["fuzz", "--adapter", ""], "the adapter is empty; give it as module:callable"),
    (["fuzz", "--adapter-command", ""], "the adapter command is empty"),
    (["fuzz", "--examples", "0"], "--examples must be at least 1"),
    (["fuzz", "--timeout", "-1"], "the timeout must be a positive number of seconds, not -1"),
    (["fuzz", "--save-to", "{binary}"], "--save-to {binary} is not a directory"),
    (["bench", "--scale", "0"], "--scale and --memory-mib must be positive and --repeats at least 1"),
    (["bench", "--json", "{absent}/b.json"], "cannot write {absent}/b.json: there is no directory {absent}"),
]


@pytest.mark.parametrize(
    ("argv", "message"), BAD_ARGUMENTS, ids=[" ".join(a) or "-" for a, _ in BAD_ARGUMENTS]
)
def test_a_bad_argument_is_one_line_and_exit_2(
    files: dict[str, str], capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main([argument.format(**files) for argument in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(f"streamroute: {message.format(**files)}")


def test_version_names_each_version_from_its_one_source(capsys: pytest.CaptureFixture[str]) -> None:

    from streamroute.conformance.schemas import SPEC_DIR, VECTOR, protocol_version, schema

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.splitlines() == [
        f"streamroute {version('streamroute')}",
        f"spec {(SPEC_DIR / 'VERSION').read_text(encoding='utf-8').strip()}",
        f"vector format {schema(VECTOR + '#/properties/format')['const']}",
        f"adapter protocol {protocol_version()}",
    ]
    title = (SPEC_DIR / "README.md").read_text(encoding="utf-8").splitlines()[0]
    assert title.endswith(f"version {(SPEC_DIR / 'VERSION').read_text(encoding='utf-8').strip()}")


@pytest.mark.slow
@pytest.mark.parametrize("command", [["--version"], ["lint"], ["summary", "report.jsonl"]])
def test_commands_import_only_what_they_use(command: list[str], tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from streamroute.conformance import cli\n"
        "try:\n"
        f"    cli.main({command!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('hypothesis', 'streamroute.conformance.fuzz', 'streamroute.conformance.protocol')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_output_read_only_in_part_ends_the_command_without_a_traceback(tmp_path: Path) -> None:
    """`streamroute run -v | head -1`: the reader leaves early; the command ends quietly, failed."""
    command = [
        sys.executable,
        "-m",
        "streamroute.conformance.cli",
        "run",
        "-v",
        "--vectors",
        str(BUNDLED_VECTORS),
    ]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path) as run:
        assert run.stdout is not None
        assert run.stderr is not None
        run.stdout.readline()
        run.stdout.close()  # as `head -1` does
        stderr = run.stderr.read().decode()
        assert run.wait(timeout=120) == 1
    assert "Traceback" not in stderr
    assert "BrokenPipeError" not in stderr
