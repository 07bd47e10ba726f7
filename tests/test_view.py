"""The one gate (view.py, D13): what each seat may and may not see, checked case by case."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from golfref.game.cards import Rank
from golfref.game.engine import Action, Decision, Game, Pile
from golfref.game.rules import resolve_rules
from golfref.game.view import SeatView, events_for, view

SPADES = ["AS", "2S", "3S", "4S", "5S", "6S"]
HEARTS = ["AH", "2H", "3H", "4H", "5H", "6H"]


def new_game(preset: str = "standard", players: int = 2, **options: Any) -> Game:
    options.setdefault("holes", 1)
    return Game(resolve_rules(preset, options, players))


def deal(
    game: Game, grids: Sequence[Sequence[str]], discard: str, stock: Sequence[str] = ()
) -> None:
    """Seat s gets grids[s]; then the discard starter; then `stock` on top of the rest."""
    by_name = {str(c): i for i, c in enumerate(game.cards)}
    chosen = [by_name[n] for n in [c for g in grids for c in g] + [discard, *stock]]
    game.apply_shuffle(chosen + [i for i in range(len(game.cards)) if i not in set(chosen)])


def play(game: Game, *actions: str) -> None:
    for text in actions:
        game.apply(Action.parse(text))


def grid(game: Game, viewer: int, seat: int) -> list[str | None]:
    return [None if c is None else str(c) for c in view(game, viewer).grids[seat]]


def drawn(game: Game, viewer: int) -> str | None:
    card = view(game, viewer).drawn
    return None if card is None else str(card)


def test_peeked_card_is_hidden_from_the_others() -> None:
    g = new_game("standard", players=3, layout="2x2")  # fixed peek of slots 0, 1
    deal(g, [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"], ["AD", "2D", "3D", "4D"]], "5C")
    assert grid(g, 0, 0) == ["AS", "2S", None, None]
    for other in (1, 2):
        assert grid(g, other, 0) == [None] * 4
    assert view(g, 2).face_up[0] == (False,) * 4


def test_stock_drawn_card_is_visible_only_to_the_drawer() -> None:
    g = new_game("standard", players=3)
    deal(g, [SPADES, HEARTS, ["AD", "2D", "3D", "4D", "5D", "6D"]], "7C", ["9C"])
    play(g, "stock")
    assert drawn(g, 0) == "9C"
    for other in (1, 2):
        v = view(g, other)
        assert v.drawn is None and v.drawn_from is Pile.STOCK
    assert events_for(g, 0)[-1] == {"event": "draw", "seat": 0, "from": "stock", "card": "9C"}
    assert events_for(g, 1)[-1] == {"event": "draw", "seat": 0, "from": "stock", "card": None}
    # Once thrown it is public.
    play(g, "throw")
    assert str(view(g, 1).discard[-1]) == "9C"
    assert events_for(g, 2)[-1] == {"event": "throw", "seat": 0, "card": "9C"}


def test_discard_drawn_card_is_visible_to_all() -> None:
    g = new_game("standard")
    deal(g, [SPADES, HEARTS], "7C")
    play(g, "discard")
    assert drawn(g, 0) == "7C" and drawn(g, 1) == "7C"
    assert view(g, 1).drawn_from is Pile.DISCARD
    assert view(g, 1).discard == ()
    assert events_for(g, 1)[-1] == {"event": "draw", "seat": 0, "from": "discard", "card": "7C"}
    play(g, "swap:4")
    assert grid(g, 1, 0)[4] == "7C"
    assert [str(c) for c in view(g, 1).discard] == ["5S"]


def test_queen_peek_result_is_private() -> None:
    g = new_game("standard", players=3, card_powers=True)
    deal(g, [SPADES, HEARTS, ["AD", "2D", "3D", "4D", "5D", "6D"]], "7C", ["QC"])
    play(g, "stock", "power", "target:2:5")
    assert grid(g, 0, 2)[5] == "6D"
    assert grid(g, 1, 2)[5] is None and grid(g, 2, 2)[5] is None
    peek = {"event": "power_peek", "seat": 0, "target": [2, 5]}
    assert events_for(g, 0)[-1] == {**peek, "card": "6D"}
    assert events_for(g, 1)[-1] == {**peek, "card": None}
    assert events_for(g, 2)[-1] == {**peek, "card": None}


def test_king_swap_keeps_who_knows_each_card() -> None:
    g = new_game("standard", card_powers=True)  # seat 0 knows AS 2S, seat 1 knows AH 2H
    deal(g, [SPADES, HEARTS], "7C", ["KC"])
    play(g, "stock", "power", "target:0:0", "target:1:5")
    # AS (known to seat 0) is now seat 1's slot 5; 6H (known to nobody) seat 0's slot 0.
    assert grid(g, 0, 1)[5] == "AS" and grid(g, 1, 1)[5] is None
    assert grid(g, 0, 0)[0] is None and grid(g, 1, 0)[0] is None
    assert view(g, 0).face_up[1][5] is False


def test_face_down_swap_from_the_stock_is_hidden_from_the_others() -> None:
    g = new_game("arena", layout="2x2", reveal_count=0)
    deal(g, [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"]], "5C", ["9C"])
    play(g, "stock", "swap:1")
    assert grid(g, 0, 0) == [None, "9C", None, None]
    assert grid(g, 1, 0) == [None] * 4
    assert "9C" not in json.dumps(events_for(g, 1))
    assert "9C" in json.dumps(events_for(g, 0))


def test_view_never_carries_the_stock_order() -> None:
    g = new_game("standard")
    deal(g, [SPADES, HEARTS], "7C", ["KD", "QD", "JD"])
    names = set(view(g, 0).to_json())
    assert not any("stock" in n for n in names - {"stock_size"})
    assert isinstance(view(g, 0), SeatView)
    for seat in (0, 1):
        data = json.dumps(view(g, seat).to_json())
        assert view(g, seat).stock_size == len(g.stock) == 39
        for hidden in ("KD", "QD", "JD", "3S", "3H"):
            assert f'"{hidden}"' not in data


def test_events_for_start_skips_earlier_events() -> None:
    g = new_game("standard")
    deal(g, [SPADES, HEARTS], "7C", ["9C", "TC"])
    play(g, "stock", "swap:2", "stock", "swap:3")
    every = events_for(g, 1)
    assert len(every) == 4
    assert events_for(g, 1, 2) == every[2:]
    assert events_for(g, 1, 4) == []


def test_every_card_is_visible_once_the_match_is_scored() -> None:
    g = new_game("standard", layout="1x2", turn_limit=1)
    deal(g, [["AS", "3S"], ["AH", "3H"]], "7C")
    play(g, "stock", "throw", "flip:0", "stock", "throw", "flip:0")
    assert g.over
    assert grid(g, 1, 0) == ["AS", "3S"] and grid(g, 0, 1) == ["AH", "3H"]
    assert view(g, 0).hole_scores == ((4, 4),) and view(g, 1).totals == (4, 4)


def test_view_values_are_enums_and_json_writes_their_words() -> None:
    g = new_game("standard", card_powers=True)
    deal(g, [SPADES, HEARTS], "7D", ["JC"])
    play(g, "stock")
    v = view(g, 0)
    assert (v.decision, v.drawn_from, v.power) == (Decision.PLACE, Pile.STOCK, None)
    assert (v.to_json()["decision"], v.to_json()["drawn_from"]) == ("place", "stock")
    play(g, "power")
    v = view(g, 1)
    assert (v.decision, v.drawn_from, v.power) == (Decision.TARGET, None, Rank.JACK)
    assert (v.to_json()["decision"], v.to_json()["drawn_from"], v.to_json()["power"]) == ("target", None, "J")
