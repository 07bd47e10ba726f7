"""Re-create the sample logs in this folder: `.venv/bin/python tests/logs/make_logs.py`.

Every log comes from a real match played by the referee (`run_match`; the interrupted
and error logs are stopped mid-hole from its `on_turn` hook) with built-in policies and the test
bots in tests/bots, under a fixed seed. The deals and every decision therefore come out
the same on every run. What a run cannot repeat is normalized before the log is sealed
again with `write_log`, so that the files are byte-identical on every run:

- `match_id`, `started_at` and `finished_at` (clock and random token);
- `ms` of each bot decision and `at_ms` of each fault (wall-clock timings), set to 0;
- a bot's `command[0]` (this interpreter's path) and `cwd`, made machine-independent: `test_bots`,
  the folder of the examples (sample_matches/test_bots, `golfref examples`) that holds these bots, so
  that `golfref replay-bot LOG --seat S` runs a seat's own bot from there as the log records it.

The bots run from a private copy of only the scripts the samples use (`SAMPLE_BOTS`), so
each bot's fingerprint (its script and its directory's files) changes only when one of
those scripts does, not whenever a test bot is added to tests/bots.

None of these is used by the validator's re-simulation, and the digest is recomputed, so
the files are exactly what golfref would have written with those values.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BOTS = HERE.parent / "bots"
sys.path.insert(0, str(ROOT))

from golfref.config.match import MatchConfig, parse_config  # noqa: E402
from golfref.game.engine import Game  # noqa: E402
from golfref.record.log import read_log, write_log  # noqa: E402
from golfref.match.referee import MatchInterrupted, run_match  # noqa: E402

FIXED_TIME = "2026-01-01T00:00:00+00:00"
# The interrupted sample's error, as it was first written (no signal stopped it: the stop
# came from inside); the referee writes "interrupted by SIGINT" for the same stop.
OUT = HERE  # where the logs go; main() can be pointed elsewhere (the tests compare)
SAMPLE_BOTS = ("echo_bot.py", "bad_bot.py")
BOT_DIR = BOTS  # where the bots run from: main() copies SAMPLE_BOTS to a folder of their own


def config(name: str, rules: dict[str, Any], players: list[str], faults: str = "") -> MatchConfig:
    """A match config; `players` are YAML flow mappings, `{python}` stands for this interpreter."""
    seats = "\n".join(f"  - {p}" for p in players).replace("{python}", json.dumps(sys.executable))
    text = f"match: {name}\nrules: {json.dumps(rules)}\nplayers:\n{seats}\n{textwrap.dedent(faults)}"
    return parse_config(text, source=f"{name}.yaml", base_dir=BOT_DIR)


def normalize(doc: dict[str, Any], name: str) -> dict[str, Any]:
    """Replace what a run cannot repeat (see the module docstring)."""
    doc["match_id"] = f"sample-{name}"
    doc["started_at"] = FIXED_TIME
    if doc["finished_at"] is not None:
        doc["finished_at"] = FIXED_TIME
    for player in doc["players"]:
        if "command" in player:
            if player["command"][0] == sys.executable:
                player["command"][0] = "python3"
            player["cwd"] = "test_bots"
    for hole in doc["holes"]:
        for step in hole["steps"]:
            if step.get("ms") is not None:
                step["ms"] = 0.0
    for fault in doc["faults"]:
        fault["at_ms"] = 0
    doc.pop("digest", None)
    return doc


def save(doc: dict[str, Any], name: str) -> dict[str, Any]:
    """Normalize `doc` and seal it into tests/logs/NAME.json."""
    path = OUT / f"{name}.json"
    write_log(path, normalize(doc, name))
    path.chmod(0o644)  # write_log makes private files; these are shared samples
    return doc


def play(name: str, cfg: MatchConfig, seed: int) -> dict[str, Any]:
    """Play a whole match and save its log."""
    with tempfile.TemporaryDirectory() as tmp:
        result = run_match(cfg, seed=seed, log_path=f"{tmp}/log.json")
        doc = json.loads(Path(result.log_path).read_text(encoding="utf-8"))
    return save(doc, name)


def play_and_stop(name: str, cfg: MatchConfig, seed: int, after: int, exc: BaseException) -> dict[str, Any]:
    """Play until seat 0's `after`-th decision is done, then raise `exc` mid-hole; save the log left behind.

    The stop comes from `run_match`'s `on_turn` hook, so the log is what its own handling
    writes: KeyboardInterrupt (as Ctrl-C) gives an `interrupted` log, any other exception an
    `error` log, both with the open hole.
    """
    seat0_turns = [0]

    def stop(game: Game) -> None:
        if game.to_move == 0:
            if seat0_turns[0] == after:
                raise exc
            seat0_turns[0] += 1

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log.json"
        try:
            run_match(cfg, seed=seed, log_path=str(log), on_turn=stop)
            raise AssertionError(f"{name}: the match finished before the stop")
        except (MatchInterrupted, RuntimeError):
            pass
        doc = json.loads(log.read_text(encoding="utf-8"))
    return save(doc, name)


def journal_after(name: str, cfg: MatchConfig, seed: int, holes: int) -> dict[str, Any]:
    """Play a match; keep the journal as it was on disk after `holes` holes (status running)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log.json"
        kept = Path(tmp) / "kept.json"
        done = [0]

        def on_hole(result: Any, names: Any) -> None:
            done[0] += 1
            if done[0] == holes:
                shutil.copyfile(log, kept)

        run_match(cfg, seed=seed, log_path=str(log), on_hole=on_hole)
        doc = read_log(kept)  # the log the journal stands for
    return save(doc, name)


