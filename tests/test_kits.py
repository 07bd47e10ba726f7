"""The starter kits of kits/: each compiled (where needed) into a temporary folder and played
in whole matches against the sample bots, under every preset and the layouts and options
that stretch a bot most (8 players, 1x1 and 4x4 grids, several decks, jokers, card powers).
A kit passes a match when it finishes with no fault and nothing on the kit's stderr. A
`choose` that fails ends a kit's bot with its error on stderr, and one that answers
something illegal has it sent as it is: no kit hides a bug behind a move it did not choose.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from golfref import PROTOCOL_VERSION
from golfref.config.match import TimeControl, parse_config
from golfref.game.rules import resolve_rules
from golfref.match.protocol import hello_rules
from golfref.match.referee import run_match
from golfref.record.faults import SeatStatus
from golfref.tools.botcheck import HOUSE_CHECKED, BotCommand, Outcome, check_bot
from tests.kitbuild import KIT_NAMES, kit_bot, usable

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_matches" / "bots"
SCHEMA = json.loads((ROOT / "schemas" / "protocol.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
GENEROUS = 30_000  # ms: a loaded CI box must never time a bot out here


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
        {
            "preset": "standard",
            "layout": "3x3",
            "card_powers": True,
            "flip_after_throw": "may",
            "jokers": "on",
            "twos": 2,
            "court_values": "11/12",
            "holes": 1,
        },
        2,
        1,
    ),
    # Every house option at once (HOUSE_CHECKED: check-bot --house's), its flips at a draw and after a throw.
    "house-options": ({"preset": "classic", **HOUSE_CHECKED}, 1, 2),
}

# Decisions the kit must have met in a match (the seeds are fixed): with card powers, the
# targets; with player reveals, the reveal; with flips after a throw, the flip. A match's seed
# is the same for every kit: the kits' examples choose alike (test_every_kits_example_plays_as_
# the_python_kits), so one deal reaches these decisions for all of them, and a kit's name does
# not pick a deal that misses one (as a seed of the name's length did: `flip` at `endgame`).
EXPECTED = {
    "classic": {"reveal", "draw", "place"},
    "standard": {"draw", "place", "flip"},
    "4x4-2-decks-jokers-powers": {"reveal", "draw", "place", "target"},
    "3x3-lines-powers-may-flip": {"draw", "place", "flip", "target"},
    "house-options": {"reveal", "draw", "place", "flip"},
}


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where compiled kits go: a temporary folder, never the repository."""
    return tmp_path_factory.mktemp("kits")


_BUILT: dict[str, list[str]] = {}


def kit_command(kit: str, build: Path) -> list[str]:
    """The command that runs `kit`'s starter bot, built into a folder of `build` first (once per module)."""
    if kit not in _BUILT:
        _BUILT[kit] = kit_bot(kit, build / kit)
    return _BUILT[kit]


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
    # One deal per match, whatever the kit: every kit's example makes the Python one's choices
    # (test_every_kits_example_plays_as_the_python_kits), so the decisions EXPECTED names are met
    # by all or none. (A seed that varied with the kit's name gave the three letters of "cpp" a
    # house-options deal without a flip.)
    result = run_match(_config(tmp_path, rules, players), seed=len(match) * 31 + len("python"))
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


