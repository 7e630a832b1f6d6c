"""A probe run's records (spec/probe-report.schema.json), and JUnit XML and a summary rendered from them.

The JSON Lines report is the one record of a run: a header (the producer, how it was driven,
the router that judged it), a line per scenario (its status, its findings, its capture and the
vectors made of it), a footer with the counts. JUnit and the Markdown summary are rendered from
those records, and so is the producer matrix (matrix/producers.py), which reads reports back.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any

from streamroute.conformance.limits import MAX_MESSAGE_CHARS, clip
from streamroute.conformance.report import read_lines
from streamroute.conformance.results import Status

from .probe import Probe, ScenarioResult

PROBE_REPORT = "urn:streamroute:schema:probe-report"
Record = dict[str, Any]
_JUNIT = {
    Status.FAILED.value: "failure",
    Status.ERRORED.value: "error",
    Status.NOT_APPLICABLE.value: "skipped",
}


class ProbeReportError(Exception):
    """A probe report that cannot be read: one line naming the file and the line."""


def header(probe: Probe, started: datetime, producer: dict[str, Any] | None = None) -> Record:
    return {
        "line": "header",
        "tool": {"name": "streamroute", "version": version("streamroute")},
        "producer": {
            "base_url": probe.target.base_url,
            "upstream": "live" if probe.live else "fake",
            "models": probe.target.models,
            **(producer or {}),
        },
        "router": probe.router.info,
        "started": started.astimezone(timezone.utc).isoformat(timespec="seconds"),
    }


def scenario_record(probe: Probe, result: ScenarioResult) -> Record:
    return {
        "line": "scenario",
        "id": result.id,
        "title": result.title,
        "api": result.api,
        "status": result.status.value,
        "message": clip(result.message, MAX_MESSAGE_CHARS),
        "findings": [
            {**f.record(), "message": clip(f.message, MAX_MESSAGE_CHARS), "level": probe.level(f.check)}
            for f in result.findings
        ],
        "capture": result.capture,
        "vectors": result.vectors,
        "upstream": result.upstream,
        "seconds": result.seconds,
    }


def footer(scenarios: Sequence[Record], seconds: float) -> Record:
    counts = Counter(record["status"] for record in scenarios)
    return {"line": "footer", "counts": dict(sorted(counts.items())), "seconds": round(seconds, 3)}


def write_report(path: Path, records: Sequence[Record]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def read_report(path: Path) -> list[Record]:
    """A probe report's records, each valid against its schema; ProbeReportError if one is not."""
    records = read_lines(path, PROBE_REPORT, "probe report", ProbeReportError)
    if not records or records[0]["line"] != "header" or records[-1]["line"] != "footer":
        raise ProbeReportError(f"{path}: a probe report begins with its header and ends with its footer")
    return records


def scenarios_of(records: Sequence[Record]) -> list[Record]:
    return [record for record in records if record["line"] == "scenario"]


def _finding_line(finding: Record) -> str:
    where = "" if finding["at"] is None else f" at event {finding['at']}"
    level = f" ({finding['level']})" if finding.get("level") else ""
    return f"{finding['check']}{level}{where}: {finding['message']}"


def junit_xml(records: Sequence[Record]) -> str:
    """The run as one JUnit test suite, a test case per scenario."""
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", {"name": "streamroute probe"})
    properties = ET.SubElement(suite, "properties")
    producer = records[0]["producer"]
    for name, value in (("base_url", producer["base_url"]), ("upstream", producer["upstream"])):
        ET.SubElement(properties, "property", {"name": name, "value": value})
    counts: Counter[str] = Counter()
    scenarios = scenarios_of(records)
    for record in scenarios:
        classname, _, name = ("scenarios/" + record["id"]).rpartition("/")
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": classname.replace("/", "."), "name": name, "time": f"{record['seconds']:.3f}"},
        )
        tag = _JUNIT.get(record["status"])
        if tag is None:
            continue
        counts[tag] += 1
        outcome = ET.SubElement(
            case, tag, {"type": record["status"], "message": record["message"].split("\n")[0]}
        )
        if tag != "skipped":
            outcome.text = "\n".join([record["message"], *map(_finding_line, record["findings"])])
    totals = {
        "tests": str(len(scenarios)),
        "failures": str(counts["failure"]),
        "errors": str(counts["error"]),
        "skipped": str(counts["skipped"]),
    }
    suite.attrib.update(totals, time=f"{records[-1]['seconds']:.3f}", timestamp=records[0]["started"])
    root.attrib.update(name="streamroute probe", tests=totals["tests"], failures=totals["failures"])
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def summary_markdown(records: Sequence[Record]) -> str:
    """Each scenario's status and findings, in Markdown."""
    producer = records[0]["producer"]
    counts = records[-1]["counts"]
    lines = [
        f"# streamroute probe of {producer['base_url']}",
        "",
        f"Upstream: {producer['upstream']}; router: `{records[0]['router']['name']}`; started "
        f"{records[0]['started']}. " + ", ".join(f"{n} {status}" for status, n in counts.items()) + ".",
        "",
        "| scenario | status | findings |",
        "|---|---|---|",
    ]
    scenarios = scenarios_of(records)
    for record in scenarios:
        checks = ", ".join(sorted({f["check"] for f in record["findings"]})) or record["message"] or "-"
        lines.append(f"| `{record['id']}` | {record['status']} | {checks.replace('|', '/')} |")
    for record in scenarios:
        if record["findings"]:
            lines += ["", f"## {record['id']}: {record['title']}", ""]
            lines += [f"- {_finding_line(finding)}" for finding in record["findings"]]
    return "\n".join(lines) + "\n"


def failed(records: Sequence[Record]) -> bool:
    return any(
        record["status"] in (Status.FAILED.value, Status.ERRORED.value) for record in scenarios_of(records)
    )
