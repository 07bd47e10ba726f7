"""Conformance: random legal games under random valid rule sets, invariants at every step.

Hypothesis draws a rule set (every preset, layouts 1x1 to 4x4 where the deal fits, 2 to 8
players within the preset's limit, and random toggles of every option) and a seed; a
`random.Random(seed)` then plays uniformly random legal actions and shuffles. At every step:

- every physical card is in exactly one place (grids, discard, stock, the drawn card, or
  the cards waiting for a shuffle);
- a state that is neither final nor a chance step has at least one legal action;
- actions outside the legal list raise IllegalAction and change nothing;
- each seat's view shows exactly the cards it may know (D13), checked against the engine's
  `up`/`known` *and* against an independent model of knowledge kept here from the actions;
  no view carries the stock order; `events_for` never names a card the seat has not seen.

At the end: the match finished, every hole result is consistent (scores, totals, penalties,
starters, turn counts, D3/D4 final turns), and `Game.replay` re-derives the same game.

Examples are kept small (few holes, small turn limits for the games that can only end by
one) so the file runs in well under 30 s with the `ci` profile from conftest.py.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from golfref.game.cards import Rank
from golfref.game.engine import (
    Action,
    ActionKind,
    Game,
    HoleEnd,
    IllegalAction,
    Move,
    Shuffle,
)
from golfref.game.rules import (
    PRESETS,
    FlipAfterThrow,
    KnockPenalty,
    Reveal,
    RevealChoice,
    Rules,
    resolve_rules,
)
from golfref.game.scoring import forfeit_score, score_grid
from golfref.game.view import events_for, view

MAX_STEPS = 200_000
POWER = Action.parse("power")
POWER_RANKS = (Rank.JACK, Rank.QUEEN, Rank.KING)


@st.composite
def rule_sets(draw: st.DrawFn, tight: bool = False, powers: bool = False) -> Rules:
    """A valid, fully resolved rule set with random options.

    `tight`: one deck and as many players as fit, so the stock is small and runs out often (D7).
    `powers`: card powers on (D11).
    """
    preset = draw(st.sampled_from(sorted(PRESETS)))
    base = PRESETS[preset]
    least = 2 if tight else 1
    rows, cols = draw(st.integers(least, 4)), draw(st.integers(least, 4))
    cards = rows * cols
    if tight:
        players = min(base["max_players"], 50 // cards)
    else:
        players = draw(st.integers(2, base["max_players"]))
    options: dict[str, Any] = {"layout": f"{rows}x{cols}", "holes": draw(st.integers(1, 3))}

    def maybe(name: str, values: st.SearchStrategy[Any]) -> None:
        if draw(st.booleans()):
            options[name] = draw(values)

    maybe("jokers", st.sampled_from(["off", "on", -5, 0, 3]))
    maybe("twos", st.sampled_from([-2, 2]))
    maybe("court_values", st.sampled_from(["10/10", "11/12"]))
    maybe("reveal_count", st.integers(0, cards))
    maybe("reveal", st.sampled_from(["peek", "flip"]))
    maybe("reveal_choice", st.sampled_from(["fixed", "player"]))
    maybe("flip_after_throw", st.sampled_from(["none", "may", "must"]))
    maybe("swap_face", st.sampled_from(["up", "down"]))
    maybe("knocking", st.booleans())
    maybe("knock_penalty", st.sampled_from([0, 10, 25, "double"]))
    maybe("cancel", st.sampled_from(["line", "pairs"]))
    if options.get("cancel", base["cancel"]) == "line":
        lines = ["columns", "columns+rows"] + (["columns+rows+diagonals"] if rows == cols else [])
        maybe("lines", st.sampled_from(lines))
    else:
        maybe("pair_scope", st.sampled_from(["columns", "columns+rows", "grid"]))
    maybe("block_bonus", st.sampled_from(["off", "on", -8]))
    if powers:
        options["card_powers"] = True
    else:
        maybe("card_powers", st.booleans())
    maybe("turn_limit", st.integers(1, 6))
    if tight:
        options["decks"] = 1
    elif draw(st.booleans()):
        fewest = -(-(players * cards + 2) // 52)
        options["decks"] = draw(st.integers(fewest, 4))
    rules = resolve_rules(preset, options, players)
    if rules.turn_limit > 12 and not rules.swap_face_up and not rules.knocking:
        # Face-down swaps never fill a grid (D6): without knocking only D8 ends such a hole.
        rules = resolve_rules(preset, {**options, "turn_limit": draw(st.integers(1, 12))}, players)
    return rules


def action_universe(rules: Rules) -> list[Action]:
    """Every well-formed action, and some out of range, for trying illegal ones."""
    n, p = rules.cards, rules.players
    texts = ["stock", "discard", "knock", "throw", "power", "pass"]
    texts += [f"{k}:{i}" for k in ("reveal", "swap", "flip") for i in range(n + 1)]
    texts += [f"target:{s}:{i}" for s in range(p + 1) for i in range(n + 1)]
    return [Action.parse(t) for t in texts]


def snapshot(g: Game) -> tuple[Any, ...]:
    return (
        tuple(map(tuple, g.grids)), tuple(g.discard), tuple(g.stock), tuple(g.up),
        tuple(g.known), g.to_move, g.decision, g.drawn, g.drawn_from_stock, g.power_rank,
        g.first_target, tuple(g.reveal_left), tuple(g.turns), g.closer, g.knocker,
        g.final_left, len(g.history), len(g.events), g.chance, tuple(g.totals),
        len(g.results), g.hole, g.over,
    )  # fmt: skip


class Model:
    """Who may know each card, kept from the actions alone (D1, D6, D11, D13)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.all = (1 << game.players) - 1
        n = len(game.cards)
        self.up = [False] * n
        self.known = [0] * n
        self.held: int | None = None
        self.held_from_stock = False
        self.power: Rank | None = None
        self.first: tuple[int, int] | None = None

    def deal(self) -> None:
        g, rules = self.game, self.game.rules
        n = len(g.cards)
        self.up, self.known = [False] * n, [0] * n
        self.held, self.power, self.first = None, None, None
        self.up[g.discard[-1]] = True
        if rules.reveal_choice is RevealChoice.FIXED:
            for s in range(g.players):
                for slot in range(rules.reveal_count):
                    self._reveal(s, g.grids[s][slot])

    def _reveal(self, seat: int, card: int) -> None:
        if self.game.rules.reveal is Reveal.FLIP:
            self.up[card] = True
        else:
            self.known[card] |= 1 << seat

    def reshuffle(self, cards: tuple[int, ...]) -> None:
        for c in cards:
            self.up[c], self.known[c] = False, 0

    def before(self, seat: int, action: Action) -> None:
        """Update from an action about to be applied (reads the state before it)."""
        g = self.game
        kind = action.kind
        if kind is ActionKind.REVEAL:
            self._reveal(seat, g.grids[seat][action.slot])  # type: ignore[index]
        elif kind is ActionKind.DRAW_STOCK:
            self.held, self.held_from_stock = g.stock[-1], True
            self.known[self.held] |= 1 << seat
        elif kind is ActionKind.DRAW_DISCARD:
            self.held, self.held_from_stock = g.discard[-1], False
        elif kind is ActionKind.SWAP:
            assert self.held is not None
            out = g.grids[seat][action.slot]  # type: ignore[index]
            if g.rules.swap_face_up:
                self.up[self.held] = True
            else:
                self.up[self.held] = False
                self.known[self.held] = (1 << seat) if self.held_from_stock else self.all
            self.up[out] = True
            self.held = None
        elif kind in (ActionKind.THROW, ActionKind.POWER):
            assert self.held is not None
            self.up[self.held] = True
            if kind is ActionKind.POWER:
                self.power = g.ranks[self.held]
            self.held = None
        elif kind is ActionKind.FLIP:
            self.up[g.grids[seat][action.slot]] = True  # type: ignore[index]
        elif kind is ActionKind.TARGET:
            card = g.grids[action.seat][action.slot]  # type: ignore[index]
            if self.power is Rank.KING and self.first is None:
                self.first = (action.seat, action.slot)  # type: ignore[assignment]
                return
            if self.power is not Rank.KING:
                self.known[card] |= 1 << seat
            self.power, self.first = None, None

    def end_of_match(self) -> None:
        for grid in self.game.grids:
            for c in grid:
                self.up[c] = True