# A bot on each kit whose choose fails as argv[1] says: `raise` (throw, panic; NULL in C)
# or `illegal` (answer "not-an-action"), written in place of the kit's example bot.
_BUGGY = {
    "python": (
        "import sys\n"
        "import golfbot\n"
        "def choose(view, legal):\n"
        "    if sys.argv[1] == 'raise':\n"
        "        raise RuntimeError('boom in choose')\n"
        "    return 'not-an-action'\n"
        "golfbot.play(choose, name='buggy')\n"
    ),
    "javascript": (
        'const golfbot = require("./golfbot");\n'
        "golfbot.play((view, legal) => {\n"
        "  if (process.argv[2] === 'raise') throw new Error('boom in choose');\n"
        "  return 'not-an-action';\n"
        "}, { name: 'buggy' });\n"
    ),
    "c": (
        "#include <string.h>\n"
        '#include "golfbot.h"\n'
        'static const char *mode = "";\n'
        "const char *golf_choose(const golf_view *view, const char *const *legal, size_t n) {\n"
        "    (void)view; (void)legal; (void)n;\n"
        '    return strcmp(mode, "raise") == 0 ? NULL : "not-an-action";\n'
        "}\n"
        'int main(int argc, char **argv) { if (argc > 1) mode = argv[1]; return golf_play("buggy", "1"); }\n'
    ),
    "rust": (
        "mod golfbot;\n"
        "mod json;\n"
        "fn main() {\n"
        "    let mode = std::env::args().nth(1).unwrap_or_default();\n"
        '    golfbot::play("buggy", "1", |_view, _legal| {\n'
        '        if mode == "raise" { panic!("boom in choose") }\n'
        '        "not-an-action".to_string()\n'
        "    });\n"
        "}\n"
    ),
    "cpp": (
        "#include <stdexcept>\n"
        '#include "golfbot.hpp"\n'
        "int main(int argc, char **argv) {\n"
        '    const std::string mode = argc > 1 ? argv[1] : "";\n'
        '    return golfbot::play("buggy", "1", [&](const golfbot::View &, const std::vector<std::string> &) {\n'
        '        if (mode == "raise") throw std::runtime_error("boom in choose");\n'
        '        return std::string("not-an-action");\n'
        "    });\n"
        "}\n"
    ),
    "go": (
        "package main\n"
        'import "os"\n'
        "func main() {\n"
        '    Play("buggy", "1", func(view *View, legal []string) string {\n'
        '        if len(os.Args) > 1 && os.Args[1] == "raise" { panic("boom in choose") }\n'
        '        return "not-an-action"\n'
        "    })\n"
        "}\n"
    ),
    "java": (
        "public final class Bot {\n"
        "    public static void main(String[] args) {\n"
        '        String mode = args.length > 0 ? args[0] : "";\n'
        '        GolfBot.play("buggy", "1", (view, legal) -> {\n'
        '            if (mode.equals("raise")) {\n'
        '                throw new IllegalStateException("boom in choose");\n'
        "            }\n"
        '            return "not-an-action";\n'
        "        });\n"
        "    }\n"
        "}\n"
    ),
}
# What each kit's failure leaves on stderr, and the exit status it ends with.
_FAILURE = {
    "python": (("Traceback (most recent call last):", "RuntimeError: boom in choose"), 1),
    "javascript": (("Error: boom in choose", "    at "), 1),
    "c": (("golfbot: golf_choose returned NULL for request 1 (decision draw)",), 1),
    "rust": (("panicked at", "boom in choose"), 101),
    "cpp": (("golfbot: choose threw for request 1 (decision draw): boom in choose",), 1),
    "go": (("panic: boom in choose", "goroutine 1 [running]:"), 2),
    "java": (('Exception in thread "main" java.lang.IllegalStateException: boom in choose', "\tat Bot.lambda$"), 1),
}


def buggy_command(kit: str, folder: Path) -> list[str]:
    """The command of `kit`'s buggy bot, built in `folder`."""
    return kit_bot(kit, folder / "buggy", _BUGGY[kit])


def _play_lines(argv: list[str], mode: str) -> subprocess.CompletedProcess[str]:
    lines = [
        {"type": "hello", "protocol": PROTOCOL_VERSION, "seat": 0, "players": ["a", "b"], "rules": _HELLO_RULES,
         "time": {"startup_ms": 1, "move_ms": 1, "bank_ms": 0, "increment_ms": 0, "grace_ms": 1}},
        _request(1, "draw", ["stock", "discard"]),
        _request(2, "place", ["swap:0", "throw"]),
        {"type": "goodbye"},
    ]  # fmt: skip
    for message in lines:
        VALIDATOR.validate(message)  # the test sends what the protocol says
    return subprocess.run(
        [*argv, mode], input="".join(json.dumps(m) + "\n" for m in lines), capture_output=True, text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize("kit", KIT_NAMES)
def test_a_kit_bot_whose_choose_fails_ends_with_its_error_on_stderr(kit: str, tmp_path: Path) -> None:
    # No safety net: the bug ends the bot (the referee records `exited`), and stderr says where.
    argv = buggy_command(kit, tmp_path)
    done = _play_lines(argv, "raise")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["type"] for a in answers] == ["ready"], done.stdout
    texts, status = _FAILURE[kit]
    assert done.returncode == status, done.stderr
    for text in texts:
        assert text in done.stderr


