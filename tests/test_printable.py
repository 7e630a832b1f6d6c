"""What an implementation says of itself and of its vectors (name, version, language, messages,
details, outcomes) reaches a terminal, a CI log, a Markdown job summary, JUnit XML or an
expected-failures file only as text (conformance/limits.py `printable`): issue 26, attack 8."""

from __future__ import annotations

import re
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import hello, write_vector
from streamroute.conformance.cli import main
from streamroute.conformance.limits import Shown, printable

pytest_plugins = ["pytester"]

# An adapter command that wraps the reference and says, of itself and of the vectors it does not
# pass, what would be read as structure: Markdown, HTML, a fake result table, workflow commands,
# terminal escapes. Its name comes from its command line.
HOSTILE = r"""
import sys

from streamroute.reference.adapter import router
from streamroute.reference.serve import reference_replies, serve

answer = reference_replies(router)


def reply_to(message):
    reply = answer(message)
    if message["cmd"] == "start":
        reply["implementation"].update(name=sys.argv[1], version="1 | **passes** |", language="py`thon$x$")
    elif message["cmd"] == "run" and message["vector"]["id"].endswith("-error"):
        return {
            "seq": message["seq"],
            "errored": True,
            "message": "boom\n::error::every vector passed\n## streamroute: passes\r\x1b[2K",
            "details": "  ::add-mask::secret\nthen ##[stop-commands]token\n\u2028::notice::x",
        }
    elif message["cmd"] == "run" and message["vector"]["id"].endswith("-skip"):
        return {"seq": message["seq"], "skipped": True, "reason": "\n| `core/x` | passed | |\n::warning::x"}
    return reply


serve(reply_to)
"""

# Listed to the eye as a heading, a fake result table and an HTML comment that hides what follows;
# it holds no control character, so the start reply schema takes it.
INJECTED_NAME = "ok ## streamroute: passes | | result | **passed** | <!-- "


def _hostile(tmp_path: Path, name: str = INJECTED_NAME) -> str:
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE, encoding="utf-8")
    return shlex.join([sys.executable, str(script), name])


def _vectors(root: Path) -> Path:
    write_vector(root, hello())
    wrong = hello(id="core/wrong")
    wrong["expect"]["outcomes"][1]["delta"] = "Help\n::error::x"  # the vector's own text, shown too
    write_vector(root, wrong)
    write_vector(root, hello(id="core/hello-skip"))
    write_vector(root, hello(id="core/hello-error"))
    return root


def _log_problems(text: str) -> list[str]:
    """The lines of `text` a terminal or the GitHub Actions runner would act on: control characters
    (a line feed aside), and workflow commands (`::` at a line's start, `##[` anywhere)."""
    return [
        line
        for line in text.split("\n")
        if re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]", line)
        or line.lstrip().startswith("::")
        or "##[" in line
    ]


def test_printable_escapes_for_each_place_a_text_is_shown() -> None:
    text = "a\tb\nc\r\x1b[2J\x85\u2028d"
    assert printable(text) == "a\tb\nc\\u000d\\u001b[2J\\u0085\u2028d"
    assert printable(text, Shown.LINE) == "a\\u0009b\\u000ac\\u000d\\u001b[2J\\u0085\\u2028d"
    assert printable("x\ufffey", Shown.XML) == "x\\ufffey"
    assert printable("\ud83d") == "\\ud83d"
    # Workflow commands: `::` at a line's start, leading white space aside; `##[` anywhere.
    assert (
        printable("  ::error::x\n\u3000::set-output::y") == "  \\u003a:error::x\n\u3000\\u003a:set-output::y"
    )
    assert printable("one ##[add-mask]two", Shown.LINE) == "one \\u0023#[add-mask]two"
    assert printable("a::b: c") == "a::b: c"
    # Markdown: what GitHub's renderer reads as syntax inside a line, behind a backslash.
    assert printable("<!-- | **b** _i_ `c` [l](u) ~~s~~ $m$ &amp; \\", Shown.MARKDOWN) == (
        "\\<!-- \\| \\*\\*b\\*\\* \\_i\\_ \\`c\\` \\[l\\](u) \\~\\~s\\~\\~ \\$m\\$ \\&amp; \\\\"
    )
    assert printable("a\nb", Shown.MARKDOWN) == "a\\\\u000ab"


