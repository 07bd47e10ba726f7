"""The results store: `results.sqlite` in a tournament directory, the only place results are written and read.

One row per finished match (seating, deal set, hole scores, totals, placings, statuses,
faults, fault kinds, fallback holes, the forfeit score, decision times, log path and digest),
one per bot whose files had changed when a match was played (`--allow-bot-changes`), and,
in `meta`, the config's canonical form and hash and the bots' builds at the start. Only the
tournament's own process writes; each match is one transaction, in WAL mode, so a reader
(`golfref standings`) never sees half a match and a killed writer loses none it committed.

A store is read defensively: it is a file, and anyone may hand one over. `golfref standings`
and the report open it read-only (`mode=ro`; `immutable` too when no WAL or journal lies
beside it, so that not even SQLite's -wal and -shm files appear beside a store that is only
read), and every reader, the resuming writer too, holds it to these before using a value:

- its schema is golfref's to the letter: the tables `meta`, `matches` (and `bot_changes`),
  with golfref's columns, defined as golfref defines them, and nothing else: no view, no
  trigger, no other table or index (checked before any row is read);
- each read is bounded in work, in SQLite's own steps (a progress handler counts them; no
  clock), and in the size of each value (`SQLITE_LIMIT_LENGTH`: SQLite refuses a longer value
  before reading it);
- only the matches of the store's own schedule are read (the seatings of its config's tables
  in each of its deal sets); a match stored beyond the most that schedule could ever hold
  makes the store malformed;
- JSON is parsed with bounded numbers (no NaN, no infinity) and a bounded depth, and each
  match is checked against its schedule: its deal set and seating, one value per seat in
  every field, the statuses and fault kinds golfref knows, its log inside the directory.

Anything else is a `StoreError`: one line naming the store and what is wrong.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeGuard, TypeVar

from ..config.tournament import MAX_PERMUTED_TABLE, Format, Seatings, max_deal_sets
from ..files import MIB, UnsafeFile, refuse_link
from ..record.faults import FaultKind, SeatStatus
from ..stats.records import MatchRecord
from .schedule import deal_set_seatings, pool_tables

__all__ = [
    "STORE_NAME",
    "MATCH_VALUE_MAX_BYTES",
    "META_VALUE_MAX_BYTES",
    "StoreError",
    "Store",
    "StoredMatch",
    "StoredSchedule",
]

_T = TypeVar("_T")

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
_OPTIONAL_TABLE = "bot_changes"

MATCH_VALUE_MAX_BYTES = 16 * MIB
"""The longest value of a match's row that is read: the longest match the rules allow (36 holes of
up to 10,000 turns) records a few MiB of decision times for a seat."""
META_VALUE_MAX_BYTES = 4 * MIB
"""The longest meta value read unless its reader allows more: the config's canonical form is its
file (at most `files.CONFIG_MAX_BYTES`) with every default written out."""
_SCHEMA_MAX_BYTES = 64 * 1024
"""The longest definition in the schema read: golfref's are under 1 KiB."""
_MOST_PER_DEAL_SET = 1_000_000
"""The most matches a deal set of a stored schedule may have: far past any tournament that can be
played, and a bound on what computing the seatings of a hostile config costs."""

_TICK = 100
"""SQLite calls the progress handler every this many steps of its virtual machine."""
_SCHEMA_WORK = 20_000
"""Steps allowed for loading and reading the schema: golfref's takes some hundreds; a schema of
many thousands of objects would take seconds to load (SQLite parses each at the first read)."""
_READ_WORK = 10_000
"""Steps allowed for any read, beside `_ROW_WORK` per row it may return."""
_ROW_WORK = 500
"""Steps allowed per row a read may return: a row of matches takes some 50."""
_LIMITS = (
    (sqlite3.SQLITE_LIMIT_ATTACHED, 0),  # no other database file is ever joined
    (sqlite3.SQLITE_LIMIT_SQL_LENGTH, _SCHEMA_MAX_BYTES),  # golfref's statements and definitions are short
    (sqlite3.SQLITE_LIMIT_EXPR_DEPTH, 100),
    (sqlite3.SQLITE_LIMIT_COLUMN, 64),
)

