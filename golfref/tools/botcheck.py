"""`golfref check-bot`: a conformance run of one bot through every situation the rules can produce.

Every position comes from the engine. For each group of checks (one rule set), games are
played with the built-in policies at every seat until one seat faces a situation a check
wants (a king's second target, a turn owed after a knock...); the bot then takes over that
seat: it is started, sent `hello`, and sent the request the referee would send there
(`seat_messages.request_line`: the one gate, events from the hole's start). From then on
it plays its seat as in a match, the other seats staying with the policies, and every
later request that a pending check wants counts for that check too. A check fails with the
first thing wrong (a fault, as the referee would record it) at a request it wants; checks a
session left open (the bot did not steer there, or died) get a session of their own,
started at their own situation, so each missing capability is its own failed check.

Some checks span a stretch of play: "8 players" or "layout 1x1" pass when the bot played
its seat without a fault from the moment it joined to the hole's end. `--fuzz N` adds N
such checks at random reachable positions under random rule sets (seeded).

The checks are of the rules asked for (the presets, or a config's, with `--set`'s options).
`--house` adds the house options those leave off: each house option that adds a decision
under a preset with it alone, the scoring ones together, so that a failure there names the
house option the bot does not support; their results carry `house`, and are counted apart.

Two checks span the whole run: every decision within `move_ms`, and stdout holding
nothing but protocol lines (a line while no request is open, or one that is not JSON where
a ready or an answer is awaited, fails that one check and nothing else; the wait goes on).
A run stops early when the checks left would all fail alike, most after a full wait: the
bot gives no ready in time, never completes a handshake, or ends its first request of the
run in a timeout or a crash.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import random
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from ..config.match import TimeControl
from ..game.cards import Rank
from ..game.engine import POWER, Action, ActionKind, Decision, Game, ReshuffleEvent, SwapEvent
from ..game.policies import GreedyPolicy, Policy, RandomPolicy
from ..game.rules import HOUSE_OPTIONS, PRESETS, Rules, RulesError, resolve_rules
from ..game.view import SeatView, view
from ..match import protocol
from ..match.referee import Shuffler
from ..match.seat_messages import EventMark, hole_end_line, request_line
from ..record.faults import FaultKind, kind_hint
from ..record.stderr import CHECK_STDERR_LINES, stderr_lines, stderr_tail
from .driver import BotDriver, Reply

__all__ = [
    "ALL_LAYOUTS",
    "BotWontStart",
    "NothingToCheck",
    "Outcome",
    "CheckResult",
    "CheckRun",
    "BotCommand",
    "HOUSE_CHECKED",
    "SCORING_HOUSE_OPTIONS",
    "check_bot",
]

ALL_LAYOUTS = tuple(f"{r}x{c}" for r in range(1, 5) for c in range(1, 5))
"""Every layout the rules allow, 1x1 to 4x4."""

_GAMES = 40
"""Games tried to reach a check's situation before it is given up (skipped, not failed)."""
_NOTICE_WAIT = 0.05
"""How long a bot is watched after a hole_end for output or a crash, in seconds."""
GOODBYE_EXIT_WAIT = 2.0
"""How long a bot may take to exit after goodbye and the end of its input, in seconds: the check's limit,
not the referee's wait for a closed bot (`record.faults.EXIT_WAIT`)."""
HOUSE_CHECKED: Mapping[str, object] = {
    "holes": 2,
    "flip_after_throw": "endgame",
    "flip_instead_of_draw": True,
    "flip_out": 2,
    "jokers": 2,
    "joker_count": 4,
    "joker_pair": -4,
    "card_values": {"K": -2, "T": 1},
    "suit_values": {"JH": 0, "JS": 0},
    "negative_pairs": "keep",
    "two_column_bonus": -20,
    "jack_columns_bonus": -20,
    "exact_score": [21, 0],
    "closer_penalty": 10,
    "closer_bonus": -5,
    "low_score_bonus": -3,
    "tie_penalty": 5,
}
"""The options of `--house`'s checks: every house option on (docs/RULES.md#house-options), at the golfgame
server's values where it has them, and the flip after a throw at `endgame`."""
SCORING_HOUSE_OPTIONS = "the scoring ones"
"""How `--house`'s summary names the house options checked together: the rest of `HOUSE_CHECKED`, which
change the hello's rules and the hole_end's scores but no decision."""
_FUZZ_TRIES = 1000
"""Random rule sets drawn for one fuzz check before the options given are taken to rule every one out."""
TIME_CHECK = "time control: every decision within move_ms"
"""The name of the run-wide check of decision times (the limit follows in brackets)."""
STDOUT_CHECK = "stdout: protocol lines only"
"""The name of the run-wide check that the bot prints nothing on stdout but its ready and its answers."""


# Faults after which a bot cannot be trusted to answer the next request in step: its session ends.
_ENDS_SESSION = frozenset({FaultKind.EXITED, FaultKind.TIMEOUT, FaultKind.LINE_TOO_LONG, FaultKind.NOT_UTF8})


class BotWontStart(Exception):
    """The bot's program cannot be started at all: nothing could be checked (one line)."""


class NothingToCheck(Exception):
    """No check can be played under the rules given: the options cannot apply anywhere (one line: why)."""


class Outcome(enum.Enum):
    """How a check came out."""

    PASS = "pass"
    """The bot did what the protocol asks at every request the check wanted."""
    FAIL = "FAIL"
    """Something was wrong: the message says what, at which request."""
    SKIP = "skip"
    """Not played: no game reached the situation, or the options given cannot apply to it (not the bot's fault)."""


