"""The human seat (`builtin: human`, `golfref play`): a person playing a bot in the terminal.

`golfref play` is driven through a pseudo terminal for a whole hole, and every card it
draws is checked against what the engine says the seat had seen by then: no face-down card
of any seat, no stock card. The end of input stops the match with its log kept.
"""

from __future__ import annotations

import io
import json
import os
import re
import select
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from golfref.config.match import parse_config
from golfref.game.engine import Game, Move, Shuffle
from golfref.game.rules import rules_from_dict
from golfref.game.view import events_for, view
from golfref.match.referee import MatchInterrupted, run_match
from golfref.match.seat import Clock, TerminalSeat
from golfref.record.faults import SeatStatus
from golfref.record.matchlog import history_from_log
from golfref.show.human_seat import HumanSeat

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parent.parent
GREEDY = ROOT / "sample_matches" / "bots" / "greedy_bot.py"
READ_TIMEOUT = 60.0  # seconds for one screen: generous, a loaded CI box must not flake
PROMPT = re.compile(r"choice \(1-(\d+)\)> $")

# A card as the screen prints it (no colour): "10♥", "K♠", "Jkr"; "#2" for a second deck.
CARD = re.compile(r"(10|[AKQJ2-9])([♠♥♦♣])|Jkr")
SUITS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


class Terminal:
    """`golfref play ...` on a pseudo terminal: read up to each prompt, type an answer."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        master, slave = os.openpty()
        env = {**os.environ, "COLUMNS": "100", "PYTHONPATH": str(ROOT)}
        env.pop("NO_COLOR", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "golfref", "play", *args],
            stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self.text = ""

    def read_until_prompt(self) -> re.Match[str] | None:
        """Read until a prompt (its match) or the end of the program's output (None)."""
        while True:
            found = PROMPT.search(self.text)
            if found and found.end() == len(self.text):
                return found
            ready, _, _ = select.select([self.master], [], [], READ_TIMEOUT)
            assert ready, f"no prompt within {READ_TIMEOUT} s; the screen so far:\n{self.text[-2000:]}"
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: the program closed the terminal
                chunk = b""
            if not chunk:
                return None
            self.text += chunk.decode("utf-8", "replace").replace("\r\n", "\n")

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")
        self.text += "\n" if not self.text.endswith("\n") else ""

    def end_input(self) -> None:
        os.write(self.master, b"\x04")  # Ctrl-D at the start of a line: the end of input
        self.text += "\n"

    def finish(self) -> int:
        while self.read_until_prompt() is not None:
            raise AssertionError("a prompt after the end")
        code = self.proc.wait(timeout=READ_TIMEOUT)
        os.close(self.master)
        return code


def _card_names(text: str) -> set[str]:
    """The cards a screen shows, written as the protocol writes them ("TH")."""
    out = set()
    for m in CARD.finditer(text):
        if m.group(0) == "Jkr":
            out.add("X")  # jokers carry no suit on the screen: compared by rank only
        else:
            out.add(("T" if m.group(1) == "10" else m.group(1)) + SUITS[m.group(2)])
    return out


def _knowledge(doc: dict[str, Any], seat: int) -> list[set[str]]:
    """For each decision of `seat`, every card the engine says the seat had seen by then."""
    game = Game(rules_from_dict(doc["rules"]))
    seen: set[str] = set()
    out = []

    def learn() -> None:
        v = view(game, seat)
        seen.update(c.name for grid in v.grids for c in grid if c is not None)
        seen.update(c.name for c in v.discard)
        if v.drawn is not None:
            seen.add(v.drawn.name)
        for e in events_for(game, seat, 0):
            seen.update(e[k] for k in ("card", "discarded") if isinstance(e.get(k), str))

    for event in history_from_log(doc):
        if isinstance(event, Shuffle):
            game.apply_shuffle(event.order)
            continue
        assert isinstance(event, Move)
        if event.seat == seat:
            learn()
            out.append(set(seen))
        game.apply(event.action)
    return out


def test_play_a_whole_hole_in_a_terminal_and_see_nothing_hidden(tmp_path: Path) -> None:
    log = tmp_path / "play.json"
    term = Terminal(
        ["--against", f"{sys.executable} {GREEDY}", "--seed", "7", "--set", "holes=1", "--set", "layout=2x3",
         "--set", "card_powers=true", "--log", str(log), "--no-color"],
        tmp_path,
    )
    prompts = 0
    while (found := term.read_until_prompt()) is not None:
        prompts += 1
        if prompts == 1:
            term.type("99")  # not a choice: asked again, with the reason on one line
            assert term.read_until_prompt() is not None
            assert "'99' is not a choice: enter a number from 1 to" in term.text
            term.type("stock")  # a choice as written works as well as its number
            continue
        term.type(found.group(1))  # the last choice: throw, power, pass, a target...
    assert term.finish() == 0, term.text[-2000:]
    doc = json.loads(log.read_text(encoding="utf-8"))
    assert doc["status"] == "finished"
    assert doc["players"][0]["builtin"] == "human"
    assert "end: " in term.text and "match over: " in term.text
    assert "clocks   you " in term.text and "(untimed)" in term.text

    # Split the screen at each decision: the text up to decision k's choices is what the
    # seat was shown by then, and must hold only cards it had seen at decision k.
    known = _knowledge(doc, 0)
    played = [s for s in doc["holes"][0]["steps"] if s.get("seat") == 0]
    assert len(known) == len(played) > 3
    before_end = term.text.split("    end: ")[0]
    pieces = before_end.split("your move:")
    assert len(pieces) == len(known) + 1
    for k, piece in enumerate(pieces[1:]):
        # pieces[k] ends with decision k's events and table; decision k's choices open pieces[k + 1].
        shown = _card_names(pieces[k]) | _card_names(piece.split("choice (")[0])
        hidden = {c for c in shown if c != "X"} - known[k]
        assert not hidden, f"decision {k} showed cards the seat had not seen: {sorted(hidden)}"