_NEEDS_A_WRITER = ("SQLITE_READONLY_ROLLBACK", "SQLITE_READONLY_RECOVERY")
"""SQLite's refusals to read, read-only, a store whose last writer died mid-transaction."""

_INT_DIGITS = 19
"""The most digits of a number in the store's JSON: a seed (63 bits) is the longest golfref writes."""
_FLOAT_CHARS = 32
"""The longest written form of a fractional number in the store's JSON (a float's repr is under 25)."""


class StoreError(Exception):
    """A tournament directory whose store cannot be used: unreadable, malformed, or another tournament's."""


class StoredMatch:
    """A stored match: its record, and the log it came from (relative to the directory)."""

    __slots__ = ("record", "log_path", "digest")

    def __init__(self, record: MatchRecord, log_path: str, digest: str) -> None:
        self.record = record
        self.log_path = log_path
        self.digest = digest


@dataclass(frozen=True)
class StoredSchedule:
    """The schedule a store's meta describes: its pool, its format, and the seatings of each deal set."""

    players: tuple[str, ...]
    form: Format
    challenger: str | None
    """A gauntlet's challenger; None for a round robin."""
    seatings: tuple[tuple[str, ...], ...]
    """The seatings of one deal set, in schedule order: the `k`-th match of every deal set seats the `k`-th."""
    deal_sets: int
    """The deal sets of the tournament's last run: the matches it counts."""

    @property
    def per_deal_set(self) -> int:
        """Matches that make a deal set whole."""
        return len(self.seatings)

    @property
    def matches(self) -> int:
        """The matches of its deal sets: the most a reader reads."""
        return self.deal_sets * self.per_deal_set

    @property
    def most(self) -> int:
        """The most matches the store can hold: every deal set a config may ask for (a later run may lower
        `deal_sets`, and the matches of the deal sets beyond stay stored)."""
        return max_deal_sets() * self.per_deal_set


class _Malformed(ValueError):
    """A value of the store that is not what golfref writes; the message says how, without quoting it whole."""