@dataclass(frozen=True)
class CheckResult:
    """One check's outcome."""

    name: str
    outcome: Outcome
    message: str = ""
    request: str | None = None
    """The line sent that exposed the problem (a request, a hello or a notice)."""
    stderr: str | None = None
    """The end of the bot's stderr, for a failure."""
    seconds: float = 0.0
    """How long the check took: from its session's start (or its group's, for a skip) to its result."""
    hint: str | None = None
    """For a failure: the usual cause and its fix, in one line."""
    hole: int | None = None
    """The hole of the line sent, when it belongs to one."""
    step: int | None = None
    """The request's step in its hole, from 0 (every seat's decisions and the reshuffles, as a log counts them)."""
    request_id: int | None = None
    """The request's id in its session."""
    house: str | None = None
    """For a check of `--house`: the house options it is about, as the summary names them (`flip_out`,
    `the scoring ones`); None for a check of the rules asked for."""

    def line(self) -> str:
        """The check as one line."""
        return f"{self.outcome.value:<4}  {self.name}" + (f": {self.message}" if self.message else "")

    def place(self) -> str | None:
        """Where a failure showed: the request's hole, step and id, or the message sent; None if unknown."""
        if self.request_id is not None:
            return f"hole {self.hole}, step {self.step}, request {self.request_id}"
        if self.request is None:
            return None
        kind = protocol.parse_message(self.request)["type"]
        if kind == "hole_end":
            return f"the hole_end of hole {self.hole}"
        if kind == "match_end":
            return "the match_end and goodbye"
        return f"the {kind}"

    def details(self) -> list[str]:
        """A failure's lines after its own: where, the hint, the line sent, the stderr tail ("label: text" each)."""
        if self.outcome is not Outcome.FAIL:
            return []
        lines = []
        place = self.place()
        if place is not None:
            lines.append(f"at: {place}")
        if self.hint:
            lines.append(f"hint: {self.hint}")
        if self.request is not None:
            lines.append(f"sent: {self.request}")
        lines.extend(f"stderr: {line}" for line in stderr_lines(self.stderr or ""))
        return lines


@dataclass(frozen=True)
class CheckRun:
    """Every check's result, and the bot's decision times."""

    results: tuple[CheckResult, ...]
    times_ms: tuple[float, ...]
    time: TimeControl
    stopped: str | None = None
    """Why the run stopped before its last check (the checks left would all fail alike), or None."""
    not_run: int = 0
    """The checks a stop left unplayed (not in `results`)."""
    starts: int = 0
    """How many times the bot was started: once per session."""
    seconds: float = 0.0
    """The whole run's duration."""

    @property
    def passed(self) -> bool:
        """Whether no check failed."""
        return all(r.outcome is not Outcome.FAIL for r in self.results)

    def times_line(self) -> str:
        """Median, 95th percentile and maximum decision time against the time control."""
        tc = self.time
        limit = f"time control: move_ms {tc.move_ms}, bank_ms {tc.bank_ms}, grace_ms {tc.grace_ms}"
        times = sorted(self.times_ms)
        if not times:
            return f"decision times: no decision answered ({limit})"
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        return (
            f"decision times: median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, "
            f"max {times[-1]:.1f} ms over {len(times)} decisions ({limit})"
        )

    def stopped_line(self) -> str | None:
        """The line that says which checks a stop left unplayed, and why; None when the run went to its end."""
        if self.stopped is None:
            return None
        return f"stopped: {self.not_run} more checks not run: {self.stopped}"

    def summary(self) -> str:
        """The counts of passed, failed, skipped and unplayed checks of the rules asked for (not `--house`'s)."""
        text = _counts([r for r in self.results if r.house is None])
        return text + (f"; {self.not_run} not run" if self.not_run else "")

    def house_summary(self) -> str | None:
        """`--house`'s line: its checks' counts and the house options not supported; None without `--house`."""
        house = [r for r in self.results if r.house is not None]
        if not house:
            return None
        failed = list(dict.fromkeys(r.house for r in house if r.outcome is Outcome.FAIL and r.house is not None))
        return f"house options: {_counts(house)}" + (f"; not supported: {', '.join(failed)}" if failed else "")


def _counts(results: Sequence[CheckResult]) -> str:
    """`N checks: P passed, F failed` (and skipped, when any was)."""
    counts = {o: sum(1 for r in results if r.outcome is o) for o in Outcome}
    total = len(results)
    text = f"{total} check{'' if total == 1 else 's'}: {counts[Outcome.PASS]} passed, {counts[Outcome.FAIL]} failed"
    return text + (f", {counts[Outcome.SKIP]} skipped" if counts[Outcome.SKIP] else "")


@dataclass(frozen=True)
class BotCommand:
    """The bot to check: its command line, working directory and extra environment."""

    argv: tuple[str, ...]
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)


# -- what a check wants --------------------------------------------------------------------

Want = Callable[[Game, int], bool]
"""Whether the seat to move (given) faces the situation a check is about."""


def _decision(d: Decision) -> Want:
    return lambda g, s: g.decision is d


def _place(from_stock: bool) -> Want:
    return lambda g, s: g.decision is Decision.PLACE and g.drawn_from_stock is from_stock


def _power(rank: Rank) -> Want:
    return lambda g, s: g.decision is Decision.PLACE and POWER in g.legal_actions() and g.ranks[g.drawn] is rank


def _target(rank: Rank, second: bool) -> Want:
    return lambda g, s: (
        g.decision is Decision.TARGET and g.power_rank is rank and (g.first_target is not None) is second
    )


def _flip_pass(g: Game, s: int) -> bool:
    return g.decision is Decision.FLIP and any(a.text == "pass" for a in g.legal_actions())


def _flip_at_draw(g: Game, s: int) -> bool:
    return g.decision is Decision.DRAW and any(a.text.startswith("flip:") for a in g.legal_actions())


def _flip_out_offered(g: Game, s: int) -> bool:
    return g.decision is Decision.DRAW and any(a.text == "flip_out" for a in g.legal_actions())


def _after_close(g: Game, s: int) -> bool:
    return g.decision is Decision.DRAW and g.closer is not None


