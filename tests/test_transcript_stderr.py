"""A bot's stderr per request in its transcript (golfref/record/transcript.py), and what reads it.

Scripted bots (golfref/bots/scripted.py) write to stderr during chosen decisions; the
transcript must put each line under the request it was written during, cut as the caps
say, while the log stays what it is without transcripts. `golfref audit` must take stderr
records for what they are (never a message to the bot) and report the malformed ones, and
`replay-bot` must show what the logged bot wrote at a divergence.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from golfref.bots.framing import CappedBytes
from golfref.bots.scripted import Answer, Brain, EchoBrain, Ready, Script, Stderr
from golfref.record.log import read_log, write_log
from golfref.record.transcript import (
    STDERR_REQUEST_BYTES,
    Direction,
    StderrRecorder,
    TranscriptError,
    parse_transcript,
    transcript_path,
)
from golfref.tools.audit import audit_file
from golfref.tools.rerun import load_script
from tests.conftest import ROOT
from tests.test_referee_scripted import _comparable, checked_log, play, scripted


def findings(log: Path) -> list[str]:
    """The audit's findings, but for the answers a virtual clock times at 0 ms."""
    return [f.line() for f in audit_file(str(log)).findings if "faster than a pipe round trip" not in f.text]


def records(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


# -- the pieces -----------------------------------------------------------------------------------


def test_capped_bytes_keeps_nothing_fresh_until_followed_then_cuts_each_take() -> None:
    kept = CappedBytes(64)
    kept.add(b"before\n")
    assert kept.take() == (b"", 0)
    kept.follow(8)
    kept.add(b"abcdef")
    kept.add(b"ghijkl")
    assert kept.take() == (b"abcdefgh", 4)
    assert kept.take() == (b"", 0)
    kept.add(b"xy")
    assert kept.take() == (b"xy", 0)
    assert kept.text() == "before\nabcdefghijklxy", "the log's capped text is unchanged by following"


def test_the_recorder_keeps_whole_lines_under_their_request_and_counts_what_it_cuts() -> None:
    recorder = StderrRecorder(seat_bytes=20)
    first = records(recorder.records(b"one\r\ntw", 0, 3, 10))
    assert first == [{"ms": 10, "dir": "stderr", "req": 3, "line": "one"}]
    second = records(recorder.records(b"o\nthree is long\n", 2, 4, 12))
    # "two" ends in request 4's take; 4 + 4 bytes kept, "three is long" passes the 20 of the match
    assert second == [
        {"ms": 12, "dir": "stderr", "req": 4, "line": "two"},
        {"ms": 12, "dir": "stderr", "req": 4, "dropped": 2 + 14},
    ]
    assert records(recorder.records(b"end", 0, None, 20, final=True)) == [
        {"ms": 20, "dir": "stderr", "req": None, "line": "end"}
    ]
    assert recorder.records(b"", 0, None, 21, final=True) == []


def test_a_line_without_end_is_cut_at_a_takes_worth() -> None:
    recorder = StderrRecorder()
    out = records(recorder.records(b"x" * STDERR_REQUEST_BYTES, 5, 1, 0))
    assert [r.get("line", "")[:3] for r in out] == ["xxx", ""] and out[1]["dropped"] == 5


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ({"ms": 1, "dir": "stderr", "line": "x"}, "without req"),
        ({"ms": 1, "dir": "stderr", "req": "7", "line": "x"}, 'req "7" is not a request id'),
        ({"ms": 1, "dir": "stderr", "req": 7}, "either line"),
        ({"ms": 1, "dir": "stderr", "req": 7, "line": "x", "dropped": 3}, "either line"),
        ({"ms": 1, "dir": "stderr", "req": 7, "dropped": 0}, "dropped 0 is not a count"),
        ({"ms": 1, "dir": "stderr", "req": 7, "line": 5}, "line is not a string"),
        ({"ms": 1, "dir": "stderr", "req": None, "line": "x", "to": 1}, "unknown field 'to'"),
    ],
)
def test_a_malformed_stderr_record_is_read_with_its_problem(record: dict[str, Any], problem: str) -> None:
    (line,) = parse_transcript(json.dumps(record).encode() + b"\n", "t.jsonl")
    assert line.direction is Direction.STDERR and line.problem is not None and problem in line.problem


def test_a_line_of_no_known_direction_is_no_transcript_line() -> None:
    with pytest.raises(TranscriptError, match=r"^t.jsonl line 2: not a transcript line"):
        parse_transcript(b'{"ms":0,"dir":"to_bot","line":"{}"}\n{"ms":0,"dir":"sideways","line":""}\n', "t.jsonl")