class Store:
    """An open store; use as a context manager.

    `create`: make the directory and the store when missing. `readonly`: open an existing store
    to read only (`golfref standings`, the report): nothing is written, beside it either.
    """

    def __init__(self, directory: Path, *, create: bool = True, readonly: bool = False) -> None:
        self.directory = directory
        self.path = directory / STORE_NAME
        self._readonly = readonly
        self._work: int | None = None  # progress-handler calls the current read may still take; None: writing
        self._tables: frozenset[str] = frozenset()
        self._schedule: StoredSchedule | None = None  # kept once read when nothing can change it (read only)
        self._root: str | None = None  # the results directory, links resolved: where every log must lie
        self._folders: dict[str, str] = {}  # each folder of a stored log path, links resolved
        if (readonly or not create) and not self.path.is_file():
            raise StoreError(f"{directory}: no tournament results here (no {STORE_NAME})")
        try:
            if create and not readonly:
                directory.mkdir(parents=True, exist_ok=True)
            # SQLite opens its files through links: none may be one (or a FIFO...) when it starts.
            for name in (STORE_NAME, f"{STORE_NAME}-wal", f"{STORE_NAME}-shm", f"{STORE_NAME}-journal"):
                refuse_link(directory / name)
            existing = self.path.is_file() and self.path.stat().st_size > 0
        except UnsafeFile as e:
            raise StoreError(str(e)) from None
        if not existing and (readonly or not create):
            raise StoreError(f"{self.path}: not a golfref results store: it is empty")
        try:
            self.db = self._connect()
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: cannot be opened ({_plain(str(e))})") from None
        try:
            # Before anything is written (a resume writes), and before any row is read.
            self._tables = self._check_schema() if existing else frozenset()
            if not readonly:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")  # WAL: a commit survives a crash of the process
                if create:
                    self.db.executescript(_SCHEMA)
                    self._tables = frozenset(_golfrefs_schema()[1])
            version = self.meta("store_version")
            self._check_version(version)
        except sqlite3.DatabaseError as e:
            self.db.close()
            raise StoreError(f"{self.path}: not a golfref results store ({_plain(str(e))})") from None
        except StoreError:
            self.db.close()
            raise
        if version is None and create and not readonly:
            self.set_meta({"store_version": str(_SCHEMA_VERSION)})

    def __enter__(self) -> Store:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    # -- reading ---------------------------------------------------------------------------------

    def meta(self, key: str, max_bytes: int = META_VALUE_MAX_BYTES) -> str | None:
        """One value of the meta table; StoreError for one longer than `max_bytes` or not text."""
        rows = self._fetch("SELECT value FROM meta WHERE key = ?", (key,), f"meta {key}", 1, max_bytes)
        if not rows:
            return None
        value = rows[0][0]
        if not isinstance(value, str):
            raise self._error(f"meta {key}", "is not text")
        return value

    def meta_json(self, key: str, max_bytes: int = META_VALUE_MAX_BYTES) -> Any:
        """One meta value that holds JSON, parsed with bounded numbers and depth (None when missing)."""
        text = self.meta(key, max_bytes)
        return None if text is None else self._json(text, f"meta {key}")

    def meta_int(self, key: str, low: int, high: int) -> int | None:
        """One meta value that holds a whole number from `low` to `high` (None when missing)."""
        text = self.meta(key)
        if text is None:
            return None
        try:
            value = int(text)
        except ValueError:
            raise self._error(f"meta {key}", "is not a whole number") from None
        if not low <= value <= high:
            raise self._error(f"meta {key}", f"is {value}, outside {low} to {high}")
        return value

    def schedule(self) -> StoredSchedule:
        """The schedule the store's meta describes (its config's tables and seatings, its deal sets)."""
        if self._schedule is None:
            plan = self._read_schedule()
            if not self._readonly:
                return plan
            self._schedule = plan
        return self._schedule

    def _read_schedule(self) -> StoredSchedule:
        config = self.meta_json("config")
        if config is None:
            raise self._error("meta", "has no config (no tournament was begun here)")
        deal_sets = self.meta_int("deal_sets", 1, max_deal_sets())
        per_set = self.meta_int("deal_set_matches", 1, _MOST_PER_DEAL_SET)
        if deal_sets is None or per_set is None:
            raise self._error("meta", "does not say how many deal sets and matches its schedule has")
        try:
            plan = _schedule_of(config, deal_sets)
        except _Malformed as e:
            raise self._error("meta config", str(e)) from None
        if per_set != plan.per_deal_set:
            raise self._error("meta deal_set_matches", f"is {per_set}; its config seats {plan.per_deal_set}")
        return plan

    def matches(self) -> list[StoredMatch]:
        """Every stored match of the store's schedule (`schedule().matches` at most), in schedule order."""
        plan = self.schedule()
        low, high = self._span()
        if high is not None and (low < 0 or high >= plan.most):
            beyond = low if low < 0 else high
            raise self._error(
                "table matches", f"holds match {beyond}, beyond the {plan.most} its schedule can hold "
                f"({max_deal_sets()} deal sets of {plan.per_deal_set})"
            )  # fmt: skip
        return self._read(
            f"SELECT {', '.join(_COLUMNS)} FROM matches WHERE match_index >= 0 AND match_index < ? "
            "ORDER BY match_index LIMIT ?",
            (plan.matches, plan.matches),
            "table matches",
            plan.matches,
            MATCH_VALUE_MAX_BYTES,
            lambda row: self._stored(row, plan),  # one row at a time: no row's text is kept once it is parsed
        )

    def records(self) -> list[MatchRecord]:
        """Every stored match's record, in schedule order."""
        return [m.record for m in self.matches()]

    def holds_matches(self) -> bool:
        """Whether any match is stored."""
        return bool(self._fetch("SELECT 1 FROM matches LIMIT 1", (), "table matches", 1, _SCHEMA_MAX_BYTES))

    def bot_changes(self) -> dict[int, list[tuple[str, str]]]:
        """Per stored match played with a bot whose files had changed: (player, what changed), in order."""
        if _OPTIONAL_TABLE not in self._tables:  # a store written before the table
            return {}
        plan = self.schedule()
        _, high = self._span()
        # At most one row per seat of each match the store can hold.
        most = 0 if high is None else (high + 1) * max(map(len, plan.seatings))
        rows = self._fetch(
            "SELECT rowid, match_index, player, change FROM bot_changes LIMIT ?",
            (most + 1,),
            f"table {_OPTIONAL_TABLE}",
            most + 1,
            MATCH_VALUE_MAX_BYTES,
        )
        if len(rows) > most:
            raise self._error(f"table {_OPTIONAL_TABLE}", f"holds more rows than its matches have seats ({most})")
        found: dict[int, list[tuple[int, str, str]]] = {}
        for rowid, index, player, change in rows:
            where = f"table {_OPTIONAL_TABLE}'s row {rowid}"
            if not _whole(index) or not 0 <= index <= (high or 0):
                raise self._error(where, "names no stored match")
            if player not in plan.players:
                raise self._error(where, "names no player of the tournament")
            if not isinstance(change, str):
                raise self._error(where, "says what changed in no text")
            found.setdefault(index, []).append((rowid, player, change))
        return {i: [(p, c) for _, p, c in sorted(rows_of)] for i, rows_of in sorted(found.items())}

    # -- writing ---------------------------------------------------------------------------------

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

    def _transaction(self) -> _Transaction:
        return _Transaction(self.db)

    # -- the defences ----------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        """A connection bounded before its first statement (which loads the schema): its limits, its work."""
        if self._readonly:
            # immutable: no lock, no -wal or -shm made. Only when nothing lies beside the store: a WAL
            # holds committed matches (a tournament running, or killed), and a hot journal must refuse.
            beside = any(os.path.lexists(f"{self.path}{end}") for end in ("-wal", "-journal"))
            query = "?mode=ro" if beside else "?mode=ro&immutable=1"
            db = sqlite3.connect(Path(os.path.abspath(self.path)).as_uri() + query, uri=True, timeout=30)
        else:
            db = sqlite3.connect(self.path, timeout=30)
        db.isolation_level = None  # transactions are ours, explicit, one per match
        for limit, value in _LIMITS:
            db.setlimit(limit, value)
        db.set_progress_handler(self._tick, _TICK)
        return db

    def _tick(self) -> bool:
        """SQLite's progress handler: True stops the statement (an `interrupted` error) once its work is spent."""
        if self._work is None:
            return False
        self._work -= 1
        return self._work < 0

    def _read(
        self,
        sql: str,
        params: Sequence[Any],
        what: str,
        rows: int,
        max_bytes: int,
        take: Callable[[tuple[Any, ...]], _T],
        work: int | None = None,
    ) -> list[_T]:
        """`take` of each row of one bounded read: `rows` at most (more is a StoreError), each value at most
        `max_bytes`, in at most `work` steps of SQLite's machine (by default, as many as `rows` need)."""
        self._work = (_READ_WORK + _ROW_WORK * rows if work is None else work) // _TICK
        # Any statement may (re)load the schema, whose definitions are values too: never below their bound.
        bound = max(max_bytes, _SCHEMA_MAX_BYTES)
        before = self.db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, bound)
        taken: list[_T] = []
        try:
            for row in self.db.execute(sql, tuple(params)):
                if len(taken) == rows:
                    raise self._error(what, f"holds more than the {rows} rows golfref reads there")
                taken.append(take(row))
        except sqlite3.DataError:  # SQLite's "string or blob too big": refused before it was read
            raise self._error(what, f"holds a value over {bound} bytes") from None
        except sqlite3.OperationalError as e:
            if str(e) == "interrupted":
                raise self._error(what, f"is too large to read (more work than {rows} rows of it need)") from None
            if getattr(e, "sqlite_errorname", "") in _NEEDS_A_WRITER:
                raise StoreError(
                    f"{self.path}: its writer died mid-transaction, leaving a journal or WAL beside it "
                    "that only a writer can roll back: resume the tournament to recover it"
                ) from None
            raise self._error(what, f"cannot be read ({_plain(str(e))})") from None
        except sqlite3.DatabaseError as e:
            raise self._error(what, f"cannot be read ({_plain(str(e))})") from None
        finally:
            self._work = None
            self.db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, before)
        return taken

    def _fetch(
        self, sql: str, params: Sequence[Any], what: str, rows: int, max_bytes: int, work: int | None = None
    ) -> list[tuple[Any, ...]]:
        """Every row of one bounded read (`_read`), as it is."""
        return self._read(sql, params, what, rows, max_bytes, _row, work)

    def _check_schema(self) -> frozenset[str]:
        """Refuse a store whose schema is not golfref's to the letter; the tables it has."""
        objects, columns = _golfrefs_schema()
        # The first statement loads the schema (SQLite parses every definition then): bounded as it is read.
        found = self._fetch(
            "SELECT type, name, tbl_name, sql FROM sqlite_master LIMIT ?",
            (len(objects) + 1,),
            "its schema",
            len(objects) + 1,
            _SCHEMA_MAX_BYTES,
            _SCHEMA_WORK,
        )
        seen: dict[tuple[str, str], Any] = {}
        for kind, name, table, sql in found:
            if (kind, name) not in objects:
                if kind == "view":
                    said = f"{name} is a view, not a table" if name in columns else f"it holds a view {_quoted(name)}"
                elif kind == "trigger":
                    said = f"it holds a trigger ({_quoted(name)} on {_quoted(table)})"
                else:
                    said = f"it holds a {kind} {_quoted(name)} that golfref does not write"
                raise self._error("", said)
            seen[(kind, name)] = sql
        for (kind, name), (table, sql) in objects.items():
            if (kind, name) not in seen:
                if table == _OPTIONAL_TABLE:
                    continue
                raise self._error("", f"it has no table {name}" if kind == "table" else f"it lacks the index {name}")
            if kind != "table":
                continue
            self._check_columns(name, columns[name])
            if _normal(seen[(kind, name)]) != sql:
                raise self._error("", f"table {name} is not defined as golfref defines it (types, keys or constraints)")
            if name == "meta":  # golfref's meta says the store's version: an older store is named so first
                self._check_version(self.meta("store_version"))
        return frozenset(name for kind, name in seen if kind == "table")

    def _check_version(self, version: str | None) -> None:
        """Refuse a store of another version than this golfref's (None: a store being made)."""
        if version is not None and version != str(_SCHEMA_VERSION):
            raise StoreError(
                f"{self.path}: store version {_plain(version[:20])}, this golfref reads {_SCHEMA_VERSION} (its records "
                "lack what the verdicts need, such as the fallback holes): give a new results directory (--results DIR)"
            )

    def _check_columns(self, table: str, expected: tuple[str, ...]) -> None:
        """Refuse a table of golfref's name whose columns are not golfref's, naming the first that differs."""
        rows = self._fetch(f"PRAGMA table_xinfo({table})", (), f"table {table}", 4 * len(expected), _SCHEMA_MAX_BYTES)
        names = tuple(str(row[1]) for row in rows)
        missing = [n for n in expected if n not in names]
        if missing:
            raise self._error("", f"table {table} lacks the column {missing[0]}")
        extra = [n for n in names if n not in expected]
        if extra:
            raise self._error("", f"table {table} has a column {_quoted(extra[0])} that golfref does not write")
        hidden = [str(row[1]) for row in rows if row[6]]
        if hidden:
            raise self._error("", f"table {table}'s column {hidden[0]} is generated, not stored")

    def _span(self) -> tuple[int, int | None]:
        """The lowest and highest match index stored (0 and None when none is): two look-ups of the key."""
        low, high = self._fetch(
            "SELECT (SELECT min(match_index) FROM matches), (SELECT max(match_index) FROM matches)",
            (),
            "table matches",
            1,
            _SCHEMA_MAX_BYTES,
        )[0]
        return (0, None) if high is None else (int(low), int(high))

    def _stored(self, row: tuple[Any, ...], plan: StoredSchedule) -> StoredMatch:
        """One row of matches as a checked StoredMatch: each value golfref's, each as its schedule has it."""
        index, deal_set, *texts, forfeit, log_path, digest = row
        place, within = divmod(index, plan.per_deal_set)
        if type(deal_set) is not int or deal_set != place:
            raise self._error(f"match {index}'s deal set", f"is not {place}, the deal set of its place in the schedule")
        seating = plan.seatings[within]
        parsed: list[Any] = []
        for name, text in zip(_JSON_COLUMNS, texts, strict=True):
            try:
                if type(text) is not str:
                    raise _Malformed("is not text")
                parsed.append(_parsed(text))
            except _Malformed as e:
                raise self._error(f"match {index}'s {name}", str(e)) from None
        if parsed[0] != list(seating):
            raise self._error(f"match {index}'s seating", "is not the one its place in the schedule seats")
        try:
            record = _record(index, place, seating, parsed, forfeit)
        except _Malformed as e:
            raise self._error(f"match {index}'s", str(e)) from None
        if type(digest) is not str:
            raise self._error(f"match {index}'s digest", "is not text")
        return StoredMatch(record, self._log_path(log_path, f"match {index}'s"), digest)

    def _log_path(self, text: Any, where: str) -> str:
        """A stored log's path, refused unless it lies inside the results directory, links resolved."""
        if type(text) is not str or not text or "\x00" in text:
            raise self._error(f"{where} log path", "is not a path")
        folder, _, name = text.rpartition("/")
        inside = "a store's logs lie inside its results directory"
        if text.startswith("/"):
            raise self._error(f"{where} log path {_quoted(text)}", f"is absolute: {inside}")
        if ".." in text.split("/"):
            raise self._error(f"{where} log path {_quoted(text)}", f"climbs out with '..': {inside}")
        if name in ("", "."):
            raise self._error(f"{where} log path {_quoted(text)}", "names no file")
        if not self._inside(folder, name):
            raise self._error(f"{where} log path {_quoted(text)}", f"leads out through a link: {inside}")
        return text

    def _inside(self, folder: str, name: str) -> bool:
        """Whether `name` in `folder` (relative, without `..`) lies inside the results directory, every link
        followed. Each folder is resolved once (the logs share one): per log, one lstat of the file itself."""
        if self._root is None:
            self._root = os.path.realpath(self.directory)
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = os.path.realpath(os.path.join(self._root, folder))
        full = os.path.join(real, name)
        if os.path.islink(full):
            full = os.path.realpath(full)
        return full == self._root or full.startswith(self._root.rstrip("/") + "/")

    def _json(self, text: str, what: str) -> Any:
        try:
            return _parsed(text)
        except _Malformed as e:
            raise self._error(what, str(e)) from None

    def _error(self, what: str, problem: str) -> StoreError:
        """The one line of a malformed store: the store, then what in it is wrong (`what` may be empty)."""
        if not what:
            return StoreError(f"{self.path}: not a golfref results store: {problem}")
        return StoreError(f"{self.path}: {what} {problem}")


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")  # the write lock up front: no upgrade deadlock with a reader

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