class Runner:
    """Plays one random game and checks every invariant on the way."""

    def __init__(self, rules: Rules, seed: int, prefer_powers: bool = False) -> None:
        self.rules = rules
        self.prefer_powers = prefer_powers
        self.rng = random.Random(seed)
        self.game = Game(rules)
        self.model = Model(self.game)
        self.universe = action_universe(rules)
        self.names = [str(c) for c in self.game.cards]
        players = rules.players
        self.seen: list[set[str]] = [set() for _ in range(players)]
        self.event_count = [0] * players
        self.final_from: tuple[int, tuple[int, ...]] | None = None  # (ender, turns then)

    def run(self) -> Game:
        g, rng, model = self.game, self.rng, self.model
        for _ in range(MAX_STEPS):
            self.check_state()
            if g.over:
                break
            if g.is_chance:
                assert g.legal_actions() == ()
                chance = g.chance
                assert chance is not None
                order = list(chance)
                rng.shuffle(order)
                dealing = len(order) == len(g.cards)
                g.apply_shuffle(order)
                if dealing:
                    model.deal()
                    self.seen = [set() for _ in self.seen]
                    self.event_count = [0] * g.players
                    self.final_from = None
                else:
                    model.reshuffle(chance)
                continue
            self.try_illegal()
            legal = g.legal_actions()
            action = rng.choice(legal)
            if self.prefer_powers and POWER in legal and rng.random() < 0.8:
                action = POWER
            seat = g.to_move
            assert seat is not None
            holes_done = len(g.results)
            knocker = seat if action.kind is ActionKind.KNOCK else g.knocker
            model.before(seat, action)
            g.apply(action)
            assert g.history[-1] == Move(seat, action)
            if len(g.results) > holes_done:
                self.check_hole(g.results[-1], knocker)
                self.event_count = [0] * g.players  # a new hole starts a new event list
                if g.over:
                    model.end_of_match()
            elif self.final_from is None and (g.closer is not None or g.knocker is not None):
                ender = g.closer if g.closer is not None else g.knocker
                assert ender == seat, "only the seat that just moved can close or knock"
                self.final_from = (ender, tuple(g.turns))
        else:
            raise AssertionError(f"the game did not finish within {MAX_STEPS} steps")
        assert g.over and len(g.results) == self.rules.holes
        assert g.chance is None and g.to_move is None and g.legal_actions() == ()
        self.check_replay()
        return g

    # -- per-step checks -------------------------------------------------------------------

    def check_state(self) -> None:
        g, model = self.game, self.model
        places = [c for grid in g.grids for c in grid] + g.discard + g.stock
        if g.drawn >= 0:
            places.append(g.drawn)
        if g.chance is not None:
            places += g.chance
        assert sorted(places) == list(range(len(g.cards))), "a card is lost or in two places"
        for c in g.stock:
            assert not g.up[c] and g.known[c] == 0, "a stock card is known"
            assert not model.up[c] and model.known[c] == 0
        assert all(g.up[c] for c in g.discard)
        assert g.drawn == (-1 if model.held is None else model.held)
        if not g.over and g.chance is None:
            legal = g.legal_actions()
            assert legal, "a live decision with no legal action"
            assert g.to_move is not None and g.decision is not None
            self.check_legal_shape(legal)
        for seat in range(g.players):
            self.check_view(seat)

    def check_legal_shape(self, legal: tuple[Action, ...]) -> None:
        g, rules, model = self.game, self.rules, self.model
        kinds = {a.kind for a in legal}
        assert len(set(legal)) == len(legal)
        if ActionKind.KNOCK in kinds:
            assert rules.knocking and g.closer is None and g.knocker is None
        if kinds & {ActionKind.THROW, ActionKind.POWER}:
            assert model.held is not None and model.held_from_stock
        if ActionKind.POWER in kinds:
            assert rules.card_powers and g.ranks[model.held] in POWER_RANKS  # type: ignore[index]
        if kinds & {ActionKind.FLIP, ActionKind.PASS}:
            assert rules.flip_after_throw is not FlipAfterThrow.NONE
            assert (ActionKind.PASS in kinds) == (rules.flip_after_throw is FlipAfterThrow.MAY)
        if model.held is not None and not model.held_from_stock:
            assert kinds == {ActionKind.SWAP}, "a card from the pile must be swapped in"

    def check_view(self, seat: int) -> None:
        g, model, names = self.game, self.model, self.names
        v = view(g, seat)
        bit = 1 << seat
        seen = self.seen[seat]
        assert v.seat == seat and v.stock_size == len(g.stock)
        assert v.to_move == g.to_move and tuple(v.totals) == tuple(g.totals)
        assert (v.hole, v.starter, v.closer, v.knocker) == (g.hole, g.starter, g.closer, g.knocker)
        assert tuple(v.turns) == tuple(g.turns) and v.first_target == g.first_target
        assert v.decision is g.decision
        assert v.power is model.power
        assert tuple(v.hole_scores) == tuple(r.scores for r in g.results)
        for s, grid in enumerate(g.grids):
            shown = v.grids[s]
            assert len(shown) == len(grid)
            for i, c in enumerate(grid):
                may = model.up[c] or bool(model.known[c] & bit)
                assert may == (g.up[c] or bool(g.known[c] & bit)), (s, i, names[c])
                if may:
                    assert shown[i] is not None and str(shown[i]) == names[c]
                    seen.add(names[c])
                else:
                    assert shown[i] is None, f"seat {seat} sees unseen {names[c]} of seat {s}"
                assert v.face_up[s][i] == model.up[c]
        assert [str(c) for c in v.discard] == [names[c] for c in g.discard]
        seen.update(names[c] for c in g.discard)
        held = model.held
        if held is None:
            assert v.drawn is None
        elif model.held_from_stock and seat != g.to_move:
            assert v.drawn is None, "a stock-drawn card shown to another seat"
        else:
            assert v.drawn is not None and str(v.drawn) == names[held]
            seen.add(names[held])
        if seat == g.to_move:
            text = json.dumps(v.to_json())  # plain JSON data...
            # ...that names no stock card (the view has only the stock's size).
            assert not any(f'"{names[c]}"' in text for c in g.stock), "a stock card in a view"
        # Only the new events are checked each step (old ones render the same way).
        new = events_for(g, seat, self.event_count[seat])
        self.event_count[seat] += len(new)
        assert self.event_count[seat] == len(g.events)
        for event in new:
            for key in ("card", "discarded"):
                card = event.get(key)
                if isinstance(card, str):
                    assert card in seen, f"seat {seat} is told of unseen {card} in {event}"

    def try_illegal(self) -> None:
        g, rng = self.game, self.rng
        legal = set(g.legal_actions())
        candidates = [a for a in self.universe if a not in legal]
        before = snapshot(g)
        for action in rng.sample(candidates, 2):
            try:
                g.apply(action)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"{action} is not legal but was applied")
            assert snapshot(g) == before, f"the illegal {action} changed the game"

    # -- per-hole and end checks -----------------------------------------------------------

    def check_hole(self, r: Any, knocker: int | None) -> None:
        g, rules = self.game, self.rules
        p = rules.players
        assert r.hole == len(g.results) - 1 and r.starter == r.hole % p  # D2
        # G17: only the turns owed after a close or knock may pass the limit, by one.
        limit = rules.turn_limit + (1 if r.end in (HoleEnd.CLOSED, HoleEnd.KNOCKED) else 0)
        assert max(r.turns) <= limit
        assert r.end is not HoleEnd.STOCK_EXHAUSTED, "unreachable: D12 keeps 2+ cards off the grids"
        for s in range(p):
            assert r.grid_scores[s] == score_grid([g.ranks[c] for c in r.grids[s]], rules)
            assert r.scores[s] == r.grid_scores[s].total + r.penalties[s]
            assert r.scores[s] <= forfeit_score(rules), "a fallback hole's charge bounds every hole score"
        previous = g.results[-2].totals if len(g.results) > 1 else (0,) * p
        assert r.totals == tuple(a + b for a, b in zip(previous, r.scores, strict=True))
        if r.end is HoleEnd.TURN_LIMIT:
            assert min(r.turns) >= rules.turn_limit and r.ender is None
        if r.end in (HoleEnd.CLOSED, HoleEnd.KNOCKED):
            assert self.final_from is not None and self.final_from[0] == r.ender
            ender, then = self.final_from
            # D3/D4: each other seat exactly one more turn, the closer or knocker none.
            assert [r.turns[s] - then[s] for s in range(p)] == [int(s != ender) for s in range(p)]
        if r.end is HoleEnd.KNOCKED:
            assert rules.knocking and r.ender == knocker
        if knocker is not None:
            # D4: the penalty stands however the hole ended (a D8 end may cut the last turns).
            k = knocker
            raw = [gs.total for gs in r.grid_scores]
            lowest = all(raw[k] < raw[s] for s in range(p) if s != k)
            if lowest:
                expected = 0
            elif rules.knock_penalty is KnockPenalty.DOUBLE:
                expected = max(raw[k], 0)
            else:
                expected = int(rules.knock_penalty)
            assert r.penalties[k] == expected
        others = [r.penalties[s] for s in range(p) if s != knocker]
        assert not any(others), "only a knocker pays a penalty"

    def check_replay(self) -> None:
        g = self.game
        again = Game.replay(self.rules, g.history)
        assert again.over
        assert again.results == g.results and again.totals == g.totals
        assert again.grids == g.grids and again.discard == g.discard and again.stock == g.stock
        assert again.up == g.up and again.placings() == g.placings()
        assert sum(isinstance(e, Shuffle) for e in g.history) >= self.rules.holes


