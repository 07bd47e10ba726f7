"""Scripted games that pin each rule decision's effect in play (golf-rules.md D1-D14).

Every game here is driven by hand: the deal is a hand-made shuffle order (seat s's grid is
order[s*n:(s+1)*n], then the discard starter, then the stock with the next card on top) and
every action is written out, so each test shows one rule at work.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import random
from collections.abc import Sequence
from typing import Any

import pytest

from golfref.game.cards import Rank
from golfref.game.engine import (
    Action,
    ActionKind,
    Decision,
    DrawEvent,
    FlipEvent,
    Game,
    GameError,
    HoleEnd,
    IllegalAction,
    KnockEvent,
    Move,
    PowerEvent,
    PowerPeekEvent,
    PowerSwapEvent,
    PowerTargetEvent,
    ReshuffleEvent,
    RevealEvent,
    Shuffle,
    SwapEvent,
    ThrowEvent,
    placings,
)
from golfref.game.rules import resolve_rules
from golfref.game.scoring import score_grid
from golfref.game.view import events_for, view

# -- helpers -------------------------------------------------------------------------------

SPADES = ["AS", "2S", "3S", "4S", "5S", "6S"]
HEARTS = ["AH", "2H", "3H", "4H", "5H", "6H"]


def new_game(preset: str = "standard", players: int = 2, **options: Any) -> Game:
    """A fresh game of one hole unless `holes` is given."""
    options.setdefault("holes", 1)
    return Game(resolve_rules(preset, options, players))


def card_ids(game: Game) -> dict[str, int]:
    return {str(c): i for i, c in enumerate(game.cards)}


def deal(
    game: Game, grids: Sequence[Sequence[str]], discard: str, stock: Sequence[str] = ()
) -> list[int]:
    """Deal the named cards; the stock gets `stock` on top, then every other card."""
    assert len(grids) == game.players and all(len(g) == game.slots for g in grids)
    by_name = card_ids(game)
    named = [c for g in grids for c in g] + [discard, *stock]
    chosen = [by_name[n] for n in named]
    assert len(set(chosen)) == len(chosen), "a card is named twice"
    taken = set(chosen)
    order = chosen + [i for i in range(len(game.cards)) if i not in taken]
    game.apply_shuffle(order)
    return order


def play(game: Game, *actions: str) -> None:
    for text in actions:
        game.apply(Action.parse(text))


def legal(game: Game) -> list[str]:
    return [str(a) for a in game.legal_actions()]


def grid_names(game: Game, seat: int) -> list[str]:
    return [str(game.cards[c]) for c in game.grids[seat]]


def seen_grid(game: Game, viewer: int, seat: int) -> list[str | None]:
    """Seat `seat`'s grid as `viewer` sees it."""
    return [None if c is None else str(c) for c in view(game, viewer).grids[seat]]


def slot_up(game: Game, seat: int, slot: int) -> bool:
    return game.up[game.grids[seat][slot]]


def snapshot(game: Game) -> dict[str, Any]:
    """Everything an action may change, copied."""
    fields = (
        "grids", "discard", "stock", "up", "known", "to_move", "decision", "drawn",
        "drawn_from_stock", "power_rank", "first_target", "reveal_left", "turns", "closer",
        "knocker", "final_left", "events", "chance", "totals", "results", "hole", "over",
        "starter",
    )  # fmt: skip
    # Results are frozen values, and deepcopy cannot copy those of the compiled build.
    state = {f: copy.deepcopy(getattr(game, f)) for f in fields if f != "results"}
    state["results"] = list(game.results)
    state["history"] = list(game.history)
    state["legal"] = legal(game)
    return state


def assert_illegal(game: Game, text: str) -> None:
    """`text` raises IllegalAction and leaves the game exactly as it was."""
    before = snapshot(game)
    with pytest.raises(IllegalAction):
        game.apply(Action.parse(text))
    assert snapshot(game) == before, f"the illegal action {text!r} changed the game"


def last_event(game: Game, seat: int) -> dict[str, Any]:
    return events_for(game, seat)[-1]


# -- D1 start reveal -------------------------------------------------------------------------


def test_d1_fixed_peek_owner_knows_card_stays_face_down() -> None:
    g = new_game("standard")  # reveal: 2, peek, fixed
    deal(g, [SPADES, HEARTS], "7D", ["8D"])
    assert g.decision is Decision.DRAW and g.to_move == 0
    assert seen_grid(g, 0, 0) == ["AS", "2S", None, None, None, None]
    assert seen_grid(g, 1, 1) == ["AH", "2H", None, None, None, None]
    assert seen_grid(g, 1, 0) == [None] * 6
    assert seen_grid(g, 0, 1) == [None] * 6
    for seat in (0, 1):
        assert view(g, seat).face_up == ((False,) * 6, (False,) * 6)
        assert [str(c) for c in view(g, seat).discard] == ["7D"]
        assert view(g, seat).stock_size == 52 - 13


