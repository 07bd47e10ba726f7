"""The results store: `results.sqlite` in a tournament directory, the only place results are written and read.

One row per finished match (seating, deal set, hole scores, totals, placings, statuses,
faults, fault kinds, fallback holes, the forfeit score, decision times, log path and digest),
one per bot whose files had changed when a match was played (`--allow-bot-changes`), and,
in `meta`, the config's canonical form and hash and the bots' builds at the start. Only the
tournament's own process writes; each match is one transaction, in WAL mode, so a reader
(`golfref standings`) never sees half a match and a killed writer loses none it committed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from ..files import UnsafeFile, refuse_link
from ..stats.records import MatchRecord

__all__ = ["STORE_NAME", "StoreError", "Store", "StoredMatch"]

STORE_NAME = "results.sqlite"
_SCHEMA_VERSION = 2
"""2: each match also keeps its fallback holes, fault kinds and forfeit score (what its verdicts charge)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    match_index INTEGER PRIMARY KEY,
    deal_set INTEGER NOT NULL,
    seating TEXT NOT NULL,
    hole_scores TEXT NOT NULL,
    totals TEXT NOT NULL,
    placings TEXT NOT NULL,
    statuses TEXT NOT NULL,
    faults TEXT NOT NULL,
    decision_ms TEXT NOT NULL,
    fallback_holes TEXT NOT NULL,
    fault_kinds TEXT NOT NULL,
    forfeit_score INTEGER NOT NULL,
    log_path TEXT NOT NULL,
    digest TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bot_changes (match_index INTEGER NOT NULL, player TEXT NOT NULL, change TEXT NOT NULL);
"""
# bot_changes came after version 2 without a new version: a store without the table has no
# changes to show, and one opened to write gets it (CREATE ... IF NOT EXISTS).


class StoreError(Exception):
    """A tournament directory whose store cannot be used: unreadable, or another tournament's."""


class StoredMatch:
    """A stored match: its record, and the log it came from (relative to the directory)."""

    __slots__ = ("record", "log_path", "digest")

    def __init__(self, record: MatchRecord, log_path: str, digest: str) -> None:
        self.record = record
        self.log_path = log_path
        self.digest = digest


class Store:
    """An open store; use as a context manager."""

    def __init__(self, directory: Path, *, create: bool = True) -> None:
        self.path = directory / STORE_NAME
        if not create and not self.path.is_file():
            raise StoreError(f"{directory}: no tournament results here (no {STORE_NAME})")
        try:
            if create:
                directory.mkdir(parents=True, exist_ok=True)
            # SQLite opens its files through links: none may be one (or a FIFO...) when it starts.
            for name in (STORE_NAME, f"{STORE_NAME}-wal", f"{STORE_NAME}-shm", f"{STORE_NAME}-journal"):
                refuse_link(directory / name)
            # isolation_level=None: transactions are ours, explicit, one per match.
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")  # WAL: a commit survives a crash of the process
            if create:
                self.db.executescript(_SCHEMA)
            version = self.meta("store_version")
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not a golfref results store ({e})") from None
        except UnsafeFile as e:
            raise StoreError(str(e)) from None
        if version is None and create:
            self.set_meta({"store_version": str(_SCHEMA_VERSION)})
        elif version is not None and version != str(_SCHEMA_VERSION):
            self.db.close()
            raise StoreError(
                f"{self.path}: store version {version}, this golfref reads {_SCHEMA_VERSION} (its records lack what "
                "the verdicts need, such as the fallback holes): give a new results directory (--results DIR)"
            )

    def __enter__(self) -> Store:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def meta(self, key: str) -> str | None:
        """One value of the meta table."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, values: dict[str, str]) -> None:
        """Set meta values, in one transaction."""
        with self._transaction():
            self.db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", values.items())

    def put(self, record: MatchRecord, log_path: str, digest: str, changes: Iterable[tuple[str, str]] = ()) -> None:
        """Store one finished match (replacing an earlier row of the same index), in one transaction.

        `changes`: (player, what changed) for each bot whose files differed from the
        tournament's start when the match was played.
        """
        row = (
            record.match_index,
            record.deal_set,
            json.dumps(record.seating),
            json.dumps(record.hole_scores),
            json.dumps(record.totals),
            json.dumps(record.placings),
            json.dumps(record.statuses),
            json.dumps(record.faults),
            json.dumps(record.decision_ms),
            json.dumps(record.fallback_holes),
            json.dumps(record.fault_kinds),
            record.forfeit_score,
            log_path,
            digest,
        )
        with self._transaction():
            self.db.execute(f"INSERT OR REPLACE INTO matches VALUES ({', '.join('?' * len(row))})", row)
            self.db.execute("DELETE FROM bot_changes WHERE match_index = ?", (record.match_index,))
            self.db.executemany(
                "INSERT INTO bot_changes VALUES (?, ?, ?)", [(record.match_index, p, c) for p, c in changes]
            )

    def delete(self, indexes: Iterable[int]) -> None:
        """Forget matches (their logs no longer validate), in one transaction."""
        gone = [(i,) for i in indexes]
        with self._transaction():
            self.db.executemany("DELETE FROM matches WHERE match_index = ?", gone)
            self.db.executemany("DELETE FROM bot_changes WHERE match_index = ?", gone)

    def matches(self) -> list[StoredMatch]:
        """Every stored match, in schedule order."""
        rows = self.db.execute("SELECT * FROM matches ORDER BY match_index").fetchall()
        return [_stored(row) for row in rows]

    def bot_changes(self) -> dict[int, list[tuple[str, str]]]:
        """Per stored match played with a bot whose files had changed: (player, what changed), in order."""
        try:
            rows = self.db.execute(
                "SELECT match_index, player, change FROM bot_changes ORDER BY match_index, rowid"
            ).fetchall()
        except sqlite3.OperationalError:  # a store written before the table, opened read-only
            return {}
        found: dict[int, list[tuple[str, str]]] = {}
        for index, player, change in rows:
            found.setdefault(int(index), []).append((str(player), str(change)))
        return found

    def records(self) -> list[MatchRecord]:
        """Every stored match's record, in schedule order."""
        return [m.record for m in self.matches()]

    def _transaction(self) -> _Transaction:
        return _Transaction(self.db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")  # the write lock up front: no upgrade deadlock with a reader

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def _tuples(value: Any) -> tuple[Any, ...]:
    return tuple(tuple(v) if isinstance(v, list) else v for v in value)


def _stored(row: tuple[Any, ...]) -> StoredMatch:
    index, deal_set, seating, holes, totals, placings, statuses, faults, ms, fallback, kinds, forfeit, *where = row
    log_path, digest = where
    record = MatchRecord(
        match_index=index,
        deal_set=deal_set,
        seating=tuple(json.loads(seating)),
        hole_scores=_tuples(json.loads(holes)),
        totals=tuple(json.loads(totals)),
        placings=tuple(json.loads(placings)),
        statuses=tuple(json.loads(statuses)),
        faults=tuple(json.loads(faults)),
        decision_ms=_tuples(json.loads(ms)),
        fallback_holes=_tuples(json.loads(fallback)),
        fault_kinds=_tuples(json.loads(kinds)),
        forfeit_score=forfeit,
    )
    return StoredMatch(record, log_path, digest)
