"""Game logs: building them during a match, writing them atomically, reading them back.

A log holds everything needed to re-derive every state without the random generator:
the resolved rules, the declared cards, each hole's deal order, every reshuffle order and
every action. `docs/LOG_FORMAT.md` documents each field; `schemas/log.schema.json`
is its JSON Schema.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import orjson

from .. import __version__
from ..files import LOG_MAX_BYTES, UnsafeFile, fresh_temp, read_capped, refuse_link, replace_file
from ..game.engine import Game, HoleResult
from ..game.rules import Rules

__all__ = [
    "LOG_FORMAT",
    "SCHEMA_VERSION",
    "READ_VERSIONS",
    "LogError",
    "NotALog",
    "TamperedLog",
    "LogBuilder",
    "Journal",
    "JOURNAL_FORMAT",
    "recover_journal",
    "journal_cut",
    "CUT_SHORT",
    "canonical_bytes",
    "compute_digest",
    "SIGNATURE_SCHEME",
    "TournamentPlace",
    "MatchIdentity",
    "signed_message",
    "LogSigner",
    "write_log",
    "read_log",
    "read_log_bytes",
    "parse_log",
    "json_type",
    "not_a_log",
    "hole_result_json",
]

LOG_FORMAT = "golfref-log"
SCHEMA_VERSION = 3
"""The version of the log format this golfref writes: 2 added python players, 3 stderr in the transcripts
beside the log (docs/LOG_FORMAT.md)."""
READ_VERSIONS = (1, 2, 3)
"""The versions this golfref reads: a version 1 log is a version 2 log without python players, a version 2
log a version 3 log whose transcripts hold no stderr."""
JOURNAL_FORMAT = "golfref-journal"
JOURNAL_VERSION = 1


class LogError(ValueError):
    """A log file that cannot be read or does not describe a match."""


class NotALog(LogError):
    """A file that is no golfref log at all: missing, unreadable, or JSON of another kind."""


class TamperedLog(LogError):
    """A journal whose lines no longer match the chain of digests they were written with."""


# The fields that seal a log rather than describe the match: the canonical form leaves them out.
SEALS = ("digest", "signature")
# Starts every signed message, so that a golfref log signature can never pass for another use
# of the key; one context per scheme, so that a signature of one scheme never reads as another's.
SIGNATURE_CONTEXT = b"golfref-log-signature-v1\n"
SIGNATURE_CONTEXT_2 = b"golfref-log-signature-v2\n"
SIGNATURE_SCHEME = 2
"""The scheme golfref signs with: 2 names the match (`MatchIdentity`); 1, before it, signed the content only."""


def canonical_bytes(doc: dict[str, Any]) -> bytes:
    """The canonical form the digest covers: orjson's compact UTF-8 with sorted keys, digest and signature left out."""
    body = {k: v for k, v in doc.items() if k not in SEALS}
    try:
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError) as e:
        raise LogError(f"the log holds a value JSON cannot carry: {e}") from None


def compute_digest(doc: dict[str, Any]) -> str:
    """The integrity digest of a log document."""
    return "sha256:" + hashlib.sha256(canonical_bytes(doc)).hexdigest()


@dataclass(frozen=True)
class TournamentPlace:
    """A match's place in a tournament: the tournament's name, the match's index and its deal set."""

    tournament: str
    match: int
    deal_set: int

    def to_json(self) -> dict[str, Any]:
        """The place as a signature's identity records it."""
        return {"name": self.tournament, "match": self.match, "deal_set": self.deal_set}