def test_an_implementations_texts_are_escaped_in_every_rendering(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _vectors(tmp_path / "vectors")
    report, junit = tmp_path / "report.jsonl", tmp_path / "junit.xml"
    run = ["run", "--adapter-command", _hostile(tmp_path), "--vectors", str(root)]
    assert main([*run, "--report", str(report), "--junitxml", str(junit), "-v"]) == 1
    console = capsys.readouterr()
    assert _log_problems(console.out + console.err) == []
    assert console.out.splitlines()[0].startswith("implementation: ok ## streamroute: passes | | result |")

    assert main(["summary", str(report)]) == 1
    assert _log_problems(capsys.readouterr().out) == []

    assert main(["summary", str(report), "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    heading, *rest = markdown.splitlines()
    assert heading == (
        "## streamroute: ok ## streamroute: passes \\| \\| result \\| \\*\\*passed\\*\\* \\| \\<!--  "
        "1 \\| \\*\\*passes\\*\\* \\| (py\\`thon\\$x\\$) fails"
    )
    assert not re.search(r"(?<!\\)[<`]", heading)
    for line in rest:  # a row has the cells of its table, and no text opens a tag or a code span
        unescaped = len(re.findall(r"(?<!\\)\|", line))
        assert unescaped in (0, 3, 5), line
        assert not re.search(r"(?<!\\)<", line), line
    rows = [line for line in rest if line.startswith("| `")]
    assert [row.split(" | ")[1] for row in rows] == ["errored", "failed", "skipped"]  # as triage sorts them
    assert "| `core/hello-error` | errored | CORE-EVT-2 | the adapter reports: boom |" in rows  # 1st line

    cases = {case.attrib["name"]: case for case in ET.parse(junit).getroot().iter("testcase")}
    for case in cases.values():
        for child in case:
            assert "\n" not in child.attrib["message"]
            assert _log_problems(child.text or "") == []
    assert main(["summary", str(report), "--format", "junit"]) == 1
    assert capsys.readouterr().out == junit.read_text(encoding="utf-8")

    baseline = tmp_path / "baseline.txt"
    assert main(["baseline", str(report), "-o", str(baseline)]) == 0
    listed = [
        line.split()[0] for line in baseline.read_text(encoding="utf-8").splitlines() if line[:1] != "#"
    ]
    assert listed == ["core/hello-error", "core/wrong"]


def test_a_start_reply_with_a_line_break_in_its_name_is_one_escaped_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The start reply schema bounds what an implementation says of itself: one line of text."""
    root = _vectors(tmp_path / "vectors")
    hostile = _hostile(tmp_path, "ok\n::error::passes\n## passes")
    assert main(["run", "--adapter-command", hostile, "--vectors", str(root)]) == 2
    console = capsys.readouterr()
    assert console.out == ""
    [line] = console.err.splitlines()
    assert "the adapter's start reply is out of protocol" in line
    assert "(at /implementation/name)" in line
    assert _log_problems(console.err) == []


def test_an_in_process_adapters_exception_reaches_the_log_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "raising.py").write_text(
        "class Router:\n"
        "    def __init__(self, tools):\n        pass\n"
        "    def feed(self, event):\n        raise ValueError('no\\n::error::passes\\n##[add-mask]x')\n"
        "    def close(self):\n        return []\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "vectors"
    write_vector(root, hello())
    assert main(["run", "--adapter", "raising:Router", "--vectors", str(root)]) == 1
    out = capsys.readouterr().out
    assert "ValueError: no" in out
    assert _log_problems(out) == []


def test_the_plugin_shows_an_implementations_texts_escaped(tmp_path: Path, pytester: pytest.Pytester) -> None:
    root = _vectors(pytester.path / "vectors")
    result = pytester.runpytest(
        "--streamroute-adapter-command", _hostile(tmp_path), "--streamroute-vectors", str(root), "-rA"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    output = "\n".join(result.outlines + result.errlines)
    assert "streamroute: implementation under test: ok ## streamroute: passes" in output
    assert _log_problems(output) == []
