"""The match loop's logic with in-process scripted bots (golfref/bots/scripted.py): no process, virtual time.

Every fault kind the referee records (golfref/record/faults.py) is provoked by a script and
played under both fault policies: the match finishes, the fault is recorded (in the result and
in the log, with seat, hole, request and the offending line cut short), the log validates
against schemas/log.schema.json, the seat ends as the policy says and is placed last when
disqualified, and the other seat plays on untouched. Then the fault policy's edges, the time
bank and the match time (exact, since time is virtual), the log (it re-derives, a seed gives
the same log twice), hidden information (D13: what each seat is sent, and what is on disk
while a hole is in play) and stopping a match from its hooks.

What only a real process shows (pipes, framing of bytes, signals, stderr capture, process
trees, the sandbox) stays in tests/test_referee.py, which builds on the helpers here.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import jsonschema
import pytest
import yaml

from golfref.bots.framing import LINE_LIMIT
from golfref.bots.scripted import (
    Always,
    Answer,
    Brain,
    CannotStart,
    CloseStdin,
    CloseStdout,
    EchoBrain,
    Exit,
    NotUtf8,
    PolicyBrain,
    Ready,
    Say,
    Script,
    ScriptedLauncher,
    Silent,
    Stderr,
    Step,
    Think,
)
from golfref.config.match import MatchConfig, parse_config
from golfref.game.engine import Action, Game
from golfref.game.policies import GreedyPolicy, RandomPolicy
from golfref.game.rules import resolve_rules, rules_from_dict
from golfref.game.view import events_for, view
from golfref.match.referee import MatchInterrupted, MatchResult, run_match
from golfref.record.faults import FaultKind, SeatStatus
from golfref.record.log import parse_log, read_log
from golfref.record.matchlog import history_from_log

ROOT = Path(__file__).resolve().parent.parent
GENEROUS = 10_000  # ms: only a broken bot or referee takes this long
LOG_VALIDATOR = jsonschema.Draft202012Validator(
    json.loads((ROOT / "schemas" / "log.schema.json").read_text(encoding="utf-8"))
)
PROTOCOL_VALIDATOR = jsonschema.Draft202012Validator(
    json.loads((ROOT / "schemas" / "protocol.schema.json").read_text(encoding="utf-8"))
)
CARD = re.compile(r"^(?:[A2-9TJQK][SHDC]|X[RB])(?:#[2-4])?$")
DQ, FAULTED, OK = SeatStatus.DISQUALIFIED, SeatStatus.FAULTED, SeatStatus.OK


# -- building matches ---------------------------------------------------------------------


def builtin(name: str, policy: str = "greedy") -> dict[str, Any]:
    """A player entry for a built-in policy."""
    return {"name": name, "builtin": policy}


def scripted(name: str) -> dict[str, Any]:
    """A player entry for an external bot; a `ScriptedLauncher` seats a scripted bot in its place."""
    return {"name": name, "command": [sys.executable, "-c", "pass"]}


def make_config(
    tmp_path: Path,
    players: list[dict[str, Any]],
    *,
    rules: dict[str, Any] | None = None,
    time: dict[str, int] | None = None,
    faults: dict[str, Any] | None = None,
    log: dict[str, Any] | None = None,
    seed: int | None = None,
) -> MatchConfig:
    """Write a match config as YAML text into `tmp_path` and parse it."""
    data: dict[str, Any] = {
        "match": "test",
        "rules": {"preset": "standard", "layout": "2x2", "holes": 1, "turn_limit": 10, **(rules or {})},
        "players": players,
        "time": {"startup_ms": GENEROUS, "move_ms": GENEROUS, **(time or {})},
        "log": {"path": str(tmp_path / "logs" / "{match_id}.json"), **(log or {})},
    }
    if faults is not None:
        data["faults"] = faults
    if seed is not None:
        data["seed"] = seed
    text = yaml.safe_dump(data, sort_keys=False)
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "match.yaml"
    path.write_text(text, encoding="utf-8")
    return parse_config(text, source=str(path), base_dir=tmp_path)


def play(
    tmp_path: Path,
    brains: Mapping[int, Brain | CannotStart],
    players: list[dict[str, Any]],
    seed: int = 11,
    **config: Any,
) -> tuple[MatchResult, ScriptedLauncher]:
    """Play a match whose external seats are `brains`' scripted bots."""
    launcher = ScriptedLauncher(brains)
    result = run_match(make_config(tmp_path, players, **config), seed=seed, launcher=launcher)
    return result, launcher


# -- log checks -----------------------------------------------------------------------------