def check(name: str, doc: dict[str, Any], what: str, ok: Callable[[dict[str, Any]], bool]) -> None:
    """Fail loudly when a seed stops producing the situation a sample is there for."""
    if not ok(doc):
        raise SystemExit(f"make_logs: {name}: expected {what}; pick another seed")


def steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for h in doc["holes"] for s in h["steps"]]


def ends(doc: dict[str, Any]) -> set[str]:
    return {h["result"]["end"] for h in doc["holes"] if h["result"] is not None}


GREEDY = "{name: greedy, builtin: greedy}"
RANDOM = "{name: random, builtin: random}"


def main(out: Path = HERE) -> None:
    """Write every sample log into `out`."""
    global BOT_DIR
    with tempfile.TemporaryDirectory() as tmp:
        BOT_DIR = Path(tmp)
        for name in SAMPLE_BOTS:
            shutil.copyfile(BOTS / name, BOT_DIR / name)
        try:
            make_all(out)
        finally:
            BOT_DIR = BOTS


def make_all(out: Path) -> None:
    """Play and save every sample into `out`, with the bots in BOT_DIR."""
    global OUT
    OUT = out
    # The example quoted in docs/LOG_FORMAT.md: one hole, two players, 2x2.
    doc = play(
        "example_1hole_2p_2x2",
        config(
            "example",
            {"preset": "standard", "layout": "2x2", "holes": 1},
            [GREEDY, "{name: echo, command: [{python}, echo_bot.py]}"],
        ),
        seed=7,
    )
    check("example", doc, "a short hole", lambda d: len(steps(d)) <= 30)

    play("standard_2p", config("standard", {"preset": "standard", "holes": 3}, [GREEDY, RANDOM]), seed=52)

    # The benchmark's log: 9 holes, 4 players, classic.
    play(
        "classic_4p_9holes",
        config(
            "classic",
            {"preset": "classic"},
            [GREEDY, RANDOM, "{name: greedy2, builtin: greedy}", "{name: random2, builtin: random}"],
        ),
        seed=2,
    )

    doc = play(
        "knock_3p",
        config("knock", {"preset": "knock", "holes": 4}, [GREEDY, RANDOM, "{name: random2, builtin: random}"]),
        seed=3,
    )
    check("knock_3p", doc, "a hole ended by a knock", lambda d: "knocked" in ends(d))
    check("knock_3p", doc, "a knock penalty", lambda d: any(any(h["result"]["penalties"]) for h in d["holes"]))

    doc = play(
        "arena_2x2_powers",
        config(
            "arena-4card",
            {"preset": "arena", "layout": "2x2", "card_powers": True, "block_bonus": -20, "holes": 3},
            [GREEDY, RANDOM],
        ),
        seed=33,
    )
    check("arena_2x2_powers", doc, "face-down swaps", lambda d: d["rules"]["swap_face"] == "down")
    check("arena_2x2_powers", doc, "a card power", lambda d: any(s.get("action") == "power" for s in steps(d)))
    check(
        "arena_2x2_powers",
        doc,
        "a king's swap",
        lambda d: sum(1 for s in steps(d) if s.get("decision") == "target") > 2,
    )

    doc = play(
        "arena_3x3_lines_blocks",
        config(
            "arena",
            {
                "preset": "arena",
                "layout": "3x3",
                "lines": "columns+rows+diagonals",
                "block_bonus": -20,
                "card_powers": True,
                "holes": 2,
            },
            [GREEDY, RANDOM, "{name: greedy2, builtin: greedy}"],
        ),
        seed=5,
    )
    check("arena_3x3_lines_blocks", doc, "3 cards revealed", lambda d: d["rules"]["reveal_count"] == 3)

    # Eight players on one deck: 48 cards dealt, a stock of 3, reshuffles all along.
    doc = play(
        "reshuffle_8p_1deck",
        config(
            "reshuffle",
            {"preset": "classic", "decks": 1, "holes": 1},
            [f"{{name: p{i}, builtin: {'random' if i % 2 else 'greedy'}}}" for i in range(8)],
        ),
        seed=6,
    )
    check("reshuffle_8p_1deck", doc, "a reshuffle", lambda d: any("reshuffle" in s for s in steps(d)))

    doc = play(
        "turn_limit",
        config(
            "turn-limit",
            {"preset": "classic", "turn_limit": 3, "holes": 2},
            [RANDOM, "{name: random2, builtin: random}"],
        ),
        seed=8,
    )
    check("turn_limit", doc, "a hole ended by the turn limit", lambda d: "turn_limit" in ends(d))

    # Seat 1 answers illegal actions (faulted, the fallback plays for it); seat 2 exits
    # after 3 answers (disqualified, placed last).
    doc = play(
        "faults_3p",
        config(
            "faults",
            {"preset": "standard", "layout": "2x2", "holes": 2, "turn_limit": 5},
            [
                "{name: echo, command: [{python}, echo_bot.py]}",
                "{name: illegal, command: [{python}, bad_bot.py, illegal]}",
                "{name: quitter, command: [{python}, bad_bot.py, exit-mid-match, '3']}",
            ],
            faults="faults: {policy: fallback, fallback: greedy, max_faults: 50}\n",
        ),
        seed=9,
    )
    statuses = [p["status"] for p in doc["players"]]
    check(
        "faults_3p",
        doc,
        "seat statuses ok, faulted, disqualified",
        lambda d: statuses == ["ok", "faulted", "disqualified"],
    )
    check("faults_3p", doc, "the disqualified seat placed last", lambda d: d["placings"][2] == 3)

    doc = play(
        "disqualified_garbage",
        config(
            "garbage",
            {"preset": "standard", "holes": 2},
            [GREEDY, "{name: garbage, command: [{python}, bad_bot.py, garbage]}"],
            faults="faults: {policy: fallback, fallback: random, max_faults: 3}\n",
        ),
        seed=10,
    )
    check("disqualified_garbage", doc, "seat 1 disqualified", lambda d: d["players"][1]["status"] == "disqualified")

    doc = play_and_stop(
        "interrupted",
        config("interrupted", {"preset": "standard", "holes": 3}, [GREEDY, RANDOM]),
        seed=11,
        after=25,
        exc=KeyboardInterrupt(),
    )
    check(
        "interrupted",
        doc,
        "an open hole after a finished one",
        lambda d: len(d["holes"]) >= 2 and d["holes"][-1]["result"] is None and d["holes"][-1]["steps"],
    )

    doc = play_and_stop(
        "error",
        config("error", {"preset": "knock", "holes": 2}, [GREEDY, RANDOM]),
        seed=12,
        after=5,
        exc=RuntimeError("a policy failed on purpose"),
    )
    check(
        "error", doc, "status error with an open first hole", lambda d: d["status"] == "error" and len(d["holes"]) == 1
    )

    doc = journal_after(
        "running_journal", config("journal", {"preset": "standard", "holes": 3}, [GREEDY, RANDOM]), seed=13, holes=1
    )
    check(
        "running_journal", doc, "the journal after hole 1", lambda d: d["status"] == "running" and len(d["holes"]) == 1
    )


if __name__ == "__main__":
    main()
