"""What a run says of each claim: a profile in a conformance class (spec/README.md, Conformance classes).

A claim is judged on requirements, from the run's vector lines alone. For each profile the
implementation claims and each class, the requirements are those the vectors of that profile and
class cite or charge, among the vectors applicable to it. Each requirement is *failed* when a
failing vector charges it (spec/vectors.md section 5), *not observable* when the implementation's
API shows none of what it is observed through (spec/observation.md), *skipped* when the
implementation declined every vector citing it, and *passed* otherwise. The claim *conforms* when
every MUST requirement is passed and no vector failed; it *fails* when a vector failed or
errored (*fails as expected* when each of those is listed as an expected failure); otherwise it is
*partial*: k of its n MUST requirements observed and passed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .observation import observes_of
from .results import CLASSES, Status

VERDICTS = ("conforms", "partial", "fails as expected", "fails")
_RAN = (Status.PASSED, Status.FAILED, Status.ERRORED, Status.EXPECTED_FAILURE)


@dataclass(frozen=True)
class RequirementVerdict:
    requirement: str
    level: str
    verdict: str  # passed, failed, not observable, skipped


@dataclass(frozen=True)
class Claim:
    profile: str
    conformance_class: str
    verdict: str
    requirements: tuple[RequirementVerdict, ...] = field(default_factory=tuple)

    @property
    def must(self) -> list[RequirementVerdict]:
        return [r for r in self.requirements if r.level == "MUST"]

    @property
    def observed(self) -> int:
        """The MUST requirements observed and passed: the k of `partial (k of n observed)`."""
        return sum(r.verdict == "passed" for r in self.must)

    def describe(self) -> str:
        """The verdict in words: `conforms`, `partial (80 of 92 MUST requirements observed)`, `fails
        (3 requirements failed)`."""
        failed = sum(r.verdict == "failed" for r in self.requirements)
        if self.verdict == "partial":
            return f"partial ({self.observed} of {len(self.must)} MUST requirements observed and passed)"
        if self.verdict.startswith("fails"):
            return f"{self.verdict} ({failed} requirement{'s' * (failed != 1)} failed)"
        return f"conforms ({len(self.must)} MUST requirements observed and passed)"

    def record(self) -> dict[str, Any]:
        """As the report's footer keeps it (spec/report.schema.json `$defs/claim`)."""
        counts: dict[str, int] = {}
        for requirement in self.requirements:
            counts[requirement.verdict] = counts.get(requirement.verdict, 0) + 1
        return {
            "profile": self.profile,
            "class": self.conformance_class,
            "verdict": self.verdict,
            "must": len(self.must),
            "must_passed": self.observed,
            "requirements": counts,
            "failed": sorted(r.requirement for r in self.requirements if r.verdict == "failed"),
        }


def requirement_verdicts(
    lines: Sequence[Mapping[str, Any]], levels: Mapping[str, str], shows: Any
) -> tuple[RequirementVerdict, ...]:
    """Each requirement the vector lines cite or charge, with its verdict, in id order. `shows`
    answers whether the implementation's API shows a requirement (spec/observation.md)."""
    applicable = [line for line in lines if Status(line["status"]) is not Status.NOT_APPLICABLE]
    charged = {r for line in applicable for r in _charges(line)}
    cited: dict[str, list[Status]] = {}
    for line in applicable:
        for requirement in line.get("spec", ()):
            cited.setdefault(requirement, []).append(Status(line["status"]))
    verdicts = []
    for requirement in sorted(cited.keys() | charged, key=requirement_key):
        if requirement in charged:
            verdict = "failed"
        elif not shows(requirement):
            verdict = "not observable"
        elif not any(status in _RAN for status in cited.get(requirement, [])):
            verdict = "skipped"
        else:
            verdict = "passed"
        verdicts.append(RequirementVerdict(requirement, levels.get(requirement, "MUST"), verdict))
    return tuple(verdicts)


def _charges(line: Mapping[str, Any]) -> Sequence[str]:
    """What a failing vector line charges; a report that states no charges (written before
    attribution) charges what the vector cites, as attribution's last resort does."""
    status = Status(line["status"])
    if not (status.is_failure or status is Status.EXPECTED_FAILURE):
        return ()
    return list(line.get("charged") or line.get("spec", ()))


def requirement_key(requirement: str) -> tuple[str, int]:
    """CORE-EVT-2 before CORE-EVT-10."""
    prefix, _, number = requirement.rpartition("-")
    return prefix, int(number) if number.isdigit() else 0


def claims(
    header: Mapping[str, Any], lines: Iterable[Mapping[str, Any]], levels: Mapping[str, str]
) -> list[Claim]:
    """The claims of a run: each profile the implementation claims, in each class it claims, that
    an applicable vector of the run belongs to; the routing class first."""
    implementation = header["implementation"]
    observes = observes_of(implementation)

    def shows(requirement: str) -> bool:
        return observes is None or bool(observes.observable([requirement]))

    by_claim: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for line in lines:
        by_claim.setdefault((line["profile"], line.get("class", "routing")), []).append(line)
    found = []
    for conformance_class in CLASSES:
        for profile in sorted(implementation["profiles"]):
            mine = by_claim.get((profile, conformance_class), [])
            if not any(Status(line["status"]) is not Status.NOT_APPLICABLE for line in mine):
                continue
            requirements = requirement_verdicts(mine, levels, shows)
            found.append(Claim(profile, conformance_class, _verdict(mine, requirements), requirements))
    return found


def _verdict(lines: Sequence[Mapping[str, Any]], requirements: Sequence[RequirementVerdict]) -> str:
    statuses = {Status(line["status"]) for line in lines}
    if statuses & {Status.FAILED, Status.ERRORED}:
        return "fails"
    if Status.EXPECTED_FAILURE in statuses:
        return "fails as expected"
    if all(r.verdict == "passed" for r in requirements if r.level == "MUST"):
        return "conforms"
    return "partial"