def checked_log(result: MatchResult) -> dict[str, Any]:
    """The finished log on disk, validated against the schema and the result."""
    log = read_log(result.log_path)
    errors = sorted(LOG_VALIDATOR.iter_errors(log), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
    assert log["status"] == "finished" and log["complete"] is True and log["error"] is None
    assert isinstance(log["seed"], int)
    assert log["faults"] == [f.to_json() for f in result.faults]
    assert log["placings"] == list(result.placings) and log["totals"] == list(result.totals)
    assert [p["status"] for p in log["players"]] == [s.value for s in result.statuses]
    assert len(log["holes"]) == log["rules"]["holes"]
    assert all(h["result"] is not None for h in log["holes"])
    return log


def steps_of(log: dict[str, Any], seat: int) -> list[tuple[int, dict[str, Any]]]:
    """(hole, step) of every decision of `seat`, in order."""
    return [(h, s) for h, hole in enumerate(log["holes"]) for s in hole["steps"] if s.get("seat") == seat]


def step_for_request(log: dict[str, Any], request: int) -> tuple[int, dict[str, Any]]:
    """(hole, step) of the one decision `request` asked for."""
    found = [(h, s) for h, hole in enumerate(log["holes"]) for s in hole["steps"] if s.get("request") == request]
    assert len(found) == 1, f"request {request} is not exactly one step of the log"
    return found[0]


def transcript(log_path: Path, seat: int) -> list[dict[str, Any]]:
    """The records of a seat's transcript."""
    path = log_path.with_name(f"{log_path.stem}.seat{seat}.transcript.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# -- every fault kind, under both policies --------------------------------------------------

Line = Callable[[str | None], bool]


def no_line(line: str | None) -> bool:
    """No line is kept (a timeout, an exit)."""
    return line is None


def exactly(text: str) -> Line:
    """The line kept is `text`."""
    return lambda line: line == text


def contains(text: str) -> Line:
    """The line kept holds `text` and is short."""
    return lambda line: line is not None and text in line and len(line) <= 300


def cut_short(line: str | None) -> bool:
    """A huge line: only about 200 characters of it are kept."""
    return line is not None and 0 < len(line) <= 300 and "xxxxxxxx" in line


def answer_json(check: Callable[[dict[str, Any]], bool]) -> Line:
    """The line kept is JSON that passes `check`."""

    def ok(line: str | None) -> bool:
        return line is not None and check(json.loads(line))

    return ok


T, X = FaultKind.TIMEOUT, FaultKind.EXITED
CHATTER = [Say(json.dumps({"type": "chatter", "n": n})) for n in range(100)]


@dataclass(frozen=True)
class Case:
    name: str
    brain: Callable[[], Brain | CannotStart]
    forfeit: tuple[FaultKind, ...]
    """Faults recorded under `policy: forfeit`."""
    fallback: tuple[FaultKind, ...]
    """Faults recorded under `policy: fallback` with `max_faults: 2`."""
    fallback_status: SeatStatus
    line: Line = no_line
    """What the first fault keeps of the offending line."""
    startup: bool = False
    """The fault happens before the first hole (no hole, no request)."""
    message: str | None = None
    """Text the first fault's message must contain."""
    time: dict[str, int] | None = None
    stderr: str | None = None
    """Text the seat's kept stderr must contain."""


CASES = [
    Case("clean", EchoBrain, (), (), OK),
    Case("greedy-policy", lambda: PolicyBrain(GreedyPolicy(resolve_rules("standard", {"layout": "2x2"}))), (), (), OK),
    Case("stderr", lambda: Script(Ready(), [Stderr("thinking hard\n"), Answer()]), (), (), OK, stderr="thinking hard"),
    Case(
        "start-failed",
        lambda: CannotStart("'bot' not found on PATH"),
        (FaultKind.START_FAILED,),
        (FaultKind.START_FAILED,),
        DQ,
        startup=True,
        message="cannot start bot seat 0: 'bot' not found on PATH",
    ),
    Case(
        "silence",
        lambda: Script(Ready(), then=Silent()),
        (T,),
        (T, T),
        DQ,
        message="no answer to request 1 within the time limit",
    ),
    # PROTOCOL.md: a bot that never said ready is disqualified at once, whatever the policy.
    Case("never-ready", Silent, (T,), (T,), DQ, startup=True, message="no ready within the time limit"),
    Case(
        "exit-mid-match",
        lambda: Script(Ready(), Answer(), Exit(3)),
        (X,),
        (X,),
        DQ,
        message="the bot exited (code 3) before its answer to request 2",
    ),
    Case(
        "killed",
        lambda: Script(Ready(), Exit(-9)),
        (X,),
        (X,),
        DQ,
        message="the bot was killed by signal 9 (SIGKILL) before its answer to request 1",
    ),
    Case(
        "crash-at-startup",
        lambda: Script(at_start=[Stderr("RuntimeError: crashing at startup on purpose\n"), Exit(1)]),
        (X,),
        (X,),
        DQ,
        startup=True,
        message="the bot exited (code 1) before its ready",
        stderr="crashing at startup on purpose",
    ),
    Case(
        "close-stdout-stay",
        lambda: Script(Ready(), CloseStdout()),
        (X,),
        (X,),
        DQ,
        message="the bot closed its stdout but is still running before its answer to request 1",
    ),
    # A failed write to an exiting bot is recorded as the failed read after it would be.
    Case(
        "close-stdin-exit",
        lambda: Script(at_start=[CloseStdin(), Think(500), Exit(3)]),
        (X,),
        (X,),
        DQ,
        startup=True,
        message="the bot exited (code 3) before its ready",
    ),
    Case(
        "stops-reading",
        lambda: Script(Ready(), [Answer(), CloseStdin()]),
        (X,),
        (X,),
        DQ,
        message="the bot does not take its input (closed, or not reading it) before its answer to request 2",
    ),
    Case(
        "resource-limit",
        lambda: Script(Ready(), Exit(-9, limit="memory_mb (64 MiB)")),
        (FaultKind.RESOURCE_LIMIT,),
        (FaultKind.RESOURCE_LIMIT,),
        DQ,
        message="hit its memory_mb (64 MiB) limit: the bot was killed by signal 9 (SIGKILL) before its answer",
    ),
    Case("garbage", lambda: Always("hello world"), (FaultKind.NOT_JSON,), (FaultKind.NOT_JSON,) * 2, DQ,
         exactly("hello world")),  # fmt: skip
    Case(
        "truncated-json",
        lambda: Always('{"type":"answer","id":'),
        (FaultKind.NOT_JSON,),
        (FaultKind.NOT_JSON,) * 2,
        DQ,
        exactly('{"type":"answer","id":'),
    ),
    Case(
        "long-garbage",
        lambda: Always("y" * 100_000),
        (FaultKind.NOT_JSON,),
        (FaultKind.NOT_JSON,) * 2,
        DQ,
        exactly("y" * 200 + "... (100000 characters)"),
    ),
    Case("not-utf8", lambda: Always(NotUtf8(b"\xff\xfe")), (FaultKind.NOT_UTF8,), (FaultKind.NOT_UTF8,) * 2, DQ,
         contains(r"\xff\xfe")),  # fmt: skip
    Case(
        "line-too-long",
        lambda: Always("x" * (LINE_LIMIT + 1)),
        (FaultKind.LINE_TOO_LONG,),
        (FaultKind.LINE_TOO_LONG,) * 2,
        DQ,
        cut_short,
    ),
    Case(
        "invalid-answer",
        lambda: Always('{"type": "answer", "id": 1}'),
        (FaultKind.INVALID_MESSAGE,),
        (FaultKind.INVALID_MESSAGE,) * 2,
        DQ,
        answer_json(lambda m: m["type"] == "answer" and "action" not in m),
    ),
    Case(
        "ready-as-answer",
        lambda: Always(Ready()),
        (FaultKind.INVALID_MESSAGE,),
        (FaultKind.INVALID_MESSAGE,) * 2,
        DQ,
        answer_json(lambda m: m["type"] == "ready"),
        message="expected an answer message, got type",
    ),
    Case(
        "wrong-id",
        lambda: Always(Answer(id=1001)),
        (FaultKind.WRONG_ID,),
        (FaultKind.WRONG_ID,) * 2,
        DQ,
        answer_json(lambda m: m["id"] == 1001),
        message="answer id 1001, but the open request is 1",
    ),
    # A 4,000-digit id is quoted cut short, like every value a bot sent.
    Case(
        "huge-id",
        lambda: Always(Answer(id=10**4000)),
        (FaultKind.WRONG_ID,),
        (FaultKind.WRONG_ID,) * 2,
        DQ,
        lambda line: line is not None and len(line) < 300,
        message="answer id 1000000",
    ),
    Case(
        "answer-twice",
        lambda: Always(Answer(), Answer()),
        (FaultKind.REPEATED_ID,),
        (FaultKind.REPEATED_ID,) * 2,
        DQ,
        answer_json(lambda m: m["type"] == "answer" and m["id"] == 1),
        message="a second answer to request 1",
    ),
    Case(
        "unasked",
        lambda: Script([Ready(), Answer("stock", id=0)]),
        (FaultKind.UNASKED_OUTPUT,),
        (FaultKind.UNASKED_OUTPUT,),
        FAULTED,
        answer_json(lambda m: m == {"type": "answer", "id": 0, "action": "stock"}),
        message="output when no request was open",
    ),
    Case(
        "chatter",
        lambda: Script([Ready(), *CHATTER]),
        (FaultKind.UNASKED_OUTPUT,),
        (FaultKind.UNASKED_OUTPUT,) * 2,
        DQ,
        answer_json(lambda m: m["type"] == "chatter"),
    ),
    Case(
        "early-answer",
        lambda: Script([Ready(), Answer("stock", id=1)]),
        (FaultKind.UNASKED_OUTPUT,),
        (FaultKind.UNASKED_OUTPUT,),
        FAULTED,
        answer_json(lambda m: m["id"] == 1),
        message="an answer to request 1 before request 1 was sent",
    ),
    Case(
        "illegal",
        lambda: Always(Answer("swap:99")),
        (FaultKind.ILLEGAL_ACTION,),
        (FaultKind.ILLEGAL_ACTION,) * 2,
        DQ,
        answer_json(lambda m: m["action"] == "swap:99"),
        message="'swap:99' is not a legal choice (legal: ",
    ),
    # A line before ready is charged by the policy like any other fault, not fatal by itself,
    # whether it was printed before the hello was sent or after.
    Case(
        "banner",
        lambda: Script(at_start=["loading the model..."]),
        (FaultKind.NOT_JSON,),
        (FaultKind.NOT_JSON,),
        FAULTED,
        exactly("loading the model..."),
        startup=True,
        message="expected ready: not JSON",
    ),
    Case(
        "banner-after-hello",
        lambda: Script(["loading the model...", Ready()]),
        (FaultKind.NOT_JSON,),
        (FaultKind.NOT_JSON,),
        FAULTED,
        exactly("loading the model..."),
        startup=True,
        message="expected ready: not JSON",
    ),
    Case(
        "bad-ready",
        lambda: Script([Say('{"type": "ready"}'), Ready()]),
        (FaultKind.INVALID_MESSAGE,),
        (FaultKind.INVALID_MESSAGE,),
        FAULTED,
        exactly('{"type": "ready"}'),
        startup=True,
        message="ready needs a 'name' string",
    ),
    # The late answer to the timed-out request is dropped without a second fault.
    Case(
        "late-answer",
        lambda: Script(Ready(), [Think(1200), Answer()], [Think(300), Answer()]),
        (T,),
        (T,),
        FAULTED,
        time={"move_ms": 500, "grace_ms": 500},
    ),
    # One late answer to a timed-out request is dropped; the next copy of it is a fault.
    Case(
        "stale-flood",
        lambda: Script(Ready(), [], [Answer(id=1), Answer(id=1), Answer(id=1), Answer()]),
        (T,),
        (T, FaultKind.REPEATED_ID),
        DQ,
        message="no answer to request 1 within the time limit",
    ),
    # Like a flag falling on a chess clock: no time left for the match, no request.
    Case(
        "match-time",
        lambda: Always(Think(2000), Answer()),
        (T,),
        (T, FaultKind.MATCH_TIME),
        DQ,
        time={"move_ms": 5_000, "match_ms": 300},
    ),
]


class FaultCase(Protocol):
    """What a fault case of this file and of tests/test_referee.py says of its outcome."""

    forfeit: tuple[FaultKind, ...]
    fallback: tuple[FaultKind, ...]
    fallback_status: SeatStatus
    line: Line
    startup: bool
    message: str | None
    stderr: str | None


def check_fault_outcome(result: MatchResult, log: dict[str, Any], case: FaultCase, policy: str) -> None:
    """The faults of seat 0 as `case` says under `policy`, where each happened, the seat's standing, seat 1 clean."""
    expected = case.forfeit if policy == "forfeit" else case.fallback
    assert [f.kind for f in result.faults] == list(expected), [(f.kind.value, f.message) for f in result.faults]
    assert {f.seat for f in result.faults} <= {0}

    # where each fault happened
    for fault in result.faults:
        if case.startup:
            assert (fault.hole, fault.request) == (None, None)
        elif fault.kind in (FaultKind.UNASKED_OUTPUT, FaultKind.MATCH_TIME):
            assert (fault.hole, fault.request) == (0, None)
        else:
            assert fault.hole == 0 and fault.request is not None
            hole, step = step_for_request(log, fault.request)
            assert hole == fault.hole and step["seat"] == 0
            if fault.kind is not FaultKind.REPEATED_ID:  # a repeat names the request answered first
                assert step["by"] == "fallback", "a faulted decision is played by the fallback"
    if expected:
        assert case.line(result.faults[0].line), result.faults[0].line
    if case.message is not None:
        assert case.message in result.faults[0].message, result.faults[0].message
    assert all(len(f.message) < 250 for f in result.faults), "what a bot sent is quoted cut short"

    # the seat's standing
    status = DQ if expected and policy == "forfeit" else case.fallback_status
    seat_log = log["players"][0]
    assert result.statuses[0] is status
    assert seat_log["faults"] == len(expected)
    if status is DQ:
        assert result.placings == (2, 1), "a disqualified seat is placed last"
        assert seat_log["disqualified_at"] == {"hole": result.faults[-1].hole, "request": result.faults[-1].request}
        after = result.faults[-1].request is None and not case.startup  # a fault between requests ends it at once
        for _, step in steps_of(log, 0):
            if after:
                assert step["by"] == "fallback", "a disqualified bot is asked nothing"
            after = after or step["request"] == result.faults[-1].request
        if case.startup:
            assert all(step["by"] == "fallback" for _, step in steps_of(log, 0))
    else:
        assert seat_log["disqualified_at"] is None
        assert any(step["by"] == "bot" for _, step in steps_of(log, 0)), "a seat still in play is asked"
    if status is FAULTED:
        last_fault = max((f.request or 0) for f in result.faults)
        assert any(step["by"] == "bot" and (step["request"] or 0) > last_fault for _, step in steps_of(log, 0))
    if case.stderr is not None:
        assert case.stderr in seat_log["stderr"]

    # the other seat is untouched
    assert result.statuses[1] is OK and log["players"][1]["faults"] == 0


@pytest.mark.parametrize("policy", ["forfeit", "fallback"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_fault_kind(tmp_path: Path, case: Case, policy: str) -> None:
    result, launcher = play(
        tmp_path,
        {0: case.brain(), 1: EchoBrain("echo")},
        [scripted("bad"), scripted("partner")],
        time=case.time,
        faults={"policy": policy, "fallback": "greedy", "max_faults": 2},
    )
    log = checked_log(result)
    check_fault_outcome(result, log, case, policy)
    partner_steps = steps_of(log, 1)
    assert partner_steps and {step["by"] for _, step in partner_steps} == {"bot"}
    assert log["players"][1]["reported_name"] == "echo"
    assert [m["type"] for m in launcher.bots[1].received[-2:]] == ["match_end", "goodbye"]


def _comparable(log: dict[str, Any]) -> dict[str, Any]:
    """A log without what differs between two runs of the same match: its id, dates and digest."""
    doc: dict[str, Any] = json.loads(json.dumps(log))
    for key in ("match_id", "started_at", "finished_at", "digest"):
        doc.pop(key)
    return doc


def test_a_script_gives_the_same_log_to_the_millisecond(tmp_path: Path) -> None:
    """Time is virtual: a script's timeouts, thinking times and fault times are the same every run."""
    logs = []
    for _ in range(2):
        brains: dict[int, Brain] = {
            0: Script(Ready(), [Think(250), Answer()], [], [Think(40), Answer()], then=Silent()),
            1: PolicyBrain(RandomPolicy(random.Random(5))),
        }
        result, launcher = play(
            tmp_path, brains, [scripted("slow"), scripted("random")],
            time={"move_ms": 200, "bank_ms": 100, "grace_ms": 50}, faults={"policy": "fallback", "max_faults": 9},
        )  # fmt: skip
        logs.append(checked_log(result))
    # 50 ms over the move limit leave 50 ms in the bank; the timeout spends them
    assert _time_offers(launcher)[:4] == [300, 250, 200, 200]
    faults = logs[0]["faults"]
    assert {f["kind"] for f in faults} == {"timeout"} and len(faults) > 2
    asked = [m["id"] for m in launcher.bots[0].received if m["type"] == "request"]
    assert (faults[0]["request"], faults[0]["at_ms"]) == (asked[1], 250 + 300), "its 2nd waits 200 + 50 + 50 ms"
    assert (faults[1]["request"], faults[1]["at_ms"]) == (asked[3], 250 + 300 + 40 + 250)
    steps = [s for _, s in steps_of(logs[0], 0)]
    assert [s["ms"] for s in steps[:4]] == [250.0, 300.0, 40.0, 250.0]
    assert _comparable(logs[0]) == _comparable(logs[1])


# -- the fault policy -------------------------------------------------------------------------


def test_forfeit_and_fallback_play_the_same_deal(tmp_path: Path) -> None:
    """Which bot faults never changes the shuffles: the deal only depends on the seed."""
    deals = []
    for policy in ("forfeit", "fallback"):
        result, _ = play(
            tmp_path / policy,
            {0: Always(Answer("swap:99")), 1: EchoBrain()},
            [scripted("bad"), scripted("echo")],
            seed=99,
            faults={"policy": policy},
        )
        deals.append(checked_log(result)["holes"][0]["deal"])
    assert deals[0] == deals[1]


def test_fallback_disqualifies_at_max_faults(tmp_path: Path) -> None:
    result, _ = play(
        tmp_path,
        {0: EchoBrain("echo"), 1: Always("garbage")},
        [scripted("echo"), scripted("bad")],
        seed=5,
        faults={"policy": "fallback", "fallback": "random", "max_faults": 3},
    )
    log = checked_log(result)
    assert [(f.seat, f.kind) for f in result.faults] == [(1, FaultKind.NOT_JSON)] * 3
    assert result.statuses == (OK, DQ) and result.placings == (1, 2)
    assert log["players"][1]["disqualified_at"]["request"] == result.faults[2].request
    assert log["fault_policy"] == {"policy": "fallback", "fallback": "random", "max_faults": 3}
    # every faulted decision and every one after the disqualification is the fallback's
    faulted = {f.request for f in result.faults}
    last = result.faults[2].request
    assert last is not None
    for _, step in steps_of(log, 1):
        expected = "fallback" if step["request"] in faulted or step["request"] is None else "bot"
        assert step["by"] == expected, step
        assert step["request"] is None or step["request"] <= last, "a disqualified bot is asked nothing"


def test_below_max_faults_the_bot_keeps_playing(tmp_path: Path) -> None:
    """Faults under `max_faults` are played through by the fallback, and the bot is asked again."""
    result, _ = play(
        tmp_path,
        {0: Script(Ready(), "oops", Answer("swap:99"), then=EchoBrain()), 1: EchoBrain()},
        [scripted("shaky"), scripted("echo")],
        faults={"policy": "fallback", "max_faults": 3},
    )
    log = checked_log(result)
    assert [(f.kind, f.request) for f in result.faults] == [(FaultKind.NOT_JSON, 1), (FaultKind.ILLEGAL_ACTION, 2)]
    assert result.statuses == (FAULTED, OK)
    by = [(s["request"], s["by"]) for _, s in steps_of(log, 0)]
    assert by[:2] == [(1, "fallback"), (2, "fallback")] and all(b == "bot" for _, b in by[2:]) and len(by) > 2


def test_faults_name_the_hole_of_their_request(tmp_path: Path) -> None:
    """A fault's hole is the hole its request belongs to, also when it is noticed at the hole's end.

    The second copy of the seat's last answer of hole 1 is noticed only once that hole is over.
    """
    result, _ = play(
        tmp_path,
        {0: Always(Answer(), Answer()), 1: EchoBrain()},
        [scripted("twice"), scripted("echo")],
        seed=3,
        rules={"holes": 2},
        faults={"policy": "fallback", "max_faults": 1000},
    )
    log = checked_log(result)
    assert result.faults and all(f.kind is FaultKind.REPEATED_ID for f in result.faults)
    wrong = []
    for fault in result.faults:
        assert fault.request is not None
        hole, _ = step_for_request(log, fault.request)
        if fault.hole != hole:
            wrong.append((fault.request, f"request in hole {hole}", f"fault says hole {fault.hole}"))
    assert not wrong, f"faults name the wrong hole: {wrong}"
    last_of_hole_0 = max(s["request"] for _, s in steps_of(log, 0) if _ == 0)
    assert any(f.request == last_of_hole_0 and f.hole == 0 for f in result.faults)


def test_every_request_in_the_log_was_sent(tmp_path: Path) -> None:
    """A step names a request id only if that request went to the bot.

    The unasked line comes with `ready`, so the seat is disqualified when the referee looks
    for unasked output just before its first request: that request is never sent.
    """
    result, launcher = play(
        tmp_path,
        {0: Script([Ready(), Answer("stock", id=0)]), 1: EchoBrain()},
        [scripted("unasked"), scripted("echo")],
        seed=4,
        faults={"policy": "forfeit"},
        log={"transcript": True},
    )
    log = checked_log(result)
    assert [f.kind for f in result.faults] == [FaultKind.UNASKED_OUTPUT] and result.statuses[0] is DQ
    for seat in range(2):
        sent = {
            message["id"]
            for record in transcript(result.log_path, seat)
            if record["dir"] == "to_bot" and (message := json.loads(record["line"]))["type"] == "request"
        }
        assert sent == {m["id"] for m in launcher.bots[seat].received if m["type"] == "request"}
        named = {step["request"] for _, step in steps_of(log, seat) if step["request"] is not None}
        assert named - sent == set(), f"seat {seat}: steps name requests that were never sent"


def test_fail_on_never_changes_what_is_played(tmp_path: Path) -> None:
    """`faults.fail_on` decides only `golfref run`'s exit status: the match and its log are the same under each."""
    logs = []
    for fail_on in ("ended", "any", "never"):
        brains: dict[int, Brain] = {0: Script(Ready(), "oops", then=EchoBrain()), 1: Always(Answer("swap:99"))}
        result, _ = play(tmp_path, brains, [scripted("shaky"), scripted("bad")],
                         faults={"policy": "fallback", "max_faults": 2, "fail_on": fail_on})  # fmt: skip
        assert result.statuses == (FAULTED, DQ)
        logs.append(_comparable(checked_log(result)))
    assert logs[0] == logs[1] == logs[2]
    assert "fail_on" not in logs[0]["fault_policy"]


@pytest.mark.parametrize(
    ("policy", "kind", "faults", "out"),
    [
        ("fallback", FaultKind.TIMEOUT, 2, False),
        ("fallback", FaultKind.TIMEOUT, 3, True),  # max_faults reached
        ("fallback", FaultKind.EXITED, 1, True),  # fatal, whatever the count
        ("fallback", FaultKind.MATCH_TIME, 1, True),
        ("fallback", FaultKind.START_FAILED, 1, True),
        ("forfeit", FaultKind.ILLEGAL_ACTION, 1, True),  # the first fault
    ],
)
def test_disqualifies_is_the_fault_policy(policy: str, kind: FaultKind, faults: int, out: bool) -> None:
    from golfref.config.match import FaultMode, FaultPolicy
    from golfref.record.faults import disqualifies

    assert disqualifies(FaultPolicy(FaultMode(policy), "greedy", 3), kind, faults) is out


# -- players and the log ---------------------------------------------------------------------


def test_builtin_player(tmp_path: Path) -> None:
    result, _ = play(tmp_path, {0: EchoBrain()}, [scripted("echo"), builtin("house", "random")], seed=1,
                     rules={"holes": 2})  # fmt: skip
    log = checked_log(result)
    assert result.faults == () and result.statuses == (OK, OK)
    assert {(s["by"], s["request"]) for _, s in steps_of(log, 1)} == {("builtin", None)}
    assert {s["by"] for _, s in steps_of(log, 0)} == {"bot"}
    assert all(isinstance(s["request"], int) for _, s in steps_of(log, 0))
    house = log["players"][1]
    assert house["builtin"] == "random" and "command" not in house and house["stderr"] is None
    assert log["players"][0]["command"] == [sys.executable, "-c", "pass"]
    assert log["players"][0]["reported_name"] == "scripted" and log["players"][0]["stderr"] == ""


def random_bots(count: int = 2) -> tuple[dict[int, Brain], list[dict[str, Any]]]:
    """`count` seats played by a random policy each, as a bot sees the match."""
    brains: dict[int, Brain] = {s: PolicyBrain(RandomPolicy(random.Random(s)), f"random{s}") for s in range(count)}
    return brains, [scripted(f"random{s}") for s in range(count)]


def test_log_rederives_to_the_same_scores(tmp_path: Path) -> None:
    brains, players = random_bots()
    result, _ = play(tmp_path, brains, players, seed=2024, rules={"preset": "knock", "layout": "2x3", "holes": 3})
    log = checked_log(result)
    game = Game.replay(rules_from_dict(log["rules"]), history_from_log(log))
    assert game.over
    cards = log["cards"]
    for recorded, derived in zip(log["holes"], game.results, strict=True):
        res = recorded["result"]
        assert res["scores"] == list(derived.scores)
        assert res["totals"] == list(derived.totals)
        assert res["penalties"] == list(derived.penalties)
        assert res["turns"] == list(derived.turns)
        assert res["end"] == derived.end.value and res["ender"] == derived.ender
        assert res["grids"] == [[cards[c] for c in g] for g in derived.grids]
    assert log["totals"] == list(game.totals) == list(result.totals)
    assert [list(s) for s in result.hole_scores] == [h["result"]["scores"] for h in log["holes"]]


def test_a_seed_gives_the_same_log_twice(tmp_path: Path) -> None:
    logs = []
    for run in range(2):
        brains, players = random_bots()
        config = make_config(
            tmp_path, players, rules={"preset": "arena", "layout": "2x2", "card_powers": True, "holes": 2}
        )
        launcher = ScriptedLauncher(brains)
        result = run_match(config, seed=777, log_path=str(tmp_path / f"run{run}.json"), launcher=launcher)
        logs.append(checked_log(result))
    assert logs[0]["seed"] == logs[1]["seed"] == 777
    assert logs[0]["match_id"] != logs[1]["match_id"]
    assert _comparable(logs[0]) == _comparable(logs[1])


def test_without_a_seed_one_is_recorded_at_the_end(tmp_path: Path) -> None:
    config = make_config(tmp_path, [scripted("echo"), builtin("house")])
    assert config.seed is None
    result = run_match(config, launcher=ScriptedLauncher({0: EchoBrain()}))
    log = checked_log(result)
    assert isinstance(log["seed"], int) and log["seed"] >= 0
    # the recorded seed replays the very same deal
    again = run_match(
        config, seed=log["seed"], log_path=str(tmp_path / "again.json"), launcher=ScriptedLauncher({0: EchoBrain()})
    )
    assert checked_log(again)["holes"][0]["deal"] == log["holes"][0]["deal"]


def test_the_config_seed_is_used_and_the_argument_wins(tmp_path: Path) -> None:
    config = make_config(tmp_path, [builtin("a"), builtin("b", "random")], seed=31)
    assert checked_log(run_match(config, log_path=str(tmp_path / "a.json")))["seed"] == 31
    assert checked_log(run_match(config, seed=32, log_path=str(tmp_path / "b.json")))["seed"] == 32


# -- the time bank and the match time (exact: time is virtual) ----------------------------------


def _time_offers(launcher: ScriptedLauncher, seat: int = 0) -> list[int]:
    return [m["time_ms"] for m in launcher.bots[seat].received if m["type"] == "request"]


def test_time_beyond_the_move_limit_comes_from_the_bank(tmp_path: Path) -> None:
    result, launcher = play(
        tmp_path, {0: Script(Ready(), [Think(400), Answer()])}, [scripted("slow"), builtin("house")], seed=3,
        time={"move_ms": 100, "bank_ms": 10_000, "increment_ms": 0, "grace_ms": 100},
    )  # fmt: skip
    assert result.faults == (), "the bank covers a slow first decision"
    offers = _time_offers(launcher)
    assert offers[0] == 10_100, "a request offers the move limit plus the whole bank"
    assert offers[1] == 10_100 - 300, "what the first decision took beyond 100 ms left the bank"
    assert offers[1] == offers[-1] and len(offers) > 2, "instant decisions do not touch the bank"


def test_every_answer_in_time_adds_the_increment_to_the_bank(tmp_path: Path) -> None:
    result, launcher = play(
        tmp_path, {0: EchoBrain()}, [scripted("quick"), builtin("house")], seed=3,
        time={"move_ms": 10_000, "bank_ms": 0, "increment_ms": 1_000, "grace_ms": 100},
    )  # fmt: skip
    assert result.faults == ()
    offers = _time_offers(launcher)
    assert len(offers) > 3
    assert offers == [10_000 + 1_000 * n for n in range(len(offers))], "each answer banks the increment"


def test_an_empty_bank_means_a_timeout(tmp_path: Path) -> None:
    result, launcher = play(
        tmp_path, {0: Always(Think(3000), Answer())}, [scripted("slow"), builtin("house")], seed=3,
        time={"move_ms": 100, "bank_ms": 200, "increment_ms": 50, "grace_ms": 100},
        faults={"policy": "fallback", "max_faults": 5},
    )  # fmt: skip
    assert [f.kind for f in result.faults][:1] == [FaultKind.TIMEOUT]
    offers = _time_offers(launcher)
    assert offers[0] == 300, "the move limit plus the bank, and no more"
    assert offers[1] == 100, "a timeout spends the whole bank, and earns no increment"


def test_the_match_time_caps_a_bot_over_the_whole_match(tmp_path: Path) -> None:
    result, launcher = play(
        tmp_path, {0: Always(Think(2000), Answer())}, [scripted("slow"), builtin("house")], seed=3,
        time={"move_ms": 5_000, "bank_ms": 0, "grace_ms": 100, "match_ms": 300},
        faults={"policy": "fallback", "max_faults": 2},
    )  # fmt: skip
    assert _time_offers(launcher) == [300], "a request never offers more than the match time left"
    first, second = result.faults
    assert first.kind is FaultKind.TIMEOUT and first.request == 1 and first.at_ms == 400
    assert second.kind is FaultKind.MATCH_TIME and second.request is None and "match time" in second.message
    assert result.statuses[0] is SeatStatus.DISQUALIFIED
    assert result.log["time_control"]["match_ms"] == 300
    from golfref.record.validate import Status, validate

    assert validate(result.log).status is Status.VALID


def test_match_time_left_shortens_the_request(tmp_path: Path) -> None:
    """A bot that used part of its match time is offered only what is left, however long the move limit."""
    _, launcher = play(
        tmp_path, {0: Script(Ready(), [Think(700), Answer()])}, [scripted("slow"), builtin("house")], seed=3,
        time={"move_ms": 5_000, "grace_ms": 100, "match_ms": 1_000},
    )  # fmt: skip
    offers = _time_offers(launcher)
    assert offers[:2] == [1_000, 300]


# -- hidden information (D13) --------------------------------------------------------------------


@dataclass
class Snapshot:
    """What the engine says at the moment a request went to a seat."""

    seat: int
    hole: int
    view: dict[str, Any]
    events: list[dict[str, Any]]
    legal: list[str]
    decision: str
    seen: set[int]
    grids: list[list[int]]
    up: list[bool]
    known: list[int]


def rederive(log: dict[str, Any]) -> tuple[dict[int, Snapshot], list[list[list[dict[str, Any]]]], bool]:
    """Replay the log step by step.

    Returns a snapshot for every request, every hole's events as each seat may see them
    (by hole, then seat), and whether a reshuffle happened.
    """
    game = Game(rules_from_dict(log["rules"]))
    ids = {name: i for i, name in enumerate(log["cards"])}
    players = game.players
    seen: list[set[int]] = [set() for _ in range(players)]
    snapshots: dict[int, Snapshot] = {}
    hole_events: list[list[list[dict[str, Any]]]] = []
    reshuffled = False

    def observe() -> None:
        # Everything a seat could see now: face-up cards and the cards it knows.
        for s in range(players):
            bit = 1 << s
            seen[s].update(c for c in range(len(game.cards)) if game.up[c] or game.known[c] & bit)

    for h, hole in enumerate(log["holes"]):
        for s in seen:
            s.clear()
        game.apply_shuffle([ids[n] for n in hole["deal"]])
        observe()
        for step in hole["steps"]:
            if "reshuffle" in step:
                reshuffled = True
                game.apply_shuffle([ids[n] for n in step["reshuffle"]])
                observe()
                continue
            seat = step["seat"]
            assert game.to_move == seat and game.hole == h
            if step["request"] is not None:
                snapshots[step["request"]] = Snapshot(
                    seat=seat,
                    hole=h,
                    view=view(game, seat).to_json(),
                    events=events_for(game, seat, 0),
                    legal=[a.text for a in game.legal_actions()],
                    decision=game.decision.value,  # type: ignore[union-attr]
                    seen=set(seen[seat]),
                    grids=[list(g) for g in game.grids],
                    up=list(game.up),
                    known=list(game.known),
                )
            game.apply(Action.parse(step["action"]))
            observe()
        assert len(game.results) == h + 1, "the hole ends with its last step"
        hole_events.append([events_for(game, s, 0, finished=True) for s in range(players)])
    return snapshots, hole_events, reshuffled


def card_strings(value: Any) -> list[str]:
    """Every string in a message that names a card."""
    if isinstance(value, str):
        return [value] if CARD.match(value) else []
    if isinstance(value, dict):
        return [c for v in value.values() for c in card_strings(v)]
    if isinstance(value, list):
        return [c for v in value for c in card_strings(v)]
    return []


HIDDEN = {
    # fixed peeks (D1), a flip after every throw (D5)
    "standard-peek-2decks": ({"preset": "standard", "layout": "2x3", "decks": 2, "holes": 2, "turn_limit": 30}, 2),
    # peeks, face-down swaps (D6), knocking (D4), card powers (D11) on the 4-card grid
    "arena-2x2-powers": ({"preset": "arena", "layout": "2x2", "card_powers": True, "holes": 3}, 2),
    # chosen peeks, face-down swaps with no knocking: holes run into reshuffles (D7), 2 decks
    "classic-facedown-3p": (
        {
            "preset": "classic",
            "layout": "2x3",
            "reveal": "peek",
            "swap_face": "down",
            "card_powers": True,
            "holes": 2,
            "turn_limit": 40,
        },
        3,
    ),
}


@pytest.mark.parametrize("name", list(HIDDEN))
def test_a_seat_is_sent_only_what_it_has_seen(tmp_path: Path, name: str) -> None:
    rules, count = HIDDEN[name]
    brains, players = random_bots(count)
    result, launcher = play(tmp_path, brains, players, seed=4242, rules=rules, log={"transcript": True})
    log = checked_log(result)
    assert result.faults == ()
    snapshots, hole_events, reshuffled = rederive(log)
    if name == "classic-facedown-3p":
        assert reshuffled, "this match should cover a reshuffle"
    cards = log["cards"]
    ids = {n: i for i, n in enumerate(cards)}

    for seat in range(count):
        bit = 1 << seat
        records = transcript(result.log_path, seat)
        assert {r["dir"] for r in records} == {"to_bot", "from_bot"}
        for r in records:
            assert PROTOCOL_VALIDATOR.is_valid(json.loads(r["line"])), r["line"][:200]
        sent = [json.loads(r["line"]) for r in records if r["dir"] == "to_bot"]
        assert sent == launcher.bots[seat].received, "the transcript holds what the bot was sent"
        assert sent[0]["type"] == "hello" and sent[0]["seat"] == seat
        assert [m["type"] for m in sent[-2:]] == ["match_end", "goodbye"]
        assert card_strings(sent[0]) == []

        asked = sorted(rid for rid, snap in snapshots.items() if snap.seat == seat)
        assert [m["id"] for m in sent if m["type"] == "request"] == asked
        hole = -1
        events: list[dict[str, Any]] = []  # the events this seat was sent in the hole so far
        for message in sent:
            if message["type"] == "hole_end":
                assert message["hole"] == hole
                assert message["grids"] == log["holes"][hole]["result"]["grids"]
                # with the hole's last events the seat has seen every event of it, as it may see them
                assert events + message["events"] == hole_events[hole][seat]
                continue
            if message["type"] != "request":
                continue
            snap = snapshots[message["id"]]
            if snap.hole != hole:
                hole, events = snap.hole, []
            events += message["events"]
            # the very view and events the gate builds from the engine at that point
            assert message["view"] == snap.view
            assert events == snap.events
            assert message["legal"] == snap.legal and message["decision"] == snap.decision
            # and, checked apart from the gate: no card the seat has not seen
            unseen = [n for n in card_strings(message) if ids[n] not in snap.seen]
            assert unseen == [], f"request {message['id']} shows seat {seat} cards it never saw"
            for s, grid in enumerate(message["view"]["grids"]):
                for slot, shown in enumerate(grid):
                    card = snap.grids[s][slot]
                    visible = snap.up[card] or bool(snap.known[card] & bit)
                    assert (shown is not None) == visible, (message["id"], s, slot)
                    if shown is not None:
                        assert shown == cards[card]
            drawn = message["view"]["drawn"]
            if drawn is not None:
                assert ids[drawn] in snap.seen


class Spy:
    """A bot that plays random legal choices and, on its first request of hole 2, reads what is on disk
    (the log, every transcript): what a bot of the same user could read at that moment."""

    def __init__(self, log_path: Path, seat: int) -> None:
        self.log_path = log_path
        self.rng = random.Random(seat)
        self.report: dict[str, Any] | None = None

    def start(self) -> Sequence[Step | str]:
        """Nothing before the hello."""
        return ()

    def react(self, message: Mapping[str, Any]) -> Sequence[Step | str]:
        """Ready, a random choice (spying first, once), an exit at goodbye."""
        if message["type"] == "hello":
            return (Ready("spy"),)
        if message["type"] == "goodbye":
            return (Exit(0),)
        if message["type"] != "request":
            return ()
        if self.report is None and message["view"]["hole"] == 1:
            try:
                text: str | None = self.log_path.read_text(encoding="utf-8")
            except OSError:
                text = None
            folder = self.log_path.parent
            found = {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.transcript.jsonl"))}
            self.report = {"request": message["id"], "log": text, "transcripts": found}
        return (Answer(self.rng.choice(message["legal"])),)


def test_nothing_on_disk_shows_the_hole_in_play(tmp_path: Path) -> None:
    log_path = tmp_path / "logs" / "spied.json"
    spies = [Spy(log_path, s) for s in range(2)]
    config = make_config(
        tmp_path,
        [scripted(f"spy{s}") for s in range(2)],
        rules={"preset": "standard", "layout": "2x3", "holes": 3, "turn_limit": 20},
        log={"transcript": True},
        seed=8,
    )
    result = run_match(config, log_path=str(log_path), launcher=ScriptedLauncher(dict(enumerate(spies))))
    final = checked_log(result)
    assert result.faults == ()
    for seat, spy in enumerate(spies):
        report = spy.report
        assert report is not None
        _, step = step_for_request(final, report["request"])
        assert step["seat"] == seat
        assert report["log"] is not None, "the journal exists once the first hole is over"
        seen = parse_log(report["log"].encode("utf-8"))
        assert seen["status"] == "running" and seen["complete"] is False
        assert seen["seed"] is None, "the seed reaches the disk only at the end"
        assert LOG_VALIDATOR.is_valid(seen)
        assert [h["hole"] for h in seen["holes"]] == [0], "hole 2 (its deal) is on disk while it is played"
        assert seen["holes"][0] == final["holes"][0]
        assert json.dumps(final["holes"][1]["deal"], separators=(",", ":")) not in report["log"]
        assert len(report["transcripts"]) == 2
        for text in report["transcripts"].values():
            for line in text.splitlines():
                message = json.loads(json.loads(line)["line"])
                if message["type"] == "request":
                    assert message["view"]["hole"] == 0, "a transcript line of hole 2 reached the disk"
                assert message.get("hole", 0) == 0


# -- stopping a match from its hooks ------------------------------------------------------------


def _stop_at(decisions: int, exc: BaseException) -> Callable[[Game], None]:
    """An on_turn hook that raises `exc` before the match's `decisions`+1-th decision."""
    seen = [0]

    def on_turn(game: Game) -> None:
        if seen[0] == decisions:
            raise exc
        seen[0] += 1

    return on_turn


def test_on_turn_raising_keyboardinterrupt_stops_the_match_as_ctrl_c_does(tmp_path: Path) -> None:
    from golfref.record.validate import Status, validate_file

    config = make_config(tmp_path, [scripted("a"), builtin("b", "random")], rules={"holes": 2})
    launcher = ScriptedLauncher({0: EchoBrain()})
    with pytest.raises(MatchInterrupted) as stopped:
        run_match(config, seed=4, on_turn=_stop_at(5, KeyboardInterrupt()), launcher=launcher)
    assert stopped.value.log_path is not None
    log = read_log(stopped.value.log_path)
    assert (log["status"], log["error"]) == ("interrupted", "interrupted by SIGINT")
    assert len(log["holes"]) == 1 and log["holes"][0]["result"] is None
    assert len(log["holes"][0]["steps"]) == 5  # the open hole, up to the stop
    assert validate_file(stopped.value.log_path).status is Status.INCOMPLETE
    assert launcher.bots[0].received[-1]["type"] == "request", "a stopped match sends no goodbye"


def test_on_turn_raising_another_exception_saves_an_error_log_and_propagates(tmp_path: Path) -> None:
    config = make_config(tmp_path, [builtin("a"), builtin("b", "random")], log={"path": str(tmp_path / "m.json")})
    with pytest.raises(RuntimeError, match="on purpose"):
        run_match(config, seed=4, on_turn=_stop_at(3, RuntimeError("stopped on purpose")))
    log = read_log(tmp_path / "m.json")
    assert (log["status"], log["error"]) == ("error", "RuntimeError: stopped on purpose")
    assert len(log["holes"][0]["steps"]) == 3


def test_a_stop_asked_at_a_wait_stops_the_match(tmp_path: Path) -> None:
    """`stop` is asked at the waits for a bot: a scripted bot's wait asks it as a pool's does."""
    asked = [0]

    def stop() -> bool:
        asked[0] += 1
        return asked[0] > 4

    config = make_config(tmp_path, [scripted("a"), builtin("b")], log={"path": str(tmp_path / "s.json")})
    with pytest.raises(MatchInterrupted):
        run_match(config, seed=4, stop=stop, launcher=ScriptedLauncher({0: EchoBrain()}))
    assert read_log(tmp_path / "s.json")["status"] == "interrupted"


def test_the_architecture_pages_example_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/ARCHITECTURE.md shows library users the scripted seam: its example prints what the page says."""
    page = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = page[page.index("## Bots in this process") :]
    code = section[section.index("```python\n") + len("```python\n") : section.index("\n```\n")]
    printed = re.search(r"prints `(.+?)` at once", section)
    assert printed is not None
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/ARCHITECTURE.md", "exec"), {"__name__": "example"})
    assert capsys.readouterr().out == printed.group(1) + "\n"
    assert len(list((tmp_path / "logs").glob("demo-*.json"))) == 1