@pytest.mark.parametrize(
    ("layout", "count"), [("2x3", 2), ("2x3", 4), ("3x3", 4), ("3x2", 3), ("2x2", 3), ("1x4", 2)]
)
def test_d1_fixed_flip_reveals_top_row_left_first_then_next_row(layout: str, count: int) -> None:
    g = new_game("standard", layout=layout, reveal="flip", reveal_count=count)
    g.apply_shuffle(range(52))
    n = g.slots
    for seat in (0, 1):
        ups = [slot_up(g, seat, i) for i in range(n)]
        # Row-major slots 0..count-1 are the leftmost of the top row, then the next row.
        assert ups == [i < count for i in range(n)]
        for viewer in (0, 1):
            shown = seen_grid(g, viewer, seat)
            assert shown == [grid_names(g, seat)[i] if i < count else None for i in range(n)]


def test_d1_peek_does_not_count_towards_a_full_grid() -> None:
    g = new_game("standard", layout="2x2", reveal_count=4)  # all four peeked, none face up
    deal(g, [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"]], "7D", ["8D"])
    assert seen_grid(g, 0, 0) == ["AS", "2S", "3S", "4S"]
    assert not g.grid_full(0)
    play(g, "stock", "throw")
    # must-flip still has face-down cards to turn: the peeked grid is not full.
    assert g.decision is Decision.FLIP
    assert legal(g) == ["flip:0", "flip:1", "flip:2", "flip:3"]
    play(g, "flip:0")
    assert g.closer is None and g.to_move == 1


def test_d1_flipped_reveal_of_every_card_makes_a_full_grid() -> None:
    g = new_game("standard", layout="2x2", reveal="flip", reveal_count=4)
    deal(g, [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"]], "7D", ["8D"])
    assert g.grid_full(0) and g.grid_full(1)
    play(g, "stock", "throw")  # no face-down card: no flip decision (D5)
    assert g.closer == 0 and g.to_move == 1


def test_d1_player_chosen_flip_reveal_asks_every_seat_before_the_first_turn() -> None:
    g = new_game("classic", players=3)  # reveal: 2, flip, player
    deal(g, [SPADES, HEARTS, ["AD", "2D", "3D", "4D", "5D", "6D"]], "7C", ["8C"])
    assert g.decision is Decision.REVEAL and g.to_move == 0
    assert legal(g) == [f"reveal:{i}" for i in range(6)]
    play(g, "reveal:5")
    assert g.to_move == 0 and legal(g) == [f"reveal:{i}" for i in range(5)]
    assert slot_up(g, 0, 5)
    assert seen_grid(g, 2, 0)[5] == "6S"
    assert_illegal(g, "reveal:5")
    assert_illegal(g, "stock")
    play(g, "reveal:2")
    assert g.to_move == 1 and g.decision is Decision.REVEAL
    play(g, "reveal:0", "reveal:1")
    assert g.to_move == 2 and g.decision is Decision.REVEAL
    play(g, "reveal:3", "reveal:4")
    assert g.decision is Decision.DRAW and g.to_move == 0
    assert g.turns == [0, 0, 0]
    assert [i for i in range(6) if slot_up(g, 0, i)] == [2, 5]
    assert [i for i in range(6) if slot_up(g, 1, i)] == [0, 1]
    assert [i for i in range(6) if slot_up(g, 2, i)] == [3, 4]
    reveals = events_for(g, 1)
    assert [(e["event"], e["seat"], e["slot"], e["card"]) for e in reveals] == [
        ("reveal", 0, 5, "6S"),
        ("reveal", 0, 2, "3S"),
        ("reveal", 1, 0, "AH"),
        ("reveal", 1, 1, "2H"),
        ("reveal", 2, 3, "4D"),
        ("reveal", 2, 4, "5D"),
    ]


def test_d1_player_chosen_peek_is_private_and_not_offered_twice() -> None:
    g = new_game("classic", reveal="peek")
    deal(g, [SPADES, HEARTS], "7C", ["8C"])
    play(g, "reveal:3")
    assert not slot_up(g, 0, 3)
    assert seen_grid(g, 0, 0) == [None, None, None, "4S", None, None]
    assert seen_grid(g, 1, 0) == [None] * 6
    assert events_for(g, 0)[-1] == {"event": "reveal", "seat": 0, "slot": 3, "card": "4S"}
    assert events_for(g, 1)[-1] == {"event": "reveal", "seat": 0, "slot": 3, "card": None}
    assert "reveal:3" not in legal(g)
    assert_illegal(g, "reveal:3")


# -- D2 who starts ---------------------------------------------------------------------------


def test_d2_starter_rotates_by_hole_and_play_goes_in_seat_order() -> None:
    g = new_game("standard", players=3, layout="1x2", holes=4, turn_limit=1)
    for hole in range(4):
        assert g.is_chance and g.hole == hole
        g.apply_shuffle(range(52))
        assert g.starter == hole % 3 and g.to_move == hole % 3
        movers = []
        while len(g.results) == hole:
            movers.append(g.to_move)
            play(g, "stock", "throw", "flip:0")
        assert movers == [(hole + k) % 3 for k in range(3)]
        assert g.results[hole].starter == hole % 3
        assert g.results[hole].end is HoleEnd.TURN_LIMIT
    assert g.over


def test_d2_reveal_phase_of_a_later_hole_starts_with_its_starter() -> None:
    g = new_game("classic", holes=2, turn_limit=1)
    g.apply_shuffle(range(52))
    assert g.to_move == 0
    play(g, "reveal:0", "reveal:1", "reveal:0", "reveal:1")
    play(g, "stock", "throw", "stock", "throw")
    assert len(g.results) == 1 and g.is_chance
    g.apply_shuffle(range(52))
    assert g.starter == 1 and g.decision is Decision.REVEAL and g.to_move == 1
    play(g, "reveal:0", "reveal:1")
    assert g.to_move == 0 and g.decision is Decision.REVEAL
    play(g, "reveal:0", "reveal:1")
    assert g.to_move == 1 and g.decision is Decision.DRAW


# -- D3 closing by a full grid ---------------------------------------------------------------

FOUR = [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"], ["AD", "2D", "3D", "4D"]]


def closing_game() -> Game:
    """Three seats, 2x2, slots 0-2 face up: one more face-up card fills a grid."""
    g = new_game("standard", players=3, layout="2x2", reveal="flip", reveal_count=3)
    deal(g, FOUR, "5C", ["6C", "7C", "8C", "9C", "TC"])
    return g


def test_d3_closer_gets_no_more_turn_every_other_seat_exactly_one() -> None:
    g = closing_game()
    play(g, "stock", "throw")
    assert g.decision is Decision.FLIP and legal(g) == ["flip:3"]
    play(g, "flip:3")
    assert g.closer == 0 and g.to_move == 1 and not g.results
    play(g, "stock", "swap:0")
    assert g.to_move == 2 and not g.results
    play(g, "stock", "swap:0")
    assert g.over and len(g.results) == 1
    r = g.results[0]
    assert r.end is HoleEnd.CLOSED and r.ender == 0
    assert r.turns == (1, 1, 1)
    assert [grid_names(g, s) for s in range(3)] == [
        ["AS", "2S", "3S", "4S"],
        ["7C", "2H", "3H", "4H"],
        ["8C", "2D", "3D", "4D"],
    ]
    # Every card is turned up and scored (seats 1 and 2 still had a face-down card).
    assert all(g.up[c] for grid in g.grids for c in grid)
    assert r.scores == (6, 12, 13)
    for s in range(3):
        assert r.grid_scores[s] == score_grid([g.ranks[c] for c in g.grids[s]], g.rules)


def test_d3_close_by_a_later_seat_others_complete_without_closing_again() -> None:
    g = closing_game()
    play(g, "stock", "swap:0")  # seat 0: slot 3 still face down
    assert g.closer is None
    play(g, "stock", "throw", "flip:3")  # seat 1 closes
    assert g.closer == 1 and g.to_move == 2
    play(g, "stock", "throw", "flip:3")  # seat 2 fills its grid too: not a second close
    assert g.grid_full(2)
    assert g.closer == 1 and g.to_move == 0 and not g.results
    play(g, "stock", "swap:0")  # seat 0's one more turn
    r = g.results[0]
    assert r.end is HoleEnd.CLOSED and r.ender == 1
    assert r.turns == (2, 1, 1)


def test_d3_a_grid_full_from_the_deal_closes_at_the_end_of_the_first_turn() -> None:
    """A grid full from the deal closes at the end of that seat's first turn."""
    g = new_game("standard", layout="1x2", reveal="flip")
    deal(g, [["AS", "2S"], ["AH", "2H"]], "7D", ["8D", "9D"])
    play(g, "stock", "swap:1")
    assert g.closer == 0 and g.to_move == 1
    play(g, "discard", "swap:0")
    assert g.results[0].end is HoleEnd.CLOSED


# -- D4 knocking -----------------------------------------------------------------------------


def knock_game(players: int = 2, **options: Any) -> Game:
    options.setdefault("layout", "1x2")
    options.setdefault("reveal_count", 0)
    return new_game("knock", players=players, **options)


def test_d4_knock_is_offered_only_at_the_start_of_a_turn_when_knocking_is_on() -> None:
    g = knock_game()
    deal(g, [["AS", "3S"], ["5H", "6H"]], "7C", ["9C", "TC"])
    assert legal(g) == ["stock", "discard", "knock"]
    play(g, "stock")
    assert "knock" not in legal(g)
    assert_illegal(g, "knock")

    off = new_game("standard")
    deal(off, [SPADES, HEARTS], "7C", ["8C"])
    assert legal(off) == ["stock", "discard"]
    assert_illegal(off, "knock")


def test_d4_knock_ends_the_turn_and_each_other_seat_gets_one_turn() -> None:
    g = knock_game(players=3)
    deal(g, [["AS", "3S"], ["5H", "6H"], ["7D", "8D"]], "7C", ["9C", "TC", "JC"])
    play(g, "knock")
    assert g.knocker == 0 and g.turns == [1, 0, 0]
    assert g.to_move == 1 and g.decision is Decision.DRAW
    assert grid_names(g, 0) == ["AS", "3S"]
    assert last_event(g, 2) == {"event": "knock", "seat": 0}
    assert legal(g) == ["stock", "discard"]  # nobody knocks after a knock
    play(g, "stock", "throw")
    assert g.to_move == 2 and legal(g) == ["stock", "discard"]
    play(g, "stock", "throw")
    r = g.results[0]
    assert r.end is HoleEnd.KNOCKED and r.ender == 0 and r.turns == (1, 1, 1)
    assert r.penalties == (0, 0, 0) and r.scores == (4, 11, 15)


def test_d4_knock_by_a_later_seat_gives_the_earlier_seats_their_turn() -> None:
    g = knock_game(players=3)
    deal(g, [["AS", "3S"], ["5H", "6H"], ["7D", "8D"]], "7C", ["9C", "TC", "JC", "QC"])
    play(g, "stock", "throw")
    play(g, "knock")
    assert g.knocker == 1
    play(g, "stock", "throw")
    assert g.to_move == 0 and not g.results
    play(g, "stock", "throw")
    r = g.results[0]
    assert r.end is HoleEnd.KNOCKED and r.ender == 1 and r.turns == (2, 1, 1)


def test_d4_nobody_may_knock_after_the_hole_was_closed() -> None:
    g = knock_game(reveal_choice="fixed", reveal_count=1)  # slot 0 face up
    deal(g, [["AS", "3S"], ["5H", "6H"]], "7C", ["9C", "TC"])
    play(g, "stock", "swap:1")
    assert g.closer == 0
    assert legal(g) == ["stock", "discard"]
    assert_illegal(g, "knock")
    play(g, "stock", "throw")
    assert g.results[0].end is HoleEnd.CLOSED


@pytest.mark.parametrize(
    ("mine", "theirs", "options", "scores", "penalty"),
    [
        (["AS", "3S"], ["5H", "6H"], {}, (4, 11), 0),  # strictly lowest: no penalty
        (["AS", "3S"], ["AH", "3H"], {}, (14, 4), 10),  # a tie is a failed knock
        (["9S", "8S"], ["AH", "3H"], {}, (27, 4), 10),
        (["9S", "8S"], ["AH", "3H"], {"knock_penalty": 5}, (22, 4), 5),
        (["2S", "KS"], ["2H", "2D"], {"twos": -2}, (8, -4), 10),  # +10 on a negative score
        (["9S", "8S"], ["AH", "3H"], {"knock_penalty": "double"}, (34, 4), 17),
        (["AS", "3S"], ["AH", "3H"], {"knock_penalty": "double"}, (8, 4), 4),  # tie doubles
        (["KS", "KC"], ["KH", "KD"], {"knock_penalty": "double"}, (0, 0), 0),  # zero stays
        (["2S", "KS"], ["2H", "2D"], {"knock_penalty": "double", "twos": -2}, (-2, -4), 0),
        (["AS", "2S"], ["AH", "3H"], {"knock_penalty": "double"}, (3, 4), 0),  # twos +2: 3 < 4
    ],
)
def test_d4_knock_penalty(
    mine: list[str],
    theirs: list[str],
    options: dict[str, Any],
    scores: tuple[int, int],
    penalty: int,
) -> None:
    g = knock_game(**options)
    deal(g, [mine, theirs], "7C", ["9C", "TC"])
    play(g, "knock", "stock", "throw")
    r = g.results[0]
    assert r.end is HoleEnd.KNOCKED and r.ender == 0
    assert r.penalties == (penalty, 0)
    assert r.scores == scores
    assert tuple(g.totals) == scores


def test_g17_turn_limit_never_cuts_the_turns_owed_after_a_knock() -> None:
    """G17 (D4, D8): once a seat knocked, every other seat gets its last turn, limit or not."""
    g = knock_game(players=3, turn_limit=1)
    deal(g, [["AS", "3S"], ["9H", "8H"], ["5D", "6D"]], "7C", ["9C", "TC", "JC", "QC"])
    play(g, "stock", "throw", "knock", "stock", "throw")
    assert not g.results, "seat 0 is still owed its last turn after seat 1's knock"
    assert g.to_move == 0
    play(g, "stock", "throw")
    r = g.results[0]
    assert r.end is HoleEnd.KNOCKED and r.ender == 1 and r.turns == (2, 1, 1)
    assert r.penalties == (0, 10, 0)


# -- D5 flip after a throw-away ----------------------------------------------------------------


def test_d5_none_no_flip_after_a_throw() -> None:
    g = new_game("classic", reveal_count=0)
    deal(g, [SPADES, HEARTS], "7C", ["8C"])
    play(g, "stock", "throw")
    assert g.to_move == 1 and g.decision is Decision.DRAW
    assert not any(g.up[c] for c in g.grids[0])


def test_d5_may_flip_or_pass() -> None:
    g = new_game("standard", flip_after_throw="may")
    deal(g, [SPADES, HEARTS], "7C", ["8C", "9C"])
    play(g, "stock", "throw")
    assert g.decision is Decision.FLIP and g.to_move == 0
    assert legal(g) == [f"flip:{i}" for i in range(6)] + ["pass"]  # peeked slots are face down
    play(g, "pass")
    assert g.to_move == 1 and not any(g.up[c] for c in g.grids[0])
    play(g, "stock", "throw", "flip:4")
    assert slot_up(g, 1, 4) and g.to_move == 0


def test_d5_must_flip_one_own_face_down_card() -> None:
    g = new_game("standard", reveal="flip")  # slots 0, 1 face up
    deal(g, [SPADES, HEARTS], "7C", ["8C"])
    play(g, "stock", "throw")
    assert g.decision is Decision.FLIP
    assert legal(g) == ["flip:2", "flip:3", "flip:4", "flip:5"]
    assert_illegal(g, "pass")
    assert_illegal(g, "flip:0")
    play(g, "flip:4")
    assert slot_up(g, 0, 4) and seen_grid(g, 1, 0)[4] == "5S"
    assert last_event(g, 1) == {"event": "flip", "seat": 0, "slot": 4, "card": "5S"}
    assert g.to_move == 1


@pytest.mark.parametrize("mode", ["may", "must"])
def test_d5_no_flip_decision_without_a_face_down_card(mode: str) -> None:
    g = new_game("standard", reveal="flip", reveal_count=6, flip_after_throw=mode)
    deal(g, [SPADES, HEARTS], "7C", ["8C"])
    play(g, "stock", "throw")
    assert g.to_move == 1 and g.decision is Decision.DRAW


def test_d5_no_flip_after_a_swap() -> None:
    g = new_game("standard")
    deal(g, [SPADES, HEARTS], "7C", ["8C"])
    play(g, "stock", "swap:2")
    assert g.to_move == 1 and g.decision is Decision.DRAW
    assert sum(g.up[c] for c in g.grids[0]) == 1


# -- D6 face-down swaps ----------------------------------------------------------------------


def arena4() -> Game:
    g = new_game("arena", layout="2x2")
    r = g.rules
    assert (r.swap_face_up, r.reveal.value, r.knocking, r.reveal_count) == (False, "peek", True, 2)
    return g


def test_d6_swapped_stock_card_lies_face_down_known_to_the_swapper_only() -> None:
    g = arena4()
    deal(g, [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"]], "5C", ["6C", "7C"])
    play(g, "reveal:0", "reveal:1", "reveal:0", "reveal:1")
    play(g, "stock", "swap:2")
    assert grid_names(g, 0)[2] == "6C" and not slot_up(g, 0, 2)
    assert seen_grid(g, 0, 0) == ["AS", "2S", "6C", None]
    assert seen_grid(g, 1, 0) == [None] * 4
    assert [str(c) for c in view(g, 1).discard] == ["5C", "3S"]
    swap = {"event": "swap", "seat": 0, "slot": 2, "card": None, "discarded": "3S"}
    assert last_event(g, 1) == swap
    assert last_event(g, 0)["card"] == "6C"

    play(g, "discard", "swap:3")  # seat 1 takes 3S from the pile
    assert grid_names(g, 1)[3] == "3S" and not slot_up(g, 1, 3)
    assert seen_grid(g, 0, 1) == [None, None, None, "3S"]  # everyone saw it on the pile
    assert seen_grid(g, 1, 1) == ["AH", "2H", None, "3S"]
    swap = {"event": "swap", "seat": 1, "slot": 3, "card": "3S", "discarded": "4H"}
    assert last_event(g, 0) == swap


def test_d6_face_down_grid_never_closes() -> None:
    g = arena4()
    deal(g, [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"]], "5C")
    play(g, "reveal:0", "reveal:1", "reveal:0", "reveal:1")
    for slot in range(4):
        play(g, "stock", f"swap:{slot}")
        play(g, "stock", "throw")
    assert g.closer is None and not g.results
    assert not g.grid_full(0)
    assert None not in seen_grid(g, 0, 0)  # seat 0 knows every own card...
    assert seen_grid(g, 1, 0) == [None] * 4  # ...seat 1 none of them
    assert g.decision is Decision.DRAW and "knock" in legal(g)


# -- D7 stock runs out -----------------------------------------------------------------------


def tight_game() -> Game:
    """Three seats of 4x4 from one deck: 48 grid cards, 1 discard, 3 stock cards."""
    g = new_game("classic", players=3, layout="4x4", decks=1, reveal_count=0)
    g.apply_shuffle(range(52))
    assert len(g.stock) == 3 and g.stock[-1] == 49
    return g


def test_d7_empty_stock_reshuffles_the_pile_minus_its_top() -> None:
    g = tight_game()
    play(g, "stock", "throw", "stock", "throw")
    assert not g.is_chance and len(g.stock) == 1
    play(g, "stock", "throw")
    assert g.is_chance and g.chance == (48, 49, 50)  # the pile, bottom first, minus its top
    assert g.discard == [51] and g.stock == []
    assert not any(g.up[c] for c in (48, 49, 50))
    assert g.decision is None and legal(g) == []
    assert_illegal(g, "stock")
    v = view(g, 1)
    assert [str(c) for c in v.discard] == [str(g.cards[51])] and v.stock_size == 0

    before = snapshot(g)
    for bad in ([48, 49], [48, 49, 51], [48, 49, 49], [48, 49, 50, 51]):
        with pytest.raises(GameError):
            g.apply_shuffle(bad)
        assert snapshot(g) == before

    g.apply_shuffle([50, 48, 49])
    assert g.history[-1] == Shuffle((50, 48, 49))
    assert not g.is_chance and g.to_move == 0 and g.decision is Decision.DRAW
    assert view(g, 0).stock_size == 3
    assert events_for(g, 2)[-1] == {"event": "reshuffle", "cards": 3}
    play(g, "stock")
    assert g.drawn == 50  # order[0] is the top of the new stock
    play(g, "throw", "stock")
    assert g.drawn == 48


def test_d7_reshuffle_is_replayed_from_history() -> None:
    g = tight_game()
    play(g, "stock", "throw", "stock", "throw", "stock", "throw")
    g.apply_shuffle([49, 50, 48])
    play(g, "stock", "swap:0")
    again = Game.replay(g.rules, g.history)
    assert again.grids == g.grids and again.discard == g.discard and again.stock == g.stock
    assert again.history == g.history


def test_d7_nothing_to_recycle_ends_the_hole_white_box() -> None:
    """The branch cannot be reached by legal play (D12 keeps 2+ cards outside the grids),
    so the stock is emptied by hand; the owed final turns are then not played."""
    g = knock_game()
    deal(g, [["AS", "3S"], ["5H", "6H"]], "7C")
    g.stock.clear()
    play(g, "knock")
    r = g.results[0]
    assert r.end is HoleEnd.STOCK_EXHAUSTED and r.ender is None
    assert r.turns == (1, 0) and g.over
    assert r.scores == (4, 11)


# -- D8 turn limit ---------------------------------------------------------------------------


def test_d8_turn_limit_ends_the_hole() -> None:
    g = new_game("standard", turn_limit=2, holes=2)
    deal(g, [SPADES, HEARTS], "7C")
    play(g, "stock", "swap:0", "stock", "swap:0", "stock", "swap:0")
    assert not g.results and g.to_move == 1
    play(g, "stock", "swap:0")
    r = g.results[0]
    assert r.end is HoleEnd.TURN_LIMIT and r.ender is None and r.turns == (2, 2)
    assert not g.over and g.is_chance and g.hole == 1


# -- D11 card powers -------------------------------------------------------------------------


def powers_game(**options: Any) -> Game:
    return new_game("standard", card_powers=True, **options)


def test_d11_jack_peeks_one_own_face_down_card_instead_of_the_flip() -> None:
    g = powers_game()
    deal(g, [SPADES, HEARTS], "7D", ["JC"])
    play(g, "stock")
    assert legal(g) == [f"swap:{i}" for i in range(6)] + ["throw", "power"]
    play(g, "power")
    assert g.decision is Decision.TARGET and view(g, 1).power is Rank.JACK
    assert legal(g) == [f"target:0:{i}" for i in range(6)]
    assert str(g.cards[g.discard[-1]]) == "JC"
    play(g, "target:0:4")
    assert not slot_up(g, 0, 4)
    assert seen_grid(g, 0, 0) == ["AS", "2S", None, None, "5S", None]
    assert seen_grid(g, 1, 0) == [None] * 6
    assert g.to_move == 1 and g.decision is Decision.DRAW  # the power replaced the must-flip
    mine, theirs = events_for(g, 0)[-2:], events_for(g, 1)[-2:]
    assert theirs == [
        {"event": "power", "seat": 0, "card": "JC"},
        {"event": "power_peek", "seat": 0, "target": [0, 4], "card": None},
    ]
    assert mine[1]["card"] == "5S"


def test_d11_queen_peeks_one_opponent_card_privately() -> None:
    g = powers_game()
    deal(g, [SPADES, HEARTS], "7D", ["QC"])
    play(g, "stock", "power")
    assert legal(g) == [f"target:1:{i}" for i in range(6)]
    assert_illegal(g, "target:0:3")
    play(g, "target:1:3")
    assert seen_grid(g, 0, 1) == [None, None, None, "4H", None, None]
    assert seen_grid(g, 1, 1) == ["AH", "2H", None, None, None, None]  # the owner learns nothing
    assert not slot_up(g, 1, 3)


def test_d11_king_swaps_two_cards_keeping_face_state_and_knowledge() -> None:
    g = powers_game(reveal="flip", reveal_count=1)
    deal(g, [SPADES, HEARTS], "7D", ["JC", "KC"])
    play(g, "stock", "power", "target:0:2")  # seat 0 privately knows its 3S
    play(g, "stock", "power")
    assert legal(g) == [f"target:{s}:{i}" for s in (0, 1) for i in range(6)]
    play(g, "target:0:2")
    assert g.first_target == (0, 2) and view(g, 0).first_target == (0, 2)
    assert g.decision is Decision.TARGET and g.to_move == 1
    assert "target:0:2" not in legal(g) and len(legal(g)) == 11
    assert_illegal(g, "target:0:2")
    play(g, "target:1:0")
    assert grid_names(g, 0)[2] == "AH" and grid_names(g, 1)[0] == "3S"
    assert slot_up(g, 0, 2) and not slot_up(g, 1, 0)
    assert seen_grid(g, 0, 0)[2] == "AH" and seen_grid(g, 1, 0)[2] == "AH"
    assert seen_grid(g, 0, 1)[0] == "3S"  # seat 0 still knows the card it peeked
    assert seen_grid(g, 1, 1)[0] is None  # seat 1 never saw it
    assert g.to_move == 0 and g.first_target is None
    assert last_event(g, 0) == {"event": "power_swap", "seat": 1, "cards": [[0, 2], [1, 0]]}


def test_d11_king_may_swap_two_cards_of_one_grid() -> None:
    g = powers_game()
    deal(g, [SPADES, HEARTS], "7D", ["KC"])
    play(g, "stock", "power", "target:1:0", "target:1:5")
    assert grid_names(g, 1) == ["6H", "2H", "3H", "4H", "5H", "AH"]
    assert seen_grid(g, 1, 1) == [None, "2H", None, None, None, "AH"]


@pytest.mark.parametrize(("top", "offered"), [("JC", False), ("QC", False), ("KC", True)])
def test_d11_power_not_offered_without_a_target(top: str, offered: bool) -> None:
    g = powers_game(reveal="flip", reveal_count=6)  # no face-down card anywhere
    deal(g, [SPADES, HEARTS], "7D", [top])
    play(g, "stock")
    assert ("power" in legal(g)) is offered
    assert "throw" in legal(g) and "swap:0" in legal(g)
    if not offered:
        assert_illegal(g, "power")


@pytest.mark.parametrize("top", ["JC", "QC", "KC", "7C"])
def test_d11_no_power_when_powers_are_off_or_for_other_ranks(top: str) -> None:
    off = new_game("standard")
    deal(off, [SPADES, HEARTS], "7D", [top])
    play(off, "stock")
    assert "power" not in legal(off)
    on = powers_game()
    deal(on, [SPADES, HEARTS], "7D", [top])
    play(on, "stock")
    assert ("power" in legal(on)) is (top != "7C")


def test_d11_discard_pile_card_must_be_swapped_no_throw_no_power() -> None:
    g = powers_game()
    deal(g, [SPADES, HEARTS], "JD", ["KC"])
    play(g, "discard")
    assert legal(g) == [f"swap:{i}" for i in range(6)]
    assert view(g, 1).drawn is not None and str(view(g, 1).drawn) == "JD"
    assert_illegal(g, "throw")
    assert_illegal(g, "power")
    play(g, "swap:3")
    assert grid_names(g, 0)[3] == "JD" and slot_up(g, 0, 3)
    assert str(g.cards[g.discard[-1]]) == "4S"


# -- illegal actions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setup", "illegal"),
    [
        ([], ["swap:0", "throw", "flip:2", "pass", "power", "target:1:0", "reveal:0", "knock"]),
        (["stock"], ["stock", "discard", "flip:2", "pass", "swap:6", "swap:15", "target:0:2"]),
        (["stock", "throw"], ["stock", "swap:2", "throw", "flip:0", "pass", "flip:9"]),
    ],
)
def test_illegal_actions_raise_and_change_nothing(setup: list[str], illegal: list[str]) -> None:
    g = new_game("standard", reveal="flip")
    deal(g, [SPADES, HEARTS], "7D", ["8C"])
    play(g, *setup)
    for text in illegal:
        assert text not in legal(g)
        assert_illegal(g, text)


def test_no_action_before_the_deal_or_after_the_match() -> None:
    g = new_game("standard", layout="1x2", turn_limit=1)
    assert g.is_chance and legal(g) == []
    assert_illegal(g, "stock")
    with pytest.raises(GameError):
        g.apply_shuffle(range(51))
    g.apply_shuffle(range(52))
    with pytest.raises(GameError):
        g.apply_shuffle(range(52))  # no shuffle pending now
    play(g, "stock", "throw", "flip:0", "stock", "throw", "flip:0")
    assert g.over and legal(g) == [] and not g.is_chance
    assert_illegal(g, "stock")


def test_replay_checks_the_seat_to_move() -> None:
    g = new_game("standard")
    deal(g, [SPADES, HEARTS], "7D")
    play(g, "stock", "swap:0")
    assert g.history[1:] == [Move(0, Action.parse("stock")), Move(0, Action.parse("swap:0"))]
    forged = [g.history[0], Move(1, Action.parse("stock"))]
    with pytest.raises(IllegalAction):
        Game.replay(g.rules, forged)


# -- D14 ties ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("totals", "disqualified", "expected"),
    [
        ([10, 10, 12], [], (1, 1, 3)),
        ([12, 10, 10], [], (3, 1, 1)),
        ([5, 3, 5, 1], [], (3, 2, 3, 1)),
        ([-4, -4, -4], [], (1, 1, 1)),
        ([1, 5, 9], [0], (3, 1, 2)),
        ([1, 2, 3, 4], [0, 2], (3, 1, 3, 2)),
        ([7, 7], [1], (1, 2)),
    ],
)
def test_d14_placings(
    totals: list[int], disqualified: list[int], expected: tuple[int, ...]
) -> None:
    assert placings(totals, disqualified) == expected


def test_d14_equal_totals_share_a_place_in_a_played_game() -> None:
    g = new_game("standard", players=3, layout="1x2", turn_limit=1)
    deal(g, [["AS", "3S"], ["AH", "3H"], ["9D", "8D"]], "7C", ["9C", "TC", "JC"])
    for _ in range(3):
        play(g, "stock", "throw", "flip:0")
    assert g.over and g.totals == [4, 4, 17]
    assert g.placings() == (1, 1, 3)
    assert g.placings([1]) == (1, 3, 2)


# -- typed events, clone ------------------------------------------------------------------


def random_game(seed: int, stop: int, preset: str = "arena", players: int = 3, **options: Any) -> Game:
    """A game of random legal play, stopped after `stop` decisions (or at its end)."""
    rng = random.Random(seed)
    options.setdefault("holes", 3)
    options.setdefault("card_powers", True)
    game = Game(resolve_rules(preset, options, players))
    taken = 0
    while not game.over and taken < stop:
        if game.chance is not None:
            order = list(game.chance)
            rng.shuffle(order)
            game.apply_shuffle(order)
            continue
        game.apply(rng.choice(game.legal_actions()))
        taken += 1
    return game


EVENT_TYPES = (
    RevealEvent, DrawEvent, KnockEvent, SwapEvent, ThrowEvent, FlipEvent, PowerEvent,
    PowerTargetEvent, PowerSwapEvent, PowerPeekEvent, ReshuffleEvent,
)  # fmt: skip


def test_events_are_frozen_values_of_one_kind_each() -> None:
    seen: set[type] = set()
    rng = random.Random(5)
    for preset, options in [("arena", {"layout": "2x2"}), ("classic", {"layout": "2x4", "flip_after_throw": "may"})]:
        game = Game(resolve_rules(preset, {"holes": 20, "card_powers": True, **options}, 3))
        while not game.over:
            holes, mark = len(game.results), len(game.events)
            if game.chance is not None:
                order = list(game.chance)
                rng.shuffle(order)
                game.apply_shuffle(order)  # a deal (no event) or a reshuffle (an event)
            else:
                game.apply(rng.choice(game.legal_actions()))
            table = game.last_table if len(game.results) > holes else game
            assert table is not None
            for ev in table.events[mark:]:
                assert type(ev) in EVENT_TYPES, ev
                with pytest.raises(AttributeError):
                    setattr(ev, ev._fields[0], 0)  # frozen: events are values
                seen.add(type(ev))
    assert seen == set(EVENT_TYPES)


def _mutable_pairs(a: Any, b: Any, path: str) -> list[str]:
    """Paths where `a` and `b` (same shape) share one mutable object, searched recursively."""
    if isinstance(a, (str, bytes, int, float, bool, type(None), enum.Enum)):
        return []
    shared = []
    mutable = isinstance(a, (list, dict, set, bytearray, Game)) or (
        dataclasses.is_dataclass(a) and not type(a).__dataclass_params__.frozen  # type: ignore[union-attr]
    )
    if mutable and a is b:
        shared.append(path)
    if isinstance(a, Game):
        assert set(vars(a)) == set(vars(b))
        for name in vars(a):
            shared += _mutable_pairs(getattr(a, name), getattr(b, name), f"{path}.{name}")
    elif isinstance(a, dict):
        for key in a:
            shared += _mutable_pairs(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            shared += _mutable_pairs(x, y, f"{path}[{i}]")
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            shared += _mutable_pairs(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    return shared


def _state(game: Game) -> dict[str, Any]:
    """Everything the game holds, deep-copied, for comparing before and after."""
    return {name: copy.deepcopy(value) for name, value in vars(game).items() if name != "last_table"} | {
        "last_table": None if game.last_table is None else _state(game.last_table)
    }


@pytest.mark.pure  # vars(): a Game compiled by mypyc has no __dict__
@pytest.mark.parametrize("stop", [0, 1, 5, 40, 150, 10_000])
def test_clone_shares_no_mutable_state(stop: int) -> None:
    game = random_game(3, stop)
    twin = game.clone()
    assert _mutable_pairs(game, twin, "game") == []
    assert _state(twin) == _state(game)
    before = _state(game)
    # Play on the clone: the original stays exactly as it was, and the other way round.
    rng = random.Random(9)
    while not twin.over:
        if twin.chance is not None:
            order = list(twin.chance)
            rng.shuffle(order)
            twin.apply_shuffle(order)
        else:
            twin.apply(rng.choice(twin.legal_actions()))
    assert _state(game) == before
    frozen = _state(twin)
    other = game.clone()
    while not game.over:
        if game.chance is not None:
            game.apply_shuffle(list(game.chance))
        else:
            game.apply(game.legal_actions()[-1])
    assert _state(twin) == frozen
    assert _state(other) == before


@pytest.mark.pure  # vars(), through _state
def test_last_table_is_the_hole_as_it_ended_before_its_cards_turned_up() -> None:
    g = new_game("standard", holes=2, turn_limit=1)
    deal(g, [SPADES, HEARTS], "7C", ["AC", "AD"])
    play(g, "stock", "swap:2", "stock", "swap:3")  # D8: one turn each ends the hole
    table = g.last_table
    assert table is not None and table.last_table is None
    assert len(g.results) == 1 and g.hole == 1
    assert tuple(tuple(grid) for grid in table.grids) == g.results[-1].grids
    assert [slot_up(table, 0, i) for i in range(6)] == [False, False, True, False, False, False]
    assert len(table.stock) == 52 - 13 - 2
    assert g.events == [] and [type(e) for e in table.events] == [DrawEvent, SwapEvent] * 2
    assert events_for(g, 1, finished=True) == events_for(table, 1)
    # The table kept is a copy: the next hole does not change it.
    before = _state(table)
    deal(g, [HEARTS, SPADES], "7C")
    play(g, "stock", "swap:0")
    assert _state(table) == before


def test_an_action_built_by_hand_is_as_legal_as_the_interned_one() -> None:
    g = new_game("standard")
    deal(g, [SPADES, HEARTS], "7C", ["AC"])
    by_hand = Action(ActionKind.DRAW_STOCK)
    assert by_hand is not Action.parse("stock") and by_hand == Action.parse("stock")
    g.apply(by_hand)
    g.apply(Action(ActionKind.SWAP, 2))
    assert grid_names(g, 0)[2] == "AC"
    with pytest.raises(IllegalAction, match="not legal now"):
        g.apply(Action(ActionKind.SWAP, 2))


@pytest.mark.parametrize("text", [5, None, ["stock"], "", "stock:1", "swap", "swap:03", "swap: 3", "target:1", "dance"])
def test_a_malformed_action_is_a_value_error_in_either_build(text: Any) -> None:
    # A log or a bot may hold anything: never a TypeError, also where mypyc compiled the engine.
    with pytest.raises(ValueError, match="action"):
        Action.parse(text)
