"""Matches from Python: a config built from Python values or loaded, one match run, its result as typed values."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..config.match import OBJECT, ConfigError, MatchConfig, PlayerSpec, parse_config
from ..config.match import load_config as _load_config
from ..game.engine import HoleResult
from ..kit.policy import PolicyError, check_policy, import_root, policy_name, reference_of
from ..match.referee import run_match
from ..record.faults import Fault, SeatStatus
from ..record.matchlog import MatchLog, read_match_log

__all__ = ["MatchOutcome", "PlayerLike", "load_config", "match_config", "run"]

PlayerLike = Mapping[str, Any] | PlayerSpec | object
"""A seat as Python gives it: a mapping as a config's player entry (``{"command": ...}``, ``{"builtin":
"greedy"}``, ``{"python": "mod:obj"}``), a `PlayerSpec`, or a policy object (its ``choose(view, legal)``)."""

_SOURCE = "<python>"


def load_config(path: str | os.PathLike[str]) -> MatchConfig:
    """The match config of a YAML file, checked (a ConfigError naming the file, line and key of each problem)."""
    return _load_config(path)


def _entries(players: Mapping[str, PlayerLike] | Sequence[PlayerLike]) -> list[tuple[str | None, PlayerLike]]:
    if isinstance(players, Mapping):
        return [(str(name), p) for name, p in players.items()]
    if isinstance(players, (str, bytes)) or not isinstance(players, Sequence):
        raise ConfigError(f"{_SOURCE}: players: a list of players or a mapping of names to players, not {players!r}")
    return [(None, p) for p in players]


def _object_player(name: str, obj: Any) -> PlayerSpec:
    """A python player for a policy object: under the reference that imports it again, if any (then re-runnable)."""
    try:
        check_policy(obj, f"{_SOURCE}: player {name!r}")
    except PolicyError as e:
        raise ConfigError(str(e)) from None
    ref = reference_of(obj)
    if ref is None:
        return PlayerSpec(name=name, python=OBJECT, policy=obj)
    return PlayerSpec(name=name, python=ref, cwd=import_root(ref), policy=obj)


def _players(players: Mapping[str, PlayerLike] | Sequence[PlayerLike]) -> tuple[list[dict[str, Any]], dict[int, Any]]:
    """The players as config entries, with a placeholder where a seat is a Python object (returned by seat)."""
    items: list[dict[str, Any]] = []
    objects: dict[int, Any] = {}
    for i, (name, player) in enumerate(_entries(players)):
        if isinstance(player, PlayerSpec):
            objects[i] = player if name is None else dataclasses.replace(player, name=name)
            items.append({"name": objects[i].name, "builtin": "random"})
        elif isinstance(player, Mapping):
            entry = dict(player)
            if name is not None:
                entry.setdefault("name", name)
            items.append(entry)
        else:
            seat_name = name if name is not None else policy_name(player, None)
            objects[i] = _object_player(seat_name, player)
            items.append({"name": seat_name, "builtin": "random"})  # in place of the object, for the checks
    return items, objects


def _labels(items: Sequence[Mapping[str, Any]]) -> dict[tuple[Any, ...], str]:
    labels: dict[tuple[Any, ...], str] = {}
    for i, item in enumerate(items):
        who = f"players[{i}] ({item.get('name', '?')})"
        labels[("players", i)] = who
        labels.update({("players", i, key): f"{who}.{key}" for key in item})
    return labels


def match_config(
    players: Mapping[str, PlayerLike] | Sequence[PlayerLike],
    *,
    preset: str = "standard",
    rules: Mapping[str, Any] | None = None,
    time: Mapping[str, int] | None = None,
    faults: Mapping[str, Any] | None = None,
    log: str | None = None,
    seed: int | None = None,
    name: str = "python",
    base_dir: str | os.PathLike[str] | None = None,
) -> MatchConfig:
    """A match config from Python values, checked as a YAML config is (a ConfigError naming the key of each problem).

    `players`: a mapping of seat names to players, or a list of players (`PlayerLike`);
    `rules`: rule options beside the `preset` (``holes``, ``layout``...); `time` and `faults`:
    as a config's sections; `log`: the log's path template; `base_dir`: where relative paths
    (a command's program, a python player's module, the log) are read from (default: here).
    """
    items, objects = _players(players)
    data: dict[str, Any] = {"match": name, "rules": {"preset": preset, **dict(rules or {})}, "players": items}
    for key, value in (("time", time), ("faults", faults), ("seed", seed)):
        if value is not None:
            data[key] = dict(value) if isinstance(value, Mapping) else value
    if log is not None:
        data["log"] = {"path": log}
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    try:
        text = yaml.safe_dump(data, sort_keys=False)
    except yaml.YAMLError as e:
        raise ConfigError(f"{_SOURCE}: a value that is not plain data (text, numbers, lists, mappings): {e}") from None
    config = parse_config(text, source=_SOURCE, base_dir=base, labels=_labels(items))
    seats = tuple(objects.get(i, spec) for i, spec in enumerate(config.players))
    return dataclasses.replace(config, players=seats)


@dataclass(frozen=True)
class MatchOutcome:
    """One match's result: scores, placings, faults, and its log (as the typed reader gives it)."""

    names: tuple[str, ...]
    """Each seat's player name, in seat order."""
    hole_scores: tuple[tuple[int, ...], ...]
    """Per hole, each seat's points."""
    totals: tuple[int, ...]
    placings: tuple[int, ...]
    """Each seat's place, 1 the best (ties share a place)."""
    statuses: tuple[SeatStatus, ...]
    faults: tuple[Fault, ...]
    log_path: Path
    log: MatchLog

    def total(self, name: str) -> int:
        """The match total of the seat named `name` (a KeyError naming the players otherwise)."""
        if name not in self.names:
            raise KeyError(f"no player {name!r} (players: {', '.join(self.names)})")
        return self.totals[self.names.index(name)]


def run(
    config: MatchConfig | str | os.PathLike[str],
    *,
    seed: int | None = None,
    players: Mapping[str, PlayerLike] | Sequence[PlayerLike] | None = None,
    log: str | None = None,
    force: bool = False,
    on_hole: Callable[[HoleResult, tuple[str, ...]], None] | None = None,
) -> MatchOutcome:
    """Play one match, as ``golfref run`` does, and return its outcome; the log is written as the config says.

    `config`: a `MatchConfig` or a YAML file's path; `players` replaces the config's seats (as many
    as it has, each a `PlayerLike`); `log` replaces its log path template, `seed` its seed.
    Called from the main thread (the match owns SIGINT while it runs, as ``golfref run``).
    """
    cfg = load_config(config) if isinstance(config, (str, os.PathLike)) else config
    if players is not None:
        items, objects = _players(players)
        if len(items) != len(cfg.players):
            raise ConfigError(f"{_SOURCE}: players: {len(items)} given, but the config has {len(cfg.players)} seats")
        given = match_config(
            {str(item["name"]): objects.get(i, item) for i, item in enumerate(items)},
            preset=cfg.rules.preset,
        )
        cfg = dataclasses.replace(cfg, players=given.players)
    result = run_match(cfg, seed=seed, log_path=log, force=force, on_hole=on_hole)
    return MatchOutcome(
        names=result.names,
        hole_scores=result.hole_scores,
        totals=result.totals,
        placings=result.placings,
        statuses=result.statuses,
        faults=result.faults,
        log_path=result.log_path,
        log=read_match_log(result.log),
    )