@given(rules=rule_sets(), seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_invariant(rules: Rules, seed: int) -> None:
    Runner(rules, seed).run()


@given(rules=rule_sets(tight=True), seed=st.integers(0, 2**32 - 1))
def test_random_games_with_a_small_stock_keep_every_invariant(rules: Rules, seed: int) -> None:
    """Small stocks: the pile is reshuffled into a new stock again and again (D7)."""
    game = Runner(rules, seed).run()
    assert len(game.stock) + len(game.discard) == len(game.cards) - rules.players * rules.cards


@given(rules=rule_sets(powers=True), seed=st.integers(0, 2**32 - 1))
def test_random_games_using_card_powers_keep_every_invariant(rules: Rules, seed: int) -> None:
    """Card powers on, and used whenever offered 4 times in 5 (J, Q peeks; K swaps)."""
    Runner(rules, seed, prefer_powers=True).run()


@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(sorted(PRESETS)))
def test_random_games_under_preset_defaults(seed: int, preset: str) -> None:
    """The presets as a config names them, with short matches."""
    rng = random.Random(seed)
    players = rng.randint(2, PRESETS[preset]["max_players"])
    rules = resolve_rules(preset, {"holes": 2, "turn_limit": 8}, players)
    Runner(rules, seed).run()


@given(rules=rule_sets(powers=True), seed=st.integers(0, 2**32 - 1))
def test_views_built_now_and_then_equal_views_built_afresh(rules: Rules, seed: int) -> None:
    """The view memo (a grid is rebuilt only when its change stamp moved) never serves a stale grid.

    Views are built for a random few seats at random steps, so a memo is often many changes
    old; a clone starts with an empty memo, so its view is built from nothing.
    """
    rng = random.Random(seed)
    g = Game(rules)
    while not g.over:
        for seat in range(g.players):
            if rng.random() < 0.3:
                assert view(g, seat) == view(g.clone(), seat), f"seat {seat}, step {len(g.history)}"
                if g.last_table is not None:
                    assert view(g.last_table, seat) == view(g.last_table.clone(), seat)
        if g.chance is not None:
            order = list(g.chance)
            rng.shuffle(order)
            g.apply_shuffle(order)
        else:
            legal = g.legal_actions()
            g.apply(POWER if POWER in legal and rng.random() < 0.5 else rng.choice(legal))
    for seat in range(g.players):
        assert view(g, seat) == view(g.clone(), seat)