_COLUMNS = (
    "match_index", "deal_set", "seating", "hole_scores", "totals", "placings", "statuses", "faults", "decision_ms",
    "fallback_holes", "fault_kinds", "forfeit_score", "log_path", "digest",
)  # fmt: skip
"""The columns of matches, in the order `put` writes them."""
_JSON_COLUMNS = _COLUMNS[2:11]
_STATUSES = frozenset(s.value for s in SeatStatus)
_FAULT_KINDS = frozenset(k.value for k in FaultKind)


@functools.cache
def _golfrefs_schema() -> tuple[dict[tuple[str, str], tuple[str, str | None]], dict[str, tuple[str, ...]]]:
    """golfref's own schema, as SQLite keeps it: (type, name) -> (table, definition), and each table's columns."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(_SCHEMA)
        objects = {
            (kind, name): (table, None if sql is None else _normal(sql))
            for kind, name, table, sql in db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")
        }
        columns = {
            name: tuple(str(row[1]) for row in db.execute(f"PRAGMA table_xinfo({name})"))
            for kind, name in objects
            if kind == "table"
        }
    finally:
        db.close()
    return objects, columns


def _normal(sql: str | None) -> str | None:
    return None if sql is None else " ".join(str(sql).split())


def _quoted(text: Any) -> str:
    """A name from the store as a line may show it: quoted, short, every control and non-ASCII escaped."""
    shown = str(text)
    return json.dumps(shown if len(shown) <= 200 else shown[:200] + "...")


def _plain(text: str) -> str:
    """SQLite's words (which may quote the store's own names) with every control and non-ASCII escaped."""
    return json.dumps(text[:300])[1:-1]


def _row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return row


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > _INT_DIGITS:  # before int(): Python's own limit is 4300 digits, and no store needs 20
        raise _Malformed(f"holds a number of {digits} digits")
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > _FLOAT_CHARS:
        raise _Malformed(f"holds a number written in {len(text)} characters")
    value = float(text)
    if not math.isfinite(value):
        raise _Malformed("holds a number out of range")
    return value


def _no_constant(name: str) -> Any:
    raise _Malformed(f"holds {name}, which is no number")


_DECODER = json.JSONDecoder(parse_int=_bounded_int, parse_float=_bounded_float, parse_constant=_no_constant)
"""Built once: `json.loads` with hooks would build a decoder per value, doubling a store's reading time."""


