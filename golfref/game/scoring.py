"""Scoring one fully revealed grid under a rule set (D9, D10)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card, Rank, Suit
from .rules import Cancel, KnockPenalty, Lines, NegativePairs, PairScope, Rules

__all__ = [
    "Line",
    "GridScore",
    "adjust_hole",
    "block_slots",
    "card_points",
    "card_value",
    "exact_scored",
    "forfeit_score",
    "hole_scores",
    "score_grid",
    "rank_values",
]


@dataclass(frozen=True, slots=True)
class Line:
    """A cancelled group of slots: a column, row, diagonal, or a pair group."""

    kind: str
    """`column`, `row`, `diagonal`, or `grid` (pairs anywhere)."""
    index: int
    """Column or row number from 0; diagonal 0 runs from top left, 1 from top right."""
    slots: tuple[int, ...]
    """The slots (row-major, from 0) whose cards this group cancelled."""

    def __str__(self) -> str:
        if self.kind == "grid":
            return "pairs in grid"
        if self.kind == "diagonal":
            return "diagonal " + ("\\" if self.index == 0 else "/")
        return f"{self.kind} {self.index}"  # counted from 0, as slots, seats and holes are


@dataclass(frozen=True, slots=True)
class GridScore:
    """The score of one grid, with how every card contributed."""

    total: int
    points: tuple[int, ...]
    """Points of each slot, row-major; cancelled cards score 0, block cards their share."""
    cancelled: tuple[Line, ...]
    """The lines (or pair groups) that cancelled, in scan order."""
    blocks: tuple[int, ...]
    """Top-left slot of each 2x2 block found (D10)."""
    bonus: int = 0
    """What `two_column_bonus` and `jack_columns_bonus` add to the cards' points (in `total`)."""


def rank_values(rules: Rules) -> dict[Rank, int]:
    """Points of each rank under `rules` (jokers only when they are on)."""
    return dict(_plan(rules).values)


def card_value(rank: Rank, rules: Rules) -> int:
    """Points of one card of `rank` under `rules`."""
    try:
        return rank_values(rules)[rank]
    except KeyError:
        raise ValueError("a joker is not in play: the jokers option is off") from None


def card_points(card: Card, rules: Rules) -> int:
    """Points of one card under `rules`: its suit's own value (`suit_values`) where it has one, else its rank's."""
    plan = _plan(rules)
    if card.suit is not None and plan.suit_values:
        points = plan.suit_values.get((id(card.rank), card.suit))
        if points is not None:
            return points
    try:
        return plan.values[card.rank]
    except KeyError:
        raise ValueError("a joker is not in play: the jokers option is off") from None