def _knock_offered(g: Game, s: int) -> bool:
    return g.decision is Decision.DRAW and any(a.text == "knock" for a in g.legal_actions())


def _after_knock(g: Game, s: int) -> bool:
    return g.decision is Decision.DRAW and g.knocker is not None and g.knocker != s


def _face_down(g: Game, s: int) -> bool:
    # Another seat's stock card went face down: this seat sees the swap without the card.
    return g.decision is Decision.DRAW and any(
        isinstance(e, SwapEvent) and e.from_stock and e.seat != s for e in g.events
    )


def _reshuffle(g: Game, s: int) -> bool:
    return g.decision is Decision.DRAW and any(isinstance(e, ReshuffleEvent) for e in g.events)


def _visible(g: Game, s: int, ok: Callable[[int], bool]) -> bool:
    bit = 1 << s
    return any(ok(c) for c in g.discard) or any(
        ok(c) and (g.up[c] or g.known[c] & bit) for grid in g.grids for c in grid
    )


def _deck(n: int) -> Want:
    return lambda g, s: _visible(g, s, lambda c: g.cards[c].deck == n)


def _joker(g: Game, s: int) -> bool:
    return _visible(g, s, lambda c: g.ranks[c] is Rank.JOKER)


def _anything(g: Game, s: int) -> bool:
    return True


_HOUSE_DECISIONS: Mapping[str, tuple[str, Want]] = {
    "flip_instead_of_draw": ("draw: a flip offered instead of drawing", _flip_at_draw),
    "flip_out": ("draw: flip_out offered", _flip_out_offered),
    "flip_after_throw": ("flip: pass offered", _flip_pass),
}
"""The house options that add a decision, each checked on its own: the check's name and what it wants."""


def _house_label(name: str, value: object) -> str:
    """A house option as `--house`'s lines name it: `flip_out`, or `flip_after_throw=endgame` (one value of many)."""
    return name if name in HOUSE_OPTIONS else f"{name}={value}"


def _house_set(rules: Rules, given: Mapping[str, object]) -> list[str]:
    """The house options of `HOUSE_CHECKED` that `rules` set beyond the options given, as `_house_label` names them."""
    found = [name for name in HOUSE_OPTIONS if name in rules.house_dict()]
    if rules.flip_after_throw.value == HOUSE_CHECKED["flip_after_throw"]:
        found.append("flip_after_throw")
    return [_house_label(name, HOUSE_CHECKED[name]) for name in found if name not in given]


class _Kind(enum.Enum):
    REQUEST = "request"
    """Passes at the first request it wants that the bot answers rightly."""
    SPAN = "span"
    """Starts at the first request it wants; passes at the hole's end if nothing went wrong meanwhile."""
    HANDSHAKE = "handshake"
    """Hello answered by a ready."""
    HOLE_END = "hole_end"
    """A hole_end taken (the bot still there), and the next hole played."""
    MATCH_END = "match_end"
    """match_end and goodbye taken, and an exit."""


@dataclass(eq=False)
class _Check:
    name: str
    kind: _Kind
    want: Want = _anything
    result: CheckResult | None = None
    active: bool = False  # a span check that has begun
    started: float = 0.0
    house: str | None = None  # `--house`'s: the house options it is about (CheckResult.house)
    unsupported: str = ""  # and what its failure says first: "house option flip_out not supported"

    def outcome(self) -> CheckResult | None:
        """The check's result as reported: a `--house` check's names its house options, a failure what it means."""
        result = self.result
        if result is None or self.house is None:
            return result
        message = f"{self.unsupported}: {result.message}" if result.outcome is Outcome.FAIL else result.message
        return dataclasses.replace(result, house=self.house, message=message)


@dataclass
class _Group:
    """Checks played under one rule set."""

    rules: Rules
    checks: list[_Check]
    seed: int
    skip: str | None = None
    """Why the options given cannot apply to these rules (every check is skipped), or None."""

    def open(self) -> list[_Check]:
        return [c for c in self.checks if c.result is None]


def _resolve(
    preset: str, own: Mapping[str, object], players: int, options: Mapping[str, object]
) -> tuple[Rules | None, str | None]:
    """A check's rules: the preset, the options given on top, the check's own options on top of those.

    (rules, None) to play them; (the rules without the options given, why those cannot apply)
    to skip the checks; (None, None) when the check's own rules cannot be played at all.
    """
    try:
        return resolve_rules(preset, {**options, **own}, players), None
    except RulesError as e:
        reason = str(e)
    if not options:
        return None, None
    try:
        return resolve_rules(preset, dict(own), players), reason
    except RulesError:
        return None, None


def _rules(preset: str, overrides: Mapping[str, object], players: int = 2) -> Rules | None:
    try:
        return resolve_rules(preset, dict(overrides), players)
    except RulesError:
        return None


def _layout_fits(preset: str, layout: str) -> bool:
    return _rules(preset, {"layout": layout, "holes": 1}) is not None