def _parsed(text: str) -> Any:
    """JSON as golfref writes it in a store: numbers of bounded size, no NaN or infinity, bounded depth."""
    try:
        return _DECODER.decode(text)
    except RecursionError:  # the decoder's own bound on nesting, raised before the stack is at risk
        raise _Malformed("is JSON nested too deep") from None
    except json.JSONDecodeError as e:
        raise _Malformed(f"is not JSON ({e.msg} at character {e.pos})") from None


def _schedule_of(config: Any, deal_sets: int) -> StoredSchedule:
    """The schedule of a stored config's canonical form (`TournamentConfig.canonical`) over `deal_sets`."""
    if not isinstance(config, dict):
        raise _Malformed("is not a mapping")
    players = config.get("players")
    if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
        raise _Malformed("has no list of players")
    names = [p.get("name") for p in players]
    if len(names) < 2 or not all(isinstance(n, str) and n for n in names) or len(set(names)) < len(names):
        raise _Malformed("does not name two players or more, each once")
    try:
        form, kind = Format(config.get("format")), Seatings(config.get("seatings"))
    except ValueError:
        raise _Malformed("has no format or seatings golfref knows") from None
    table, challenger = config.get("table"), config.get("challenger")
    if not _whole(table) or not 2 <= table <= len(names):
        raise _Malformed(f"has no table size from 2 to its {len(names)} players")
    if (challenger is not None or form is Format.GAUNTLET) and challenger not in names:
        raise _Malformed("has a challenger that is none of its players")
    # Counted before they are made: a hostile pool could ask for more seatings than memory holds.
    if form is Format.GAUNTLET:
        tables = math.comb(len(names) - 1, table - 1)
    else:
        tables = math.comb(len(names), table)  # 1 when the pool is the table
    if kind is Seatings.PERMUTATIONS and table > MAX_PERMUTED_TABLE:
        raise _Malformed(f"permutes tables of {table} (at most {MAX_PERMUTED_TABLE})")
    if tables * (math.factorial(table) if kind is Seatings.PERMUTATIONS else table) > _MOST_PER_DEAL_SET:
        raise _Malformed(f"seats more than {_MOST_PER_DEAL_SET} matches a deal set")
    seatings = deal_set_seatings(pool_tables(names, form, table, challenger), kind)
    challenger = challenger if form is Format.GAUNTLET else None
    return StoredSchedule(tuple(names), form, challenger, tuple(seatings), deal_sets)