@dataclass(frozen=True)
class MatchIdentity:
    """What a scheme-2 signature names beside the content: which match, where it was played, under which file name.

    The content alone (what the digest covers) says which match a log is; the identity
    says it where it can be shown, and adds what the content does not hold: the
    tournament's place and the file name the log was written under, so that a copy of a
    signed log under another name is recognisably a copy.
    """

    match_id: str
    match: str
    seats: tuple[str, ...]
    """The players' names, seat by seat."""
    file: str
    """The log's file name (not its folder) when it was signed."""
    tournament: TournamentPlace | None

    @classmethod
    def of(cls, doc: dict[str, Any], file: str, place: TournamentPlace | None) -> MatchIdentity:
        """The identity of the log `doc` written as `file` (a file name), at `place` in a tournament if any."""
        return cls(doc["match_id"], doc["match"], tuple(p["name"] for p in doc["players"]), file, place)

    @classmethod
    def from_json(cls, value: Any) -> MatchIdentity | None:
        """The identity a signature records, or None when it is not one (wrong fields or types)."""
        fields = ("file", "match", "match_id", "seats", "tournament")
        if not isinstance(value, dict) or sorted(value) != list(fields):
            return None
        strings = (value["match_id"], value["match"], value["file"])
        seats = value["seats"]
        if not all(isinstance(v, str) for v in strings) or not isinstance(seats, list):
            return None
        if not all(isinstance(name, str) for name in seats):
            return None
        place = value["tournament"]
        if place is not None:
            if not isinstance(place, dict) or sorted(place) != ["deal_set", "match", "name"]:
                return None
            name, match, deal_set = place["name"], place["match"], place["deal_set"]
            if not isinstance(name, str) or not all(type(n) is int and n >= 0 for n in (match, deal_set)):
                return None
            place = TournamentPlace(name, match, deal_set)
        return cls(value["match_id"], value["match"], tuple(seats), value["file"], place)

    def to_json(self) -> dict[str, Any]:
        """The identity as the signature object records it."""
        return {
            "file": self.file,
            "match": self.match,
            "match_id": self.match_id,
            "seats": list(self.seats),
            "tournament": None if self.tournament is None else self.tournament.to_json(),
        }

    def describe(self) -> str:
        """`match M (tournament T, match 3, deal set 1)`, as the checks print it."""
        where = self.tournament
        if where is None:
            return f"match {self.match_id}"
        return f"match {self.match_id} (tournament {where.tournament}, match {where.match}, deal set {where.deal_set})"


def signed_message(body: bytes, digest: str, identity: MatchIdentity | None) -> bytes:
    """What a log's signature signs, from the canonical form `body` and the digest.

    Scheme 2 (with `identity`): a fixed context, the identity as one line of sorted compact
    JSON, the canonical form, and the digest, each ended by a newline but the last. Scheme 1
    (`identity` None, logs signed before golfref named the match): the context of scheme 1,
    the canonical form and the digest.
    """
    if identity is None:
        return SIGNATURE_CONTEXT + body + b"\n" + digest.encode("ascii")
    named = orjson.dumps(identity.to_json(), option=orjson.OPT_SORT_KEYS)  # compact: no newline inside
    return SIGNATURE_CONTEXT_2 + named + b"\n" + body + b"\n" + digest.encode("ascii")


class LogSigner(Protocol):
    """What `write_log` signs a log with (`signing.Signer`)."""

    def __call__(self, doc: dict[str, Any], body: bytes, digest: str, file: str) -> dict[str, Any]:
        """The `signature` field of the log `doc` (canonical form `body`, digest `digest`) written as `file`."""
        ...


def write_log(
    path: str | os.PathLike[str],
    doc: dict[str, Any],
    body: bytes | None = None,
    sign: LogSigner | None = None,
) -> None:
    """Seal `doc` with its digest (and a signature), write it atomically and sync it to the disk.

    A reader sees the old or the new file, never half of one. `body` is
    `canonical_bytes(doc)` when the caller has it already. `sign` (`signing.Signer`) makes
    the `signature` field, naming the file by its name in `path`; without it, a `signature`
    already in `doc` is written as it is (null for a log golfref did not sign).
    """
    if body is None:
        body = canonical_bytes(doc)
    doc["digest"] = "sha256:" + hashlib.sha256(body).hexdigest()
    if sign is not None:
        doc["signature"] = sign(doc, body, doc["digest"], Path(path).name)
    _replace(Path(path), _file_bytes(body, doc), sync=True)


def _file_bytes(body: bytes, doc: dict[str, Any]) -> bytes:
    """The bytes of the file `write_log` writes: the canonical form `body` with the seals of `doc` as last keys.

    One serialization instead of two; and a file read back is golfref's own exactly when
    its bytes are these (`parse_log`).
    """
    tail = b',"digest":' + orjson.dumps(doc["digest"])
    if "signature" in doc:
        tail += b',"signature":' + orjson.dumps(doc["signature"], option=orjson.OPT_SORT_KEYS)
    return body[:-1] + tail + b"}\n"


def _replace(target: Path, data: bytes, sync: bool) -> None:
    """Write `data` to a new file renamed over `target`: a reader sees the old file or the new, never half."""
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_file(target, data, sync=sync)


