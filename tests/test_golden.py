"""Golden playthroughs: a few small recorded games pinned decision by decision.

Each scenario is a deterministic game: `random.Random(seed)` supplies every shuffle and picks
uniformly among the legal actions (the test's own chooser, so a change to the built-in
policies never moves these files). `tests/golden/<scenario>.json` pins, for every decision,
the seat to move, `SeatView.to_json()` for that seat, `events_for(game, seat, start)` (the
events of the hole that seat has not been given yet), the legal actions as strings and the
action taken; and every shuffle (as card names), each hole result and the final placings.
The test regenerates each game and compares it with its file, naming the first difference.

After an intended change to the engine, the view or the rules, regenerate and review the
diff of `tests/golden/` before committing it:

    .venv/bin/python -m tests.test_golden --update
    GOLDEN_UPDATE=1 .venv/bin/python -m pytest tests/test_golden.py
"""

from __future__ import annotations

import difflib
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from golfref.game.engine import Game, HoleResult
from golfref.game.rules import resolve_rules
from golfref.game.view import events_for, view

GOLDEN = Path(__file__).parent / "golden"

# Every scoring house rule of the golfgame server at once (docs/RULES.md's table), on 2x3 with one deck.
GOLFGAME_ALL: dict[str, Any] = {
    "decks": 1,
    "holes": 1,
    "jokers": -2,
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

# name: (preset, overrides, players, seed)
SCENARIOS: dict[str, tuple[str, dict[str, Any], int, int]] = {
    "standard_2p_2x2": ("standard", {"layout": "2x2", "holes": 1}, 2, 23),
    "knock_3p": ("knock", {"holes": 1}, 3, 98),
    "arena_2p_2x2_powers": ("arena", {"layout": "2x2", "card_powers": True, "holes": 1}, 2, 1548),
    # The gameplay house options (docs/RULES.md, "House options"), and the scoring ones in play.
    "classic_2p_2x2_endgame_flip": ("classic", {"layout": "2x2", "flip_after_throw": "endgame", "holes": 1}, 2, 36),
    "classic_2p_2x2_flip_instead_of_draw": (
        "classic",
        {"layout": "2x2", "flip_instead_of_draw": True, "holes": 1},
        2,
        1,
    ),
    "classic_2p_2x3_flip_out": ("classic", {"flip_out": 2, "holes": 1}, 2, 0),
    "classic_3p_house_scoring": ("classic", GOLFGAME_ALL, 3, 2),
}

# What each scenario is there to show (actions taken, `target-K` for a king's target, ...,
# `end-...` for how the hole ended); checked so a re-seed cannot lose it silently.
MUST_SHOW: dict[str, set[str]] = {
    "standard_2p_2x2": {"stock", "discard", "swap", "throw", "flip", "end-closed"},
    "knock_3p": {"reveal", "stock", "throw", "knock", "end-knocked", "penalty"},
    "arena_2p_2x2_powers": {"reveal", "power", "target-K", "target-J", "knock", "end-knocked"},
    "classic_2p_2x2_endgame_flip": {"throw", "flip", "pass", "end-closed"},
    "classic_2p_2x2_flip_instead_of_draw": {"flip", "end-closed"},
    "classic_2p_2x3_flip_out": {"flip_out", "end-closed"},
    "classic_3p_house_scoring": {"reveal", "end-closed", "penalty"},
}


def _result_json(game: Game, r: HoleResult) -> dict[str, Any]:
    return {
        "hole": r.hole,
        "starter": r.starter,
        "end": r.end.value,
        "ender": r.ender,
        "grids": [[str(game.cards[c]) for c in g] for g in r.grids],
        "grid_scores": [gs.total for gs in r.grid_scores],
        "penalties": list(r.penalties),
        "scores": list(r.scores),
        "totals": list(r.totals),
        "turns": list(r.turns),
    }


def record(name: str) -> dict[str, Any]:
    """Play scenario `name` and record every shuffle and decision."""
    preset, overrides, players, seed = SCENARIOS[name]
    rules = resolve_rules(preset, overrides, players)
    rng = random.Random(seed)
    game = Game(rules)
    steps: list[dict[str, Any]] = []
    given = [0] * players  # events of the current hole already given to each seat
    hole = game.hole
    while not game.over:
        if game.hole != hole:
            hole, given = game.hole, [0] * players
        if game.chance is not None:
            order = list(game.chance)
            rng.shuffle(order)
            game.apply_shuffle(order)
            steps.append({"shuffle": [str(game.cards[c]) for c in order]})
            continue
        seat = game.to_move
        assert seat is not None
        legal = game.legal_actions()
        new_events = events_for(game, seat, given[seat])
        given[seat] += len(new_events)
        action = rng.choice(legal)
        steps.append(
            {
                "seat": seat,
                "view": view(game, seat).to_json(),
                "events": new_events,
                "legal": [str(a) for a in legal],
                "action": str(action),
            }
        )
        game.apply(action)
    data = {
        "scenario": name,
        "preset": preset,
        "overrides": overrides,
        "players": players,
        "seed": seed,
        "rules": rules.to_dict(),
        "steps": steps,
        "results": [_result_json(game, r) for r in game.results],
        "placings": list(game.placings()),
    }
    normal: dict[str, Any] = json.loads(json.dumps(data))  # tuples to lists, as when read back
    return normal


def dumps(data: dict[str, Any]) -> str:
    """JSON with one step or result per line, so a diff points at the decision that moved."""
    lines = ["{"]
    items = list(data.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append(f" {json.dumps(key)}: [")
            last = len(value) - 1
            lines += [f"  {json.dumps(v)}{',' if j < last else ''}" for j, v in enumerate(value)]
            lines.append(f" ]{comma}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def path_for(name: str) -> Path:
    return GOLDEN / f"{name}.json"


def update(names: list[str] | None = None) -> list[Path]:
    """Regenerate the golden files."""
    GOLDEN.mkdir(exist_ok=True)
    written = []
    for name in names or list(SCENARIOS):
        path = path_for(name)
        path.write_text(dumps(record(name)), encoding="utf-8")
        written.append(path)
    return written


def first_difference(expected: Any, actual: Any, where: str = "") -> str | None:
    """The path of the first difference between two JSON values, with both values."""
    if type(expected) is not type(actual):
        return f"{where or '.'}: expected {expected!r}, got {actual!r}"
    if isinstance(expected, dict):
        for key in list(expected) + [k for k in actual if k not in expected]:
            if key not in actual:
                return f"{where}.{key}: missing (expected {expected[key]!r})"
            if key not in expected:
                return f"{where}.{key}: unexpected {actual[key]!r}"
            found = first_difference(expected[key], actual[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(e, a, f"{where}[{i}]")
            if found:
                return found
        if len(expected) != len(actual):
            return f"{where}: expected {len(expected)} items, got {len(actual)}"
        return None
    if expected != actual:
        return f"{where or '.'}: expected {expected!r}, got {actual!r}"
    return None


def explain(name: str, expected: dict[str, Any], actual: dict[str, Any]) -> str:
    """Where the regenerated game first differs from its golden file, with a focused diff."""
    where = first_difference(expected, actual) or "(no structural difference)"
    old, new = expected, actual
    for key in ("steps", "results"):
        if where.startswith(f".{key}["):
            i = int(where[len(key) + 2 : where.index("]")])
            old = expected[key][i] if i < len(expected[key]) else {}
            new = actual[key][i] if i < len(actual[key]) else {}
            break
    diff = list(
        difflib.unified_diff(
            json.dumps(old, indent=1).splitlines(), json.dumps(new, indent=1).splitlines(),
            "golden", "regenerated", n=2, lineterm="",
        )
    )  # fmt: skip
    shown = "\n".join(diff[:60]) + (f"\n... {len(diff) - 60} more lines" if len(diff) > 60 else "")
    return (
        f"golden game {name!r} ({path_for(name)}) changed; first difference at {where}\n"
        f"{shown}\n"
        "If the change is intended, regenerate with `python -m tests.test_golden --update` "
        "and review the diff."
    )


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_golden_game(name: str) -> None:
    if os.environ.get("GOLDEN_UPDATE"):
        update([name])
    path = path_for(name)
    if not path.exists():
        pytest.fail(f"{path} is missing; create it with `python -m tests.test_golden --update`")
    expected = json.loads(path.read_text(encoding="utf-8"))
    actual = record(name)
    if expected != actual:
        pytest.fail(explain(name, expected, actual), pytrace=False)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_golden_game_shows_what_it_is_for(name: str) -> None:
    data = json.loads(path_for(name).read_text(encoding="utf-8"))
    decisions = [s for s in data["steps"] if "action" in s]
    shown = {s["action"].split(":")[0] for s in decisions}
    shown |= {f"target-{s['view']['power']}" for s in decisions if s["view"]["power"]}
    shown |= {f"end-{r['end']}" for r in data["results"]}
    if any(any(r["penalties"]) for r in data["results"]):
        shown.add("penalty")
    assert MUST_SHOW[name] <= shown, f"{name} no longer shows {MUST_SHOW[name] - shown}"
    assert len(data["results"]) == 1
    assert all(s["action"] in s["legal"] and s["view"]["seat"] == s["seat"] for s in decisions)


def test_first_difference_names_the_path() -> None:
    a = {"steps": [{"legal": ["stock", "discard"]}]}
    b = {"steps": [{"legal": ["stock", "knock"]}]}
    assert first_difference(a, b) == ".steps[0].legal[1]: expected 'discard', got 'knock'"
    assert first_difference(a, a) is None


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python -m tests.test_golden --update")
    for written in update():
        print(f"wrote {written}")
