"""Every kit reads every field of hello.rules, and its points helper scores cards as golfref does.

A differential test through each kit's own program: tests/kit_echo/ holds one bot per kit,
built on that kit's library and its `play` loop, whose answer to every request is a JSON text
of what the kit read: hello.rules as the kit's Rules type holds it, and the points the kit's
helper gives every card of the view (`golf_points`, `cardPoints`, `Rules::points`,
`card_points`). For many random rule sets (every house option drawn, alone and together,
with random card tables and suit values) the test sends that hello and requests whose
grids, pile and drawn card hold every card of the shoe, and compares the answers with
`hello_rules` and with golfref's scorer (`card_points`, the one card table and suit values).

No kit has a grid scorer: what a whole grid adds to its cards' points (cancelled lines,
blocks, joker_pair, negative_pairs, the column bonuses, exact_score) and the adjustments
between players (closer_penalty to tie_penalty) are read and exposed, not applied; this
test checks that each kit exposes them as hello carries them.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from golfref import PROTOCOL_VERSION
from golfref.game.cards import PLAIN_RANKS, PLAIN_SUITS, deck_set, parse_card
from golfref.game.rules import PRESETS, Rules, RulesError, resolve_rules
from golfref.game.scoring import card_points
from golfref.match.protocol import hello_rules

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parent.parent
KITS = ROOT / "kits"
ECHO = Path(__file__).resolve().parent / "kit_echo"
SCHEMA = json.loads((ROOT / "schemas" / "protocol.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
UNSEEN = 1000  # what each echo bot counts an unseen card (no card is worth it)
RULE_SETS = 40
LAYOUTS = ("2x3", "2x2", "3x3", "2x4", "1x1", "1x4", "3x2", "4x4")


def _tool(name: str, kit: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not on PATH: the {kit} kit needs it")
    return path


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the echo bots are built: a temporary folder, never the repository."""
    return tmp_path_factory.mktemp("kit-echo")