def build_groups(
    presets: Sequence[str],
    layouts: Sequence[str],
    fuzz: int,
    seed: int,
    options: Mapping[str, object] | None = None,
    players: int = 2,
    house: bool = False,
) -> list[_Group]:
    """Every group of checks for the presets and layouts a bot claims, and `fuzz` random ones.

    `options` are rule options set on top of every preset (a config's, `--set`'s); a check's
    own options (its layout, its player count, card powers, decks and jokers, two holes)
    stay its own. `players` is the player count of the presets' own groups. `house` adds
    the checks of the house options those rules leave off, and lets the fuzz draw them.
    """
    given: Mapping[str, object] = options or {}
    groups: list[_Group] = []

    def add(resolved: tuple[Rules | None, str | None], checks: list[_Check] | Callable[[Rules], list[_Check]]) -> None:
        rules, skip = resolved
        if rules is not None:
            made = checks(rules) if callable(checks) else checks
            groups.append(_Group(rules, made, seed * 1_000_003 + len(groups) * 7919, skip))

    for preset in presets:
        bases: list[dict[str, object]] = [{"holes": 2}]
        if preset == "arena":  # the 4-card arena: peeks, face-down swaps, knocking ("closing")
            bases.append({"holes": 2, "layout": "2x2"})
        seen: set[Rules] = set()
        for base in bases:
            resolved = _resolve(preset, base, players, given)
            if resolved[0] is None or resolved[0] in seen:
                continue  # options that fix the layout make arena's second base its first
            seen.add(resolved[0])
            add(resolved, functools.partial(_base_checks, preset))
        tag = f"{preset} with card powers"
        add(
            _resolve(preset, {"holes": 2, "card_powers": True}, players, given),
            [
                _Check(f"{tag}: place: power offered for a jack", _Kind.REQUEST, _power(Rank.JACK)),
                _Check(f"{tag}: place: power offered for a queen", _Kind.REQUEST, _power(Rank.QUEEN)),
                _Check(f"{tag}: place: power offered for a king", _Kind.REQUEST, _power(Rank.KING)),
                _Check(f"{tag}: target: a jack's peek", _Kind.REQUEST, _target(Rank.JACK, False)),
                _Check(f"{tag}: target: a queen's peek", _Kind.REQUEST, _target(Rank.QUEEN, False)),
                _Check(f"{tag}: target: a king's first card", _Kind.REQUEST, _target(Rank.KING, False)),
                _Check(f"{tag}: target: a king's second card", _Kind.REQUEST, _target(Rank.KING, True)),
            ],
        )
        most = PRESETS[preset]["max_players"]
        add(
            _resolve(preset, {"holes": 1, "decks": 1}, most, given),
            [_Check(f"{preset} {most} players, 1 deck: draw: after a reshuffle", _Kind.REQUEST, _reshuffle)],
        )
        tag = f"{preset} 3 decks with jokers"
        add(
            _resolve(preset, {"holes": 1, "decks": 3, "jokers": -2}, players, given),
            [
                _Check(f"{tag}: a card of the second deck", _Kind.REQUEST, _deck(2)),
                _Check(f"{tag}: a card of the third deck", _Kind.REQUEST, _deck(3)),
                _Check(f"{tag}: a joker", _Kind.REQUEST, _joker),
                _Check(f"{tag}: a hole", _Kind.SPAN),
            ],
        )
    # Player counts and layouts, each once, under the claimed presets in turn.
    for i, count in enumerate(range(3, 9)):
        able = [p for p in presets if PRESETS[p]["max_players"] >= count]
        if able:
            preset = able[i % len(able)]
            add(_resolve(preset, {"holes": 1}, count, given), functools.partial(_count_check, count, preset))
    for i, layout in enumerate(layouts):
        able = [p for p in presets if _layout_fits(p, layout)]
        if able:
            preset = able[i % len(able)]
            add(
                _resolve(preset, {"layout": layout, "holes": 1}, 2, given),
                [_Check(f"layout {layout} ({preset}): a hole", _Kind.SPAN)],
            )
    rng = random.Random(seed)
    for i in range(fuzz):
        drawn, label, skip = _fuzz_rules(rng, presets, layouts, given, house)
        after = rng.randrange(0, 80)
        check = _Check(f"fuzz {i + 1} ({label}, position {after}): a hole", _Kind.SPAN, _countdown(after))
        extra = _house_set(drawn, given)
        if extra:  # a failure may be any of them: it counts with --house's checks
            check.house = f"one of {', '.join(extra)} (fuzz {i + 1})"
            check.unsupported = f"house options not supported ({check.house})"
        add((drawn, skip), [check])
    # Last, so that adding them left every other group's seed (its place in the list) as it was.
    for preset in presets if house else ():
        _add_house_groups(add, preset, players, given)
    return groups


def _base_checks(preset: str, rules: Rules) -> list[_Check]:
    """A preset's own group: the handshake, every decision its rules have, a hole's and the match's end."""
    tag = f"{preset} {rules.layout}"
    checks = [
        _Check(f"{tag}: handshake", _Kind.HANDSHAKE),
        _Check(f"{tag}: draw", _Kind.REQUEST, _decision(Decision.DRAW)),
        _Check(f"{tag}: place: a card from the stock", _Kind.REQUEST, _place(True)),
        _Check(f"{tag}: place: a card from the discard pile", _Kind.REQUEST, _place(False)),
    ]
    # A grid can be closed only if its cards can come face up.
    if rules.swap_face_up or rules.reveal.value == "flip" or rules.flip_after_throw.value != "none":
        checks.append(_Check(f"{tag}: draw: the turn owed after a close", _Kind.REQUEST, _after_close))
    if rules.reveal_count and rules.reveal_choice.value == "player":
        checks.append(_Check(f"{tag}: reveal", _Kind.REQUEST, _decision(Decision.REVEAL)))
    if rules.flip_after_throw.value != "none":
        checks.append(_Check(f"{tag}: flip", _Kind.REQUEST, _decision(Decision.FLIP)))
    if rules.flip_after_throw.value in ("may", "endgame"):
        checks.append(_Check(f"{tag}: flip: pass offered", _Kind.REQUEST, _flip_pass))
    if rules.flip_instead_of_draw:
        checks.append(_Check(f"{tag}: draw: a flip offered instead of drawing", _Kind.REQUEST, _flip_at_draw))
    if rules.flip_out is not None:
        checks.append(_Check(f"{tag}: draw: flip_out offered", _Kind.REQUEST, _flip_out_offered))
    if rules.knocking:
        checks.append(_Check(f"{tag}: draw: knock offered", _Kind.REQUEST, _knock_offered))
        checks.append(_Check(f"{tag}: draw: the turn owed after a knock", _Kind.REQUEST, _after_knock))
    if not rules.swap_face_up:
        checks.append(_Check(f"{tag}: draw: after a face-down swap", _Kind.REQUEST, _face_down))
    checks.append(_Check(f"{tag}: hole end", _Kind.HOLE_END))
    checks.append(_Check(f"{tag}: match end", _Kind.MATCH_END))
    return checks


