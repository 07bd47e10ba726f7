"""The starter kits of kits/: each compiled (where needed) into a temporary folder and played
in whole matches against the sample bots, under every preset and the layouts and options
that stretch a bot most (8 players, 1x1 and 4x4 grids, several decks, jokers, card powers).
A kit passes a match when it finishes with no fault and nothing on the kit's stderr (the
kits' safety nets write there when `choose` fails or answers something illegal).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from golfref.botcheck import BotCommand, Outcome, check_bot
from golfref.config import TimeControl, parse_config
from golfref.referee import SeatStatus, run_match

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parent.parent
KITS = ROOT / "kits"
SAMPLES = ROOT / "sample_matches" / "bots"
SCHEMA = json.loads((ROOT / "schemas" / "protocol.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
GENEROUS = 30_000  # ms: a loaded CI box must never time a bot out here

KIT_NAMES = ("python", "javascript", "c", "rust")

# name: (rules, seats of the kit, seats of sample bots); 1 or 2 holes, so that a hole's
# end and the match's end are both reached.
MATCHES: dict[str, tuple[dict[str, Any], int, int]] = {
    "standard": ({"preset": "standard", "holes": 2}, 1, 2),
    "classic": ({"preset": "classic", "holes": 2}, 1, 2),
    "knock": ({"preset": "knock", "holes": 2}, 1, 2),
    "arena": ({"preset": "arena", "holes": 2}, 1, 2),
    "8-players": ({"preset": "classic", "holes": 1}, 2, 6),
    "1x1": ({"preset": "arena", "layout": "1x1", "holes": 2}, 1, 1),
    "4x4-2-decks-jokers-powers": (
        {"preset": "arena", "layout": "4x4", "decks": 2, "jokers": "on", "card_powers": True, "holes": 1},
        1,
        2,
    ),
    "3x3-lines-powers-may-flip": (
        {"preset": "standard", "layout": "3x3", "card_powers": True, "flip_after_throw": "may",
         "jokers": "on", "twos": 2, "court_values": "11/12", "holes": 1},
        2,
        1,
    ),
}

# Decisions the kit must have met in a match (the seeds are fixed): with card powers, the
# targets; with player reveals, the reveal; with flips after a throw, the flip.
EXPECTED = {
    "classic": {"reveal", "draw", "place"},
    "standard": {"draw", "place", "flip"},
    "4x4-2-decks-jokers-powers": {"reveal", "draw", "place", "target"},
    "3x3-lines-powers-may-flip": {"draw", "place", "flip", "target"},
}


def _tool(name: str, kit: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not on PATH: the {kit} kit needs it")
    return path


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where compiled kits go: a temporary folder, never the repository."""
    return tmp_path_factory.mktemp("kits")


_BUILT: dict[str, list[str]] = {}


