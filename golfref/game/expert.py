"""The `expert` built-in: determinized rollouts, a search for a game of hidden information.

For each decision it samples the cards its seat has not seen (every card of the shoe the
rules make, less the cards its view shows: grids, the discard pile, the drawn card) into
the places it cannot see (others' and its own face-down slots, the stock), builds that full
state as an engine `Game`, and plays every legal action out to the hole's end with `good`'s
heuristic for every seat, each judging by what it knows in that state (`Rollout`, `good` made
fast on the engine's state), on the same samples and the same rollout dice for every action
(common random numbers: the actions are compared on equal luck). The budget is `iterations`
playouts per legal action: with more than two actions, a share (SCREEN) of the samples goes
to every action and the rest to two finalists, `good`'s choice and the best other so far.
It plays the finalist whose outcome, its hole score less the mean of the others', is lowest
on average, unless that is within the samples' noise of `good`'s choice (CONFIDENCE_Z
standard errors of the paired differences): then `good`'s choice stands. Each choice is so
one step of policy improvement over `good` (card powers aside, which the playouts never
use): the action that does best when every seat plays `good` afterwards.

The engine plays the rollouts, so every rule option, layout and player count is searched by
the rules themselves, with nothing special-cased here. The budget is a number of playouts,
so play never depends on the machine's load; the random source is seeded
from the policy's own `seed` and the view, never from the match's seed or a hidden card.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from .cards import Card, deck_set
from .engine import Action, ActionKind, Decision, Game, Pile
from .good import CLOSE_PENALTY, DRAW_MARGIN, KEPT, KNOCK_MARGIN, RIVAL_WEIGHT, UNSEEN, GoodPolicy, score_groups
from .rules import Cancel, Reveal, RevealChoice, Rules
from .scoring import rank_values
from .view import SeatView

__all__ = ["ExpertPolicy", "Rollout", "DEFAULT_ITERATIONS", "MAX_ITERATIONS", "determinize"]

DEFAULT_ITERATIONS = 100
"""Playouts per legal action at the default budget (docs/OPPONENTS.md measures it)."""
MAX_ITERATIONS = 100_000
CONFIDENCE_Z = 1.5
"""Standard errors by which another action must beat `good`'s choice on the samples to be played instead."""

SCREEN = 0.4
"""With more than two legal actions: the share of the samples every action gets before two finalists get the rest."""

_D_DRAW = Decision.DRAW
_D_REVEAL = Decision.REVEAL
_D_PLACE = Decision.PLACE
_D_FLIP = Decision.FLIP
_K_KNOCK = ActionKind.KNOCK
_K_STOCK = ActionKind.DRAW_STOCK
_K_DISCARD = ActionKind.DRAW_DISCARD
_K_SWAP = ActionKind.SWAP
_K_THROW = ActionKind.THROW
_K_FLIP = ActionKind.FLIP
_K_PASS = ActionKind.PASS


Profile = tuple[float, list[float], list[float], list[int]]
"""A grid's estimate `base` and, per slot, `pre`, `rest` and `match`: a card of rank r and value v put in
that slot leaves the grid at pre + (0 if r == match else rest + v). `pre` is the estimate without
the slot's group, `rest` the points of the rest of its group, `match` the rank that would cancel it."""


