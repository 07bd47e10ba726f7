"""Whole matches through `run_match` with real subprocess bots.

Every misbehaviour of tests/bots/bad_bot.py is played under both fault policies: the match
finishes, the fault is recorded (in the result and in the log, with seat, hole, request and
the offending line cut short), the log validates against schemas/log.schema.json, the seat
ends as the policy says and is placed last when disqualified, the other seat plays on
untouched, and no process of the match is left behind (found through /proc by a token each
bot carries in its environment and its command line; zombie children of the referee count).

Then the log: it re-derives to the same scores, a seed gives the same log twice, and a seed
is recorded when none is given. Then hidden information (D13): every line a transcript shows
was sent to a seat is compared with the engine re-derived from the log at that point, and a
spy bot looks at the disk while a hole is in play.

Deadlines are generous except where a timeout is the subject; then the other seat is a
built-in player, so that no assertion depends on how fast a bot answers.
"""

from __future__ import annotations

import json
import os
import re
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from golfref.config.match import ConfigError, MatchConfig, parse_config
from golfref.game.engine import Action, Game
from golfref.game.rules import rules_from_dict
from golfref.game.view import events_for, view
from golfref.match.referee import MatchResult, run_match
from golfref.record.faults import FaultKind, SeatStatus
from golfref.record.log import parse_log, read_log
from golfref.record.matchlog import history_from_log

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inspects /proc"),
]

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
GENEROUS = 10_000  # ms: only a broken bot or referee takes this long
SHORT = 300  # ms: for the tests whose subject is a timeout
MOVE_SHORT = {"move_ms": SHORT}  # the bot stops answering: every wait ends in a timeout
TOKEN = "GOLFREF_TEST_TOKEN"
BAD_BOT = BOTS / "bad_bot.py"
ECHO_BOT = BOTS / "echo_bot.py"
SPY_BOT = BOTS / "spy_bot.py"
RANDOM_BOT = ROOT / "sample_matches" / "bots" / "random_bot.py"
LOG_VALIDATOR = jsonschema.Draft202012Validator(
    json.loads((ROOT / "schemas" / "log.schema.json").read_text(encoding="utf-8"))
)
PROTOCOL_VALIDATOR = jsonschema.Draft202012Validator(
    json.loads((ROOT / "schemas" / "protocol.schema.json").read_text(encoding="utf-8"))
)
CARD = re.compile(r"^(?:[A2-9TJQK][SHDC]|X[RB])(?:#[2-4])?$")


# -- building matches ---------------------------------------------------------------------


def bot(name: str, script: Path, *args: str, token: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """A player entry for a bot that carries `token` in its environment and command line."""
    return {
        "name": name,
        "command": [sys.executable, "-X", f"golfref_test_token={token}", str(script), *args],
        "env": {TOKEN: token, **(env or {})},
    }


def builtin(name: str, policy: str = "greedy") -> dict[str, Any]:
    return {"name": name, "builtin": policy}


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


# -- /proc ----------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[str, int] | None:
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2 :].split()
    return fields[0].decode(), int(fields[1])


def leftovers(token: str) -> dict[int, str]:
    """Processes carrying `token` (environment or command line), and zombie children of ours."""
    marker = f"{TOKEN}={token}".encode()
    found: dict[int, str] = {}
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            environ = cmdline = b""
        if marker in environ.split(b"\0") or token.encode() in cmdline:
            found[pid] = cmdline.replace(b"\0", b" ").decode(errors="replace")
        st = _stat(pid)
        if st is not None and st[1] == me and st[0] == "Z":
            found[pid] = "zombie child of the referee"
    return found


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
    found = [(h, s) for h, hole in enumerate(log["holes"]) for s in hole["steps"] if s.get("request") == request]
    assert len(found) == 1, f"request {request} is not exactly one step of the log"
    return found[0]


# -- every misbehaviour of bad_bot, under both policies ------------------------------------------