def _add_house_groups(
    add: Callable[[tuple[Rules | None, str | None], list[_Check]], None],
    preset: str,
    players: int,
    given: Mapping[str, object],
) -> None:
    """`--house`'s groups for a preset: each house option that adds a decision on its own, the rest together.

    Each group differs from the preset's own rules by what it checks, so a failure there is
    that house option's: the bot handled the rest in the preset's own groups. A house option
    given (`--set`) is the rules asked for, checked in those groups: none of these sets it.
    """
    for name, (what, want) in _HOUSE_DECISIONS.items():
        if name in given:
            continue
        value = HOUSE_CHECKED[name]
        label = _house_label(name, value)
        check = _Check(f"{preset} with {label}: {what}", _Kind.REQUEST, want, house=label)
        check.unsupported = f"house option {label} not supported"
        add(_resolve(preset, {"holes": 1, name: value}, players, given), [check])
    left = [name for name in HOUSE_OPTIONS if name in HOUSE_CHECKED and name not in (*_HOUSE_DECISIONS, *given)]
    if not left:
        return  # every scoring house option given
    # Their own holes (a hole's end, then the next hole) and jokers (for the jokers' options) stay theirs.
    scoring = {name: value for name, value in HOUSE_CHECKED.items() if name in left or name not in HOUSE_OPTIONS}
    scoring = {name: value for name, value in scoring.items() if name not in _HOUSE_DECISIONS}
    tag = f"{preset} with the scoring house options"
    checks = [_Check(f"{tag}: a hole", _Kind.SPAN), _Check(f"{tag}: hole end", _Kind.HOLE_END)]
    for check in checks:
        check.house, check.unsupported = SCORING_HOUSE_OPTIONS, "the scoring house options not supported"
    add(_resolve(preset, scoring, players, given), checks)


def _count_check(count: int, preset: str, rules: Rules) -> list[_Check]:
    """The check of a whole hole at `count` players."""
    return [_Check(f"{count} players ({preset} {rules.layout}): a hole", _Kind.SPAN)]


def _countdown(after: int) -> Want:
    """Wants the `after`-th situation it is asked about, and every one from there."""
    seen = [0]

    def want(g: Game, s: int) -> bool:
        seen[0] += 1
        return seen[0] > after

    return want


def _fuzz_rules(
    rng: random.Random, presets: Sequence[str], layouts: Sequence[str], options: Mapping[str, object], house: bool
) -> tuple[Rules, str, str | None]:
    """A random playable rule set under one of `presets` and `layouts`, the options given on top: rules, label, None.

    The house options are drawn too with `house` (else they stay as the options given leave
    them). When no draw can take the options given, the last draw that plays without them,
    its label, and why the options rule it out.
    """
    tries = 0
    last: tuple[Rules, str, str | None] | None = None
    while True:
        tries += 1
        preset = rng.choice(list(presets))
        players = rng.randint(2, PRESETS[preset]["max_players"])
        flips = ["none", "may", "must"] + (["endgame"] if house else [])
        overrides: dict[str, object] = {
            "layout": rng.choice(list(layouts)),
            "holes": rng.randint(1, 2),
            "card_powers": rng.random() < 0.5,
            "knocking": rng.random() < 0.4,
            "flip_after_throw": rng.choice(flips),
            "swap_face": rng.choice(["up", "down"]),
            "reveal_choice": rng.choice(["fixed", "player"]),
            "jokers": rng.choice(["off", -2, 5]),
        }
        if house:
            overrides["flip_instead_of_draw"] = rng.random() < 0.2
            overrides["flip_out"] = rng.choice(["off", "off", "off", 1, 2])
        if rng.random() < 0.5:
            overrides["decks"] = rng.randint(1, 4)
        if house:
            overrides.update(_fuzz_house(rng, overrides["jokers"] != "off"))
        try:
            # The options given are the bot's rules: the fuzz draws only what they leave open.
            rules = resolve_rules(preset, {**overrides, **options}, players)
            return rules, _fuzz_label(preset, rules, players), None
        except RulesError as e:
            plain = _rules(preset, overrides, players) if options else None
            if plain is not None:
                last = (plain, _fuzz_label(preset, plain, players), str(e))
        if last is not None and tries >= _FUZZ_TRIES:
            return last


def _fuzz_house(rng: random.Random, jokers: bool) -> dict[str, object]:
    """The scoring house options of a fuzz draw: each set a third of the time, at a random value."""
    ranks = [rank.value for rank in Rank if jokers or rank is not Rank.JOKER]
    drawn: dict[str, object] = {
        "card_values": {rank: rng.randint(-10, 15) for rank in rng.sample(ranks, 2)},
        "suit_values": {rng.choice("A23456789TJQK") + rng.choice("SHDC"): rng.randint(-10, 15)},
        "negative_pairs": "keep",
        "two_column_bonus": rng.randint(-30, 10),
        "jack_columns_bonus": rng.randint(-30, 10),
        "exact_score": [rng.randint(0, 30), rng.randint(-10, 10)],
        "closer_penalty": rng.randint(0, 20),
        "closer_bonus": rng.randint(-10, 5),
        "low_score_bonus": rng.randint(-10, 5),
        "tie_penalty": rng.randint(0, 10),
    }
    if jokers:
        drawn.update({"joker_count": rng.randint(1, 8), "joker_pair": rng.randint(-10, 10)})
    return {name: value for name, value in drawn.items() if rng.random() < 1 / 3}


def _fuzz_label(preset: str, rules: Rules, players: int) -> str:
    return f"{preset} {rules.layout}, {players} players, {rules.decks} deck{'s' if rules.decks > 1 else ''}"


