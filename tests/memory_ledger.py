"""A `Ledger` (reference/ledger.py) in a dict: the executor's tests hold it and `SqliteLedger` to
one contract. No adapter runs it, so it lives beside the tests, not in the reference."""

from __future__ import annotations

from streamroute.reference.ledger import UNFINISHED, Record, State


class MemoryLedger:
    """A ledger in a dict, as long-lived as the object: the executor's tests run on it and on
    `SqliteLedger` alike."""

    def __init__(self) -> None:
        self._records: dict[str, Record] = {}  # insertion-ordered
        self._aliases: dict[str, str] = {}  # a call id restated away -> the id its record has now

    def get(self, call_id: str) -> Record | None:
        return self._records.get(self._aliases.get(call_id, call_id))

    def insert(self, record: Record) -> bool:
        if record.call_id in self._records or record.call_id in self._aliases:
            return False
        self._records[record.call_id] = record
        return True

    def readdress(self, record: Record, previous: str) -> bool:
        current = self._records.get(previous)
        if current is None or current.state != record.state or self.get(record.call_id) is not None:
            return False
        self._records = {  # the same order: a record keeps its place
            (record.call_id if key == previous else key): (record if key == previous else value)
            for key, value in self._records.items()
        }
        self._aliases = {
            alias: (record.call_id if to == previous else to) for alias, to in self._aliases.items()
        }
        self._aliases[previous] = record.call_id
        return True

    def update(self, record: Record, expected: State) -> bool:
        current = self._records.get(record.call_id)
        if current is None or current.state != expected:
            return False
        self._records[record.call_id] = record
        return True

    def records(self) -> list[Record]:
        return list(self._records.values())

    def unfinished(self) -> list[Record]:
        return [record for record in self._records.values() if record.state in UNFINISHED]