Line = Callable[[str | None], bool]


def no_line(line: str | None) -> bool:
    return line is None


def exactly(text: str) -> Line:
    return lambda line: line == text


def contains(text: str) -> Line:
    return lambda line: line is not None and text in line and len(line) <= 300


def cut_short(line: str | None) -> bool:
    """A huge line: only about 200 characters of it are kept."""
    return line is not None and 0 < len(line) <= 300 and "xxxxxxxx" in line


def answer_json(check: Callable[[dict[str, Any]], bool]) -> Line:
    def ok(line: str | None) -> bool:
        return line is not None and check(json.loads(line))

    return ok


T, X = FaultKind.TIMEOUT, FaultKind.EXITED


@dataclass(frozen=True)
class Case:
    mode: str
    forfeit: tuple[FaultKind, ...]
    """Faults recorded under `policy: forfeit`."""
    fallback: tuple[FaultKind, ...]
    """Faults recorded under `policy: fallback` with `max_faults: 2`."""
    fallback_status: SeatStatus
    line: Line = no_line
    """What the first fault keeps of the offending line."""
    startup: bool = False
    """The fault happens before the first hole (no hole, no request)."""
    timed: dict[str, int] | None = None
    """Limits for a case where a timeout is (or may be) part of the story; the other seat is then
    a built-in player, so that nothing depends on how fast a bot answers."""
    stderr: str | None = None
    """Text the seat's kept stderr must contain."""
    message: str | None = None
    """Text the first fault's message must contain."""


