"""Faults in plain words (golfref/record/faults.py: explain_fault, explain_disqualification), and where
`golfref replay` and `golfref run` print them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from golfref.config.match import FaultMode, FaultPolicy, TimeControl
from golfref.record.faults import Fault, FaultKind, explain_disqualification, explain_fault
from golfref.record.log import read_log
from golfref.show.pretty import render_match
from tests.conftest import BOTS, ROOT, TESTS


def fault(kind: FaultKind, message: str, line: str | None = None, request: int | None = 12, seat: int = 1) -> Fault:
    return Fault(seat, kind, message, line, 0, request, 100)


def answer(action: str) -> str:
    return json.dumps({"type": "answer", "id": 12, "action": action})


@pytest.mark.parametrize(
    ("made", "time", "taken", "words"),
    [
        (fault(FaultKind.TIMEOUT, "no answer to request 12 within the time limit"), TimeControl(move_ms=1000), 2340.4,
         "seat 1 took 2,340 ms without answering request 12; its limit was 1,000 ms per move (and 100 ms grace)"),
        (fault(FaultKind.TIMEOUT, "no answer", request=12), TimeControl(move_ms=500, bank_ms=2000), None,
         "seat 1 did not answer request 12; its limit was 500 ms per move plus what was left of its time bank "
         "(and 100 ms grace)"),
        (fault(FaultKind.TIMEOUT, "no ready within the time limit", request=None), TimeControl(startup_ms=3000), None,
         "seat 1 did not say ready within 3,000 ms, its limit to start (plus 100 ms grace)"),
        (fault(FaultKind.MATCH_TIME, "the bot's match time (60000 ms) is used up"), TimeControl(match_ms=60000), None,
         "seat 1 used up its 60,000 ms of thinking time for the whole match"),
        (fault(FaultKind.ILLEGAL_ACTION, "'swap:7' is not a legal choice (legal: swap:0 swap:1 swap:2)",
               answer("swap:7")), TimeControl(), None,
         "seat 1 answered 'swap:7' to request 12 but the grid has 6 slots (0 to 5)"),
        (fault(FaultKind.ILLEGAL_ACTION, "'swap:7' is not a legal choice (legal: stock discard)", answer("swap:7")),
         TimeControl(), None, "seat 1 answered 'swap:7' to request 12, which was not one of its legal choices: "
         "stock discard"),
        (fault(FaultKind.NOT_JSON, "expected JSON", "hello"), TimeControl(), None,
         "seat 1 wrote a line that is not a JSON message at request 12: expected JSON"),
    ],
)  # fmt: skip
def test_a_fault_is_explained_with_the_limit_or_rule_it_broke(
    made: Fault, time: TimeControl, taken: float | None, words: str
) -> None:
    assert explain_fault(made, time, 6, taken) == words


def test_a_disqualification_says_which_fault_and_which_rule() -> None:
    faults = [fault(FaultKind.ILLEGAL_ACTION, "x", request=r) for r in (3, 7, 12)]
    assert explain_disqualification(faults, FaultPolicy(max_faults=3), 12, 0, "bob (seat 1)") == (
        "bob (seat 1) was disqualified at request 12 (illegal_action): its fault number 3 reached the policy's "
        "max_faults (3); the greedy fallback played its turns from there, and it is placed last"
    )
    forfeit = FaultPolicy(mode=FaultMode.FORFEIT, fallback="random")
    assert "the fault policy is forfeit: the first fault disqualifies; the random fallback" in (
        explain_disqualification(faults[:1], forfeit, 3, 0, "bob (seat 1)")
    )
    crash = [fault(FaultKind.EXITED, "the bot exited (code 3) before its answer to request 12")]
    assert "(exited): a fault of kind exited always disqualifies" in explain_disqualification(
        crash, FaultPolicy(), 12, 0, "bob (seat 1)"
    )
    assert explain_disqualification([], FaultPolicy(), None, None, "bob (seat 1)").startswith(
        "bob (seat 1) was disqualified at the start: it never said ready"
    )


def test_replay_text_explains_faults_and_ends_with_why_a_seat_was_disqualified() -> None:
    lines = render_match(read_log(TESTS / "logs" / "faults_3p.json"), width=200)
    text = "\n".join(lines)
    assert "    why: illegal (seat 1) answered 'swap:99' to request 4 but the grid has 4 slots (0 to 3)" in text
    start = next(i for i, line in enumerate(lines) if line.startswith("quitter (seat 2) was disqualified"))
    assert all(line.startswith("  ") for line in lines[start + 1 :]), "the summary ends the text"
    assert " ".join(line.strip() for line in lines[start:]) == (
        "quitter (seat 2) was disqualified at request 12 (exited): a fault of kind exited always disqualifies: the "
        "bot cannot answer again; the greedy fallback played its turns from there, and it is placed last"
    )


@pytest.mark.process
def test_run_says_why_with_the_limit_and_why_a_seat_was_disqualified(tmp_path: Path) -> None:
    config = tmp_path / "m.yaml"
    config.write_text(
        "match: m\nrules: {preset: standard, holes: 1}\nseed: 4\ntime: {move_ms: 300, startup_ms: 20000}\n"
        f"players:\n  - {{name: bad, command: [{json.dumps(sys.executable)}, "
        f"{json.dumps(str(BOTS / 'bad_bot.py'))}, sleep-forever]}}\n"
        "  - {name: g, builtin: greedy}\nfaults: {policy: fallback, max_faults: 2}\n"
        f"log: {{path: {json.dumps(str(tmp_path / 'm.json'))}}}\n",
        encoding="utf-8",
    )
    done = subprocess.run([sys.executable, "-m", "golfref", "run", str(config)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    lines = done.stderr.splitlines() + done.stdout.splitlines()
    why = [line for line in lines if line.startswith("  why: ")]
    assert len(why) == 1 and re.fullmatch(
        r"  why: bad \(seat 0\) took [\d,]+ ms without answering request 1; its limit was 300 ms per move "
        r"\(and 100 ms grace\)", why[0]
    ), lines
    assert (
        "  bad (seat 0) was disqualified at request 2 (timeout): its fault number 2 reached the policy's "
        "max_faults (2); the greedy fallback played its turns from there, and it is placed last"
    ) in lines