@pytest.mark.parametrize("kit", KIT_NAMES)
def test_a_kit_sends_an_illegal_choice_as_it_is(kit: str, tmp_path: Path) -> None:
    # Not replaced by a legal one: the referee's illegal_action fault names the legal choices.
    argv = buggy_command(kit, tmp_path)
    done = _play_lines(argv, "illegal")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(a["type"], a.get("id"), a.get("action")) for a in answers] == [
        ("ready", None, None), ("answer", 1, "not-an-action"), ("answer", 2, "not-an-action")
    ]  # fmt: skip
    assert done.returncode == 0 and done.stderr == ""


@pytest.mark.parametrize("kit", KIT_NAMES)
def test_check_bot_fails_a_kit_bot_whose_choose_fails_and_shows_its_error(kit: str, tmp_path: Path) -> None:
    argv = buggy_command(kit, tmp_path)
    tc = TimeControl(startup_ms=GENEROUS, move_ms=GENEROUS)
    report = check_bot(BotCommand((*argv, "raise")), ("standard",), ("2x3",), time_control=tc)
    assert not report.passed
    (failure,) = [r for r in report.results if r.outcome is Outcome.FAIL]
    assert failure.message.startswith("exited: the bot exited (code ")
    assert failure.hint == "the bot's stderr, shown in the log and here, usually says why"
    for text in _FAILURE[kit][0]:
        assert text in (failure.stderr or ""), failure.stderr
    # It crashed at the first request of the run: every check would, so the run stops there.
    assert report.starts == 1 and report.stopped is not None and report.not_run > 0