class Rollout:
    """A fast playout policy on a full `Game`: each seat judges by what it knows in that game.

    It reads the engine's state directly (card ids, face-up and known bits), so one decision
    costs a few microseconds, and uses only the moving seat's own knowledge of the sampled
    state: the cards face up and those known to it, the others at UNSEEN (they never cancel).
    Its choices are `good`'s, made on the engine's state instead of a view: take the discard
    when it helps by DRAW_MARGIN, swap a drawn card where it helps most less what the card
    swapped out would hand the next seat, throw it when that hands over less, do not close
    the hole while not ahead, knock when clearly lowest, spread the start reveals over
    columns (tests/test_expert.py holds the two to the same choices). Card powers aside: it
    never uses one (the card is thrown) and a target is the first offered.
    """

    def __init__(self, rules: Rules) -> None:
        values = rank_values(rules)
        cards = deck_set(rules.decks, rules.jokers is not None, rules.joker_count)
        self.value = [float(values[c.rank]) for c in cards]
        # Ranks as small ints (unknown cards get negative ones that match nothing): comparisons
        # of ints, not of enum members, in the hot loop.
        order = {r: i for i, r in enumerate(dict.fromkeys(c.rank for c in cards))}
        self.rank = [order[c.rank] for c in cards]
        self.groups = [tuple(g) for g in score_groups(rules)]
        self.pairs = rules.cancel is Cancel.PAIRS
        slots = rules.cards
        members = [sum(1 for g in self.groups if s in g) for s in range(slots)]
        # Groups that share no slot (columns, or pairs in columns: most rule sets) let a swap's
        # effect be computed from its own group alone.
        self.disjoint = all(m <= 1 for m in members)
        self.group_of = [next((k for k, g in enumerate(self.groups) if s in g), -1) for s in range(slots)]
        # Where every slot is in at most one group and a group cancels only when all its cards
        # match (line cancelling, or pairs in groups of two), a card's effect in a slot is a
        # function of the other cards of its group alone: `_profile` precomputes it per grid.
        self.fast = self.disjoint and (not self.pairs or all(len(g) == 2 for g in self.groups))
        groups_of = self.group_of
        pairs_only = self.disjoint and all(len(g) == 2 for g in self.groups)
        self.partner: list[int] | None = None
        if pairs_only:
            self.partner = [-1 if k < 0 else next(t for t in self.groups[k] if t != s) for s, k in enumerate(groups_of)]
        self.others = [tuple(t for t in self.groups[k] if t != s) if k >= 0 else () for s, k in enumerate(groups_of)]
        self.swap_face_up = rules.swap_face_up
        self.cols = rules.cols

    def seen(self, game: Game, grid: Sequence[int], bit: int, unseen: float = UNSEEN) -> tuple[list[int], list[float]]:
        """The ranks and points of `grid` as seat `bit` knows them: unknown cards at `unseen`, matching nothing."""
        up, known, value, rank = game.up, game.known, self.value, self.rank
        ranks = [rank[c] if up[c] or known[c] & bit else -1 - i for i, c in enumerate(grid)]
        points = [value[c] if ranks[i] >= 0 else unseen for i, c in enumerate(grid)]
        return ranks, points

    def _group(self, group: tuple[int, ...], ranks: list[int], points: list[float]) -> float:
        """The points of one group on its own."""
        if self.pairs:
            total = 0.0
            for s in group:
                r = ranks[s]
                if r < 0 or sum(1 for t in group if ranks[t] == r) < 2:
                    total += points[s]
            return total
        first = ranks[group[0]]
        if first >= 0:
            for s in group:
                if ranks[s] != first:
                    break
            else:
                return 0.0
        return sum([points[s] for s in group])

    def total(self, ranks: list[int], points: list[float]) -> float:
        """The estimate of a grid from its seen ranks and points: cancelled groups at 0."""
        if self.disjoint:
            return sum([points[s] for s in range(len(points)) if self.group_of[s] < 0]) + sum(
                [self._group(g, ranks, points) for g in self.groups]
            )
        zero = [False] * len(points)
        for g in self.groups:
            if self.pairs:
                for s in g:
                    if _paired(g, ranks, s):
                        zero[s] = True
            else:
                first = ranks[g[0]]
                if first >= 0 and all(ranks[s] == first for s in g):
                    for s in g:
                        zero[s] = True
        return sum([0.0 if zero[s] else points[s] for s in range(len(points))])

    def estimate(self, game: Game, grid: Sequence[int], bit: int, unseen: float = UNSEEN) -> float:
        """Seat `bit`'s estimate of `grid`, its unknown cards at `unseen`."""
        ranks, points = self.seen(game, grid, bit, unseen)
        return self.total(ranks, points)

    def _placed(self, ranks: list[int], points: list[float], base: float, slot: int, rank: int, value: float) -> float:
        """The estimate of a grid (seen as `ranks`, `points`, worth `base`) with card `rank`, `value` in `slot`."""
        was_rank, was_points = ranks[slot], points[slot]
        if self.disjoint:
            k = self.group_of[slot]
            if k < 0:
                return base - was_points + value
            group = self.groups[k]
            before = self._group(group, ranks, points)
            ranks[slot], points[slot] = rank, value
            after = base - before + self._group(group, ranks, points)
        else:
            ranks[slot], points[slot] = rank, value
            after = self.total(ranks, points)
        ranks[slot], points[slot] = was_rank, was_points
        return after

    def _profile(self, ranks: list[int], points: list[float]) -> Profile:
        """A grid's estimate and what a card placed in each slot leaves of it (see `Profile`)."""
        pre: list[float] = []
        rest: list[float] = []
        match: list[int] = []
        partner = self.partner
        if partner is not None:
            base = 0.0
            for s, t in enumerate(partner):
                if t < 0 or ranks[s] != ranks[t]:  # unknown cards have ranks of their own: they never match
                    base += points[s]
            for s, t in enumerate(partner):
                if t < 0:
                    pre.append(base - points[s])
                    rest.append(0.0)
                    match.append(_NO_MATCH)
                else:
                    pre.append(base if ranks[s] == ranks[t] else base - points[s] - points[t])
                    rest.append(points[t])
                    match.append(ranks[t])
            return base, pre, rest, match
        base = self.total(ranks, points)
        groups, group_of = self.groups, self.group_of
        for s, others in enumerate(self.others):
            k = group_of[s]
            if k < 0:
                pre.append(base - points[s])
                rest.append(0.0)
                match.append(_NO_MATCH)
                continue
            pre.append(base - self._group(groups[k], ranks, points))
            rest.append(sum([points[t] for t in others]))
            first = ranks[others[0]]
            match.append(first if first >= 0 and all(ranks[t] == first for t in others) else _NO_MATCH)
        return base, pre, rest, match

    def _afters(self, ranks: list[int], points: list[float], rank: int, value: float) -> tuple[float, list[float]]:
        """A grid's estimate, and its estimate with card `rank`, `value` put in each slot."""
        if self.fast:
            base, pre, rest, match = self._profile(ranks, points)
            return base, [p + (0.0 if m == rank else r + value) for p, r, m in zip(pre, rest, match, strict=True)]
        base = self.total(ranks, points)
        return base, [self._placed(ranks, points, base, s, rank, value) for s in range(len(ranks))]

    def _helper(self, game: Game, seat: int) -> Callable[[int], float]:
        """How much a card on the pile would help the next seat, as `seat` knows its grid (`good`'s help_to_next)."""
        nxt = (seat + 1) % game.players
        if nxt == game.closer or nxt == game.knocker:
            return _no_help
        ranks, points = self.seen(game, game.grids[nxt], 1 << seat)
        memo: dict[int, float] = {}
        value, rank_of = self.value, self.rank
        if self.fast:
            base, pre, rest, match = self._profile(ranks, points)
            # The most a card can gain there, its match aside: every slot's estimate without it.
            plain = [p + r for p, r in zip(pre, rest, strict=True)]

            def helps(card: int) -> float:
                rank = rank_of[card]
                if rank not in memo:
                    v = value[card]
                    after = min([p if m == rank else q + v for p, q, m in zip(pre, plain, match, strict=True)])
                    memo[rank] = max(0.0, base - after)
                return memo[rank]

            return helps

        def slow_helps(card: int) -> float:
            rank = rank_of[card]
            if rank not in memo:
                base, afters = self._afters(ranks, points, rank, value[card])
                memo[rank] = max(0.0, base - min(afters))
            return memo[rank]

        return slow_helps

    def _best_swap(self, game: Game, seat: int, card: int, helps: Callable[[int], float]) -> tuple[int, float]:
        """The own slot where `card` helps most, and by how much: its gain, less what the card swapped out
        hands the next seat (`helps`, weighed as `good` weighs it), less a penalty for closing while not ahead."""
        bit = 1 << seat
        grid = game.grids[seat]
        ranks, points = self.seen(game, grid, bit)
        base, afters = self._afters(ranks, points, self.rank[card], self.value[card])
        up = game.up
        down = [i for i, c in enumerate(grid) if not up[c]]
        may_close = self.swap_face_up and len(down) <= 1 and game.closer is None and game.knocker is None
        rivals: float | None = None
        best, best_gain = 0, -1e9
        for slot, after in enumerate(afters):
            gain = base - after
            if ranks[slot] >= 0:  # a card it has not seen is no help it knows of
                gain -= RIVAL_WEIGHT * helps(grid[slot])
            if may_close and (not down or down == [slot]):
                if rivals is None:
                    rivals = min(self.estimate(game, g, bit) for s, g in enumerate(game.grids) if s != seat)
                if after >= rivals:
                    gain -= CLOSE_PENALTY
            if gain > best_gain:
                best, best_gain = slot, gain
        return best, best_gain

    def choose(self, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        """The playout's action for `seat` to move in `game`."""
        decision = game.decision
        if decision is _D_DRAW:
            kinds = {a.kind: a for a in legal}
            knock = kinds.get(_K_KNOCK)
            if knock is not None:
                bit = 1 << seat
                ranks, points = self.seen(game, game.grids[seat], bit)
                if min(ranks) >= 0:
                    # A rival's unknown card at knock time is mostly one it chose to keep (KEPT), as `good` has it.
                    rivals = min(self.estimate(game, g, bit, KEPT) for s, g in enumerate(game.grids) if s != seat)
                    if self.total(ranks, points) < rivals - KNOCK_MARGIN:
                        return knock
            if game.discard:
                _, gain = self._best_swap(game, seat, game.discard[-1], self._helper(game, seat))
                if gain > DRAW_MARGIN:
                    return kinds[_K_DISCARD]
            return kinds[_K_STOCK]
        if decision is _D_PLACE:
            helps = self._helper(game, seat)
            slot, gain = self._best_swap(game, seat, game.drawn, helps)
            # Throwing the card away hands it to the next seat; on a tie `good` swaps (its first best action).
            if not game.drawn_from_stock or gain >= -RIVAL_WEIGHT * helps(game.drawn):
                return legal[slot]  # the swaps come first, in slot order
            return next(a for a in legal if a.kind is _K_THROW)
        if decision is _D_REVEAL:
            # Spread the start reveals over columns, as `good` does: each known column is a place to pair.
            bit, cols = 1 << seat, self.cols
            grid, up, known = game.grids[seat], game.up, game.known
            columns = {s % cols for s, c in enumerate(grid) if up[c] or known[c] & bit}
            return next((a for a in legal if a.slot is not None and a.slot % cols not in columns), legal[0])
        if decision is _D_FLIP:
            bit = 1 << seat
            grid, known = game.grids[seat], game.known
            flips = [a for a in legal if a.kind is _K_FLIP]
            unseen = [a for a in flips if a.slot is not None and not known[grid[a.slot]] & bit]
            if legal[-1].kind is _K_PASS:
                closing = len(flips) == 1 and game.closer is None and game.knocker is None
                if (closing and not self._ahead(game, seat)) or (not closing and not unseen):
                    return legal[-1]
            return (unseen or flips or list(legal))[0]
        return legal[0]

    def _ahead(self, game: Game, seat: int) -> bool:
        """Whether `seat`'s grid looks lower to it than every other."""
        bit = 1 << seat
        mine = self.estimate(game, game.grids[seat], bit)
        return mine < min(self.estimate(game, g, bit) for s, g in enumerate(game.grids) if s != seat)


def _no_help(card: int) -> float:
    """No card helps a seat that plays no more turns this hole."""
    return 0.0


_NO_MATCH = -(1 << 30)
"""A rank no card has: the match of a slot whose group cannot cancel, whatever card goes there."""


def _paired(group: tuple[int, ...], ranks: list[int], slot: int) -> bool:
    """Whether the card in `slot` has a known match of its rank elsewhere in `group` (pairs cancel)."""
    r = ranks[slot]
    return r >= 0 and sum(1 for t in group if ranks[t] == r) > 1


class ExpertPolicy:
    """Determinized rollouts: every legal action played out on sampled states; the best average outcome wins.

    `z` and `screen` set the guard (CONFIDENCE_Z) and the first look's share (SCREEN) for
    experiments that measure them; a config sets only `iterations` and `seed`.
    """

    def __init__(
        self,
        rules: Rules,
        iterations: int = DEFAULT_ITERATIONS,
        seed: int = 0,
        *,
        z: float = CONFIDENCE_Z,
        screen: float = SCREEN,
    ) -> None:
        if not 1 <= iterations <= MAX_ITERATIONS:
            raise ValueError(f"expert: iterations must be 1 to {MAX_ITERATIONS}, got {iterations}")
        self.rules = rules
        self.iterations = iterations
        self.seed = seed
        self.z = z
        self.screen = screen
        self.rollout = Rollout(rules)
        self.fallback = GoodPolicy(rules)
        self.ids = {c: i for i, c in enumerate(deck_set(rules.decks, rules.jokers is not None, rules.joker_count))}

    def choose(self, seat_view: SeatView, legal: Sequence[Action]) -> Action:
        """The action with the lowest mean outcome over sampled states (`iterations` playouts per action on average)."""
        if len(legal) == 1:
            return legal[0]
        # Seeded by the policy's seed and everything the seat sees now (the view's repr is
        # stable: cards, enums and numbers), never by the match's seed.
        rng = random.Random(f"expert|{self.seed}|{seat_view!r}")
        base = legal.index(self.fallback.choose(seat_view, legal))
        n = len(legal)
        outcomes: list[list[float]] = [[] for _ in legal]
        screen = max(2, round(self.iterations * self.screen)) if n > 2 else self.iterations
        if not self._play(seat_view, legal, range(n), min(screen, self.iterations), rng, outcomes):
            return legal[base]
        finalists: Sequence[int] = range(n)
        if screen < self.iterations:
            # The rest of the budget goes to the two actions that matter: `good`'s choice and
            # the best of the others so far, so the one comparison that decides is made on
            # more samples than an even spread over every action would give it.
            means = [sum(o) / len(o) for o in outcomes]
            rival = min((j for j in range(n) if j != base), key=means.__getitem__)
            finalists = (base, rival)
            self._play(seat_view, legal, finalists, (self.iterations - screen) * n // 2, rng, outcomes)
        best = min(finalists, key=lambda j: sum(outcomes[j]) / len(outcomes[j]))
        # `good`'s choice stands unless the samples show another action better by more than
        # their noise: the paired differences (the same samples for both) have to be below 0
        # by CONFIDENCE_Z standard errors. Sampling noise alone then seldom overturns a sound heuristic.
        if best == base or len(outcomes[best]) < 2:
            return legal[best]
        diffs = [x - y for x, y in zip(outcomes[best], outcomes[base], strict=True)]
        mean = sum(diffs) / len(diffs)
        spread = (sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1) / len(diffs)) ** 0.5
        return legal[best] if mean + self.z * spread < 0 else legal[base]

    def _play(
        self,
        seat_view: SeatView,
        legal: Sequence[Action],
        which: Sequence[int],
        samples: int,
        rng: random.Random,
        outcomes: list[list[float]],
    ) -> bool:
        """Play the actions `which` of `legal` out on `samples` more sampled states, each the same
        for all of them; False if the view does not add up to the shoe."""
        me = seat_view.seat
        others = len(seat_view.grids) - 1
        rollout = self.rollout
        for _ in range(samples):
            sample = _sample(seat_view, self.ids, rng)
            if sample is None:
                return False
            dice = rng.getrandbits(64)
            for j in which:
                game = determinize(self.rules, seat_view, self.ids, sample)
                scores = _play_out(game, legal[j], rollout, random.Random(dice))
                outcomes[j].append(scores[me] - (sum(scores) - scores[me]) / others)
        return True


Sample = tuple[list[list[int]], list[int], int]
"""A sampled full table: each grid as card ids, the stock (top last), the drawn card's id or -1."""


def _unseen(v: SeatView, ids: dict[Card, int]) -> list[int]:
    """The ids of the cards `v`'s seat has not seen, in id order."""
    seen: set[int] = set()
    for g in v.grids:
        seen.update(ids[c] for c in g if c is not None)
    seen.update(ids[c] for c in v.discard)
    if v.drawn is not None:
        seen.add(ids[v.drawn])
    return [i for i in range(len(ids)) if i not in seen]


def _sample(v: SeatView, ids: dict[Card, int], rng: random.Random) -> Sample | None:
    """Put the cards `v`'s seat has not seen, shuffled, where it cannot see; None if the view does not add up."""
    unseen = _unseen(v, ids)
    hidden_drawn = v.drawn is None and v.drawn_from is Pile.STOCK
    holes = sum(1 for g in v.grids for c in g if c is None)
    if len(unseen) != holes + v.stock_size + hidden_drawn:
        return None
    rng.shuffle(unseen)
    it = iter(unseen)
    grids = [[ids[c] if c is not None else next(it) for c in g] for g in v.grids]
    drawn = ids[v.drawn] if v.drawn is not None else (next(it) if hidden_drawn else -1)
    return grids, list(it), drawn


def determinize(rules: Rules, v: SeatView, ids: dict[Card, int], sample: Sample) -> Game:
    """The full game state of `sample`, agreeing with view `v` on everything `v` shows."""
    grids, stock, drawn = sample
    g = Game(rules)
    players = g.players
    me = 1 << v.seat
    g.chance = None
    g.hole, g.starter = v.hole, v.starter
    g.grids = [row.copy() for row in grids]
    g.stock = stock.copy()
    g.discard = [ids[c] for c in v.discard]
    up, known = g.up, g.known
    for c in g.discard:
        up[c] = True
        known[c] = g.all_seats
    peeked_fixed = rules.reveal is Reveal.PEEK and rules.reveal_choice is RevealChoice.FIXED
    for s, (row, shown, flags) in enumerate(zip(g.grids, v.grids, v.face_up, strict=True)):
        for i, (c, card, face_up) in enumerate(zip(row, shown, flags, strict=True)):
            if face_up:
                up[c] = True
                known[c] = g.all_seats
            else:
                if card is not None:
                    known[c] |= me
                if peeked_fixed and i < rules.reveal_count and s != v.seat:
                    # Its owner peeked at it (D1), and a face-up swap would have turned it up.
                    known[c] |= 1 << s
    g.to_move, g.decision = v.to_move, v.decision
    g.drawn = drawn
    g.drawn_from_stock = v.drawn_from is Pile.STOCK
    if drawn >= 0:
        if g.drawn_from_stock and v.to_move is not None:
            known[drawn] |= 1 << v.to_move
        elif not g.drawn_from_stock:
            up[drawn] = True
            known[drawn] = g.all_seats
    g.power_rank, g.first_target = v.power, v.first_target
    g.closer, g.knocker = v.closer, v.knocker
    ender = v.knocker if v.knocker is not None else v.closer
    if ender is not None and v.to_move is not None:
        g.final_left = (ender - v.to_move) % players
    g.turns = list(v.turns)
    g.totals = list(v.totals)
    g.hole_scores = v.hole_scores
    if v.decision is Decision.REVEAL and v.to_move is not None:
        count = rules.reveal_count
        done = sum(1 for c in v.grids[v.to_move] if c is not None) if v.to_move == v.seat else 0
        order = [(v.starter + k) % players for k in range(players)]
        at = order.index(v.to_move)
        g.reveal_left = [0] * players
        for k, s in enumerate(order):
            g.reveal_left[s] = 0 if k < at else count - done if k == at else count
    if v.to_move is not None:
        g._next_seat = (v.to_move + 1) % players
    g._legal = None
    return g


def _play_out(game: Game, action: Action, rollout: Rollout, dice: random.Random) -> tuple[int, ...]:
    """Each seat's score of the hole `game` is in, after `action` and the rollout policy to its end."""
    game.apply(action)
    results = game.results
    while not results:
        chance = game.chance
        if chance is not None:
            order = list(chance)
            dice.shuffle(order)
            game.apply_shuffle(order)
            continue
        seat = game.to_move
        assert seat is not None  # no chance step and no result: a seat is to move
        game.apply(rollout.choose(game, seat, game.legal_actions()))
    return results[0].scores
