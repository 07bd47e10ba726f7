"""The built-ins as bot programs (golfref/tools/builtin_bot.py), driven in-process over string streams.

tests/test_check_bot.py runs `golfref check-bot` on each as a real process.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys

import pytest

from golfref.game.engine import Game
from golfref.game.policies import POLICIES, make_policy
from golfref.game.rules import PRESETS, resolve_rules
from golfref.game.view import seat_view_from_json, view
from golfref.match import protocol
from golfref.tools.builtin_bot import main, parse_arguments, serve

from .games import turns

RULES = [
    resolve_rules("knock", {"knock_penalty": "double", "layout": "2x2"}, 3),
    resolve_rules("arena", {"block_bonus": -20, "jokers": -2, "card_powers": "on"}, 2),
    resolve_rules(
        "classic",
        {"card_values": {"K": -2}, "suit_values": {"JH": 0}, "exact_score": [21, 0], "tie_penalty": 5},
        3,
    ),
    resolve_rules("classic", {"jokers": -5, "joker_count": 1, "flip_instead_of_draw": True, "flip_out": 2}, 2),
    *(resolve_rules(p) for p in PRESETS),
]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.preset}-{r.layout}")
def test_hello_rules_read_back_to_the_same_rules(rules: object) -> None:
    assert protocol.rules_from_hello(protocol.hello_rules(rules)) == rules  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "name a built-in"),
        (["smart"], "unknown built-in 'smart'"),
        (["expert", "iterations"], "option 'iterations': write OPTION=VALUE"),
        (["expert", "iterations=many"], "the value must be an integer"),
        (["expert", "iterations=0"], "option iterations must be an integer from 1"),
        (["good", "seed=1"], "built-in 'good' has no option 'seed'"),
    ],
)
def test_bad_command_lines_are_refused(argv: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_arguments(argv)


def test_a_bad_command_line_exits_2_with_one_line_and_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expert", "depth=3"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "builtin_bot: built-in 'expert' has no option 'depth' (its options: iterations, seed)"
    assert lines[1].startswith("usage: python -m golfref.tools.builtin_bot NAME")


@pytest.mark.parametrize("name", POLICIES)
def test_the_program_answers_as_the_builtin_chooses(name: str) -> None:
    rules = resolve_rules("standard", {"layout": "2x2", "card_powers": "on", "holes": 1}, 2)
    options = {"iterations": 3} if name == "expert" else {}
    game, shuffler = Game(rules), random.Random(3)
    lines = [protocol.hello(0, ["a", "b"], protocol.hello_rules(rules), {"startup_ms": 1, "move_ms": 1})]
    expected = []
    policy = make_policy(name, rules, random.Random(0), options)
    request = 0
    for seat in turns(game, shuffler):
        legal = game.legal_actions()
        seen = view(game, seat)
        action = shuffler.choice(legal) if seat else policy.choose(seen, legal)
        if seat == 0:
            request += 1
            lines.append(json.dumps({"type": "request", "id": request, "view": seen.to_json(),
                                     "legal": [a.text for a in legal], "events": []}))  # fmt: skip
            expected.append({"type": "answer", "id": request, "action": action.text})
            assert seat_view_from_json(seen.to_json()) == seen
        game.apply(action)
    lines.append(protocol.goodbye())
    out = io.StringIO()
    serve(name, options, io.StringIO("\n".join(lines) + "\n"), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answers[0] == {"type": "ready", "name": f"golfref-{name}", "version": answers[0]["version"]}
    assert answers[1:] == expected and expected


@pytest.mark.process
def test_the_program_starts_without_the_config_reader_or_the_process_layer() -> None:
    """A built-in bot starts once per session and should start fast: it imports the game and the
    protocol, not jsonschema, yaml, typer or golfref's process layer (the referee's, not a bot's)."""
    heavy = ["jsonschema", "yaml", "typer", "golfref.config.match", "golfref.bots.bot_process"]
    probe = f"import sys, golfref.tools.builtin_bot; print([m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]", done.stdout