def echo_command(kit: str, build: Path) -> tuple[list[str], dict[str, str]]:
    """The command and extra environment of `kit`'s echo bot, built into `build` where it needs building."""
    if kit == "python":
        folder = build / "python"
        folder.mkdir(exist_ok=True)
        shutil.copy(KITS / "python" / "golfbot.py", folder / "golfbot.py")
        shutil.copy(ECHO / "echo.py", folder / "echo.py")
        return [sys.executable, "-B", str(folder / "echo.py")], {}
    if kit == "javascript":
        return [_tool("node", kit), str(ECHO / "echo.js")], {"GOLFBOT_JS": str(KITS / "javascript" / "golfbot.js")}
    out = build / f"{kit}-echo"
    if kit == "c":
        sources = [str(ECHO / "echo.c"), str(KITS / "c" / "golfbot.c"), str(KITS / "c" / "json.c")]
        flags = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I", str(KITS / "c")]
        command = [_tool("cc", kit), *flags, "-o", str(out), *sources]
    else:
        source = build / "echo.rs"
        source.write_text((ECHO / "echo.rs").read_text(encoding="utf-8").replace("@KIT@", str(KITS / "rust" / "src")))
        command = [_tool("rustc", kit), "--edition", "2021", "-D", "warnings", "-o", str(out), str(source)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [str(out)], {}


def _value(rng: random.Random, neutral: object, on: object, low: int = -30, high: int = 30) -> object:
    """An off/on/number option drawn: its neutral value half the time."""
    return rng.choice([neutral, neutral, on, rng.randint(low, high)])


def random_rules(rng: random.Random) -> Rules:
    """A playable rule set with every house option drawn (most of them off or neutral at times)."""
    while True:
        preset = rng.choice(list(PRESETS))
        players = rng.randint(2, PRESETS[preset]["max_players"])
        jokers = rng.choice(["off", "on", rng.randint(-10, 10)])
        ranks = [r.value for r in PLAIN_RANKS] + ([] if jokers == "off" else ["X"])
        cards = [r.value + s.value for r in PLAIN_RANKS for s in PLAIN_SUITS]
        layout = rng.choice(LAYOUTS)
        size = int(layout[0]) * int(layout[2])
        overrides: dict[str, Any] = {
            "layout": layout,
            "jokers": jokers,
            "twos": rng.choice([-2, 2]),
            "court_values": rng.choice(["10/10", "11/12"]),
            "knocking": rng.random() < 0.3,
            "block_bonus": _value(rng, "off", "on"),
            "card_values": {r: rng.randint(-100, 100) for r in rng.sample(ranks, rng.choice([0, 0, 1, 2, 5]))},
            "suit_values": {c: rng.randint(-100, 100) for c in rng.sample(cards, rng.choice([0, 0, 1, 2, 4]))},
            "negative_pairs": rng.choice(["cancel", "keep"]),
            "two_column_bonus": _value(rng, "off", "on"),
            "jack_columns_bonus": _value(rng, "off", "on"),
            "exact_score": rng.choice(["off", [21, 0], [rng.randint(-20, 40), rng.randint(-20, 40)]]),
            "closer_penalty": _value(rng, "off", "on"),
            "closer_bonus": _value(rng, "off", "on"),
            "low_score_bonus": _value(rng, "off", "on"),
            "tie_penalty": _value(rng, "off", "on"),
            "flip_instead_of_draw": rng.random() < 0.5,
            "flip_out": rng.choice(["off", "on", rng.randint(1, size)]),
            "flip_after_throw": rng.choice(["none", "may", "must", "endgame"]),
        }
        if jokers != "off":
            overrides["joker_count"] = rng.choice(["per_deck", rng.randint(1, 8)])
            overrides["joker_pair"] = _value(rng, "off", "on")
        if overrides["knocking"]:
            overrides["knock_penalty"] = rng.choice([0, 10, "double"])
        if rng.random() < 0.5:
            overrides["decks"] = rng.randint(1, 4)
        try:
            return resolve_rules(preset, overrides, players)
        except RulesError:
            continue  # a combination the rules reject (docs/RULES.md): draw again


def _requests(rng: random.Random, rules: Rules) -> list[dict[str, Any]]:
    """Requests whose grids, pile and drawn card between them hold every card of the shoe."""
    shoe = [card.name for card in deck_set(rules.decks, rules.jokers is not None, rules.joker_count)]
    out = []
    for rid in (1, 2, 3):
        cards = list(shoe)
        rng.shuffle(cards)
        grids = [
            [cards.pop() if rng.random() < 0.8 else None for _ in range(rules.cards)] for _ in range(rules.players)
        ]
        drawn = cards.pop()
        view = {
            "seat": 0, "hole": 0, "starter": 0, "to_move": 0, "decision": "place", "grids": grids,
            "face_up": [[c is not None for c in g] for g in grids], "discard": cards, "stock_size": 0,
            "drawn": drawn, "drawn_from": "stock", "power": None, "first_target": None, "closer": None,
            "knocker": None, "turns": [0] * rules.players, "totals": [0] * rules.players, "hole_scores": [],
        }  # fmt: skip
        out.append({"type": "request", "id": rid, "decision": "place", "view": view, "events": [],
                    "legal": ["throw"], "time_ms": 1000})  # fmt: skip
    return out


def _expected_rules(rules: Rules) -> dict[str, Any]:
    """hello.rules as every kit's echo writes it back: the layout as rows and cols."""
    out = hello_rules(rules)
    del out["layout"]
    return {**out, "rows": rules.rows, "cols": rules.cols}


def _points(text: str | None, rules: Rules) -> int:
    return UNSEEN if text is None else card_points(parse_card(text), rules)


@pytest.mark.parametrize("kit", ["python", "javascript", "c", "rust"])
def test_a_kit_reads_every_rules_field_and_scores_every_card_as_golfref(kit: str, build_dir: Path) -> None:
    argv, env = echo_command(kit, build_dir)
    rng = random.Random(24)
    seen: set[str] = set()
    for n in range(RULE_SETS):
        rules = random_rules(rng)
        seen |= {name for name, value in rules.house_dict().items() if value}
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "seat": 0,
                 "players": [f"p{i}" for i in range(rules.players)], "rules": hello_rules(rules),
                 "time": {"startup_ms": 1, "move_ms": 1, "bank_ms": 0, "increment_ms": 0, "grace_ms": 1}}  # fmt: skip
        requests = _requests(rng, rules)
        lines = [hello, *requests, {"type": "goodbye"}]
        for message in lines:
            VALIDATOR.validate(message)  # the test sends what the protocol says
        done = subprocess.run(
            argv, input="".join(json.dumps(m) + "\n" for m in lines), capture_output=True, text=True,
            env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", **env}, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0 and done.stderr == "", (n, done.stderr)
        answers = [json.loads(line) for line in done.stdout.splitlines()][1:]
        assert [a["id"] for a in answers] == [1, 2, 3], done.stdout
        for request, answer in zip(requests, answers, strict=True):
            echoed = json.loads(answer["action"])
            where = f"rule set {n} ({rules.house_dict()}), request {answer['id']}"
            assert echoed["rules"] == _expected_rules(rules), where
            view = request["view"]
            assert echoed["grids"] == [[_points(c, rules) for c in g] for g in view["grids"]], where
            assert echoed["discard"] == [_points(c, rules) for c in view["discard"]], where
            assert echoed["drawn"] == _points(view["drawn"], rules), where
    # The draw covers every house option the rules have (not only by chance, at this seed).
    house = {"card_values", "suit_values", "joker_count", "joker_pair", "negative_pairs", "two_column_bonus",
             "jack_columns_bonus", "exact_score", "closer_penalty", "closer_bonus", "low_score_bonus",
             "tie_penalty", "flip_instead_of_draw", "flip_out"}  # fmt: skip
    assert seen == house, house - seen


def test_the_random_rules_give_suits_their_own_points() -> None:
    # Without a suit value that differs from its rank's, the test above would not tell a kit that ignores suits.
    rng = random.Random(24)
    differing = 0
    for _ in range(RULE_SETS):
        rules = random_rules(rng)
        table = rules.card_table()
        differing += sum(1 for rank, _, points in rules.suit_values if table[rank] != points)
        _requests(rng, rules)  # the same draws as the test above
    assert differing >= 10
