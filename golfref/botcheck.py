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
"""

from __future__ import annotations

import enum
import random
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from . import protocol
from .botdriver import BotDriver, Reply, stderr_tail
from .cards import Rank
from .config import TimeControl
from .engine import POWER, Action, ActionKind, Decision, Game, ReshuffleEvent, SwapEvent
from .policies import GreedyPolicy, Policy, RandomPolicy
from .referee import FaultKind, Shuffler
from .rules import PRESETS, Rules, RulesError, resolve_rules
from .seat_messages import EventMark, hole_end_line, request_line
from .view import SeatView, view

__all__ = [
    "ALL_LAYOUTS",
    "BotWontStart",
    "Outcome",
    "CheckResult",
    "CheckReport",
    "BotCommand",
    "check_bot",
]

ALL_LAYOUTS = tuple(f"{r}x{c}" for r in range(1, 5) for c in range(1, 5))
"""Every layout the rules allow, 1x1 to 4x4."""

_GAMES = 40
"""Games tried to reach a check's situation before it is given up (skipped, not failed)."""
_NOTICE_WAIT = 0.05
"""How long a bot is watched after a hole_end for output or a crash, in seconds."""
_EXIT_WAIT = 2.0
"""How long a bot may take to exit after goodbye and the end of its input, in seconds."""


# Faults after which a bot cannot be trusted to answer the next request in step: its session ends.
_FATAL = frozenset({FaultKind.EXITED, FaultKind.TIMEOUT, FaultKind.LINE_TOO_LONG, FaultKind.NOT_UTF8})


class BotWontStart(Exception):
    """The bot's program cannot be started at all: nothing could be checked (one line)."""


class Outcome(enum.Enum):
    """How a check came out."""

    PASS = "pass"
    """The bot did what the protocol asks at every request the check wanted."""
    FAIL = "FAIL"
    """Something was wrong: the message says what, at which request."""
    SKIP = "skip"
    """No game reached the check's situation (a limitation of the search, not the bot's fault)."""


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

    def line(self) -> str:
        """The check as one line."""
        return f"{self.outcome.value:<4}  {self.name}" + (f": {self.message}" if self.message else "")


@dataclass(frozen=True)
class CheckReport:
    """Every check's result, and the bot's decision times."""

    results: tuple[CheckResult, ...]
    times_ms: tuple[float, ...]
    time: TimeControl

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

    def summary(self) -> str:
        """The counts of passed, failed and skipped checks."""
        counts = {o: sum(1 for r in self.results if r.outcome is o) for o in Outcome}
        text = f"{len(self.results)} checks: {counts[Outcome.PASS]} passed, {counts[Outcome.FAIL]} failed"
        if counts[Outcome.SKIP]:
            text += f", {counts[Outcome.SKIP]} skipped"
        return text


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


class _Kind(enum.Enum):
    REQUEST = "request"
    """Passes at the first request it wants that the bot answers rightly."""
    SPAN = "span"
    """Starts at the first request it wants; passes at the hole's end if nothing went wrong meanwhile."""
    HANDSHAKE = "handshake"
    """Hello answered by a ready."""
    HOLE_END = "hole_end"
    """A hole_end taken quietly, and the next hole played."""
    MATCH_END = "match_end"
    """match_end and goodbye taken quietly, and an exit."""


@dataclass(eq=False)
class _Check:
    name: str
    kind: _Kind
    want: Want = _anything
    result: CheckResult | None = None
    active: bool = False  # a span check that has begun
    started: float = 0.0


@dataclass
class _Group:
    """Checks played under one rule set."""

    rules: Rules
    checks: list[_Check]
    seed: int

    def open(self) -> list[_Check]:
        return [c for c in self.checks if c.result is None]


def _rules(preset: str, overrides: Mapping[str, object], players: int = 2) -> Rules | None:
    try:
        return resolve_rules(preset, dict(overrides), players)
    except RulesError:
        return None


def _layout_fits(preset: str, layout: str) -> bool:
    return _rules(preset, {"layout": layout, "holes": 1}) is not None