def read_log(
    path: str | os.PathLike[str], max_bytes: int = LOG_MAX_BYTES, *, follow_links: bool = True
) -> dict[str, Any]:
    """Read a log file as a JSON object; raises LogError saying what is wrong (not the path).

    Parsing uses orjson, the library that wrote the file: it rejects what golfref never
    writes (NaN, integers beyond 64 bits, lone surrogates), so that every log it accepts
    re-encodes to the exact bytes its digest covers. The journal of a match in play, or of
    one whose referee was killed, is read as the log it stands for (`recover_journal`).
    `follow_links=False` for a log golfref found for itself (`files.read_capped`).
    """
    return parse_log(read_log_bytes(path, max_bytes, follow_links=follow_links))


def read_log_bytes(path: str | os.PathLike[str], max_bytes: int = LOG_MAX_BYTES, *, follow_links: bool = True) -> bytes:
    """The bytes of a log file, as `read_log` reads them; raises NotALog for what is no file to read.

    `follow_links=False` for a log golfref found for itself: a link there is no log to read.
    """
    p = Path(path)
    if follow_links and p.is_dir():
        raise NotALog("is a directory, not a log")
    try:
        # A FIFO, a device or a file over `max_bytes` is refused before a byte is read.
        raw = read_capped(
            p, max_bytes, "log", "golfref replay and audit read more with --max-log-mb", follow_links=follow_links
        )
    except FileNotFoundError:
        raise NotALog("no such file") from None
    except UnsafeFile as e:
        raise NotALog(e.reason) from None
    except OSError as e:
        raise NotALog(f"cannot read: {e.strerror}") from None
    return raw


CUT_SHORT = (
    "the file was cut short, by a copy that stopped or is still under way, or a full disk (golfref writes a log "
    "whole, in one rename); copy it again from the match's log path, whose journal of finished holes golfref "
    "replay reads while the match is still in play"
)
"""What a file cut short means and what to do, said after where it ends (docs/LOG_FORMAT.md, the journal)."""


def _cut_short(raw: bytes, what: str) -> str:
    """The error of a file that ends inside what it holds: where it ends (byte, line, column) and what to do."""
    text = raw.decode("utf-8", errors="ignore")  # a last character cut in two is no character
    line, column = text.count("\n") + 1, len(text) - text.rfind("\n")
    return f"truncated: {what} at byte {len(raw)} (line {line}, column {column}), the end of the file: {CUT_SHORT}"


def _place(error: orjson.JSONDecodeError, start: int = 0) -> str:
    """Where orjson stopped, as a byte offset in the file (its `pos` counts characters) and line and column."""
    chars = error.doc[: error.pos] if isinstance(error.doc, str) else None
    at = start + (len(chars.encode("utf-8")) if chars is not None else error.pos)
    return f"byte {at} (line {error.lineno}, column {error.colno})"


def _reason(error: orjson.JSONDecodeError) -> str:
    return str(error).split(":", 1)[0]


def parse_log(raw: bytes) -> dict[str, Any]:
    """The log in the bytes of a log file (or a journal), as `read_log` reads it."""
    if not raw.strip():
        raise LogError("empty file")
    if raw.startswith(_JOURNAL_HEAD):
        return recover_journal(raw)
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as u:
            if u.reason != "unexpected end of data":  # else a character cut in two by the file's end
                raise LogError(f"not UTF-8 (byte {u.start})") from None
            raise LogError(_cut_short(raw, "the JSON ends unfinished")) from None
        if str(e).startswith("unexpected end of data") or e.pos >= len(raw.rstrip()):
            raise LogError(_cut_short(raw, "the JSON ends unfinished")) from None
        raise LogError(f"not JSON: {_reason(e)} at {_place(e)}") from None
    if isinstance(doc, dict) and not _as_written(raw, doc):
        _refuse_duplicate_keys(raw, "")
    problem = not_a_log(doc)
    if problem is not None:
        raise NotALog(problem)
    log: dict[str, Any] = doc
    return log


def _as_written(raw: bytes, doc: dict[str, Any]) -> bool:
    """Whether `raw` is byte for byte the file `write_log` writes for `doc` (then it holds no duplicate key)."""
    if not isinstance(doc.get("digest"), str):
        return False
    try:
        return raw == _file_bytes(canonical_bytes(doc), doc)
    except (LogError, TypeError, orjson.JSONEncodeError):
        return False


class _Duplicated(dict[str, Any]):
    """A JSON object in which `key` was written more than once (the duplicate scan's mark)."""

    key: str


