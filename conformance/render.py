"""What a report becomes: a summary (text or Markdown), a badge, a baseline of expected failures."""

from __future__ import annotations

from typing import Any

from .report import Report
from .results import Status

# Vectors a summary lists one by one: everything but passed and not applicable.
_LISTED = [Status.FAILED, Status.ERRORED, Status.SKIPPED, Status.EXPECTED_FAILURE]


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0]


def _implementation(report: Report) -> str:
    info = report.header["implementation"]
    return f"{info['name']} {info['version']} ({info['language']})"


def _claims(report: Report) -> tuple[str, str]:
    info = report.header["implementation"]
    options = info.get("options", {})
    return (
        ", ".join(info["profiles"]) or "none",
        ", ".join(f"{name}={value}" for name, value in sorted(options.items())) or "canonical",
    )


def _listed(report: Report) -> list[dict[str, Any]]:
    rank = {status.value: index for index, status in enumerate(_LISTED)}
    shown = [line for line in report.vectors if line["status"] in rank]
    return sorted(shown, key=lambda line: (rank[line["status"]], line["id"]))


def summary_text(report: Report) -> str:
    header, totals = report.header, report.totals
    profiles, options = _claims(report)
    lines = [
        f"implementation: {_implementation(report)}",
        f"claims: profiles {profiles}; options {options}",
        f"suite: streamroute {header['suite']['version']}, adapter protocol {header['protocol']}; "
        f"run started {header['started']}, {report.footer['seconds']:g} s",
        "",
    ]
    for line in _listed(report):
        lines += [f"{line['status'].upper()} {line['id']}", f"  {_first_line(line['message'])}"]
    lines += [f"BAD VECTOR FILE {error['path']}: {error['message']}" for error in report.file_errors]
    lines.append(f"streamroute: {totals.describe()}")
    lines.append(f"result: {'FAILED' if totals.failed else 'PASSED'}")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return _first_line(text).replace("|", "\\|")


def summary_markdown(report: Report) -> str:
    header, totals = report.header, report.totals
    profiles, options = _claims(report)
    lines = [
        f"## streamroute: {_implementation(report)} {'fails' if totals.failed else 'passes'}",
        "",
        "| | |",
        "|---|---|",
        f"| implementation | {_cell(_implementation(report))} |",
        f"| profiles | {profiles} |",
        f"| options | {options} |",
        f"| suite | streamroute {header['suite']['version']}, adapter protocol {header['protocol']} |",
        f"| run | started {header['started']}, {report.footer['seconds']:g} s |",
        f"| result | **{'failed' if totals.failed else 'passed'}**: {totals.describe()} |",
    ]
    listed = _listed(report)
    if listed or report.file_errors:
        lines += ["", "| vector | status | message |", "|---|---|---|"]
        lines += [f"| `{line['id']}` | {line['status']} | {_cell(line['message'])} |" for line in listed]
        lines += [
            f"| `{error['path']}` | bad vector file | {_cell(error['message'])} |"
            for error in report.file_errors
        ]
    return "\n".join(lines) + "\n"


def badge(report: Report) -> dict[str, Any]:
    """A shields.io endpoint badge: the share of applicable vectors passed, per profile."""
    by_profile: dict[str, list[bool]] = {}
    for line in report.vectors:
        if line["status"] != Status.NOT_APPLICABLE.value:
            by_profile.setdefault(line["profile"], []).append(line["status"] == Status.PASSED.value)
    shares = {profile: 100 * sum(passed) // len(passed) for profile, passed in sorted(by_profile.items())}
    totals = report.totals
    if totals.failed:
        color = "red"
    elif all(share == 100 for share in shares.values()):
        color = "brightgreen"
    else:
        color = "yellow"  # passes, with expected failures or skips
    message = ", ".join(f"{profile} {share}%" for profile, share in shares.items())
    return {"schemaVersion": 1, "label": "streamroute", "message": message or "no vectors", "color": color}


def baseline(report: Report, source: str) -> str:
    """An expected-failures file listing what fails in the report, so that a rerun with it passes."""
    lines = [
        f"# streamroute expected failures, from {source}",
        f"# {_implementation(report)}, run started {report.header['started']}",
    ]
    for line in sorted(report.vectors, key=lambda line: line["id"]):
        stale = line["listed"] and line["status"] == Status.FAILED.value  # listed, and it passed
        failing = line["status"] in (Status.FAILED.value, Status.ERRORED.value, Status.EXPECTED_FAILURE.value)
        if failing and not stale:
            lines.append(f"{line['id']}  # {_first_line(line['message'])}")
    return "\n".join(lines) + "\n"