DQ, FAULTED, OK = SeatStatus.DISQUALIFIED, SeatStatus.FAULTED, SeatStatus.OK
CASES = [
    Case("sleep-forever", (T,), (T, T), DQ, timed=MOVE_SHORT, message="no answer to request 1 within the time limit"),
    Case("exit-mid-match", (X,), (X,), DQ),
    Case("partial-exit", (X,), (X,), DQ),
    Case("crash-at-startup", (X,), (X,), DQ, startup=True, stderr="crashing at startup on purpose"),
    # PROTOCOL.md: a bot that never said ready is disqualified at once, whatever the policy.
    Case("never-ready", (T,), (T,), DQ, startup=True, timed={"startup_ms": SHORT}),
    Case("garbage", (FaultKind.NOT_JSON,), (FaultKind.NOT_JSON,) * 2, DQ, exactly("hello world")),
    Case("non-utf8", (FaultKind.NOT_UTF8,), (FaultKind.NOT_UTF8,) * 2, DQ, contains(r"\xff\xfe")),
    Case(
        "truncated-json",
        (FaultKind.NOT_JSON,),
        (FaultKind.NOT_JSON,) * 2,
        DQ,
        exactly('{"type":"answer","id":'),
    ),
    Case("huge-line", (FaultKind.LINE_TOO_LONG,), (FaultKind.LINE_TOO_LONG, T), DQ, cut_short, timed=MOVE_SHORT),
    Case(
        "long-garbage",
        (FaultKind.NOT_JSON,),
        (FaultKind.NOT_JSON,) * 2,
        DQ,
        exactly("y" * 200 + "... (100000 characters)"),
    ),
    Case(
        "invalid-answer",
        (FaultKind.INVALID_MESSAGE,),
        (FaultKind.INVALID_MESSAGE,) * 2,
        DQ,
        answer_json(lambda m: m["type"] == "answer" and "action" not in m),
    ),
    Case("stderr-flood", (), (), OK, stderr="FLOOD-END"),
    Case("wrong-id", (FaultKind.WRONG_ID,), (FaultKind.WRONG_ID,) * 2, DQ, answer_json(lambda m: m["id"] > 1000)),
    # A 4,000-digit id is quoted cut short, like every value a bot sent.
    Case(
        "huge-id",
        (FaultKind.WRONG_ID,),
        (FaultKind.WRONG_ID,) * 2,
        DQ,
        lambda line: line is not None and len(line) < 300,
        message="answer id 1000000",
    ),
    Case(
        "answer-twice",
        (FaultKind.REPEATED_ID,),
        (FaultKind.REPEATED_ID,) * 2,
        DQ,
        answer_json(lambda m: m["type"] == "answer"),
    ),
    Case(
        "answer-twice-at-once",
        (FaultKind.REPEATED_ID,),
        (FaultKind.REPEATED_ID,) * 2,
        DQ,
        answer_json(lambda m: m["type"] == "answer"),
    ),
    Case(
        "unasked",
        (FaultKind.UNASKED_OUTPUT,),
        (FaultKind.UNASKED_OUTPUT,),
        FAULTED,
        answer_json(lambda m: m == {"type": "answer", "id": 0, "action": "stock"}),
    ),
    Case(
        "chatter",
        (FaultKind.UNASKED_OUTPUT,),
        (FaultKind.UNASKED_OUTPUT,) * 2,
        DQ,
        answer_json(lambda m: m["type"] == "chatter"),
    ),
    Case(
        "illegal",
        (FaultKind.ILLEGAL_ACTION,),
        (FaultKind.ILLEGAL_ACTION,) * 2,
        DQ,
        answer_json(lambda m: m["action"] == "swap:99"),
    ),
    Case("fork-child", (), (), OK),
    Case("ignore-sigterm", (T,), (T, T), DQ, timed=MOVE_SHORT),
    Case("setsid-child", (), (), OK),
    Case("setsid-orphan", (), (), OK),
    Case("crlf", (), (), OK),
    # The late answer to the timed-out request is dropped without a second fault. The bot
    # answers the next request at once, so that limit is kept loose enough for a busy machine.
    Case("late-answer", (T,), (T,), FAULTED, timed={"move_ms": 500, "grace_ms": 500}),
    # The exit status is read once the process has ended, however late after its stdout closed.
    Case("close-stdout-exit", (X,), (X,), DQ, message="the bot exited (code 3) before its answer to request 1"),
    Case("close-stdout-stay", (X,), (X,), DQ, message="closed its stdout but is still running"),
    # A failed write to an exiting bot is recorded as the failed read after it would be.
    Case("close-stdin-exit", (X,), (X,), DQ, startup=True, message="the bot exited (code 3) before its ready"),
    # A line before ready is charged by the policy like any other fault, not fatal by itself.
    Case("banner", (FaultKind.NOT_JSON,), (FaultKind.NOT_JSON,), FAULTED, exactly("loading the model..."), True),
    # One late answer to a timed-out request is dropped; the next copy of it is a fault.
    Case("stale-flood", (T,), (T, FaultKind.REPEATED_ID), DQ, timed=MOVE_SHORT),
    Case(
        "early-answer",
        (FaultKind.UNASKED_OUTPUT,),
        (FaultKind.UNASKED_OUTPUT,),
        FAULTED,
        answer_json(lambda m: m["id"] == 1),
        message="an answer to request 1 before request 1 was sent",
    ),
]