def _mark_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    marked = _Duplicated(obj)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            marked.key = key  # the first key written a second time
            break
        seen.add(key)
    return marked


def _refuse_duplicate_keys(raw: bytes, where: str) -> None:
    """Raise LogError naming the first object (in document order) that repeats a key, if one does.

    orjson, like most JSON readers, keeps the last of repeated keys and says nothing, while
    other readers keep the first: a file with a repeated key reads as two different logs, and
    its digest and signature would vouch for only one of them. Only files that are not
    byte for byte golfref's own form get here (reformatted ones, or hand-made): the standard
    library's parser reports every object's pairs, which orjson does not.
    """
    try:
        found = _first_marked(json.loads(raw, object_pairs_hook=_mark_duplicates), ())
    except (RecursionError, ValueError) as e:
        # orjson read it (up to 1024 levels deep), this parser cannot: unchecked is refused.
        why = "nested too deeply" if isinstance(e, RecursionError) else "not read by the standard JSON parser"
        raise LogError(f"{where}cannot be checked for duplicate keys: {why}") from None
    if found is not None:
        from ..config.match import dotted  # only for this rare message: reading a log does not load the config layer

        path, key = found
        shown = json.dumps(key if len(key) <= 60 else key[:60] + "...", ensure_ascii=False)
        raise LogError(f"{where}duplicate key {shown} {'in ' + dotted(path) if path else 'at the top level'}")


def _first_marked(node: Any, path: tuple[str | int, ...]) -> tuple[tuple[str | int, ...], str] | None:
    if isinstance(node, _Duplicated):
        return path, node.key
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        found = _first_marked(value, (*path, key))
        if found is not None:
            return found
    return None


def not_a_log(doc: Any) -> str | None:
    """Why a parsed JSON value is no golfref log at all (not an object, or another format), or None."""
    if not isinstance(doc, dict):
        return f"not a golfref log: a log is a JSON object, got {json_type(doc)}"
    if "format" not in doc:
        return f'not a golfref log: a JSON object without the "format": "{LOG_FORMAT}" field'
    if doc["format"] != LOG_FORMAT:
        return f"not a golfref log: its format is {repr(doc['format'])[:40]}, not {LOG_FORMAT!r}"
    return None


def json_type(value: Any) -> str:
    """How a JSON value is named in messages: `an array`, `a string`, `null`..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def hole_result_json(result: HoleResult, card_names: Sequence[str]) -> dict[str, Any]:
    """A hole's result as recorded in the log."""
    return {
        "end": result.end.value,
        "ender": result.ender,
        "grids": [[card_names[c] for c in g] for g in result.grids],
        "raw": [gs.total for gs in result.grid_scores],
        "penalties": list(result.penalties),
        "scores": list(result.scores),
        "totals": list(result.totals),
        "turns": list(result.turns),
    }


