"""The scheduler: a tournament config and its seed into the fixed list of matches it plays.

Pure: no processes, no files, no clock. Matches are ordered deal set by deal set, so
that the seatings of one deal set (a block of the statistics) finish close together and
a sequential test sees whole blocks early.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ..config.match import LogSpec, MatchConfig
from ..config.tournament import Format, Seatings, TournamentConfig

__all__ = [
    "MatchSpec",
    "deal_set_seed",
    "own_deal_seed",
    "tables",
    "pool_tables",
    "seatings",
    "deal_set_seatings",
    "matches_per_deal_set",
    "schedule",
    "match_config",
    "LOG_DIR",
]

LOG_DIR = "logs"
"""The folder of the tournament directory that holds the match logs."""


@dataclass(frozen=True)
class MatchSpec:
    """One scheduled match: its place in the schedule, its deal set and seed, who sits where."""

    index: int
    deal_set: int
    seed: int
    seating: tuple[str, ...]

    @property
    def log_name(self) -> str:
        """The match log's path inside the tournament directory."""
        return f"{LOG_DIR}/m{self.index:05}-d{self.deal_set}.json"


def deal_set_seed(seed: int, deal_set: int) -> int:
    """The match seed of every seating of a deal set: a hash of the tournament seed and the deal set."""
    digest = hashlib.sha256(f"golfref-deal-set:{seed}:{deal_set}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1  # 63 bits, as a match seed allows


def own_deal_seed(seed: int, deal_set: int, match: int) -> int:
    """With `duplicate_deals: false`: the seed of the `match`-th match of a deal set, a deal of its own."""
    digest = hashlib.sha256(f"golfref-own-deal:{seed}:{deal_set}:{match}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def tables(config: TournamentConfig) -> list[tuple[str, ...]]:
    """The tables the format plays, each in pool order."""
    return pool_tables([p.name for p in config.players], config.format, config.table, config.challenger)


def pool_tables(names: Sequence[str], form: Format, table: int, challenger: str | None) -> list[tuple[str, ...]]:
    """The tables `form` plays from the pool `names` at tables of `table` seats, each in pool order."""
    if form is Format.GAUNTLET:
        assert challenger is not None
        others = [n for n in names if n != challenger]
        return [(challenger, *rest) for rest in itertools.combinations(others, table - 1)]
    if len(names) <= table:
        return [tuple(names)]
    return list(itertools.combinations(names, table))


def seatings(table: tuple[str, ...], kind: Seatings) -> list[tuple[str, ...]]:
    """Each order a deal set is played in at `table`: its cyclic rotations, or every permutation."""
    if kind is Seatings.PERMUTATIONS:
        return list(itertools.permutations(table))
    return [table[i:] + table[:i] for i in range(len(table))]


def deal_set_seatings(tables_played: Sequence[tuple[str, ...]], kind: Seatings) -> list[tuple[str, ...]]:
    """The seatings of one deal set, in the order it plays them: every seating of each table in turn.

    The `k`-th match of every deal set seats the `k`-th of them (the store's reader holds its matches to it).
    """
    return [seating for table in tables_played for seating in seatings(table, kind)]


def matches_per_deal_set(config: TournamentConfig) -> int:
    """How many matches make one deal set whole: every seating of every table."""
    return len(deal_set_seatings(tables(config), config.seatings))


def schedule(config: TournamentConfig, seed: int | None = None) -> tuple[MatchSpec, ...]:
    """Every match of the tournament, in the order they are handed out.

    A match depends only on the tournament seed (`seed`, else the config's), its deal set
    and its place within the deal set, so raising `deal_sets` appends matches and changes
    none of those before.
    """
    tournament_seed = config.seed if seed is None else seed
    if tournament_seed is None:
        raise ValueError("the tournament has no seed: the config gives none, and none was drawn")
    out: list[MatchSpec] = []
    one_deal_set = deal_set_seatings(tables(config), config.seatings)
    for deal_set in range(config.deal_sets):
        seed = deal_set_seed(tournament_seed, deal_set)
        for within, seating in enumerate(one_deal_set):
            own = seed if config.duplicate_deals else own_deal_seed(tournament_seed, deal_set, within)
            out.append(MatchSpec(len(out), deal_set, own, seating))
    return tuple(out)


def match_config(config: TournamentConfig, spec: MatchSpec) -> MatchConfig:
    """The match config of one scheduled match; its log goes into the tournament directory."""
    return MatchConfig(
        name=f"{config.name}-m{spec.index}",
        rules=config.rules,
        seed=spec.seed,
        players=tuple(config.player(name) for name in spec.seating),
        time=config.time,
        faults=config.faults,
        log=LogSpec(path=spec.log_name, transcript=False, directory=str(config.results)),
        source=config.source,
        sandbox=config.sandbox,
        seed_in_source=config.seed is not None,  # its seed comes from the config's (a drawn one is in no file)
    )
