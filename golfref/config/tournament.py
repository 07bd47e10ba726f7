"""YAML tournament configs into frozen values, with the match config's located errors.

A tournament config is told from a match config by its top-level `tournament:` key. It
is read by the same machinery as a match config (`golfref.config.match`: safe YAML, a JSON
Schema, every problem at once with its line and key path), against
`schemas/tournament.schema.json`.
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..game.rules import Rules
from .match import (
    ConfigError,
    FailOn,
    FaultPolicy,
    PlayerSpec,
    TimeControl,
    check_document,
    check_sandbox_paths,
    checked_rules,
    faults_fail_on,
    read_config_text,
    rule_options,
    time_and_faults,
)
from .sandbox_spec import SandboxSpec, sandbox_spec
from .schemas import load_schema

__all__ = [
    "TOURNAMENT_KEY",
    "DEFAULT_RESULTS",
    "MAX_PERMUTED_TABLE",
    "max_deal_sets",
    "Format",
    "Seatings",
    "SprtRule",
    "GateRule",
    "TournamentConfig",
    "config_changes",
    "is_tournament_file",
    "load_tournament",
    "parse_tournament",
    "parse_gate",
]

TOURNAMENT_KEY = "tournament"
"""The top-level key that marks a tournament config (a match config has none)."""
DEFAULT_RESULTS = "tournaments/{tournament}"
"""Where a tournament's directory goes when the config names none (from the config's folder)."""
MAX_PERMUTED_TABLE = 5
"""The largest table `seatings: permutations` is allowed for (5! = 120 seatings per deal set)."""
_WHAT = "a tournament config"


def max_deal_sets() -> int:
    """The most deal sets a tournament config may ask for (`deal_sets`' bound in the config's schema)."""
    bound: int = load_schema("tournament.schema.json")["properties"]["deal_sets"]["maximum"]
    return bound


class Format(enum.Enum):
    """Which tables a tournament plays."""

    ROUND_ROBIN = "round_robin"
    """Every table of the chosen size drawn from the pool (one table when the pool is no larger)."""
    GAUNTLET = "gauntlet"
    """The challenger at every table, with every choice of the others for the remaining seats."""


class Seatings(enum.Enum):
    """How each deal set is seated at a table."""

    ROTATIONS = "rotations"
    """The table's cyclic rotations: every player in every seat once."""
    PERMUTATIONS = "permutations"
    """Every order of the table (small tables only)."""


@dataclass(frozen=True)
class SprtRule:
    """Stop once a sequential test is decided; d is `player` minus `baseline` per hole (negative: player better)."""

    player: str
    baseline: str
    alpha: float = 0.05
    beta: float = 0.05
    d0: float = 0.0
    d1: float = 0.5


@dataclass(frozen=True)
class GateRule:
    """Pass when `player` is not worse than `baseline` by more than `margin` points per hole, at `confidence`."""

    player: str
    baseline: str
    margin: float = 0.5
    confidence: float = 0.95


@dataclass(frozen=True)
class TournamentConfig:
    """A whole, checked tournament config."""

    name: str
    rules: Rules
    players: tuple[PlayerSpec, ...]
    format: Format
    table: int
    challenger: str | None
    deal_sets: int
    seed: int | None
    """The config's `seed:`; None when it has none, and the tournament draws a secret one (`run_tournament`)."""
    seatings: Seatings
    time: TimeControl
    faults: FaultPolicy
    results: Path
    sprt: SprtRule | None = None
    gate: GateRule | None = None
    source: str = "<tournament>"
    sandbox: SandboxSpec = SandboxSpec(enabled=True)
    """How bots are isolated: on unless the config or the command line says otherwise (strangers meet here)."""
    duplicate_deals: bool = True
    """Every seating of a deal set gets the same cards (True), or every match a deal of its own."""
    fail_on: FailOn = FailOn.ENDED
    """Which faults make `golfref tournament` exit 1 (`faults.fail_on`); not part of the canonical form."""
    allow_bot_changes: bool = False
    """Play on when a bot's files change during the tournament, recording it (`allow_bot_changes`); else
    the change stops it. Not part of the canonical form: it decides whether matches are played, not how."""
    rule_options: tuple[tuple[str, Any], ...] = ()
    """The options `rules:` sets beyond its preset, as written: check-bot plays its checks under them."""

    def player(self, name: str) -> PlayerSpec:
        """The pool's player called `name`."""
        return next(p for p in self.players if p.name == name)

    def canonical(self) -> dict[str, Any]:
        """Everything that decides how each match is played: the store refuses a change of it.

        Stop rules, the gate, `faults.fail_on` and the results directory are left out: they
        change what is concluded from the matches, not the matches. So is `deal_sets`: a deal
        set's matches depend only on the seed and its index, so more deal sets add matches
        without changing those played. A player's `cwd` is written resolved, so that a
        relative and an absolute path to one folder are the same config. A seed drawn
        because the config has none is not part of it (`seed` is null): the store keeps that
        one, so the digest stays the same across a resume.
        """
        players = []
        for p in self.players:
            data = p.to_json()
            if data.get("cwd") is not None:
                data["cwd"] = str(Path(data["cwd"]).resolve())
            players.append(data)
        return {
            "rules": self.rules.to_dict(),
            "players": players,
            "format": self.format.value,
            "table": self.table,
            "challenger": self.challenger,
            "seed": self.seed,
            "seatings": self.seatings.value,
            "duplicate_deals": self.duplicate_deals,
            "time": self.time.to_json(),
            "faults": self.faults.to_json(),
        }

    def canonical_json(self) -> str:
        """`canonical()` as the compact, key-sorted JSON text that `digest` hashes (the store keeps it)."""
        return json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def digest(self) -> str:
        """The canonical hash of `canonical()`."""
        return "sha256:" + hashlib.sha256(self.canonical_json().encode()).hexdigest()