def test_the_go_kits_files_are_as_gofmt_writes_them() -> None:
    # gofmt's layout is every Go author's (editors rewrite a file into it): the kit's files and its echo bot
    # are in it already, so that a bot author's first save changes nothing but what they wrote.
    usable("go")
    files = [*sorted((ROOT / "kits" / "go").glob("*.go")), ROOT / "tests" / "kit_echo" / "echo.go"]
    done = subprocess.run(["gofmt", "-l", *map(str, files)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr


# hello.rules as the referee writes it (every field of the protocol's version).
_HELLO_RULES = hello_rules(
    resolve_rules("standard", {"layout": "1x1", "reveal_count": 0, "holes": 1, "turn_limit": 10})
)


def _request(rid: int, decision: str, legal: list[str]) -> dict[str, Any]:
    view = {
        "seat": 0,
        "hole": 0,
        "starter": 0,
        "to_move": 0,
        "decision": decision,
        "grids": [[None], [None]],
        "face_up": [[False], [False]],
        "discard": ["5H"],
        "stock_size": 40,
        "drawn": "9C" if decision == "place" else None,
        "drawn_from": "stock" if decision == "place" else None,
        "power": None,
        "first_target": None,
        "closer": None,
        "knocker": None,
        "turns": [0, 0],
        "totals": [0, 0],
        "hole_scores": [],
    }
    return {
        "type": "request",
        "id": rid,
        "decision": decision,
        "view": view,
        "events": [],
        "legal": legal,
        "time_ms": 1000,
    }


@pytest.mark.parametrize("copy", ["kits/python/golfbot.py", "sample_matches/bots/golfbot.py"])
def test_each_copy_of_the_python_kit_is_the_packages(copy: str) -> None:
    # One library, three places: the package's (what an in-process policy sees), and two copies a bot's
    # folder needs, generated from it by make samples.
    kit = (ROOT / "golfref" / "kit" / "golfbot.py").read_bytes()
    assert (ROOT / copy).read_bytes() == kit, f"{copy} differs from golfref/kit/golfbot.py: make samples writes it"


@pytest.mark.parametrize("module", sorted(p.name for p in (ROOT / "golfref" / "kit").glob("*.py")))
def test_the_python_kit_imports_the_standard_library_only(module: str) -> None:
    # A bot program runs it with nothing but its own folder, sandboxed, under whatever python3 it has;
    # golfbot.py is copied alone into a bot's folder, so it imports nothing of the kit either.
    tree = ast.parse((ROOT / "golfref" / "kit" / module).read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) if not node.level}
    kit = {name for name in imported if name == "golfref.kit" or name.startswith("golfref.kit.")}
    relative = any(node.level for node in ast.walk(tree) if isinstance(node, ast.ImportFrom))
    assert {name.split(".")[0] for name in imported - kit} <= sys.stdlib_module_names | {"__future__"}, imported
    if module == "golfbot.py":
        assert not kit and not relative, "golfbot.py stands alone"


@pytest.mark.parametrize("kit", KIT_NAMES)
def test_kit_passes_check_bot(kit: str, build_dir: Path) -> None:
    # Every situation the rules can produce, under every preset and layout, the house options
    # included: what a kit promises a bot author before the author writes a line.
    report = check_bot(
        BotCommand(tuple(kit_command(kit, build_dir))),
        time_control=TimeControl(startup_ms=GENEROUS, move_ms=GENEROUS),
        house=True,
    )
    assert report.house_summary() is not None
    assert report.passed, {r.name: r.message for r in report.results if r.outcome is not Outcome.PASS}
    assert not [r.name for r in report.results if r.outcome is Outcome.SKIP]


def test_the_python_kit_reads_the_house_options_of_hello() -> None:
    from golfref.kit import golfbot

    rules = resolve_rules(
        "classic",
        {"card_values": {"K": -2}, "suit_values": {"JH": 0}, "exact_score": [21, 0], "flip_out": 2},
    )
    kit = golfbot.Rules.from_json(hello_rules(rules))
    assert golfbot.rank_points(kit)["K"] == -2 and golfbot.rank_points(kit)["A"] == 1
    assert kit.suit_values == (("JH", 0),) and kit.exact_score == (21, 0) and kit.flip_out == 2
    assert hash(kit) == hash(golfbot.Rules.from_json(hello_rules(rules)))
    # A hello of protocol 2 (no house options) still reads, with every house option off.
    old = {k: v for k, v in hello_rules(resolve_rules("classic")).items() if k in _V2_FIELDS}
    plain = golfbot.Rules.from_json(old)
    assert plain.card_values == () and golfbot.rank_points(plain)["K"] == 0


# The fields of hello.rules in protocol version 2, before the house options.
_V2_FIELDS = {
    *("preset", "players", "layout", "decks", "jokers", "twos", "court_values", "reveal_count", "reveal"),
    *("reveal_choice", "flip_after_throw", "swap_face", "knocking", "knock_penalty", "knock_double", "lines"),
    *("cancel", "pair_scope", "block_bonus", "card_powers", "holes", "turn_limit"),
}


def _seat0_actions(argv: list[str], match: str, tmp_path: Path) -> list[tuple[int, str]]:
    rules, _, _ = MATCHES[match]
    tmp_path.mkdir()
    players = [
        {"name": "kit", "command": argv},
        {"name": "greedy", "command": [sys.executable, str(SAMPLES / "greedy_bot.py")]},
    ]
    result = run_match(_config(tmp_path, rules, players), seed=1234)
    assert result.faults == ()
    return [
        (s["request"], s["action"]) for h in result.log["holes"] for s in h["steps"] if s.get("seat") == 0 and "by" in s
    ]


@pytest.mark.parametrize("match", ["standard", "classic", "4x4-2-decks-jokers-powers", "house-options"])
@pytest.mark.parametrize("kit", [name for name in KIT_NAMES if name != "python"])
def test_every_kits_example_plays_as_the_python_kits(kit: str, match: str, build_dir: Path, tmp_path: Path) -> None:
    # One heuristic, written in each language (docs/WRITING_A_BOT.md, section 3): the same deal, the same choices.
    # So each example is as strong as the Python one, which the tests of `golfref init` gate against random.
    ours = _seat0_actions(kit_command(kit, build_dir), match, tmp_path / "kit")
    assert ours == _seat0_actions(kit_command("python", build_dir), match, tmp_path / "python")
