"""The scheduler: a tournament config and its seed into the fixed list of matches it plays, and the rule
by which they are handed out to run.

Pure: no processes, no files, no clock. Matches are ordered deal set by deal set, so
that the seatings of one deal set (a block of the statistics) finish close together and
a sequential test sees whole blocks early.

The rule (`clash`, applied by `Release`, which every executor hands its matches out through):
two matches that deal the same cards (the seatings of one deal set, with duplicate deals)
and seat a bot in common are never in flight at once. Else any channel between matches
running side by side would let a bot tell its copy in the mirrored seating every card it
has seen (docs/SANDBOX.md). A bot is known by its name and by its program (`bots_of`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..config.match import LogSpec, MatchConfig, PlayerSpec
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
    "Claim",
    "bots_of",
    "clash",
    "Release",
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


@dataclass(frozen=True)
class Claim:
    """What a match holds while it is in flight: the deal it plays (its seed) and the bots it seats (`bots_of`)."""

    deal: int
    bots: frozenset[str]


def bots_of(players: Sequence[PlayerSpec], builds: Mapping[str, tuple[str, str]] | None = None) -> frozenset[str]:
    """The marks that tell a match's bots apart: per player that runs code of its own, its name and its program.

    Its program is its command as written with its folder (or its Python policy's reference),
    and, where `builds` has the player (the name's `Build.key`), the fingerprint of its file and
    folder: the same program entered under two names, even copied to another folder, is one
    bot. Built-in players are golfref's own code and mark nothing.
    """
    found = builds or {}
    marks: set[str] = set()
    for player in players:
        if player.command is not None:
            marks.add("program:" + json.dumps([list(player.command), player.cwd]))
        elif player.python is not None:
            marks.add("python:" + json.dumps([player.python, player.cwd]))
        else:
            continue
        marks.add("name:" + player.name)
        if player.name in found:
            marks.add("build:" + ":".join(found[player.name]))
    return frozenset(marks)


def clash(a: Claim, b: Claim) -> bool:
    """Whether two matches must not be in flight at once: they deal the same cards and share a bot."""
    return a.deal == b.deal and not a.bots.isdisjoint(b.bots)


class Release:
    """Hands out matches (by position in `claims`, the schedule's order) to run, never two that `clash` at once.

    `take` gives every match that may start now, up to `limit` in flight (None: no limit),
    and `finished` lets one go. A match that must wait does not hold back those behind it:
    the next one free of a clash goes first, so workers stay busy while a deal's seatings
    are played one after another.
    """

    def __init__(self, claims: Sequence[Claim], limit: int | None = None) -> None:
        if limit is not None and limit < 1:
            raise ValueError(f"a release needs room for at least one match in flight, not {limit}")
        self._claims = tuple(claims)
        self._limit = limit
        self._order: dict[int, None] = dict.fromkeys(range(len(self._claims)))  # the waiting, in schedule order
        # Only matches of one deal can clash, so the waiting and those in flight are also kept per deal.
        self._waiting: dict[int, list[int]] = {}
        for position, claim in enumerate(self._claims):
            self._waiting.setdefault(claim.deal, []).append(position)
        self._flying: dict[int, list[int]] = {}
        self._changed: set[int] = set(self._waiting)  # deals whose waiting matches may have become free

    @property
    def in_flight(self) -> frozenset[int]:
        """The matches handed out and not finished."""
        return frozenset(p for flying in self._flying.values() for p in flying)

    @property
    def waiting(self) -> int:
        """How many matches are still to be handed out."""
        return len(self._order)

    def _free(self, position: int) -> bool:
        claim = self._claims[position]
        return not any(clash(claim, self._claims[p]) for p in self._flying.get(claim.deal, ()))

    def take(self) -> list[int]:
        """The matches that may start now, in schedule order; each is in flight until `finished`."""
        candidates: Iterable[int]
        if self._limit is None:
            room = len(self._order)
            # Only where a match finished (or at the start) can a waiting match have become free.
            candidates = sorted(p for deal in self._changed & self._waiting.keys() for p in self._waiting[deal])
        else:
            # Room freed anywhere goes to the first free match. Those skipped on the way are of
            # deals with a match in flight: a few, as the schedule lays out deal after deal.
            room = self._limit - sum(len(flying) for flying in self._flying.values())
            candidates = self._order
        self._changed.clear()
        out: list[int] = []
        for position in candidates:
            if len(out) >= room:
                break
            if self._free(position):
                self._flying.setdefault(self._claims[position].deal, []).append(position)
                out.append(position)
        for position in out:
            del self._order[position]
            deal = self._claims[position].deal
            queue = self._waiting[deal]
            queue.remove(position)
            if not queue:
                del self._waiting[deal]
        return out

    def finished(self, position: int) -> None:
        """Let a match handed out go (played, failed or cancelled): those it held back may start."""
        deal = self._claims[position].deal
        flying = self._flying[deal]
        flying.remove(position)
        if not flying:
            del self._flying[deal]
        self._changed.add(deal)

    def drop(self) -> None:
        """Hand nothing more out (a stop): the matches in flight stay so until finished."""
        self._order.clear()
        self._waiting.clear()
        self._changed.clear()