# -- a match ----------------------------------------------------------------------------------------


def talker() -> Brain:
    """Writes to stderr during its first two decisions (the second a flood), then plays on."""
    return Script(
        [Stderr("banner\n"), Ready("talker")],
        [Stderr("thinking about r1\n"), Stderr("chose the first\n"), Answer()],
        [Stderr("y" * 10_000 + "\n"), Answer()],
    )


def test_each_stderr_line_is_in_the_transcript_under_its_request_and_the_log_does_not_change(
    tmp_path: Path,
) -> None:
    logs = []
    for transcripts in (True, False):
        result, launcher = play(
            tmp_path, {0: talker(), 1: EchoBrain()}, [scripted("talker"), scripted("echo")],
            log={"transcript": transcripts},
        )  # fmt: skip
        logs.append(checked_log(result))
        if not transcripts:
            continue
        assert logs[0]["schema_version"] == 3
        lines = [json.loads(x) for x in transcript_path(result.log_path, 0).read_text().splitlines()]
        asked = [m["id"] for m in launcher.bots[0].received if m["type"] == "request"]
        stderr = [r for r in lines if r["dir"] == "stderr"]
        assert stderr[0] == {"ms": stderr[0]["ms"], "dir": "stderr", "req": None, "line": "banner"}
        assert [(r["req"], r.get("line")) for r in stderr[1:3]] == [
            (asked[0], "thinking about r1"), (asked[0], "chose the first")
        ]  # fmt: skip
        flood = stderr[3:]
        assert [r["req"] for r in flood] == [asked[1], asked[1]]
        assert flood[0]["line"] == "y" * STDERR_REQUEST_BYTES and flood[1]["dropped"] == 10_001 - STDERR_REQUEST_BYTES
        # Each stderr record comes after its request was sent and before the next message to the bot.
        order = [(r["dir"], json.loads(r["line"]).get("id") if r["dir"] != "stderr" else r["req"]) for r in lines]
        first = order.index(("to_bot", asked[0]))
        assert order[first + 1 : first + 4] == [("from_bot", asked[0]), ("stderr", asked[0]), ("stderr", asked[0])]
        assert not any(r["dir"] == "stderr" for r in (json.loads(x) for x in
                       transcript_path(result.log_path, 1).read_text().splitlines()))  # fmt: skip
        assert findings(result.log_path) == []
    assert _comparable(logs[0]) == _comparable(logs[1]), "the log is the same with or without transcripts"


def _played(tmp_path: Path) -> Path:
    result, _ = play(tmp_path, {0: talker(), 1: EchoBrain()}, [scripted("talker"), scripted("echo")],
                     log={"transcript": True})  # fmt: skip
    return result.log_path


def _append(log: Path, seat: int, *lines: dict[str, Any] | str) -> None:
    path = transcript_path(log, seat)
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))


def test_audit_reports_malformed_and_misplaced_stderr_records(tmp_path: Path) -> None:
    log = _played(tmp_path)
    doc = read_log(log)
    theirs = next(s["request"] for h in doc["holes"] for s in h["steps"] if s.get("seat") == 1 and s["request"])
    last_ms = json.loads(transcript_path(log, 0).read_text().splitlines()[-1])["ms"]
    _append(log, 0,
            {"ms": last_ms, "dir": "stderr", "req": "x", "line": "bad"},
            {"ms": last_ms, "dir": "stderr", "req": theirs, "line": "not mine"},
            {"ms": last_ms, "dir": "stderr", "req": 999, "line": "no such"})  # fmt: skip
    found = findings(log)
    count = len(transcript_path(log, 0).read_text().splitlines())
    assert found == [
        f'warning: mismatch: seat 0, transcript line {count - 2}: req "x" is not a request id (a whole number '
        "from 1, or null): golfref writes none such",
        f"warning: mismatch: seat 0, transcript line {count - 1}: a stderr line of request {theirs}, which the log "
        "records to seat 1",
        f"warning: mismatch: seat 0, transcript line {count}: a stderr line of request 999, which the log does not "
        "record",
    ]