def test_end_of_input_stops_the_match_and_keeps_the_log(tmp_path: Path) -> None:
    log = tmp_path / "play.json"
    term = Terminal(["--against", f"{sys.executable} {GREEDY}", "--seed", "3", "--log", str(log), "--no-color"],
                    tmp_path)
    assert term.read_until_prompt() is not None
    term.end_input()
    code = term.finish()
    assert code == 128 + signal.SIGINT
    assert f"golfref: the human seat's input ended; the incomplete log is {log}" in term.text
    assert "Traceback" not in term.text
    doc = json.loads(log.read_text(encoding="utf-8"))
    assert doc["status"] == "interrupted"
    assert doc["error"] == "the human seat's input ended"


def _human_config(tmp_path: Path) -> Any:
    data = {
        "match": "people",
        "rules": {"preset": "knock", "layout": "2x2", "holes": 2},
        "players": [{"name": "ann", "builtin": "human"}, {"name": "greedy", "command": [sys.executable, str(GREEDY)]}],
        "time": {"startup_ms": 30_000, "move_ms": 30_000},
        "log": {"path": str(tmp_path / "{match_id}.json")},
    }
    return parse_config(yaml.safe_dump(data), source="people.yaml", base_dir=tmp_path)


def test_a_config_seat_with_builtin_human_plays_from_the_given_input(tmp_path: Path) -> None:
    screen = io.StringIO()
    answers = io.StringIO("1\n" * 500)

    def seat(index: int, names: tuple[str, ...]) -> HumanSeat:
        return HumanSeat(_human_config(tmp_path).rules, names, index, stdin=answers, stdout=screen)

    result = run_match(_human_config(tmp_path), seed=5, human=seat)
    assert result.statuses == (SeatStatus.OK, SeatStatus.OK)
    assert result.log["status"] == "finished" and len(result.log["holes"]) == 2
    assert {s["by"] for h in result.log["holes"] for s in h["steps"] if s.get("seat") == 0} == {"builtin"}
    text = screen.getvalue()
    assert text.count("end: ") == 2 and "ann (you)" in text and "knock" in text


def test_a_human_seat_that_runs_out_of_input_interrupts_the_match(tmp_path: Path) -> None:
    def seat(index: int, names: tuple[str, ...]) -> HumanSeat:
        return HumanSeat(_human_config(tmp_path).rules, names, index, stdin=io.StringIO("x\n1\n"), stdout=io.StringIO())

    with pytest.raises(MatchInterrupted, match="the human seat's input ended") as caught:
        run_match(_human_config(tmp_path), seed=5, human=seat)
    assert caught.value.log_path is not None
    doc = json.loads(Path(caught.value.log_path).read_text(encoding="utf-8"))
    assert doc["status"] == "interrupted"


class _FirstChoice:
    """A terminal seat that is not the show's: the match loop needs only `match.seat.TerminalSeat`."""

    def __init__(self) -> None:
        self.told: list[str] = []
        self.clocks: list[tuple[Clock, ...]] = []

    def decide(self, request: dict[str, Any], clocks: Sequence[Clock] = ()) -> str:
        self.told.append(request["type"])
        self.clocks.append(tuple(clocks))
        return str(request["legal"][0])

    def hole_end(self, message: dict[str, Any]) -> None:
        self.told.append(message["type"])

    def match_end(self, message: dict[str, Any]) -> None:
        self.told.append(message["type"])


def test_any_terminal_seat_plays_through_the_seam(tmp_path: Path) -> None:
    seats: list[_FirstChoice] = []

    def make(index: int, names: tuple[str, ...]) -> TerminalSeat:
        assert (index, names) == (0, ("ann", "greedy"))
        seats.append(_FirstChoice())
        return seats[-1]

    result = run_match(_human_config(tmp_path), seed=5, human=make)
    assert result.log["status"] == "finished"
    told = seats[0].told
    assert told[-1] == "match_end" and told.count("hole_end") == 2 and set(told) == {"request", "hole_end", "match_end"}
    assert all(len(c) == 1 and c[0].seat == 1 for c in seats[0].clocks)  # the bot's clock, not the person's


def test_a_human_seat_without_its_factory_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"player 0 \(ann\) is a person at the terminal"):
        run_match(_human_config(tmp_path), seed=5)
    assert list(tmp_path.iterdir()) == []


def test_golfref_run_seats_a_config_s_human_on_its_own_stdin(tmp_path: Path) -> None:
    """`golfref run` passes the plain terminal seat in: the person plays from stdin, drawn on stdout."""
    config = tmp_path / "people.yaml"
    data = {
        "match": "people",
        "rules": {"preset": "knock", "layout": "2x2", "holes": 2},
        "players": [{"name": "ann", "builtin": "human"}, {"name": "greedy", "command": [sys.executable, str(GREEDY)]}],
        "time": {"startup_ms": 30_000, "move_ms": 30_000},
        "log": {"path": str(tmp_path / "logs" / "{match_id}.json")},
    }
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "golfref", "run", str(config), "--seed", "5", "--quiet"],
        input="1\n" * 500, capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "ann (you)" in done.stdout and "choice (1-" in done.stdout and "\x1b[" not in done.stdout
    (log,) = (tmp_path / "logs").glob("*.json")
    assert json.loads(log.read_text(encoding="utf-8"))["status"] == "finished"