def build_groups(presets: Sequence[str], layouts: Sequence[str], fuzz: int, seed: int) -> list[_Group]:
    """Every group of checks for the presets and layouts a bot claims, and `fuzz` random ones."""
    groups: list[_Group] = []
    n = 0

    def add(rules: Rules | None, checks: list[_Check]) -> None:
        nonlocal n
        if rules is not None and checks:
            groups.append(_Group(rules, checks, seed * 1_000_003 + n * 7919))
            n += 1

    for preset in presets:
        bases = [_rules(preset, {"holes": 2})]
        if preset == "arena":  # the 4-card arena: peeks, face-down swaps, knocking ("closing")
            bases.append(_rules(preset, {"holes": 2, "layout": "2x2"}))
        for rules in bases:
            if rules is None:
                continue
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
            if rules.flip_after_throw.value == "may":
                checks.append(_Check(f"{tag}: flip: pass offered", _Kind.REQUEST, _flip_pass))
            if rules.knocking:
                checks.append(_Check(f"{tag}: draw: knock offered", _Kind.REQUEST, _knock_offered))
                checks.append(_Check(f"{tag}: draw: the turn owed after a knock", _Kind.REQUEST, _after_knock))
            if not rules.swap_face_up:
                checks.append(_Check(f"{tag}: draw: after a face-down swap", _Kind.REQUEST, _face_down))
            checks.append(_Check(f"{tag}: hole end", _Kind.HOLE_END))
            checks.append(_Check(f"{tag}: match end", _Kind.MATCH_END))
            add(rules, checks)
        powers = _rules(preset, {"holes": 2, "card_powers": True})
        tag = f"{preset} with card powers"
        add(
            powers,
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
        reshuffle = _rules(preset, {"holes": 1, "decks": 1}, most)
        add(reshuffle, [_Check(f"{preset} {most} players, 1 deck: draw: after a reshuffle", _Kind.REQUEST, _reshuffle)])
        decks = _rules(preset, {"holes": 1, "decks": 3, "jokers": -2})
        add(
            decks,
            [
                _Check(f"{preset} 3 decks with jokers: a card of the second deck", _Kind.REQUEST, _deck(2)),
                _Check(f"{preset} 3 decks with jokers: a card of the third deck", _Kind.REQUEST, _deck(3)),
                _Check(f"{preset} 3 decks with jokers: a joker", _Kind.REQUEST, _joker),
                _Check(f"{preset} 3 decks with jokers: a hole", _Kind.SPAN),
            ],
        )
    # Player counts and layouts, each once, under the claimed presets in turn.
    for i, players in enumerate(range(3, 9)):
        able = [p for p in presets if PRESETS[p]["max_players"] >= players]
        if able:
            preset = able[i % len(able)]
            rules = _rules(preset, {"holes": 1}, players)
            add(rules, [_Check(f"{players} players ({preset} {rules.layout if rules else ''}): a hole", _Kind.SPAN)])
    for i, layout in enumerate(layouts):
        able = [p for p in presets if _layout_fits(p, layout)]
        if able:
            preset = able[i % len(able)]
            add(
                _rules(preset, {"layout": layout, "holes": 1}),
                [_Check(f"layout {layout} ({preset}): a hole", _Kind.SPAN)],
            )
    rng = random.Random(seed)
    for i in range(fuzz):
        rules, label = _fuzz_rules(rng, presets, layouts)
        after = rng.randrange(0, 80)
        add(rules, [_Check(f"fuzz {i + 1} ({label}, position {after}): a hole", _Kind.SPAN, _countdown(after))])
    return groups


def _countdown(after: int) -> Want:
    """Wants the `after`-th situation it is asked about, and every one from there."""
    seen = [0]

    def want(g: Game, s: int) -> bool:
        seen[0] += 1
        return seen[0] > after

    return want


def _fuzz_rules(rng: random.Random, presets: Sequence[str], layouts: Sequence[str]) -> tuple[Rules, str]:
    """A random playable rule set under one of `presets` and `layouts`."""
    while True:
        preset = rng.choice(list(presets))
        players = rng.randint(2, PRESETS[preset]["max_players"])
        overrides: dict[str, object] = {
            "layout": rng.choice(list(layouts)),
            "holes": rng.randint(1, 2),
            "card_powers": rng.random() < 0.5,
            "knocking": rng.random() < 0.4,
            "flip_after_throw": rng.choice(["none", "may", "must"]),
            "swap_face": rng.choice(["up", "down"]),
            "reveal_choice": rng.choice(["fixed", "player"]),
            "jokers": rng.choice(["off", -2, 5]),
        }
        if rng.random() < 0.5:
            overrides["decks"] = rng.randint(1, 4)
        rules = _rules(preset, overrides, players)
        if rules is not None:
            label = f"{preset} {rules.layout}, {players} players, {rules.decks} deck{'s' if rules.decks > 1 else ''}"
            return rules, label


# -- playing a group -------------------------------------------------------------------------


class _Session:
    """The bot playing one seat of one game of a group, from the situation it joined at."""

    def __init__(self, command: BotCommand, seat: int, group: _Group, tc: TimeControl) -> None:
        self.driver = BotDriver(command.argv, seat, command.cwd, command.env)
        self.seat = seat
        self.group = group
        self.tc = tc
        self.mark: EventMark = (0, 0)
        self.next_id = 1
        self.alive = True
        self.last_line = ""
        self.hole_ended: str | None = None  # the hole_end line whose quiet taking is still unproven

    def fail(self, checks: Sequence[_Check], reply: Reply, line: str | None) -> None:
        stderr = stderr_tail(self.driver.stderr())
        for check in checks:
            if check.result is None:
                message = f"{reply.fault.value if reply.fault else 'fault'}: {reply.message}"
                if line is not None and line.startswith('{"type":"request"'):
                    message += f" [decision {protocol.parse_message(line)['decision']}]"
                if reply.line is not None:
                    message += f"; the bot sent {protocol.clip(reply.line, 120)}"
                check.result = CheckResult(check.name, Outcome.FAIL, message, line, stderr or None, _since(check))

    def start(self, names: Sequence[str], joining: Sequence[_Check]) -> bool:
        problem = self.driver.start()
        if problem is not None:
            for check in joining:
                check.result = CheckResult(check.name, Outcome.FAIL, f"start_failed: {problem}")
            self.alive = False
            return False
        rules = self.group.rules
        hello = protocol.hello(self.seat, names, protocol.hello_rules(rules), self.tc.to_json())
        reply = self.driver.send(hello) or self.driver.ready((self.tc.startup_ms + self.tc.grace_ms) / 1000)
        handshakes = [c for c in self.group.checks if c.kind is _Kind.HANDSHAKE and c.result is None]
        if reply.fault is not None:
            self.fail([*handshakes, *joining], reply, hello)
            self.alive = False
            return False
        for check in handshakes:
            check.result = CheckResult(check.name, Outcome.PASS, f"ready from {reply.value!r}")
        return True

    def ask(self, game: Game, wanting: Sequence[_Check], times: list[float]) -> str | None:
        """Send the request for the seat to move; the bot's action, or None when it faulted."""
        quiet = self.driver.unasked()
        if self.hole_ended is not None:
            notice, self.hole_ended = self.hole_ended, None
            ends = [c for c in self.group.checks if c.kind is _Kind.HOLE_END and c.result is None]
            if quiet:
                self.fail(ends, quiet[0], notice)
            for check in ends:
                if check.result is None:
                    check.result = CheckResult(check.name, Outcome.PASS)
        spans = [c for c in self.group.checks if c.kind is _Kind.SPAN and c.active and c.result is None]
        if quiet:
            self.fail([*spans, *wanting], quiet[0], self.last_line)
            if any(r.fault is FaultKind.EXITED for r in quiet):
                self.alive = False
                return None
        rid = self.next_id
        self.next_id += 1
        time_ms = self.tc.move_ms + self.tc.bank_ms
        line, self.mark = request_line(game, self.seat, rid, self.mark, time_ms)
        self.last_line = line
        legal = [a.text for a in game.legal_actions()]
        sent = time.monotonic()
        reply = self.driver.send(line) or self.driver.answer(rid, legal, (time_ms + self.tc.grace_ms) / 1000)
        if reply.fault is not None:
            self.fail([*spans, *wanting], reply, line)
            if reply.fault in _FATAL:
                self.alive = False  # it cannot be trusted to answer the next request in step
            return None
        times.append((time.monotonic() - sent) * 1000)
        for check in wanting:
            if check.kind is _Kind.REQUEST and check.result is None:
                check.result = CheckResult(check.name, Outcome.PASS, f"request {rid}", seconds=_since(check))
        return reply.value

    def hole_over(self, game: Game) -> None:
        """Pass the span checks that lasted the hole, and send the hole_end the referee would send."""
        result = game.results[-1]
        for check in self.group.checks:
            if check.kind is _Kind.SPAN and check.active and check.result is None:
                check.result = CheckResult(check.name, Outcome.PASS, seconds=_since(check))
        # Every hole's end is announced, as in a match, so that the bot's next request never
        # comes from a hole it was not told has begun.
        line = hole_end_line(game, result, self.seat, self.mark, [str(c) for c in game.cards])
        self.last_line = line
        ends = [c for c in self.group.checks if c.kind is _Kind.HOLE_END and c.result is None]
        reply = self.driver.send(line)
        if reply is None and ends and not game.over:
            reply = self.driver.watch(_NOTICE_WAIT, "after hole_end")
        if reply is not None:
            self.fail(ends, reply, line)
            self.alive = False
        elif not game.over:
            self.hole_ended = line

    def match_over(self, game: Game) -> None:
        ends = [c for c in self.group.checks if c.kind is _Kind.MATCH_END and c.result is None]
        if not ends:
            self.driver.close()
            return
        end_line = protocol.match_end(game.totals, game.placings(), [])
        reply = self.driver.send(end_line) or self.driver.send(protocol.goodbye())
        code = self.driver.finish(_EXIT_WAIT)
        quiet = self.driver.unasked()
        if reply is None and quiet:
            reply = quiet[0]
        if reply is None and code != 0:
            how = f"exited with code {code}" if code is not None and code > 0 else f"was still running {_EXIT_WAIT:g} s"
            reply = Reply(None, FaultKind.EXITED, f"after goodbye and the end of its input the bot {how}")
        if reply is not None:
            self.fail(ends, reply, end_line)
        for check in ends:
            if check.result is None:
                check.result = CheckResult(check.name, Outcome.PASS, "exited after goodbye")

    def close(self) -> None:
        self.driver.close()


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


def _play_group(group: _Group, command: BotCommand, tc: TimeControl, times: list[float]) -> None:
    games = _games(group)
    while group.open():
        try:
            seed, policy = next(games)
        except StopIteration:
            for check in group.open():
                check.result = CheckResult(check.name, Outcome.SKIP, f"no position found in {_GAMES} games")
            return
        _play_game(group, seed, policy, command, tc, times)


def _play_game(
    group: _Group, seed: int, policy: Policy, command: BotCommand, tc: TimeControl, times: list[float]
) -> None:
    """One game of a group: the bot joins at the first situation an open check wants, and plays on."""
    rules = group.rules
    game = Game(rules)
    shuffler = Shuffler(seed)
    fallback = GreedyPolicy(rules, random.Random(seed))
    names = [f"seat {i}" for i in range(rules.players)]
    session: _Session | None = None
    try:
        while not game.over:
            if game.chance is not None:
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
                    session = _Session(command, to_move, group, tc)
                    now = time.monotonic()
                    for check in group.open():
                        check.started = now
                    if not session.start(names, joining):
                        return
            if session is not None and to_move == session.seat:
                wanting = [c for c in group.open() if c.kind is _Kind.REQUEST and c.want(game, to_move)]
                for check in group.open():
                    if check.kind is _Kind.SPAN and not check.active and check.want(game, to_move):
                        check.active = True
                chosen = session.ask(game, wanting, times) if session.alive else None
                if not session.alive:
                    return
                legal = game.legal_actions()
                action = next((a for a in legal if a.text == chosen), None)
                if action is None:
                    action = fallback.choose(view(game, to_move), legal)
            else:
                action = policy.choose(view(game, to_move), game.legal_actions())
            game.apply(action)
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
) -> CheckReport:
    """Run every check for the presets and layouts the bot claims (and `fuzz` random positions).

    Raises BotWontStart when the bot's program cannot be started at all.
    """
    tc = time_control or TimeControl()
    times: list[float] = []
    results: list[CheckResult] = []
    # A command that cannot start would fail every check alike: say it once instead.
    trial = BotDriver(command.argv, 0, command.cwd, command.env)
    problem = trial.start()
    trial.close()
    if problem is not None:
        raise BotWontStart(problem)
    for group in build_groups(presets, layouts, fuzz, seed):
        _play_group(group, command, tc, times)
        for check in group.checks:
            result = check.result or CheckResult(check.name, Outcome.SKIP, "not reached")
            results.append(result)
            if on_result is not None:
                on_result(result)
    slow = [t for t in times if t > tc.move_ms]
    name = f"time control: every decision within move_ms ({tc.move_ms} ms)"
    if slow:
        timed = CheckResult(name, Outcome.FAIL, f"{len(slow)} decisions took longer, the slowest {max(slow):.0f} ms")
    else:
        timed = CheckResult(name, Outcome.PASS)
    results.append(timed)
    if on_result is not None:
        on_result(timed)
    return CheckReport(tuple(results), tuple(times), tc)