def test_a_stderr_line_is_never_a_message_to_or_from_the_bot(tmp_path: Path) -> None:
    log = _played(tmp_path)
    doc = read_log(log)
    lines = transcript_path(log, 0).read_text().splitlines()
    first = json.loads(lines[0])
    # Cards and the seed in stderr are the bot's own words, not a leak; an answer-shaped line answers nothing.
    hidden = " ".join(doc["holes"][0]["deal"][:10])
    planted = [
        {"ms": first["ms"], "dir": "stderr", "req": None, "line": f"seed {doc['seed']} {hidden}"},
        {"ms": first["ms"], "dir": "stderr", "req": None, "line": json.dumps({"type": "answer", "id": 99999})},
    ]
    path = transcript_path(log, 0)
    path.write_text("\n".join([lines[0], *map(json.dumps, planted), *lines[1:]]) + "\n")
    assert findings(log) == []


def test_a_stderr_record_beside_a_version_2_log_is_a_finding(tmp_path: Path) -> None:
    log = _played(tmp_path)
    doc = read_log(log)
    doc["schema_version"] = 2
    write_log(log, doc)
    found = findings(log)
    assert found and all(
        f.startswith("warning: mismatch: seat 0, transcript line ")
        and f.endswith(": a stderr record in the transcript of a version 2 log, whose transcripts hold none")
        for f in found
    ), found


def test_replay_bot_keeps_the_logged_stderr_of_each_request(tmp_path: Path) -> None:
    log = _played(tmp_path)
    script = load_script(str(log), 0)
    first, second = script.requests[:2]
    assert script.stderr[first] == ("thinking about r1", "chose the first")
    assert script.stderr[second][0] == "y" * STDERR_REQUEST_BYTES
    assert script.stderr[second][1] == f"[golfref: {10_001 - STDERR_REQUEST_BYTES} bytes of stderr cut here]"


@pytest.mark.process
def test_replay_bot_shows_what_the_logged_bot_wrote_to_stderr_where_a_bot_diverges(tmp_path: Path) -> None:
    log = _played(tmp_path)
    first = load_script(str(log), 0).requests[0]
    bot = ROOT / "tests" / "bots" / "broken" / "diverge_bot.py"
    done = subprocess.run(
        [sys.executable, "-m", "golfref.cli.app", "replay-bot", str(log), "--seat", "0", "--",
         sys.executable, str(bot), str(first)],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"diverged at request {first} (hole 0): the log says answered ")
    assert lines[1].startswith("  sent: ")
    assert lines[-2:] == ["  stderr in the match: thinking about r1", "  stderr in the match: chose the first"]


TALKING_BOT = r'''
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        sys.stderr.write("starting\n"); sys.stderr.flush()
        print(json.dumps({"type": "ready", "name": "talking"}), flush=True)
    elif message["type"] == "request":
        sys.stderr.write(f"thinking {message['id']}\n"); sys.stderr.flush()
        print(json.dumps({"type": "answer", "id": message["id"], "action": message["legal"][0]}), flush=True)
    elif message["type"] == "goodbye":
        sys.stderr.write("bye\n"); sys.stderr.flush()
        break
'''


@pytest.mark.process
def test_a_bot_process_s_stderr_before_its_answer_is_under_its_request(tmp_path: Path) -> None:
    """Real pipes: what a bot writes to stderr before its answer is read with the answer, whatever the load."""
    from golfref.config.match import parse_config
    from golfref.match.referee import run_match

    bot = tmp_path / "talking_bot.py"
    bot.write_text(TALKING_BOT, encoding="utf-8")
    config = tmp_path / "m.yaml"
    config.write_text(
        "match: m\nrules: {preset: standard, holes: 2}\nseed: 3\n"
        f"players:\n  - {{name: t, command: [{json.dumps(sys.executable)}, {json.dumps(str(bot))}]}}\n"
        "  - {name: g, builtin: greedy}\n"
        "time: {move_ms: 20000, startup_ms: 20000}\n"
        f"log: {{path: {json.dumps(str(tmp_path / 'm.json'))}, transcript: true}}\n",
        encoding="utf-8",
    )
    result = run_match(parse_config(config.read_text(encoding="utf-8"), source=str(config), base_dir=tmp_path))
    assert result.faults == ()
    lines = [json.loads(x) for x in transcript_path(result.log_path, 0).read_text().splitlines()]
    stderr = [(r["req"], r["line"]) for r in lines if r["dir"] == "stderr"]
    asked = [json.loads(r["line"])["id"] for r in lines if r["dir"] == "to_bot" and '"request"' in r["line"]]
    assert stderr[0] == (None, "starting") and stderr[-1] == (None, "bye")
    assert stderr[1:-1] == [(rid, f"thinking {rid}") for rid in asked]
    assert findings(result.log_path) == []