def _record(index: int, deal_set: int, seating: tuple[str, ...], parsed: list[Any], forfeit: Any) -> MatchRecord:
    """A match's record from its parsed JSON values (in `_JSON_COLUMNS`' order), each checked to be golfref's:
    one value per seat of `seating`, of the kind golfref writes there."""
    seats = len(seating)
    _, holes, totals, placings, statuses, faults, times, fallback, kinds = parsed
    if type(holes) is not list or not all(type(h) is list and len(h) == seats and _ints(h) for h in holes):
        raise _Malformed(f"hole_scores is not a whole number for each of its {seats} seats at each hole")
    for name, value in zip(_JSON_COLUMNS[2:], parsed[2:], strict=True):
        if type(value) is not list:
            raise _Malformed(f"{name} is no list of its seats")
        if len(value) != seats:
            raise _Malformed(f"{name} has {len(value)} seats, its seating {seats}")
    for name, good, words in (
        ("totals", _ints(totals), "a whole number"),
        ("placings", _ints(placings, 1, seats), f"a place from 1 to {seats}"),
        ("statuses", _words(statuses, _STATUSES), "a seat status"),
        ("faults", _ints(faults, 0), "a count"),
        ("decision_ms", all(type(t) is list and _times(t) for t in times), "times"),
        (
            "fallback_holes",
            all(type(f) is list and _ints(f, 0, len(holes) - 1) for f in fallback),
            "holes of the match",
        ),
        ("fault_kinds", all(type(k) is list and _words(k, _FAULT_KINDS) for k in kinds), "fault kinds"),
    ):
        if not good:
            raise _Malformed(f"{name} holds a seat's value that is not {words}")
    if type(forfeit) is not int:
        raise _Malformed("forfeit_score is not a whole number")
    return MatchRecord(
        match_index=index,
        deal_set=deal_set,
        seating=seating,
        hole_scores=tuple(map(tuple, holes)),
        totals=tuple(totals),
        placings=tuple(placings),
        statuses=tuple(statuses),
        faults=tuple(faults),
        decision_ms=tuple(map(tuple, times)),
        fallback_holes=tuple(map(tuple, fallback)),
        fault_kinds=tuple(map(tuple, kinds)),
        forfeit_score=forfeit,
    )


def _ints(values: list[Any], low: int | None = None, high: int | None = None) -> bool:
    """Whether every value is a whole number (a bool is none), from `low` to `high` where given."""
    if not all(type(v) is int for v in values):
        return False
    return not values or ((low is None or min(values) >= low) and (high is None or max(values) <= high))


def _times(values: list[Any]) -> bool:
    """Whether every value is a number of milliseconds: whole or fractional, not negative."""
    return all(type(v) is float or type(v) is int for v in values) and (not values or min(values) >= 0)


def _words(values: list[Any], known: frozenset[str]) -> bool:
    """Whether every value is one of the `known` words."""
    return all(type(v) is str for v in values) and known.issuperset(values)