@pytest.mark.parametrize("policy", ["forfeit", "fallback"])
@pytest.mark.parametrize("case", CASES, ids=[c.mode for c in CASES])
def test_misbehaving_bot(tmp_path: Path, case: Case, policy: str) -> None:
    token = uuid.uuid4().hex
    partner = builtin("partner") if case.timed else bot("partner", ECHO_BOT, token=token)
    config = make_config(
        tmp_path,
        [bot("bad", BAD_BOT, case.mode, token=token), partner],
        time=case.timed,
        faults={"policy": policy, "fallback": "greedy", "max_faults": 2},
    )
    result = run_match(config, seed=11)

    assert leftovers(token) == {}, "processes of the match outlived it"
    log = checked_log(result)
    expected = case.forfeit if policy == "forfeit" else case.fallback
    kinds = [f.kind for f in result.faults]
    if case.mode == "answer-twice" and len(kinds) == 2 and kinds[1] in (FaultKind.UNASKED_OUTPUT, FaultKind.WRONG_ID):
        # The second copy of an answer may reach the pipe after the next request went out:
        # it then faults that request, and the bot's own answer to it comes later, unasked
        # or while a newer request is open.
        kinds[1] = FaultKind.REPEATED_ID
    assert kinds == list(expected), [(f.kind.value, f.message) for f in result.faults]
    assert {f.seat for f in result.faults} <= {0}

    # where each fault happened
    for fault in result.faults:
        if case.startup:
            assert (fault.hole, fault.request) == (None, None)
        elif fault.kind is FaultKind.UNASKED_OUTPUT:
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
        after = False
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
    if case.mode == "stderr-flood":
        assert "FLOOD-START" in seat_log["stderr"] and "bytes of stderr dropped" in seat_log["stderr"]
        assert len(seat_log["stderr"]) < 70_000

    # the other seat is untouched
    assert result.statuses[1] is OK and log["players"][1]["faults"] == 0
    partner_steps = steps_of(log, 1)
    assert partner_steps
    assert {step["by"] for _, step in partner_steps} == {"builtin" if case.timed else "bot"}
    if not case.timed:
        assert log["players"][1]["reported_name"] == "echo"


def test_forfeit_and_fallback_play_the_same_deal(tmp_path: Path) -> None:
    """Which bot faults never changes the shuffles: the deal only depends on the seed."""
    deals = []
    for policy in ("forfeit", "fallback"):
        token = uuid.uuid4().hex
        config = make_config(
            tmp_path / policy,
            [bot("bad", BAD_BOT, "illegal", token=token), bot("echo", ECHO_BOT, token=token)],
            faults={"policy": policy},
        )
        result = run_match(config, seed=99)
        assert leftovers(token) == {}
        deals.append(checked_log(result)["holes"][0]["deal"])
    assert deals[0] == deals[1]