def config_changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two `canonical()` forms: top-level keys, and each player's fields by name."""
    changes = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if key == "players" and isinstance(old, list) and isinstance(new, list):
            names = [p.get("name") for p in old], [p.get("name") for p in new]
            if names[0] != names[1]:
                was, now = (", ".join(map(str, n)) for n in names)
                changes.append(f"players (the pool was {was}; now {now})")
                continue
            for was, now in zip(old, new, strict=True):
                fields = sorted(f for f in set(was) | set(now) if was.get(f) != now.get(f))
                if fields:
                    changes.append(f"player {now.get('name')}: {', '.join(fields)}")
            continue
        changes.append(key)
    return changes


def is_tournament_file(path: str | os.PathLike[str]) -> bool:
    """Whether the file is a mapping with a top-level `tournament:` key (unreadable: False; the loader says why)."""
    try:
        # Composed, not constructed: no number is converted and no alias expanded, so a hostile
        # file costs no more here than its (capped) size; the loader then reports what is wrong.
        root = yaml.compose(read_config_text(Path(path), _WHAT), Loader=yaml.SafeLoader)
    except (ConfigError, yaml.YAMLError, RecursionError):
        return False
    return isinstance(root, yaml.MappingNode) and any(
        isinstance(key, yaml.ScalarNode) and key.value == TOURNAMENT_KEY for key, _ in root.value
    )


def load_tournament(path: str | os.PathLike[str]) -> TournamentConfig:
    """Read and check a tournament config file."""
    p = Path(path)
    return parse_tournament(read_config_text(p, _WHAT), source=str(p), base_dir=p.resolve().parent)


