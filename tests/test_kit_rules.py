"""Every kit reads every field of hello.rules and scores cards, grids and holes as golfref does.

A differential test through each kit's own program: tests/kit_echo/ holds one bot per kit,
built on that kit's library and its `play` loop, whose answer to every request is a JSON text
of what the kit read and scored: hello.rules as the kit's Rules type holds it, the points of
every card of the view (`card_points`, `cardPoints`, `golf_points`, `Rules::points`), each
grid's score and every seat's hole score (`grid_score` and `hole_scores` by each kit's name).
For random rule sets (every house option drawn, with random card tables, suit values, cancel
modes, lines and pair scopes) the test sends that hello and requests whose cards are the
whole shoe, or, every card seen, grids of a few ranks (so that lines, pairs and blocks
cancel and jokers pair; among them a negative rank beside one that is not, and mostly
jokers, for docs/RULES.md's G18 to G20) with a random closer and knocker; it compares the
answers with `hello_rules` and golfref's scorer (`card_points`, `score_grid`,
`exact_scored`, `hole_scores`). tests/test_golfgame_scoring.py holds the Python kit's scorer
to the golfgame server's own numbers too.
"""

from __future__ import annotations

import json
import random
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from golfref import PROTOCOL_VERSION
from golfref.game.cards import PLAIN_RANKS, PLAIN_SUITS, Card, Rank, deck_set, parse_card
from golfref.game.rules import HOUSE_OPTIONS, PRESETS, Cancel, NegativePairs, Rules, RulesError, resolve_rules
from golfref.game.scoring import GridScore, block_slots, card_points, exact_scored, hole_scores, score_grid
from golfref.match.protocol import hello_rules
from tests.kitbuild import KIT_NAMES, kit_bot, usable

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parent.parent
ECHO = Path(__file__).resolve().parent / "kit_echo"
SCHEMA = json.loads((ROOT / "schemas" / "protocol.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
UNSEEN = 1000  # what each echo bot counts an unseen card (no card is worth it)
RULE_SETS = 40
LAYOUTS = ("2x3", "2x2", "3x3", "2x4", "1x1", "1x4", "3x2", "4x4")


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the echo bots are built: a temporary folder, never the repository."""
    return tmp_path_factory.mktemp("kit-echo")


def echo_command(kit: str, build: Path) -> list[str]:
    """The command of `kit`'s echo bot (tests/kit_echo/echo.*, written as the kit's example), built in `build`."""
    (source,) = ECHO.glob(f"echo{Path(usable(kit).example).suffix}")
    return kit_bot(kit, build / kit, source.read_text(encoding="utf-8"))


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
        if rng.random() < 0.5:
            overrides["cancel"] = rng.choice(["line", "pairs"])
            if overrides["cancel"] == "line":
                overrides["lines"] = rng.choice(["columns", "columns+rows", "columns+rows+diagonals"])
            else:
                overrides["pair_scope"] = rng.choice(["columns", "columns+rows", "grid"])
        try:
            return resolve_rules(preset, overrides, players)
        except RulesError:
            continue  # a combination the rules reject (docs/RULES.md): draw again


def _view(
    rules: Rules, grids: list[list[str | None]], pile: list[str], closer: int | None, knocker: int | None
) -> dict[str, Any]:
    return {
        "seat": 0, "hole": 0, "starter": 0, "to_move": 0, "decision": "place", "grids": grids,
        "face_up": [[c is not None for c in g] for g in grids], "discard": pile[:-1], "stock_size": 0,
        "drawn": pile[-1], "drawn_from": "stock", "power": None, "first_target": None, "closer": closer,
        "knocker": knocker, "turns": [0] * rules.players, "totals": [0] * rules.players, "hole_scores": [],
    }  # fmt: skip


def _seen_view(rng: random.Random, rules: Rules, shoe: list[str], ranks: list[str]) -> dict[str, Any]:
    """A view whose grids are all seen, drawn from the cards of `ranks` (a rank named twice comes twice as
    often), with a random closer and knocker."""
    few = [name for name in shoe for _ in range(ranks.count(name[0]))]
    full: list[list[str | None]] = [[rng.choice(few) for _ in range(rules.cards)] for _ in range(rules.players)]
    closer = rng.choice([None, *range(rules.players)])
    knocker = rng.choice([None, *range(rules.players)]) if rules.knocking else None
    return _view(rules, full, [rng.choice(shoe)], closer, knocker)


def _requests(rng: random.Random, house: random.Random, rules: Rules) -> list[dict[str, Any]]:
    """Requests 1 to 3: grids, pile and drawn card holding every card of the shoe, some unseen.

    Every card seen from request 4 on, grids drawn from a few ranks. Requests 4 to 6: a few
    at random (so that lines, pairs and blocks cancel, jokers pair, and ties come). Requests
    7 to 9, drawn from `house` so that the others stay as they were: a negative rank beside
    one that is not (a pair group holding both, G18; a block of either, G19), then jokers
    beside another rank, then mostly jokers (blocks and earlier lines taking some jokers of a
    line, G20), each where the shoe has them.
    """
    shoe = [card.name for card in deck_set(rules.decks, rules.jokers is not None, rules.joker_count)]
    views = []
    for _ in range(3):
        cards = list(shoe)
        rng.shuffle(cards)
        grids = [
            [cards.pop() if rng.random() < 0.8 else None for _ in range(rules.cards)] for _ in range(rules.players)
        ]
        views.append(_view(rules, grids, cards, None, None))
    ranks = sorted({name[0] for name in shoe})
    for _ in range(3):
        views.append(_seen_view(rng, rules, shoe, rng.sample(ranks, rng.choice([1, 2, 3]))))
    points = {rank.value: v for rank, v in rules.card_table().items()}
    negative = [r for r in ranks if points[r] < 0] or ranks
    other = [r for r in ranks if points[r] >= 0] or ranks
    jokers = ["X"] if "X" in ranks else ranks
    for few in (
        [house.choice(negative), house.choice(other)],
        [house.choice(jokers), house.choice(ranks)],
        [house.choice(jokers)] * 4 + [house.choice(ranks)],
    ):
        views.append(_seen_view(house, rules, shoe, few))
    return [
        {"type": "request", "id": i + 1, "decision": "place", "view": v, "events": [], "legal": ["throw"],
         "time_ms": 1000}
        for i, v in enumerate(views)
    ]  # fmt: skip


def _expected_rules(rules: Rules) -> dict[str, Any]:
    """hello.rules as every kit's echo writes it back: the layout as rows and cols."""
    out = hello_rules(rules)
    del out["layout"]
    return {**out, "rows": rules.rows, "cols": rules.cols}


def _points(text: str | None, rules: Rules) -> int:
    return UNSEEN if text is None else card_points(parse_card(text), rules)


@dataclass(frozen=True)
class Case:
    """One rule set: the lines sent to a kit's echo bot, and what each answer must hold."""

    rules: Rules
    lines: tuple[dict[str, Any], ...]
    expected: tuple[dict[str, Any], ...]
    """Per request: the rules and every card's points, and for a grid of cards all seen its scores."""


def _expected(rules: Rules, view: dict[str, Any]) -> dict[str, Any]:
    out = {
        "rules": _expected_rules(rules),
        "grids": [[_points(c, rules) for c in g] for g in view["grids"]],
        "discard": [_points(c, rules) for c in view["discard"]],
        "drawn": _points(view["drawn"], rules),
    }
    if all(c is not None for g in view["grids"] for c in g):
        scored = [_grid_total(g, rules) for g in view["grids"]]
        out["grid_scores"] = [exact_scored(t, rules) for t in scored]
        out["hole_scores"] = hole_scores(scored, rules, view["closer"], view["knocker"])
    return out


@cache
def cases() -> tuple[Case, ...]:
    """The rule sets and requests every kit is sent (drawn from a fixed seed), checked against the schema once."""
    rng, house = random.Random(24), random.Random(37)
    out = []
    for _ in range(RULE_SETS):
        rules = random_rules(rng)
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "seat": 0,
                 "players": [f"p{i}" for i in range(rules.players)], "rules": hello_rules(rules),
                 "time": {"startup_ms": 1, "move_ms": 1, "bank_ms": 0, "increment_ms": 0, "grace_ms": 1}}  # fmt: skip
        requests = _requests(rng, house, rules)
        lines = (hello, *requests, {"type": "goodbye"})
        for message in lines:
            VALIDATOR.validate(message)  # the test sends what the protocol says
        out.append(Case(rules, lines, tuple(_expected(rules, r["view"]) for r in requests)))
    return tuple(out)


