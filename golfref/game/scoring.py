"""Scoring one fully revealed grid under a rule set (D9, D10)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Rank
from .rules import Cancel, KnockPenalty, Lines, PairScope, Rules

__all__ = ["Line", "GridScore", "block_slots", "card_value", "forfeit_score", "score_grid", "rank_values"]


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


def rank_values(rules: Rules) -> dict[Rank, int]:
    """Points of each rank under `rules` (jokers only when they are on)."""
    return dict(_plan(rules).values)


def card_value(rank: Rank, rules: Rules) -> int:
    """Points of one card of `rank` under `rules`."""
    try:
        return rank_values(rules)[rank]
    except KeyError:
        raise ValueError("a joker is not in play: the jokers option is off") from None


def forfeit_score(rules: Rules) -> int:
    """An upper bound of any hole's score under `rules`: what a fallback hole counts in a tournament's statistics.

    Every slot at the highest points a card or a block share can give, plus the knock
    penalty where knocking is on (with `double`, the grid's bound twice): so that no score a
    bot's own play could reach is worse than what its fault is charged.
    """
    slot = max(_plan(rules).values.values())
    if rules.block_bonus is not None:
        slot = max(slot, -(-rules.block_bonus // 4))  # a block slot scores at most its share rounded up (D10)
    grid = rules.cards * slot
    if not rules.knocking:
        return grid
    penalty = rules.knock_penalty
    if penalty is KnockPenalty.DOUBLE:
        return 2 * grid
    return grid + penalty


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
    values = {
        Rank.ACE: 1,
        Rank.TWO: rules.twos,
        Rank.JACK: rules.jack_value,
        Rank.QUEEN: rules.queen_value,
        Rank.KING: 0,
    }
    for rank in (Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE):
        values[rank] = int(rank.value)
    values[Rank.TEN] = 10
    if rules.jokers is not None:
        values[Rank.JOKER] = rules.jokers
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
    return _Plan(values, {id(r): v for r, v in values.items()}, tuple(groups))


def score_grid(ranks: Sequence[Rank], rules: Rules) -> GridScore:
    """Score a fully revealed grid given as ranks in row-major order."""
    rows, cols = rules.rows, rules.cols
    if len(ranks) != rows * cols:
        raise ValueError(f"a {rows}x{cols} grid has {rows * cols} cards, got {len(ranks)}")
    if rules.jokers is None and Rank.JOKER in ranks:
        raise ValueError("the grid has a joker but the jokers option is off")
    plan = _plan(rules)
    by_id = plan.by_id
    points = [by_id[id(r)] for r in ranks]

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

    for s in range(len(ranks)):
        # A card in a block scores its share of the block total, never 0 (D10).
        if zero[s] and not in_block[s]:
            points[s] = 0
    return GridScore(sum(points), tuple(points), tuple(cancelled), tuple(blocks))