def parse_tournament(
    text: str,
    source: str = "<tournament>",
    base_dir: Path | None = None,
    labels: Mapping[tuple[Any, ...], str] | None = None,
) -> TournamentConfig:
    """Check a tournament config given as YAML text; every problem is reported, in file order.

    `labels`: as for `golfref.config.match.parse_config`, what a problem is said to be about when the
    YAML was made from command-line options.
    """
    base = base_dir or Path.cwd()
    checked = check_document(
        text,
        source,
        base,
        _WHAT,
        "a mapping with a tournament name and a players list",
        "tournament.schema.json",
        labels,
    )
    data, where, bad_top, players = checked.data, checked.where, checked.bad_top, checked.players
    items = data.get("players")
    names = [p.name for p in players]
    # A `format` the schema refused (a string, say) is not read further: its problem is already reported.
    fmt_data = (None if "format" in bad_top else data.get("format")) or {"type": Format.ROUND_ROBIN.value}
    table = fmt_data.get("table", 2)
    challenger = fmt_data.get("challenger")
    complete_pool = isinstance(items, list) and len(players) == len(items) and "players" not in bad_top
    if "format" not in bad_top:
        fmt = Format(fmt_data["type"])
        if fmt is Format.GAUNTLET and challenger is None:
            where.add(("format",), "a gauntlet needs a challenger (one of the players)")
        if fmt is Format.ROUND_ROBIN and challenger is not None:
            where.add(("format", "challenger"), "applies only to a gauntlet")
        if challenger is not None and complete_pool and challenger not in names:
            where.add(("format", "challenger"), f"{challenger!r} is not one of the players ({', '.join(names)})")
        if fmt is Format.GAUNTLET and complete_pool and table > len(players):
            where.add(("format", "table"), f"a gauntlet table of {table} needs at least {table} players")
    # The table's size comes from the players listed, valid or not: a bad player must not hide
    # the rules' problems until it is fixed.
    listed = items if isinstance(items, list) and ("players",) not in checked.bad else None
    seats = min(table, len(listed)) if listed is not None and isinstance(table, int) else None
    if seats is not None and data.get("seatings") == Seatings.PERMUTATIONS.value and seats > MAX_PERMUTED_TABLE:
        where.add(("seatings",), f"permutations only for tables of at most {MAX_PERMUTED_TABLE} (use rotations)")
    rules = checked_rules(data.get("rules") or {}, seats if "rules" not in bad_top else None, where)
    for key in ("sprt", "gate"):
        rule = (data.get("stop") or {}).get("sprt") if key == "sprt" else data.get("gate")
        at = ("stop", "sprt") if key == "sprt" else ("gate",)
        if isinstance(rule, dict) and complete_pool and at[0] not in bad_top:
            for role in ("player", "baseline"):
                if rule.get(role) is not None and rule[role] not in names:
                    where.add((*at, role), f"{rule[role]!r} is not one of the players ({', '.join(names)})")
            if rule.get("player") is not None and rule.get("player") == rule.get("baseline"):
                where.add((*at, "baseline"), "the baseline must be another player")
    sprt_data = (data.get("stop") or {}).get("sprt")
    if isinstance(sprt_data, dict) and "stop" not in bad_top and sprt_data.get("d1") == sprt_data.get("d0"):
        where.add(("stop", "sprt", "d1"), "d1 must differ from d0")
    check_sandbox_paths(data, bad_top, where, base)
    where.raise_problems()
    assert rules is not None  # no problem was found, so the rules resolved

    time, faults = time_and_faults(data)
    name = data[TOURNAMENT_KEY]
    results = data.get("results") or DEFAULT_RESULTS.format(tournament=_slug(name))
    return TournamentConfig(
        name=name,
        rules=rules,
        players=players,
        format=Format(fmt_data["type"]),
        table=min(table, len(players)),
        challenger=challenger,
        deal_sets=data.get("deal_sets", 10),
        seed=data.get("seed"),
        seatings=Seatings(data.get("seatings", Seatings.ROTATIONS.value)),
        time=time,
        faults=faults,
        results=base / results,
        sprt=SprtRule(**sprt_data) if isinstance(sprt_data, dict) else None,
        gate=GateRule(**data["gate"]) if isinstance(data.get("gate"), dict) else None,
        source=source,
        sandbox=sandbox_spec(data.get("sandbox"), base, enabled_by_default=True),
        duplicate_deals=data.get("duplicate_deals", True),
        fail_on=faults_fail_on(data),
        rule_options=rule_options(data),
        allow_bot_changes=data.get("allow_bot_changes", False),
    )


_GATE = re.compile(
    r"\s*(?P<player>.+?)\s*<=\s*(?P<baseline>.+?)"
    r"(?:\s*\+\s*(?P<margin>\d+(?:\.\d*)?|\.\d+))?"
    r"(?:\s*@\s*(?P<confidence>\d+(?:\.\d*)?)\s*%?)?\s*"
)


def parse_gate(text: str) -> GateRule:
    """A gate from its command-line form `PLAYER <= BASELINE [+ MARGIN] [@ CONFIDENCE%]`; ValueError says why not.

    Golf scores are lower-is-better, so it reads as the claim it checks: the player's points
    per hole are at most the baseline's plus the margin (0 when left out), at the confidence
    (95% when left out).
    """
    match = _GATE.fullmatch(text)
    if match is None:
        form = "PLAYER <= BASELINE [+ MARGIN] [@ CONFIDENCE%]"
        raise ValueError(f"{text!r}: expected {form}, like 'new <= old + 0.5 @ 95%'")
    player, baseline = match["player"], match["baseline"]
    if player == baseline:
        raise ValueError(f"{text!r}: the baseline must be another player")
    margin = float(match["margin"] or 0.0)
    if match["confidence"] is None:
        return GateRule(player, baseline, margin)
    confidence = float(match["confidence"])
    if not 50.0 < confidence < 100.0:
        raise ValueError(f"{text!r}: the confidence is a percentage between 50 and 100, got {match['confidence']}%")
    return GateRule(player, baseline, margin, confidence / 100.0)


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)[:40] or "tournament"