def kit_command(kit: str, build: Path) -> list[str]:
    """The command that runs `kit`'s starter bot, compiled into `build` first if it needs it."""
    if kit in _BUILT:
        return _BUILT[kit]
    folder = KITS / kit
    if kit == "python":
        # -B: no __pycache__ written into the repository's kit.
        argv = [sys.executable, "-B", str(folder / "bot.py")]
    elif kit == "javascript":
        argv = [_tool("node", kit), str(folder / "bot.js")]
    elif kit == "c":
        out = build / "c-bot"
        sources = [str(folder / name) for name in ("bot.c", "golfbot.c", "json.c")]
        compiler = _tool("cc", kit)
        flags = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror"]
        done = subprocess.run([compiler, *flags, "-o", str(out), *sources], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        argv = [str(out)]
    else:
        out = build / "rust-bot"
        rustc = _tool("rustc", kit)
        done = subprocess.run(
            [rustc, "--edition", "2021", "-D", "warnings", "-o", str(out), str(folder / "src" / "main.rs")],
            capture_output=True, text=True,
        )
        assert done.returncode == 0, done.stderr
        argv = [str(out)]
    _BUILT[kit] = argv
    return argv


def _config(tmp_path: Path, rules: dict[str, Any], players: list[dict[str, Any]]) -> Any:
    data = {
        "match": "kit",
        "rules": {"turn_limit": 40, **rules},
        "players": players,
        "time": {"startup_ms": GENEROUS, "move_ms": GENEROUS},
        "log": {"path": str(tmp_path / "{match_id}.json")},
    }
    text = yaml.safe_dump(data, sort_keys=False)
    return parse_config(text, source=str(tmp_path / "match.yaml"), base_dir=tmp_path)


@pytest.mark.parametrize("match", MATCHES)
@pytest.mark.parametrize("kit", KIT_NAMES)
def test_kit_plays_a_whole_match_without_a_fault(kit: str, match: str, build_dir: Path, tmp_path: Path) -> None:
    rules, kits, samples = MATCHES[match]
    argv = kit_command(kit, build_dir)
    sample_bots = [[sys.executable, str(SAMPLES / "greedy_bot.py")], [sys.executable, str(SAMPLES / "random_bot.py")]]
    players = [{"name": f"{kit}-{i}", "command": argv} for i in range(kits)]
    players += [{"name": f"sample-{i}", "command": sample_bots[i % 2]} for i in range(samples)]
    result = run_match(_config(tmp_path, rules, players), seed=len(match) * 31 + len(kit))
    assert result.faults == (), [f.to_json() for f in result.faults]
    assert set(result.statuses) == {SeatStatus.OK}
    assert result.log["status"] == "finished"
    for player in result.log["players"][:kits]:
        assert not player["stderr"], player["stderr"]
        assert player["reported_name"] == f"{kit}-starter"
    steps = [step for hole in result.log["holes"] for step in hole["steps"] if "by" in step]
    assert {step["by"] for step in steps if step["seat"] < kits} == {"bot"}
    decisions = {step["decision"] for step in steps if step["seat"] < kits}
    assert decisions >= EXPECTED.get(match, {"draw", "place"}), decisions


def test_the_python_kit_answers_legal_0_when_choose_fails(tmp_path: Path) -> None:
    # A bug in a bot author's choose costs a good move, never a fault: the library's safety net.
    bot = tmp_path / "buggy.py"
    bot.write_text(
        "import golfbot\n"
        "def choose(view, legal):\n"
        "    if view.decision == 'draw':\n"
        "        raise RuntimeError('boom')\n"
        "    return 'not-an-action'\n"
        "golfbot.play(choose, name='buggy')\n",
        encoding="utf-8",
    )
    lines = [
        {"type": "hello", "protocol": 2, "seat": 0, "players": ["a", "b"], "rules": _HELLO_RULES,
         "time": {"startup_ms": 1, "move_ms": 1, "bank_ms": 0, "increment_ms": 0, "grace_ms": 1}},
        _request(1, "draw", ["stock", "discard"]),
        _request(2, "place", ["swap:0", "throw"]),
        {"type": "goodbye"},
    ]
    for message in lines:
        VALIDATOR.validate(message)  # the test sends what the protocol says

    done = subprocess.run(
        [sys.executable, str(bot)], input="".join(json.dumps(m) + "\n" for m in lines), capture_output=True,
        text=True, env={"PYTHONPATH": str(KITS / "python"), "PYTHONDONTWRITEBYTECODE": "1"}, timeout=60,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a.get("action") for a in answers] == [None, "stock", "swap:0"]
    assert "RuntimeError: boom" in done.stderr
    assert "'not-an-action'" in done.stderr


_HELLO_RULES = {
    "preset": "standard", "players": 2, "layout": "1x1", "decks": 1, "jokers": None, "twos": -2,
    "court_values": "10/10", "reveal_count": 0, "reveal": "peek", "reveal_choice": "fixed",
    "flip_after_throw": "none", "swap_face": "up", "knocking": False, "knock_penalty": 10,
    "knock_double": False, "lines": "columns", "cancel": "line", "pair_scope": "columns", "block_bonus": None,
    "card_powers": False, "holes": 1, "turn_limit": 10,
}


def _request(rid: int, decision: str, legal: list[str]) -> dict[str, Any]:
    view = {
        "seat": 0, "hole": 0, "starter": 0, "to_move": 0, "decision": decision, "grids": [[None], [None]],
        "face_up": [[False], [False]], "discard": ["5H"], "stock_size": 40,
        "drawn": "9C" if decision == "place" else None, "drawn_from": "stock" if decision == "place" else None,
        "power": None, "first_target": None, "closer": None, "knocker": None, "turns": [0, 0], "totals": [0, 0],
        "hole_scores": [],
    }
    return {"type": "request", "id": rid, "decision": decision, "view": view, "events": [], "legal": legal,
            "time_ms": 1000}


def test_the_sample_greedy_bots_library_is_the_kits() -> None:
    # One library, two places a bot's folder needs it: a copy kept byte for byte.
    kit = (ROOT / "kits" / "python" / "golfbot.py").read_bytes()
    assert (ROOT / "sample_matches" / "bots" / "golfbot.py").read_bytes() == kit, (
        "sample_matches/bots/golfbot.py differs from kits/python/golfbot.py: copy the kit's over it"
    )


@pytest.mark.parametrize("kit", KIT_NAMES)
def test_kit_passes_check_bot(kit: str, build_dir: Path) -> None:
    # Every situation the rules can produce, under every preset and layout: what a kit
    # promises a bot author before the author writes a line.
    report = check_bot(
        BotCommand(tuple(kit_command(kit, build_dir))), time_control=TimeControl(startup_ms=GENEROUS, move_ms=GENEROUS)
    )
    assert report.passed, {r.name: r.message for r in report.results if r.outcome is not Outcome.PASS}
    assert not [r.name for r in report.results if r.outcome is Outcome.SKIP]