class LogBuilder:
    """Accumulates a match log as the referee plays it."""

    def __init__(
        self,
        *,
        match_id: str,
        match: str,
        started_at: str,
        seed: int,
        rules: Rules,
        card_names: Sequence[str],
        time_control: dict[str, int],
        fault_policy: dict[str, Any],
        players: list[dict[str, Any]],
    ) -> None:
        self.card_names = list(card_names)
        self.doc: dict[str, Any] = {
            "format": LOG_FORMAT,
            "schema_version": SCHEMA_VERSION,
            "golfref_version": __version__,
            "match_id": match_id,
            "match": match,
            "status": "running",
            "complete": False,
            "started_at": started_at,
            "finished_at": None,
            "seed": seed,
            "rules": rules.to_dict(),
            "time_control": time_control,
            "fault_policy": fault_policy,
            "cards": self.card_names,
            "players": players,
            "holes": [],
            "faults": [],
            "totals": None,
            "placings": None,
            "error": None,
            "signature": None,
        }
        self.current: dict[str, Any] | None = None
        self._hole_bytes: list[bytes] = []  # canonical form of each finished hole, made once

    def names(self, order: Sequence[int]) -> list[str]:
        """Card ids as their written names."""
        names = self.card_names
        return [names[c] for c in order]

    def start_hole(self, hole: int, starter: int, deal: Sequence[int]) -> None:
        """Open a hole with its deal order."""
        self.current = {"hole": hole, "starter": starter, "deal": self.names(deal), "steps": [], "result": None}

    def shuffle(self, game: Game, order: Sequence[int]) -> None:
        """Apply `order` as `game`'s pending shuffle and record it: a hole's deal or a reshuffle."""
        dealing = game.dealing
        hole, starter = game.hole, game.starter
        game.apply_shuffle(order)
        if dealing:
            self.start_hole(hole, starter, order)
        else:
            self.reshuffle(order)

    def reshuffle(self, order: Sequence[int]) -> None:
        """Record a D7 reshuffle of the current hole."""
        assert self.current is not None
        self.current["steps"].append({"reshuffle": self.names(order)})

    def step(self, seat: int, decision: str, action: str, by: str, request: int | None, ms: float | None) -> None:
        """Record one decision of the current hole."""
        assert self.current is not None
        self.current["steps"].append(
            {"seat": seat, "decision": decision, "action": action, "by": by, "request": request, "ms": ms}
        )

    def end_hole(self, result: HoleResult) -> None:
        """Close the current hole with its result."""
        assert self.current is not None
        self.current["result"] = hole_result_json(result, self.card_names)
        self.doc["holes"].append(self.current)
        self._hole_bytes.append(orjson.dumps(self.current, option=orjson.OPT_SORT_KEYS))
        self.current = None

    @property
    def hole_bytes(self) -> tuple[bytes, ...]:
        """The canonical form of each finished hole, encoded once when it ended."""
        return tuple(self._hole_bytes)

    def fault(self, record: dict[str, Any]) -> None:
        """Record a bot fault."""
        self.doc["faults"].append(record)

    def canonical(self, doc: dict[str, Any]) -> bytes:
        """`canonical_bytes(doc)` for a snapshot of this builder, without re-encoding finished holes.

        Finished holes were encoded once, as they ended (the journal appends them too).
        """
        holes = doc["holes"]
        finished = len(self._hole_bytes)
        ours = self.doc["holes"][:finished]
        if len(holes) < finished or any(a is not b for a, b in zip(holes[:finished], ours, strict=True)):
            return canonical_bytes(doc)
        head = canonical_bytes({**doc, "holes": []})
        parts = list(self._hole_bytes)
        parts += [orjson.dumps(h, option=orjson.OPT_SORT_KEYS) for h in holes[finished:]]
        marker = b'"holes":[]'
        at = head.index(marker)
        return head[:at] + b'"holes":[' + b",".join(parts) + b"]" + head[at + len(marker) :]

    def snapshot(self, include_open_hole: bool) -> dict[str, Any]:
        """The log as it stands; the open hole (unfinished) only when asked for."""
        doc = dict(self.doc)
        doc["holes"] = list(self.doc["holes"])
        if include_open_hole and self.current is not None:
            doc["holes"].append(self.current)
        return doc


# -- the journal --------------------------------------------------------------------------------

_JOURNAL_HEAD = b'{"format":"' + JOURNAL_FORMAT.encode() + b'"'


def _chained(previous: str, body: bytes) -> str:
    return "sha256:" + hashlib.sha256(previous.encode("ascii") + body).hexdigest()


