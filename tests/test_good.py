"""The `good` built-in (golfref/game/good.py) is the sample bot's heuristic: the same choice on the same view.

The sample bot (sample_matches/bots/greedy_bot.py) stays a standalone program for authors
to read; here both decide every position of many matches, each from its own form of the
same view (the policy from the `SeatView`, the sample from the `golfbot.View` a request
carries), over every preset and the options its heuristic reads.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from golfref.game.engine import Action, Game
from golfref.game.good import GoodPolicy
from golfref.game.policies import RandomPolicy
from golfref.game.rules import PRESETS, Rules, resolve_rules
from golfref.game.view import SeatView, view
from golfref.kit import golfbot
from golfref.match.protocol import hello_rules

from .games import turns

SAMPLE = Path(__file__).resolve().parent.parent / "sample_matches" / "bots" / "greedy_bot.py"

RULE_SETS = {
    **{
        f"{p}-{layout}": resolve_rules(p, {"layout": layout, "holes": 2}, 3)
        for p in PRESETS
        for layout in ("2x2", "2x3")
    },
    "powers": resolve_rules("standard", {"layout": "2x3", "holes": 2, "card_powers": "on"}, 3),
    "pairs-grid": resolve_rules("knock", {"layout": "3x3", "holes": 1, "pair_scope": "grid"}, 2),
    "pairs-rows": resolve_rules("knock", {"layout": "2x4", "holes": 1, "pair_scope": "columns+rows"}, 2),
    "diagonals": resolve_rules("arena", {"layout": "3x3", "holes": 1, "lines": "columns+rows+diagonals"}, 2),
    "jokers-courts": resolve_rules("classic", {"holes": 1, "jokers": -5, "court_values": "11/12", "decks": 2}, 4),
    "face-down": resolve_rules("arena", {"layout": "2x2", "holes": 2, "card_powers": "on"}, 2),
    "may-flip": resolve_rules("classic", {"layout": "2x3", "holes": 2, "flip_after_throw": "may"}, 2),
}


@pytest.fixture(scope="module")
def sample() -> ModuleType:
    """The sample bot as a module (its golfbot.py beside it), without writing bytecode there."""
    spec = importlib.util.spec_from_file_location("greedy_bot_sample", SAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    was_path, was_flag = list(sys.path), sys.dont_write_bytecode
    sys.path.insert(0, str(SAMPLE.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = was_path
        sys.dont_write_bytecode = was_flag
    return module


def positions(rules: Rules, seed: int) -> Iterator[tuple[SeatView, tuple[Action, ...]]]:
    """Every decision of a match in which seat 0 plays `good` and the others play at random."""
    game = Game(rules)
    rng = random.Random(seed)
    players = [GoodPolicy(rules), *(RandomPolicy(random.Random(seed + s)) for s in range(1, rules.players))]
    for seat in turns(game, rng):
        legal = game.legal_actions()
        seen = view(game, seat)
        yield seen, legal
        game.apply(players[seat if seat == 0 else rng.randrange(rules.players)].choose(seen, legal))


def as_request(seen: SeatView, legal: tuple[Action, ...]) -> dict[str, Any]:
    return {"type": "request", "id": 1, "view": seen.to_json(), "legal": [a.text for a in legal], "events": []}


@pytest.mark.parametrize("rules_id", list(RULE_SETS))
def test_good_chooses_as_the_sample_bot_does(sample: ModuleType, rules_id: str) -> None:
    rules = RULE_SETS[rules_id]
    kit_rules = golfbot.Rules.from_json(hello_rules(rules))
    time = golfbot.TimeControl(startup_ms=1, move_ms=1, bank_ms=0, increment_ms=0, grace_ms=0)
    good = GoodPolicy(rules)
    compared = 0
    for seed in range(4):
        for seen, legal in positions(rules, seed):
            request = as_request(seen, legal)
            theirs = sample.choose(golfbot.View.from_request(request, kit_rules, time), request["legal"])
            ours = good.choose(seen, legal)
            assert ours in legal
            assert ours.text == theirs, (rules_id, seed, request)
            compared += 1
    assert compared > 50
