"""Game logs: building them during a match, writing them atomically, reading them back.

A log holds everything needed to re-derive every state without the random generator:
the resolved rules, the declared cards, each hole's deal order, every reshuffle order and
every action. `docs/LOG_FORMAT.md` documents each field; `schemas/log.schema.json`
is its JSON Schema.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from . import __version__
from .engine import Action, Event, Game, HoleResult, Move, Shuffle
from .rules import Rules

__all__ = [
    "LOG_FORMAT",
    "SCHEMA_VERSION",
    "LogError",
    "LogBuilder",
    "canonical_bytes",
    "compute_digest",
    "signed_message",
    "write_log",
    "read_log",
    "json_type",
    "hole_result_json",
    "history_from_log",
]

LOG_FORMAT = "golfref-log"
SCHEMA_VERSION = 1


class LogError(ValueError):
    """A log file that cannot be read or does not describe a match."""


# The fields that seal a log rather than describe the match: the canonical form leaves them out.
SEALS = ("digest", "signature")
# Starts every signed message, so that a golfref log signature can never pass for another use of the key.
SIGNATURE_CONTEXT = b"golfref-log-signature-v1\n"


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


def signed_message(doc: dict[str, Any], digest: str) -> bytes:
    """What a log's signature signs: a fixed context, the canonical form the digest covers, and the digest."""
    return _signed(canonical_bytes(doc), digest)


def _signed(body: bytes, digest: str) -> bytes:
    return SIGNATURE_CONTEXT + body + b"\n" + digest.encode("ascii")


def write_log(
    path: str | os.PathLike[str],
    doc: dict[str, Any],
    durable: bool = True,
    body: bytes | None = None,
    sign: Callable[[bytes], dict[str, Any]] | None = None,
) -> None:
    """Seal `doc` with its digest (and a signature) and write it atomically (a reader sees the old or the new file).

    `durable` also syncs the file to the disk; the journal written between holes skips
    that, since it guards against a crash of the referee, not of the machine. `body` is
    `canonical_bytes(doc)` when the caller has it already. `sign` (`signing.Signer`) turns
    the signed message into the `signature` field; without it, a `signature` already in
    `doc` is written as it is (null for a log golfref did not sign).
    """
    if body is None:
        body = canonical_bytes(doc)
    doc["digest"] = "sha256:" + hashlib.sha256(body).hexdigest()
    if sign is not None:
        doc["signature"] = sign(_signed(body, doc["digest"]))
    # The file is the canonical form itself with the seals added as last keys: one
    # serialization instead of two, on a path the journal takes after every hole.
    tail = ',"digest":"' + doc["digest"] + '"'
    if "signature" in doc:
        tail += ',"signature":' + orjson.dumps(doc["signature"], option=orjson.OPT_SORT_KEYS).decode("utf-8")
    data = body[:-1] + (tail + "}\n").encode("utf-8")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def read_log(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a log file as a JSON object; raises LogError saying what is wrong (not the path).

    Parsing uses orjson, the library that wrote the file: it rejects what golfref never
    writes (NaN, integers beyond 64 bits, lone surrogates), so that every log it accepts
    re-encodes to the exact bytes its digest covers.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise LogError("no such file") from None
    except IsADirectoryError:
        raise LogError("is a directory, not a log") from None
    except OSError as e:
        raise LogError(f"cannot read: {e.strerror}") from None
    if not raw.strip():
        raise LogError("empty file")
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as u:
            raise LogError(f"not UTF-8 (byte {u.start})") from None
        if str(e).startswith("unexpected end of data") or e.pos >= len(raw.rstrip()):
            raise LogError(f"truncated: the JSON ends early (line {e.lineno})") from None
        reason = str(e).split(":", 1)[0]
        raise LogError(f"not JSON: {reason} at line {e.lineno} column {e.colno}") from None
    if not isinstance(doc, dict):
        raise LogError(f"a log is a JSON object, got {json_type(doc)}")
    return doc


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

    def fault(self, record: dict[str, Any]) -> None:
        """Record a bot fault."""
        self.doc["faults"].append(record)

    def canonical(self, doc: dict[str, Any]) -> bytes:
        """`canonical_bytes(doc)` for a snapshot of this builder, without re-encoding finished holes.

        The journal is rewritten after every hole; encoding only what changed keeps that
        cost flat instead of growing with the match.
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


def history_from_log(doc: dict[str, Any]) -> list[Event]:
    """The engine history (shuffles and moves) recorded in a log, for `Game.replay`.

    Raises LogError naming the hole and step of anything it cannot read.
    """
    cards = doc["cards"]
    ids = {name: i for i, name in enumerate(cards)}
    if len(ids) != len(cards):
        raise LogError("cards: a card name is listed twice")

    def to_ids(names: list[str], where: str) -> tuple[int, ...]:
        try:
            return tuple(ids[n] for n in names)
        except KeyError as e:
            raise LogError(f"{where}: unknown card {e.args[0]!r}") from None

    history: list[Event] = []
    for h, hole in enumerate(doc["holes"]):
        history.append(Shuffle(to_ids(hole["deal"], f"hole {h} deal")))
        for t, step in enumerate(hole["steps"]):
            if "reshuffle" in step:
                history.append(Shuffle(to_ids(step["reshuffle"], f"hole {h}, step {t} reshuffle")))
                continue
            try:
                action = Action.parse(step["action"])
            except ValueError as e:
                raise LogError(f"hole {h}, step {t}: {e}") from None
            history.append(Move(step["seat"], action))
    return history