def test_fallback_disqualifies_at_max_faults(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = make_config(
        tmp_path,
        [bot("echo", ECHO_BOT, token=token), bot("bad", BAD_BOT, "garbage", token=token)],
        faults={"policy": "fallback", "fallback": "random", "max_faults": 3},
    )
    result = run_match(config, seed=5)
    assert leftovers(token) == {}
    log = checked_log(result)
    assert [(f.seat, f.kind) for f in result.faults] == [(1, FaultKind.NOT_JSON)] * 3
    assert result.statuses == (OK, DQ) and result.placings == (1, 2)
    assert log["players"][1]["disqualified_at"]["request"] == result.faults[2].request
    assert log["fault_policy"] == {"policy": "fallback", "fallback": "random", "max_faults": 3}


def test_faults_name_the_hole_of_their_request(tmp_path: Path) -> None:
    """A fault's hole is the hole its request belongs to, also when it is noticed at the hole's end.

    Both copies of each answer come in one write, so the second copy of the seat's last
    answer of hole 1 is noticed only once that hole is over.
    """
    token = uuid.uuid4().hex
    config = make_config(
        tmp_path,
        [bot("twice", BAD_BOT, "answer-twice-at-once", token=token), bot("echo", ECHO_BOT, token=token)],
        rules={"holes": 2},
        faults={"policy": "fallback", "max_faults": 1000},
    )
    result = run_match(config, seed=3)
    assert leftovers(token) == {}
    log = checked_log(result)
    assert result.faults and all(f.kind is FaultKind.REPEATED_ID for f in result.faults)
    wrong = []
    for fault in result.faults:
        if fault.request is None:
            continue
        hole, _ = step_for_request(log, fault.request)
        if fault.hole != hole:
            wrong.append((fault.request, f"request in hole {hole}", f"fault says hole {fault.hole}"))
    assert not wrong, f"faults name the wrong hole: {wrong}"


def test_every_request_in_the_log_was_sent(tmp_path: Path) -> None:
    """A step names a request id only if that request went to the bot.

    The unasked line comes with `ready`, so the seat is disqualified when the referee looks
    for unasked output just before its first request: that request is never sent.
    """
    token = uuid.uuid4().hex
    config = make_config(
        tmp_path,
        [bot("unasked", BAD_BOT, "unasked", token=token), bot("echo", ECHO_BOT, token=token)],
        faults={"policy": "forfeit"},
        log={"transcript": True},
    )
    result = run_match(config, seed=4)
    assert leftovers(token) == {}
    log = checked_log(result)
    assert [f.kind for f in result.faults] == [FaultKind.UNASKED_OUTPUT] and result.statuses[0] is DQ
    for seat in range(2):
        sent = {
            message["id"]
            for record in transcript(result.log_path, seat)
            if record["dir"] == "to_bot" and (message := json.loads(record["line"]))["type"] == "request"
        }
        named = {step["request"] for _, step in steps_of(log, seat) if step["request"] is not None}
        assert named - sent == set(), f"seat {seat}: steps name requests that were never sent"


# -- players, configs and starting ---------------------------------------------------------------


def test_builtin_player(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = make_config(tmp_path, [bot("echo", ECHO_BOT, token=token), builtin("house", "random")], rules={"holes": 2})
    result = run_match(config, seed=1)
    assert leftovers(token) == {}
    log = checked_log(result)
    assert result.faults == () and result.statuses == (OK, OK)
    assert {(s["by"], s["request"]) for _, s in steps_of(log, 1)} == {("builtin", None)}
    assert {s["by"] for _, s in steps_of(log, 0)} == {"bot"}
    assert all(isinstance(s["request"], int) for _, s in steps_of(log, 0))
    house = log["players"][1]
    assert house["builtin"] == "random" and "command" not in house and house["stderr"] is None
    assert log["players"][0]["command"][-1] == str(ECHO_BOT)
    assert log["players"][0]["env"] == {TOKEN: token}


def test_missing_program_is_a_config_error_before_anything_starts(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    players = [
        bot("spy", SPY_BOT, token=token),
        {"name": "ghost", "command": [str(tmp_path / "no-such-bot"), "--x"]},
    ]
    with pytest.raises(ConfigError, match=r"match\.yaml:\d+: players\[1\]\.command: no such program"):
        make_config(tmp_path, players)
    assert leftovers(token) == {}
    assert not (tmp_path / "logs").exists()


def test_a_program_that_cannot_start_is_disqualified_at_once(tmp_path: Path) -> None:
    script = tmp_path / "broken_bot"
    script.write_text("#!/nonexistent/interpreter\n", encoding="utf-8")
    script.chmod(0o755)
    token = uuid.uuid4().hex
    config = make_config(
        tmp_path,
        [{"name": "broken", "command": [str(script)]}, bot("echo", ECHO_BOT, token=token)],
        faults={"policy": "fallback", "max_faults": 5},
    )
    result = run_match(config, seed=2)
    assert leftovers(token) == {}
    log = checked_log(result)
    assert [(f.seat, f.kind, f.hole, f.request) for f in result.faults] == [(0, FaultKind.START_FAILED, None, None)]
    assert "broken_bot" in result.faults[0].message
    assert result.statuses == (DQ, OK) and result.placings == (2, 1)
    assert {(s["by"], s["request"]) for _, s in steps_of(log, 0)} == {("fallback", None)}
    assert {s["by"] for _, s in steps_of(log, 1)} == {"bot"}
    assert log["players"][0]["stderr"] is None


# -- the log --------------------------------------------------------------------------------------


def random_bots(token: str, count: int = 2) -> list[dict[str, Any]]:
    return [bot(f"random{i}", RANDOM_BOT, token=token) for i in range(count)]


def test_log_rederives_to_the_same_scores(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = make_config(tmp_path, random_bots(token), rules={"preset": "knock", "layout": "2x3", "holes": 3})
    result = run_match(config, seed=2024)
    assert leftovers(token) == {}
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


def _comparable(log: dict[str, Any]) -> dict[str, Any]:
    """A log without what differs between two runs of the same match: times, ids, paths."""
    doc: dict[str, Any] = json.loads(json.dumps(log))
    for key in ("match_id", "started_at", "finished_at", "digest"):
        doc.pop(key)
    for hole in doc["holes"]:
        for step in hole["steps"]:
            if "ms" in step:
                step["ms"] = None
    for fault in doc["faults"]:
        fault["at_ms"] = None
    return doc


def test_a_seed_gives_the_same_log_twice(tmp_path: Path) -> None:
    logs = []
    token = uuid.uuid4().hex  # the same for both runs: commands and env are in the log
    for run in range(2):
        players = random_bots(token)
        config = make_config(
            tmp_path, players, rules={"preset": "arena", "layout": "2x2", "card_powers": True, "holes": 2}
        )
        result = run_match(config, seed=777, log_path=str(tmp_path / f"run{run}.json"))
        assert leftovers(token) == {}
        logs.append(checked_log(result))
    assert logs[0]["seed"] == logs[1]["seed"] == 777
    assert logs[0]["match_id"] != logs[1]["match_id"]
    assert _comparable(logs[0]) == _comparable(logs[1])


def test_without_a_seed_one_is_recorded_at_the_end(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = make_config(tmp_path, [bot("echo", ECHO_BOT, token=token), builtin("house")])
    assert config.seed is None
    result = run_match(config)
    log = checked_log(result)
    assert isinstance(log["seed"], int) and log["seed"] >= 0
    # the recorded seed replays the very same deal
    again = run_match(config, seed=log["seed"], log_path=str(tmp_path / "again.json"))
    assert checked_log(again)["holes"][0]["deal"] == log["holes"][0]["deal"]
    assert leftovers(token) == {}


def test_the_config_seed_is_used_and_the_argument_wins(tmp_path: Path) -> None:
    config = make_config(tmp_path, [builtin("a"), builtin("b", "random")], seed=31)
    assert checked_log(run_match(config, log_path=str(tmp_path / "a.json")))["seed"] == 31
    assert checked_log(run_match(config, seed=32, log_path=str(tmp_path / "b.json")))["seed"] == 32


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


def transcript(log_path: Path, seat: int) -> list[dict[str, Any]]:
    path = log_path.with_name(f"{log_path.stem}.seat{seat}.transcript.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


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
    token = uuid.uuid4().hex
    config = make_config(tmp_path, random_bots(token, count), rules=rules, log={"transcript": True})
    result = run_match(config, seed=4242)
    assert leftovers(token) == {}
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


def test_nothing_on_disk_shows_the_hole_in_play(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    log_path = tmp_path / "logs" / "spied.json"
    players = [
        bot(
            f"spy{s}",
            SPY_BOT,
            token=token,
            env={"GOLFREF_SPY_LOG": str(log_path), "GOLFREF_SPY_OUT": str(tmp_path / f"spy{s}.json")},
        )
        for s in range(2)
    ]
    config = make_config(
        tmp_path,
        players,
        rules={"preset": "standard", "layout": "2x3", "holes": 3, "turn_limit": 20},
        log={"transcript": True},
        seed=8,
    )
    result = run_match(config, log_path=str(log_path))
    assert leftovers(token) == {}
    final = checked_log(result)
    assert result.faults == ()
    for seat in range(2):
        report = json.loads((tmp_path / f"spy{seat}.json").read_text(encoding="utf-8"))
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


# -- the time bank ----------------------------------------------------------------------------

SLOW_BOT = BOTS / "slow_bot.py"


def _time_offers(log: dict[str, Any]) -> list[int]:
    return [int(n) for n in re.findall(r"time_ms=(\d+)", log["players"][0]["stderr"])]


def test_time_beyond_the_move_limit_comes_from_the_bank(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = make_config(
        tmp_path,
        [bot("slow", SLOW_BOT, "0.4", token=token), builtin("house")],
        time={"move_ms": 100, "bank_ms": 10_000, "increment_ms": 0, "grace_ms": 100},
    )
    result = run_match(config, seed=3)
    assert result.faults == (), "the bank covers a slow first decision"
    offers = _time_offers(result.log)
    assert offers[0] == 10_100, "a request offers the move limit plus the whole bank"
    assert offers[1] < offers[0], "what the first decision took beyond 100 ms left the bank"
    assert offers[1] == offers[-1], "instant decisions do not touch the bank"
    assert leftovers(token) == {}


def test_every_answer_in_time_adds_the_increment_to_the_bank(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = make_config(
        tmp_path,
        [bot("quick", SLOW_BOT, "0", token=token), builtin("house")],
        time={"move_ms": 10_000, "bank_ms": 0, "increment_ms": 1_000, "grace_ms": 100},
    )
    result = run_match(config, seed=3)
    assert result.faults == ()
    offers = _time_offers(result.log)
    assert len(offers) > 3
    assert offers == [10_000 + 1_000 * n for n in range(len(offers))], "each answer banks the increment"
    assert leftovers(token) == {}


def test_an_empty_bank_means_a_timeout(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = make_config(
        tmp_path,
        [bot("slow", SLOW_BOT, "3", token=token), builtin("house")],
        time={"move_ms": 100, "bank_ms": 200, "increment_ms": 50, "grace_ms": 100},
        faults={"policy": "fallback", "max_faults": 5},
    )
    result = run_match(config, seed=3)
    assert [f.kind for f in result.faults][:1] == [FaultKind.TIMEOUT]
    assert _time_offers(result.log)[0] == 300, "the move limit plus the bank, and no more"
    assert leftovers(token) == {}


def test_the_match_time_caps_a_bot_over_the_whole_match(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = make_config(
        tmp_path,
        [bot("slow", SLOW_BOT, "2", token=token), builtin("house")],
        time={"move_ms": 5_000, "bank_ms": 0, "grace_ms": 100, "match_ms": 300},
        faults={"policy": "fallback", "max_faults": 2},
    )
    result = run_match(config, seed=3)
    assert _time_offers(result.log) == [300], "a request never offers more than the match time left"
    first, second = result.faults
    assert first.kind is FaultKind.TIMEOUT and first.request == 1
    assert second.kind is FaultKind.MATCH_TIME and second.request is None and "match time" in second.message
    assert result.statuses[0] is SeatStatus.DISQUALIFIED
    assert result.log["time_control"]["match_ms"] == 300
    assert leftovers(token) == {}
    from golfref.record.validate import Status, validate

    assert validate(result.log).status is Status.VALID


def test_a_banner_before_the_hello_is_the_same_fault_as_one_after(tmp_path: Path) -> None:
    """A line printed before the hello was even sent is still a line before ready.

    The shell prints at once, while the referee is still starting the other three bots, so
    the banner usually reaches the pipe before the hello goes out (the 'banner' case of
    test_misbehaving_bot usually has it after): the record must be the same either way.
    """
    token = uuid.uuid4().hex
    shell = {
        "name": "shell",
        "command": ["/bin/sh", "-c", f"echo 'loading the model...'; exec {sys.executable} {ECHO_BOT}"],
        "env": {TOKEN: token},
    }
    echoes = [bot(f"echo{i}", ECHO_BOT, token=token) for i in range(3)]
    config = make_config(tmp_path, [shell, *echoes], faults={"policy": "fallback", "max_faults": 3})
    result = run_match(config, seed=5)
    assert [(f.seat, f.kind, f.hole, f.request, f.line) for f in result.faults] == [
        (0, FaultKind.NOT_JSON, None, None, "loading the model...")
    ]
    assert result.statuses == (SeatStatus.FAULTED, OK, OK, OK)
    assert leftovers(token) == {}


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
    from golfref.match.referee import MatchInterrupted
    from golfref.record.validate import Status, validate_file

    config = make_config(tmp_path, [builtin("a"), builtin("b", "random")], rules={"holes": 2})
    with pytest.raises(MatchInterrupted) as stopped:
        run_match(config, seed=4, on_turn=_stop_at(5, KeyboardInterrupt()))
    log = read_log(stopped.value.log_path)
    assert (log["status"], log["error"]) == ("interrupted", "interrupted by SIGINT")
    assert len(log["holes"]) == 1 and log["holes"][0]["result"] is None
    assert len(log["holes"][0]["steps"]) == 5  # the open hole, up to the stop
    assert validate_file(stopped.value.log_path).status is Status.INCOMPLETE


def test_on_turn_raising_another_exception_saves_an_error_log_and_propagates(tmp_path: Path) -> None:
    config = make_config(tmp_path, [builtin("a"), builtin("b", "random")], log={"path": str(tmp_path / "m.json")})
    with pytest.raises(RuntimeError, match="on purpose"):
        run_match(config, seed=4, on_turn=_stop_at(3, RuntimeError("stopped on purpose")))
    log = read_log(tmp_path / "m.json")
    assert (log["status"], log["error"]) == ("error", "RuntimeError: stopped on purpose")
    assert len(log["holes"][0]["steps"]) == 3


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


# A fork hook that signals this process once when armed: its handler then runs inside the
# hook, where Python cannot raise (the exception is reported as unraisable and dropped).
_signal_at_fork: list[int] = []


def _fork_hook() -> None:
    if _signal_at_fork:
        os.kill(os.getpid(), _signal_at_fork.pop())


os.register_at_fork(after_in_parent=_fork_hook)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the lost exception, provoked
def test_a_stop_whose_exception_was_lost_in_a_fork_hook_still_stops_the_match(tmp_path: Path) -> None:
    """A tournament worker hung on a held bot: its SIGINT came while a bot was being forked."""
    import signal

    from golfref.match.referee import MatchInterrupted

    text = (
        "match: lost\nrules: {preset: standard, layout: 2x2, holes: 1}\nseed: 3\n"
        f"players:\n  - {{name: held, command: [{json.dumps(sys.executable)}, "
        f"{json.dumps(str(BOTS / 'bad_bot.py'))}, never-ready]}}\n"
        "  - {name: house, builtin: greedy}\n"
        "time: {startup_ms: 600000}\n"
        f"log: {{path: {json.dumps(str(tmp_path / 'lost.json'))}}}\n"
    )
    config = parse_config(text, base_dir=tmp_path)
    previous = signal.getsignal(signal.SIGTERM)
    _signal_at_fork.append(signal.SIGTERM)
    try:
        with pytest.raises(MatchInterrupted) as stopped:
            run_match(config)
    finally:
        _signal_at_fork.clear()
        signal.signal(signal.SIGTERM, previous)
    assert stopped.value.signum == signal.SIGTERM
    assert read_log(tmp_path / "lost.json")["status"] == "interrupted"


def test_a_stop_before_any_bot_starts_is_an_interruption_without_a_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    import golfref.match.referee as referee_module
    from golfref.match.referee import MatchInterrupted

    def signalled(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # as a user's signal during the set-up

    monkeypatch.setattr(referee_module, "check_outputs", signalled)
    text = (
        "match: early\nplayers:\n  - {name: a, builtin: greedy}\n  - {name: b, builtin: greedy}\n"
        f"log: {{path: {json.dumps(str(tmp_path / 'early.json'))}}}\n"
    )
    previous = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(MatchInterrupted, match=r"^interrupted by SIGTERM; before any bot started$") as stopped:
            run_match(parse_config(text, base_dir=tmp_path))
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert stopped.value.log_path is None and not (tmp_path / "early.json").exists()
