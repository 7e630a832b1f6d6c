"""`Declined`: how an in-process adapter declines a vector, as an adapter command answers `skipped`."""

from __future__ import annotations


class Declined(Exception):
    """Raised by an in-process adapter, from the constructor the harness calls with the vector's
    tools or from `feed`, `feed_bytes` or `close`, to decline the vector it runs: the vector is
    skipped with `reason` (and `issue_url`, where the missing behaviour is tracked), never passed,
    and a run that skips more than `--max-skipped` vectors fails. The reason must say something:
    an empty one errors the vector, as the protocol's `skipped` reply needs one."""

    def __init__(self, reason: str, issue_url: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.issue_url = issue_url