class Journal:
    """The log of a match in play, at the log's path: a header line, then one line appended per finished hole.

    Each line costs the same whatever the length of the match, where rewriting the whole
    log after every hole cost more at every hole. A line is written by one `write` to a
    file opened for appending, so a killed referee leaves every finished hole on disk
    (and at most one cut-off line, which recovery ignores). Each line carries a digest
    chained to the previous one's. The final log replaces the journal atomically.
    `docs/LOG_FORMAT.md` describes the lines.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self._chain = ""
        self._holes = 0
        self._faults = 0
        self._players: Any = None

    def write(self, doc: dict[str, Any], hole_bytes: Sequence[bytes] = ()) -> None:
        """Bring the journal up to `doc`, a running log: the header first, then what finished since.

        `hole_bytes` are the canonical forms of the finished holes when the caller has them
        (`LogBuilder`), to spare encoding them again.
        """
        if self._fd is None:
            header = {k: v for k, v in doc.items() if k != "digest"}  # a running log is never signed: null
            header["holes"], header["faults"] = [], []
            self._start({"format": JOURNAL_FORMAT, "journal_version": JOURNAL_VERSION, "log": header})
            self._players = doc["players"]
            return
        holes, faults = doc["holes"][self._holes :], doc["faults"][self._faults :]
        line: dict[str, Any] = {"faults": faults, "holes": holes}
        if len(hole_bytes) == len(doc["holes"]):
            line["holes"] = [orjson.Fragment(b) for b in hole_bytes[self._holes :]]
        if doc["players"] != self._players:
            line["players"] = self._players = doc["players"]
        self._append(line)
        self._holes += len(holes)
        self._faults += len(faults)

    def close(self) -> None:
        """Close the file (the final log then replaces it, or a crash leaves it to recover)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _line(self, entry: dict[str, Any]) -> bytes:
        try:
            body = orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)
        except (TypeError, orjson.JSONEncodeError) as e:
            raise LogError(f"the log holds a value JSON cannot carry: {e}") from None
        self._chain = _chained(self._chain, body)
        return body[:-1] + b',"chain":"' + self._chain.encode("ascii") + b'"}\n'

    def _start(self, header: dict[str, Any]) -> None:
        # The header replaces whatever an earlier match left at the path in one rename, like a log.
        # The descriptor written to is the one the header went into, never reopened by name:
        # a link a bot puts at the path later is replaced by the final log, not written through.
        self.path.parent.mkdir(parents=True, exist_ok=True)
        refuse_link(self.path)
        fd, tmp = fresh_temp(self.path)
        self._fd = fd
        try:
            self._write(self._line(header))
            os.replace(tmp, self.path)
        except BaseException:
            self.close()
            Path(tmp).unlink(missing_ok=True)
            raise

    def _append(self, entry: dict[str, Any]) -> None:
        self._write(self._line(entry))

    def _write(self, line: bytes) -> None:
        assert self._fd is not None
        data = memoryview(line)
        while data:  # one write for any line a pipe-sized buffer holds; a regular file takes it whole
            data = data[os.write(self._fd, data) :]


def recover_journal(raw: bytes) -> dict[str, Any]:
    """The log a journal stands for: status `running`, every finished hole, sealed with its digest.

    A last line without its newline was cut off by a killed referee and is left out. A
    line whose chained digest does not match raises TamperedLog; one that is not JSON,
    LogError naming it.
    """
    lines = raw.split(b"\n")
    chain = ""
    doc: dict[str, Any] | None = None
    start = 0  # the byte where the line begins
    for number, line in enumerate(lines[:-1], start=1):  # the last piece lacks its newline: cut off
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            where = _place(e, start).replace("line 1, ", "")  # the line is the journal's, named before
            raise LogError(f"journal line {number}: not JSON: {_reason(e)} at {where}") from None
        start += len(line) + 1
        if not isinstance(entry, dict) or not isinstance(entry.get("chain"), str):
            raise LogError(f"journal line {number}: not a journal entry (an object with a chain digest)")
        written = entry.pop("chain")
        body = orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)
        if line != body[:-1] + b',"chain":' + orjson.dumps(written) + b"}":
            _refuse_duplicate_keys(line, f"journal line {number}: ")  # not as the referee wrote it
        chain = _chained(chain, body)
        if written != chain:
            raise TamperedLog(f"journal line {number}: the content was changed after it was written (chain mismatch)")
        if doc is None:
            doc = entry.get("log")
            if entry.get("journal_version") != JOURNAL_VERSION or not isinstance(doc, dict):
                raise LogError(f"journal line 1: not a golfref journal of version {JOURNAL_VERSION}")
            continue
        try:
            doc["holes"].extend(entry["holes"])
            doc["faults"].extend(entry["faults"])
        except (KeyError, TypeError, AttributeError):
            raise LogError(f"journal line {number}: a hole line holds holes and faults as arrays") from None
        if "players" in entry:
            doc["players"] = entry["players"]
    if doc is None:
        raise LogError(_cut_short(raw, "the journal ends inside its first line"))
    doc["digest"] = compute_digest(doc)  # every line checked out: the log is as the referee wrote it
    return doc


def journal_cut(raw: bytes) -> str | None:
    """What a journal's unfinished last line is, in words, or None when `raw` is no journal or ends a line.

    `recover_journal` leaves that line out; a reader is told where it lies and what it was.
    """
    if not raw.startswith(_JOURNAL_HEAD) or raw.endswith(b"\n") or b"\n" not in raw:
        return None
    start = raw.rindex(b"\n") + 1
    return (
        f"the journal's last line, from byte {start} to the end of the file at byte {len(raw)}, is unfinished and "
        "left out: a hole's line cut off when the referee was killed, or by a copy that stopped or is still under way"
    )