def forfeit_score(rules: Rules) -> int:
    """An upper bound of any hole's score under `rules`: what a fallback hole counts in a tournament's statistics.

    Every slot at the highest points a card or a block share can give, plus the knock
    penalty where knocking is on (with `double`, the grid's bound twice): so that no score a
    bot's own play could reach is worse than what its fault is charged.
    """
    slot = max([*_plan(rules).values.values(), *(v for _, _, v in rules.suit_values)])
    if rules.block_bonus is not None:
        slot = max(slot, -(-rules.block_bonus // 4))  # a block slot scores at most its share rounded up (D10)
    if rules.joker_pair is not None:
        slot = max(slot, rules.joker_pair)
    grid = rules.cards * slot
    # A bonus can be set positive: then it is a penalty, counted at most once per rank.
    for bonus, times in ((rules.two_column_bonus, rules.cols // 2), (rules.jack_columns_bonus, 1)):
        if bonus is not None and bonus > 0:
            grid += bonus * times
    if rules.exact_score is not None:
        grid = max(grid, rules.exact_score[1])
    adjust = sum(max(0, v or 0) for v in (rules.closer_penalty, rules.closer_bonus, rules.low_score_bonus))
    adjust += max(0, rules.tie_penalty or 0)
    if not rules.knocking:
        return grid + adjust
    penalty = rules.knock_penalty
    if penalty is KnockPenalty.DOUBLE:
        return 2 * grid + adjust
    return grid + penalty + adjust


def _line_groups(rules: Rules, include_rows: bool, include_diagonals: bool) -> list[Line]:
    rows, cols = rules.rows, rules.cols
    groups = [Line("column", c, tuple(r * cols + c for r in range(rows))) for c in range(cols)]
    if include_rows:
        groups += [Line("row", r, tuple(r * cols + c for c in range(cols))) for r in range(rows)]
    if include_diagonals and rows == cols:
        groups.append(Line("diagonal", 0, tuple(i * cols + i for i in range(rows))))
        groups.append(Line("diagonal", 1, tuple(i * cols + (cols - 1 - i) for i in range(rows))))
    # A line of one card is no line: it would cancel every card of a one-row grid.
    return [g for g in groups if len(g.slots) >= 2]


def block_slots(top_left: int, cols: int) -> tuple[int, int, int, int]:
    """The four slots of the 2x2 block whose top-left slot is `top_left`, in a grid `cols` wide."""
    return (top_left, top_left + 1, top_left + cols, top_left + cols + 1)


def _same(ranks: Sequence[Rank], slots: Sequence[int]) -> bool:
    # Ranks are enum singletons: identity says it, without Enum's Python-level __hash__.
    first = ranks[slots[0]]
    for s in slots:  # noqa: SIM110 - a loop, not all() over a generator: this runs for every line of every grid
        if ranks[s] is not first:
            return False
    return True


def _find_blocks(ranks: Sequence[Rank], rows: int, cols: int) -> list[int]:
    used = [False] * len(ranks)
    found = []
    for r in range(rows - 1):
        for c in range(cols - 1):
            square = block_slots(r * cols + c, cols)
            if any(used[s] for s in square):
                continue
            if _same(ranks, square):
                for s in square:
                    used[s] = True
                found.append(square[0])
    return found


@dataclass(frozen=True, slots=True)
class _Plan:
    """What scoring needs of a rule set, worked out once per rule set rather than per grid."""

    values: dict[Rank, int]
    by_id: dict[int, int]
    """`values` keyed by the rank's id(): a grid's eight lookups then skip Enum's hashing."""
    groups: tuple[Line, ...]
    """The lines that cancel (`cancel: line`), or the pair groups (`cancel: pairs`)."""
    suit_values: dict[tuple[int, Suit], int]
    """`rules.suit_values` keyed by (id of the rank, suit)."""
    house: bool
    """Whether a house option changes what a cancelled line scores or adds a bonus."""


_PLANS: dict[int, tuple[Rules, _Plan]] = {}


def _plan(rules: Rules) -> _Plan:
    # Looked up by identity: hashing a Rules (its generated __hash__ over every field) cost
    # more than scoring a grid. The Rules is kept with its plan, so its id is not reused.
    kept = _PLANS.get(id(rules))
    if kept is not None and kept[0] is rules:
        return kept[1]
    if len(_PLANS) >= 64:
        _PLANS.clear()
    plan = _make_plan(rules)
    _PLANS[id(rules)] = (rules, plan)
    return plan


def _make_plan(rules: Rules) -> _Plan:
    values = rules.card_table()
    if rules.cancel is Cancel.LINE:
        groups = _line_groups(
            rules,
            include_rows=rules.lines in (Lines.ROWS, Lines.DIAGONALS),
            include_diagonals=rules.lines is Lines.DIAGONALS,
        )
    elif rules.pair_scope is PairScope.GRID:
        groups = [Line("grid", 0, tuple(range(rules.cards)))]
    else:
        groups = _line_groups(rules, include_rows=rules.pair_scope is PairScope.ROWS, include_diagonals=False)
    suit_values = {(id(rank), suit): v for rank, suit, v in rules.suit_values}
    house = bool(
        rules.joker_pair is not None
        or rules.negative_pairs is NegativePairs.KEEP
        or rules.two_column_bonus is not None
        or rules.jack_columns_bonus is not None
    )
    return _Plan(values, {id(r): v for r, v in values.items()}, tuple(groups), suit_values, house)


def score_grid(ranks: Sequence[Rank], rules: Rules, suits: Sequence[Suit | None] | None = None) -> GridScore:
    """Score a fully revealed grid given as ranks in row-major order (and suits, where `suit_values` needs them)."""
    rows, cols = rules.rows, rules.cols
    if len(ranks) != rows * cols:
        raise ValueError(f"a {rows}x{cols} grid has {rows * cols} cards, got {len(ranks)}")
    if rules.jokers is None and Rank.JOKER in ranks:
        raise ValueError("the grid has a joker but the jokers option is off")
    plan = _plan(rules)
    by_id = plan.by_id
    points = [by_id[id(r)] for r in ranks]
    if plan.suit_values:
        if suits is None or len(suits) != len(ranks):
            raise ValueError("suit_values gives some cards a value by suit: the grid needs every card's suit")
        for s, (rank, suit) in enumerate(zip(ranks, suits, strict=True)):
            if suit is not None:
                points[s] = plan.suit_values.get((id(rank), suit), points[s])

    # The cards' own points, before a block's share replaces some: what `negative_pairs` judges (G19).
    own: list[int] = list(points) if plan.house else []
    in_block = [False] * len(ranks)
    blocks: list[int] = []
    if rules.block_bonus is not None and rows >= 2 and cols >= 2:
        blocks = _find_blocks(ranks, rows, cols)
        for top_left in blocks:
            square = block_slots(top_left, cols)
            # The block's fixed total stands in for its four cards (D10).
            share, rest = divmod(rules.block_bonus, 4)
            for i, s in enumerate(square):
                in_block[s] = True
                points[s] = share + (1 if i < rest else 0)

    cancelled: list[Line] = []
    zero = [False] * len(ranks)
    if rules.cancel is Cancel.LINE:
        for group in plan.groups:
            if _same(ranks, group.slots):
                cancelled.append(group)
                for s in group.slots:
                    zero[s] = True
    else:
        for group in plan.groups:
            counts = Counter(id(ranks[s]) for s in group.slots)
            hit = tuple(s for s in group.slots if counts[id(ranks[s])] >= 2)
            if hit:
                cancelled.append(Line(group.kind, group.index, hit))
                for s in hit:
                    zero[s] = True

    if plan.house:
        return _house_score(ranks, rules, points, own, in_block, cancelled, tuple(blocks))
    for s in range(len(ranks)):
        # A card in a block scores its share of the block total, never 0 (D10).
        if zero[s] and not in_block[s]:
            points[s] = 0
    return GridScore(sum(points), tuple(points), tuple(cancelled), tuple(blocks))


def _house_score(
    ranks: Sequence[Rank],
    rules: Rules,
    points: list[int],
    own: Sequence[int],
    in_block: list[bool],
    cancelled: list[Line],
    blocks: tuple[int, ...],
) -> GridScore:
    """What the cancelled lines score under the house options, and the column bonuses (docs/RULES.md).

    Each cancelled line, in scan order, decides for its cards not yet decided by a block or
    an earlier line (a card is never counted twice). Under `cancel: pairs` a line is the
    cancelled cards of one rank in one group (G18). A line of jokers gives each of them its
    share of `joker_pair` (G20); with `negative_pairs: keep`, a line with a card whose own
    points are negative keeps its cards' points (G19); any other scores 0. Then
    `two_column_bonus` is added once per rank cancelled in two or more columns, and
    `jack_columns_bonus` once when jacks are.
    """
    done = list(in_block)
    keep = rules.negative_pairs is NegativePairs.KEEP
    columns_of: Counter[Rank] = Counter()
    for group in cancelled:
        for line in _by_rank(ranks, group.slots):
            rank = ranks[line[0]]
            if group.kind == "column":
                columns_of[rank] += 1
            if rules.joker_pair is not None and rank is Rank.JOKER:
                # Shares by place in the line, as a block's (G10): the jokers already decided keep theirs.
                share, rest = divmod(rules.joker_pair, len(line))
                for i, s in enumerate(line):
                    if not done[s]:
                        points[s] = share + (1 if i < rest else 0)
            elif not (keep and any(own[s] < 0 for s in line)):
                for s in line:
                    if not done[s]:
                        points[s] = 0
            for s in line:
                done[s] = True
    bonus = 0
    if rules.two_column_bonus is not None:
        bonus += rules.two_column_bonus * sum(1 for n in columns_of.values() if n >= 2)
    if rules.jack_columns_bonus is not None and columns_of[Rank.JACK] >= 2:
        bonus += rules.jack_columns_bonus
    return GridScore(sum(points) + bonus, tuple(points), tuple(cancelled), blocks, bonus)


def _by_rank(ranks: Sequence[Rank], slots: Sequence[int]) -> list[list[int]]:
    """The slots of a cancelled group split by rank, each rank in the order its first card comes (G18)."""
    lines: dict[int, list[int]] = {}  # keyed by the rank's id(), as `_Plan.by_id`; a dict keeps the order
    for s in slots:
        lines.setdefault(id(ranks[s]), []).append(s)
    return list(lines.values())


def exact_scored(total: int, rules: Rules) -> int:
    """A grid's total after `exact_score` (a hole score of exactly N becomes M): the first end-of-hole step."""
    if rules.exact_score is not None and total == rules.exact_score[0]:
        return rules.exact_score[1]
    return total


def hole_scores(totals: Sequence[int], rules: Rules, closer: int | None, knocker: int | None) -> list[int]:
    """The hole's scores from its grids' totals: `exact_score`, the knock penalty (D4), then `adjust_hole`.

    `closer` and `knocker` are the seats that closed (D3) and knocked (D4), if any; the one
    that ended the hole first, for `adjust_hole`, is the closer when there is one.
    """
    raw = [exact_scored(total, rules) for total in totals] if rules.exact_score is not None else list(totals)
    scores = list(raw)
    if knocker is not None and any(raw[s] <= raw[knocker] for s in range(len(raw)) if s != knocker):
        # D4: a tie for lowest is a failed knock.
        penalty = rules.knock_penalty
        if penalty is KnockPenalty.DOUBLE:
            scores[knocker] += raw[knocker] if raw[knocker] > 0 else 0
        else:
            scores[knocker] += penalty
    return adjust_hole(scores, rules, closer if closer is not None else knocker)


def adjust_hole(scores: Sequence[int], rules: Rules, first: int | None) -> list[int]:
    """The hole's scores after the house adjustments that compare players, in their stated order.

    `scores` are the grid totals after `exact_score` and the knock penalty (D4); `first` is
    the seat that ended the hole first (closed or knocked), if any. In order (docs/RULES.md,
    "The order of end-of-hole adjustments"): `closer_penalty` unless `first` has the lowest
    score (a tie is lowest), `closer_bonus` to `first`, `low_score_bonus` to the lowest
    score(s), and last `tie_penalty` to every score another player's equals.
    """
    out = list(scores)
    if first is not None and rules.closer_penalty is not None and out[first] > min(out):
        out[first] += rules.closer_penalty
    if first is not None and rules.closer_bonus is not None:
        out[first] += rules.closer_bonus
    if rules.low_score_bonus is not None:
        low = min(out)
        out = [v + rules.low_score_bonus if v == low else v for v in out]
    if rules.tie_penalty is not None:
        counts = Counter(out)
        out = [v + rules.tie_penalty if counts[v] > 1 else v for v in out]
    return out