@pytest.mark.parametrize("kit", KIT_NAMES)
def test_a_kit_reads_every_rules_field_and_scores_as_golfref(kit: str, build_dir: Path) -> None:
    argv = echo_command(kit, build_dir)
    for n, case in enumerate(cases()):
        done = subprocess.run(
            argv, input="".join(json.dumps(m) + "\n" for m in case.lines), capture_output=True, text=True,
            env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0 and done.stderr == "", (n, done.stderr)
        answers = [json.loads(line) for line in done.stdout.splitlines()][1:]
        assert [a["id"] for a in answers] == list(range(1, len(case.expected) + 1)), done.stdout
        for request, answer, expected in zip(case.lines[1:], answers, case.expected, strict=False):
            echoed = json.loads(answer["action"])
            where = f"rule set {n} ({case.rules.house_dict()}), request {answer['id']}: {request['view']['grids']}"
            assert {k: echoed[k] for k in expected} == expected, where


def test_the_cases_hold_what_the_kits_must_get_right() -> None:
    # Not only by chance at this seed: every house option, suit values that differ from their rank's, and
    # scored grids where each rule of scoring comes into play.
    seen: set[str] = set()
    differing = scored = 0
    shown: set[str] = set()
    for case in cases():
        rules = case.rules
        seen |= {name for name, value in rules.house_dict().items() if value}
        differing += sum(1 for rank, _, points in rules.suit_values if rules.card_table()[rank] != points)
        for request, expected in zip(case.lines[1:], case.expected, strict=False):
            if "grid_scores" not in expected:
                continue
            scored += 1
            view = request["view"]
            shown |= {"knocker"} if view["knocker"] is not None else set()
            for grid in view["grids"]:
                cards = [parse_card(text) for text in grid]
                result = score_grid([c.rank for c in cards], rules, [c.suit for c in cards])
                shown |= {line.kind for line in result.cancelled} | ({"block"} if result.blocks else set())
                shown |= {"bonus"} if result.bonus else set()
                if rules.exact_score is not None and result.total == rules.exact_score[0]:
                    shown.add("exact_score")
                jokers = [line for line in result.cancelled if all(cards[s].rank is Rank.JOKER for s in line.slots)]
                shown |= {"joker_pair"} if jokers and rules.joker_pair is not None else set()
                shown |= _house_lines(rules, cards, result)
    assert seen == set(HOUSE_OPTIONS), set(HOUSE_OPTIONS) - seen
    assert differing >= 10 and scored >= 3 * RULE_SETS
    want = {"column", "row", "diagonal", "grid", "block", "bonus", "exact_score", "joker_pair", "knocker"}
    want |= {"pairs_keep_mixed", "block_keep", "joker_partly_decided"}
    assert shown == want, want - shown


def _house_lines(rules: Rules, cards: list[Card], result: GridScore) -> set[str]:
    """Which of the cases of docs/RULES.md's G18 to G20 a scored grid holds.

    `pairs_keep_mixed`: with `cancel: pairs` and `negative_pairs: keep`, a group cancels a
    negative rank and one that is not. `block_keep`: with `keep`, a line through a block
    decides a card, and the block's cards are negative by their shares but not by their own
    points, or the other way round. `joker_partly_decided`: with `joker_pair`, a line of jokers
    some of whose cards a block or an earlier line decided.
    """
    own = [card_points(card, rules) for card in cards]
    blocked = {s for top_left in result.blocks for s in block_slots(top_left, rules.cols)}
    keep = rules.negative_pairs is NegativePairs.KEEP
    done = set(blocked)
    out = set()
    for group in result.cancelled:
        lines: dict[Rank, set[int]] = {}
        for s in group.slots:
            lines.setdefault(cards[s].rank, set()).add(s)
        signs = {any(own[s] < 0 for s in line) for line in lines.values()}
        if keep and rules.cancel is Cancel.PAIRS and len(signs) == 2:
            out.add("pairs_keep_mixed")
        for rank, line in lines.items():
            by_share = any((result.points[s] if s in blocked else own[s]) < 0 for s in line)
            if keep and line & blocked and line - done and by_share != any(own[s] < 0 for s in line):
                out.add("block_keep")
            if rules.joker_pair is not None and rank is Rank.JOKER and line & done and line - done:
                out.add("joker_partly_decided")
            done |= line
    return out


def _grid_total(grid: list[str], rules: Rules) -> int:
    cards = [parse_card(text) for text in grid]
    return score_grid([c.rank for c in cards], rules, [c.suit for c in cards]).total