# -- playing a group -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Sent:
    """A line sent to the bot, and where in the game it was sent."""

    line: str
    hole: int | None = None
    step: int | None = None
    request_id: int | None = None


class _Stop(Exception):
    """The checks left would all fail alike, most after a full wait: the run ends here."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class _Run:
    """What the sessions of one run share: the bot, its time control, and what it has shown so far."""

    def __init__(self, command: BotCommand, tc: TimeControl) -> None:
        self.command = command
        self.tc = tc
        self.times: list[float] = []
        self.starts = 0
        self.ready_seen = False  # a handshake went through: the bot can start and speak
        self.answered = False  # the bot sent a line for a request: it is heard once it is going
        self.began = time.monotonic()
        self.strays = 0
        self.first_stray: CheckResult | None = None

    def stray(self, reply: Reply, sent: _Sent | None, stderr: str) -> None:
        """Note a line that is no protocol line where it came (the first one is the stdout check's failure)."""
        self.strays += 1
        if self.first_stray is None:
            self.first_stray = _failed(STDOUT_CHECK, _fault_text(reply), reply, sent, stderr, 0.0)

    def stdout_result(self) -> CheckResult:
        """The stdout check: failed at the first stray line (with the count of them all), or passed."""
        seconds = time.monotonic() - self.began
        first = self.first_stray
        if first is None:
            return CheckResult(STDOUT_CHECK, Outcome.PASS, seconds=seconds)
        more = f" ({self.strays} stray lines in all)" if self.strays > 1 else ""
        return dataclasses.replace(first, message=first.message + more, seconds=seconds)

    def time_result(self) -> CheckResult:
        """The time control check: every decision answered within move_ms (skipped when none was answered)."""
        name = f"{TIME_CHECK} ({self.tc.move_ms} ms)"
        seconds = time.monotonic() - self.began
        slow = [t for t in self.times if t > self.tc.move_ms]
        if not self.times:
            return CheckResult(name, Outcome.SKIP, "no decision was answered", seconds=seconds)
        if slow:
            what = f"{len(slow)} decisions took longer, the slowest {max(slow):.0f} ms"
            return CheckResult(name, Outcome.FAIL, what, seconds=seconds)
        return CheckResult(name, Outcome.PASS, seconds=seconds)


def _fault_text(reply: Reply, sent: _Sent | None = None) -> str:
    """A fault in words: its kind and message, the decision of the request it came at, the line the bot sent."""
    text = f"{reply.fault.value if reply.fault else 'fault'}: {reply.message}"
    if sent is not None and sent.request_id is not None:
        text += f" [decision {protocol.parse_message(sent.line)['decision']}]"
    if reply.line is not None:
        text += f"; the bot sent {protocol.clip(reply.line, 120)}"
    return text


def _failed(
    name: str, message: str, reply: Reply, sent: _Sent | None, stderr: str, seconds: float, unheard: str | None = None
) -> CheckResult:
    """A failed check's result: the fault, where it showed, its hint and the bot's stderr tail."""
    return CheckResult(
        name,
        Outcome.FAIL,
        message,
        None if sent is None else sent.line,
        stderr or None,
        seconds,
        None if reply.fault is None else kind_hint(reply.fault, reply.message, unheard, stderr),
        None if sent is None else sent.hole,
        None if sent is None else sent.step,
        None if sent is None else sent.request_id,
    )


class _Session:
    """The bot playing one seat of one game of a group, from the situation it joined at."""

    def __init__(self, run: _Run, seat: int, group: _Group) -> None:
        command = run.command
        self.driver = BotDriver(command.argv, seat, command.cwd, command.env)
        self.run = run
        self.seat = seat
        self.group = group
        self.mark: EventMark = (0, 0)
        self.next_id = 1
        self.alive = True
        self.last: _Sent | None = None
        self.hole_ended: _Sent | None = None  # the hole_end whose taking is still unproven

    def stderr(self) -> str:
        return stderr_tail(self.driver.stderr(), CHECK_STDERR_LINES)

    def stray(self, reply: Reply) -> None:
        self.run.stray(reply, self.last, self.stderr())

    def fail(self, checks: Sequence[_Check], reply: Reply, sent: _Sent | None, unheard: str | None = None) -> None:
        stderr = self.stderr()
        message = _fault_text(reply, sent)
        for check in checks:
            if check.result is None:
                check.result = _failed(check.name, message, reply, sent, stderr, _since(check), unheard)

    def start(self, names: Sequence[str], joining: Sequence[_Check]) -> None:
        """Start the bot and shake hands: passes the group's handshake check, or fails and ends the session.

        Raises BotWontStart when the run's first start fails, and _Stop when no later check
        could get further.
        """
        run = self.run
        run.starts += 1
        problem = self.driver.start()
        handshakes = [c for c in self.group.checks if c.kind is _Kind.HANDSHAKE and c.result is None]
        if problem is not None:
            if run.starts == 1:
                raise BotWontStart(problem)
            self.alive = False
            self.fail([*handshakes, *joining][:1], Reply(None, FaultKind.START_FAILED, problem), None)
            raise _Stop("the bot could not be started again; every check starts it afresh")
        tc = run.tc
        hello = protocol.hello(self.seat, names, protocol.hello_rules(self.group.rules), tc.to_json())
        self.last = _Sent(hello)
        limit = tc.startup_ms + tc.grace_ms
        reply = self.driver.send(hello) or self.driver.ready(limit / 1000, self.stray)
        if reply.fault is not None:
            self.alive = False
            if reply.fault is FaultKind.TIMEOUT:
                self.fail([*handshakes, *joining][:1], reply, self.last, "ready")
                raise _Stop(
                    f"the bot sent no ready within startup_ms + grace_ms ({limit} ms); every check starts it "
                    "afresh and would wait as long"
                )
            if not run.ready_seen:
                self.fail([*handshakes, *joining][:1], reply, self.last)
                raise _Stop("the bot never got through a handshake; every check starts with one")
            self.fail([*handshakes, *joining], reply, self.last)
            return
        run.ready_seen = True
        for check in handshakes:
            check.result = CheckResult(check.name, Outcome.PASS, f"ready from {reply.value!r}", seconds=_since(check))

    def take_unasked(self) -> list[Reply]:
        """What the bot printed while nothing was asked: each line goes to the stdout check; the rest is returned."""
        problems = []
        for reply in self.driver.unasked():
            if reply.fault is FaultKind.UNASKED_OUTPUT:
                self.stray(reply)
            else:
                problems.append(reply)
        return problems

    def ask(self, game: Game, wanting: Sequence[_Check], step: int) -> str | None:
        """Send the request for the seat to move; the bot's action, or None when it faulted."""
        run = self.run
        problems = self.take_unasked()
        if self.hole_ended is not None:
            notice, self.hole_ended = self.hole_ended, None
            ends = [c for c in self.group.checks if c.kind is _Kind.HOLE_END and c.result is None]
            if problems:
                self.fail(ends, problems[0], notice)
            for check in ends:
                if check.result is None:
                    check.result = CheckResult(check.name, Outcome.PASS, seconds=_since(check))
        spans = [c for c in self.group.checks if c.kind is _Kind.SPAN and c.active and c.result is None]
        if problems:
            exited = next((r for r in problems if r.fault is FaultKind.EXITED), None)
            if exited is not None and not run.answered:
                self._never_answered([*wanting, *spans], exited)
            self.fail([*spans, *wanting], problems[0], self.last)
            if exited is not None:
                self.alive = False
                return None
        rid = self.next_id
        self.next_id += 1
        time_ms = run.tc.move_ms + run.tc.bank_ms
        line, self.mark = request_line(game, self.seat, rid, self.mark, time_ms)
        self.last = _Sent(line, game.hole, step, rid)
        legal = [a.text for a in game.legal_actions()]
        sent = time.monotonic()
        timeout = (time_ms + run.tc.grace_ms) / 1000
        reply = self.driver.send(line) or self.driver.answer(rid, legal, timeout, self.stray)
        if reply.fault in _ENDS_SESSION and reply.line is None and not run.answered:
            self._never_answered([*wanting, *spans], reply)
        run.answered = run.answered or reply.line is not None
        if reply.fault is not None:
            self.fail([*spans, *wanting], reply, self.last)
            if reply.fault in _ENDS_SESSION:
                self.alive = False  # it cannot be trusted to answer the next request in step
            return None
        run.times.append((time.monotonic() - sent) * 1000)
        for check in wanting:
            if check.kind is _Kind.REQUEST and check.result is None:
                check.result = CheckResult(check.name, Outcome.PASS, f"request {rid}", seconds=_since(check))
        return reply.value

    def _never_answered(self, checks: Sequence[_Check], reply: Reply) -> NoReturn:
        """Fail one check and stop: the bot ended its first request of the run without a line, as it would every one."""
        self.alive = False
        unheard = "answer" if reply.fault is FaultKind.TIMEOUT else None
        self.fail([*checks, *self.group.open()][:1], reply, self.last, unheard)
        what = reply.fault.value if reply.fault is not None else "no answer"
        raise _Stop(f"the bot never answered its first request ({what}); every check would end alike")

    def hole_over(self, game: Game) -> None:
        """Pass the span checks that lasted the hole, and send the hole_end the referee would send."""
        result = game.results[-1]
        for check in self.group.checks:
            if check.kind is _Kind.SPAN and check.active and check.result is None:
                check.result = CheckResult(check.name, Outcome.PASS, seconds=_since(check))
        # Every hole's end is announced, as in a match, so that the bot's next request never
        # comes from a hole it was not told has begun.
        line = hole_end_line(game, result, self.seat, self.mark, [str(c) for c in game.cards])
        self.last = _Sent(line, result.hole)
        ends = [c for c in self.group.checks if c.kind is _Kind.HOLE_END and c.result is None]
        reply = self.driver.send(line)
        if reply is None and ends and not game.over:
            reply = self.driver.watch(_NOTICE_WAIT, "after hole_end")
            if reply is not None and reply.fault is FaultKind.UNASKED_OUTPUT:
                self.stray(reply)
                reply = None
        if reply is not None:
            self.fail(ends, reply, self.last)
            self.alive = False
        elif not game.over:
            self.hole_ended = self.last

    def match_over(self, game: Game) -> None:
        ends = [c for c in self.group.checks if c.kind is _Kind.MATCH_END and c.result is None]
        if not ends:
            self.driver.close()
            return
        end_line = protocol.match_end(game.totals, game.placings(), [])
        self.last = _Sent(end_line)
        reply = self.driver.send(end_line) or self.driver.send(protocol.goodbye())
        code = self.driver.finish(GOODBYE_EXIT_WAIT)
        problems = self.take_unasked()
        if reply is None and problems:
            reply = problems[0]
        if reply is None and code != 0:
            waited = f"was still running {GOODBYE_EXIT_WAIT:g} s"
            how = f"exited with code {code}" if code is not None and code > 0 else waited
            reply = Reply(None, FaultKind.EXITED, f"after goodbye and the end of its input the bot {how}")
        if reply is not None:
            self.fail(ends, reply, self.last)
        for check in ends:
            if check.result is None:
                check.result = CheckResult(check.name, Outcome.PASS, "exited after goodbye", seconds=_since(check))

    def close(self) -> None:
        self.driver.close()
        self.run.strays += self.driver.dropped  # a flood beyond what the process layer keeps


def _since(check: _Check) -> float:
    return time.monotonic() - check.started if check.started else 0.0


class _Explorer:
    """Random play that uses every card power it can and seldom knocks: it reaches the rarer situations."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seat_view: SeatView, legal: Sequence[Action]) -> Action:
        """A legal action: the power when offered, a knock one time in twenty, else any."""
        kinds = {a.kind: a for a in legal}
        if ActionKind.POWER in kinds:
            return kinds[ActionKind.POWER]
        if ActionKind.KNOCK in kinds and self.rng.random() >= 0.05:
            legal = [a for a in legal if a.kind is not ActionKind.KNOCK]
        return self.rng.choice(legal)


def _games(group: _Group) -> Iterator[tuple[int, Policy]]:
    """The games tried for a group: a seed and the policy every seat plays until the bot joins."""
    for attempt in range(_GAMES):
        seed = group.seed + attempt
        rng = random.Random(seed)
        # Greedy play closes holes; random play knocks, reshuffles and plays long holes;
        # the explorer uses card powers.
        policy: Policy = (GreedyPolicy(group.rules, rng), RandomPolicy(rng), _Explorer(rng))[attempt % 3]
        yield seed, policy


def _play_group(group: _Group, run: _Run) -> None:
    now = time.monotonic()
    for check in group.checks:
        check.started = now
    if group.skip is not None:
        for check in group.checks:
            check.result = CheckResult(check.name, Outcome.SKIP, f"not under the rules given: {group.skip}")
        return
    games = _games(group)
    while group.open():
        try:
            seed, policy = next(games)
        except StopIteration:
            for check in group.open():
                message = f"no position found in {_GAMES} games"
                check.result = CheckResult(check.name, Outcome.SKIP, message, seconds=_since(check))
            return
        _play_game(group, seed, policy, run)


def _play_game(group: _Group, seed: int, policy: Policy, run: _Run) -> None:
    """One game of a group: the bot joins at the first situation an open check wants, and plays on."""
    rules = group.rules
    game = Game(rules)
    shuffler = Shuffler(seed)
    fallback = GreedyPolicy(rules, random.Random(seed))
    names = [f"seat {i}" for i in range(rules.players)]
    session: _Session | None = None
    step = 0  # the hole's steps so far, as a log counts them: every decision and reshuffle
    try:
        while not game.over:
            if game.chance is not None:
                step = 0 if game.dealing else step + 1
                order = list(game.chance)
                shuffler.shuffle(order, game.hole)
                game.apply_shuffle(order)
                continue
            to_move, _ = game.turn()
            holes = len(game.results)
            if session is None:
                joining = [c for c in group.open() if c.kind in (_Kind.REQUEST, _Kind.SPAN) and c.want(game, to_move)]
                if joining:
                    names[to_move] = "bot"
                    session = _Session(run, to_move, group)
                    now = time.monotonic()
                    for check in group.open():
                        check.started = now
                    session.start(names, joining)
                    if not session.alive:
                        return
            if session is not None and to_move == session.seat:
                wanting = [c for c in group.open() if c.kind is _Kind.REQUEST and c.want(game, to_move)]
                for check in group.open():
                    if check.kind is _Kind.SPAN and not check.active and check.want(game, to_move):
                        check.active = True
                chosen = session.ask(game, wanting, step) if session.alive else None
                if not session.alive:
                    return
                legal = game.legal_actions()
                action = next((a for a in legal if a.text == chosen), None)
                if action is None:
                    action = fallback.choose(view(game, to_move), legal)
            else:
                action = policy.choose(view(game, to_move), game.legal_actions())
            game.apply(action)
            step += 1
            if session is not None and len(game.results) > holes:
                session.hole_over(game)
                if not session.alive:
                    return
            if session is not None and not group.open():
                return
        if session is not None:
            session.match_over(game)
    finally:
        if session is not None:
            session.close()


def check_bot(
    command: BotCommand,
    presets: Sequence[str] = tuple(PRESETS),
    layouts: Sequence[str] = ALL_LAYOUTS,
    fuzz: int = 0,
    seed: int = 0,
    time_control: TimeControl | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
    options: Mapping[str, object] | None = None,
    players: int = 2,
    house: bool = False,
) -> CheckRun:
    """Run every check for the presets and layouts the bot claims (and `fuzz` random positions).

    `options` are rule options on top of every preset (a check's own options stay its own);
    `players` is the player count of each preset's own groups; `house` adds the house
    options' checks (`CheckResult.house`). Raises BotWontStart when the bot's program cannot
    be started at all, NothingToCheck when the options apply nowhere.
    """
    run = _Run(command, time_control or TimeControl())
    groups = build_groups(presets, layouts, fuzz, seed, options, players, house)
    asked = [g for g in groups if any(c.house is None for c in g.checks)]  # the rules asked for, not --house's
    if asked and all(g.skip is not None for g in asked):
        raise NothingToCheck(f"no check can be played under the rules given: {asked[0].skip}")
    results: list[CheckResult] = []

    def emit(result: CheckResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    stopped: str | None = None
    not_run = 0
    for index, group in enumerate(groups):
        try:
            _play_group(group, run)
        except _Stop as stop:
            stopped = stop.why
        for check in group.checks:
            if check.result is None and stopped is None:
                check.result = CheckResult(check.name, Outcome.SKIP, "not reached", seconds=_since(check))
            result = check.outcome()
            if result is not None:
                emit(result)
        if stopped is not None:
            not_run = len(group.open()) + sum(len(g.checks) for g in groups[index + 1 :])
            break
    stdout = run.stdout_result()
    if stopped is None or stdout.outcome is Outcome.FAIL:
        emit(stdout)
    else:
        not_run += 1  # a stopped run proves nothing about the lines it did not see
    if stopped is None:
        emit(run.time_result())
    else:
        not_run += 1
    seconds = time.monotonic() - run.began
    return CheckRun(tuple(results), tuple(run.times), run.tc, stopped, not_run, run.starts, seconds)
