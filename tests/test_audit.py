"""`golfref audit LOG`: real matches with transcripts audit clean, and every planted leak is found.

A match is played once per module with two real bots and transcripts; each test copies its
log and transcripts, plants one thing into a transcript line (or the log, sealed again),
and checks the finding names the right seat, message and field. Bad input gets one
`golfref: error:` line, exit 2 and no traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from golfref.cli.app import app
from golfref.cli.exits import EXIT_FAULTED, EXIT_OK, EXIT_USAGE
from golfref.config.match import parse_config
from golfref.match.referee import MatchInterrupted, run_match
from golfref.record.log import compute_digest, read_log
from golfref.record.signing import Signer, keygen
from golfref.tools import audit as audit_module
from golfref.tools.audit import CLUSTER_MIN, CLUSTER_WINDOW_MS, MIN_ANSWER_MS, SEED_DIGITS_MIN, Kind, audit_file

pytestmark = [pytest.mark.process]

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = ROOT / "sample_matches" / "bots" / "random_bot.py"
ECHO_BOT = ROOT / "tests" / "bots" / "echo_bot.py"
SEED = 8_123_456_789  # long enough to be looked for inside strings too
GENEROUS = 10_000
runner = CliRunner()

Transcript = list[dict[str, Any]]


def play(
    directory: Path,
    rules: dict[str, Any],
    players: int = 2,
    seed: int = SEED,
    seats: list[Any] | None = None,
    sign: Signer | None = None,
) -> Path:
    """Play a real match of bots with transcripts into `directory`; the log's path."""
    bots = [RANDOM_BOT, ECHO_BOT, RANDOM_BOT][:players]
    entries = [{"name": f"b{i}", "command": [sys.executable, str(b)]} for i, b in enumerate(bots)]
    data = {
        "match": "audit",
        "rules": rules,
        "players": seats if seats is not None else entries,
        "time": {"startup_ms": GENEROUS, "move_ms": GENEROUS},
        "log": {"path": str(directory / "m.json"), "transcript": True},
    }
    directory.mkdir(parents=True, exist_ok=True)
    config = parse_config(yaml.safe_dump(data), source=str(directory / "m.yaml"), base_dir=directory)
    return run_match(config, seed=seed, sign=sign).log_path


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 2-hole match of two bots (seat 0 starts hole 0), without card powers."""
    return play(tmp_path_factory.mktemp("played"), {"preset": "standard", "layout": "2x2", "holes": 2})


@pytest.fixture
def match(played: Path, tmp_path: Path) -> Path:
    """A private copy of the played match: its log and transcripts."""
    for path in played.parent.glob("m.*"):
        if path.suffix in (".json", ".jsonl"):
            shutil.copy(path, tmp_path / path.name)
    return tmp_path / "m.json"


def transcript_file(log: Path, seat: int) -> Path:
    return log.with_name(f"{log.stem}.seat{seat}.transcript.jsonl")


def read_transcript(log: Path, seat: int) -> Transcript:
    return [json.loads(line) for line in transcript_file(log, seat).read_text(encoding="utf-8").splitlines()]


def write_transcript(log: Path, seat: int, records: Transcript) -> None:
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    transcript_file(log, seat).write_text(text, encoding="utf-8")


def plant(
    log: Path, seat: int, pick: Callable[[dict[str, Any]], bool], change: Callable[[dict[str, Any]], None]
) -> int:
    """Change the first message to `seat` that `pick` selects; its transcript line number (from 1)."""
    records = read_transcript(log, seat)
    for number, record in enumerate(records, 1):
        if record["dir"] != "to_bot":
            continue
        message = json.loads(record["line"])
        if pick(message):
            change(message)
            record["line"] = json.dumps(message)
            write_transcript(log, seat, records)
            return number
    raise AssertionError("no such message")


def first_request(message: dict[str, Any]) -> bool:
    return message["type"] == "request" and message["view"]["hole"] == 0


def audit(*args: str) -> tuple[int, list[str], str]:
    """Run `golfref audit ARGS`: (exit code, stdout lines, stderr)."""
    result = runner.invoke(app, ["audit", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout.splitlines(), result.stderr


def findings(log: Path) -> list[str]:
    return [f.line() for f in audit_file(str(log)).findings]


def deal(log: Path, hole: int = 0) -> list[str]:
    return list(read_log(log)["holes"][hole]["deal"])


# -- clean matches ----------------------------------------------------------------------------------

CLEAN = {
    "standard-2decks": {"preset": "standard", "layout": "2x3", "decks": 2, "holes": 2, "turn_limit": 30},
    "arena-powers": {"preset": "arena", "layout": "2x2", "card_powers": True, "holes": 3},
    # face-down swaps and chosen peeks; with these seeds the holes run into a reshuffle (D7)
    "classic-facedown-reshuffle": {
        "preset": "classic",
        "layout": "2x3",
        "reveal": "peek",
        "swap_face": "down",
        "card_powers": True,
        "holes": 2,
        "turn_limit": 40,
    },
}


@pytest.mark.parametrize("name", list(CLEAN))
def test_a_real_match_is_clean(tmp_path: Path, name: str) -> None:
    log = play(tmp_path, CLEAN[name], players=3)
    if name == "classic-facedown-reshuffle":
        assert any("reshuffle" in s for h in read_log(log)["holes"] for s in h["steps"]), "no reshuffle covered"
    code, lines, stderr = audit(str(log))
    assert (code, stderr) == (EXIT_OK, ""), lines
    assert lines == [f"{log}: clean: {lines[0].split('clean: ')[1]}"]
    assert " to 3 seats checked, no leak, no warning" in lines[0]


def test_an_interrupted_match_with_a_request_open_is_clean(tmp_path: Path) -> None:
    """Stopped while a bot thinks: its open request is in the transcript, not in the log's steps."""
    asleep = tmp_path / "asleep"
    sleeper = {
        "name": "sleeper",
        "command": [sys.executable, str(ROOT / "tests" / "bots" / "bad_bot.py"), "sleep-forever"],
        "env": {"BAD_BOT_ASLEEP": str(asleep)},
    }
    echo = {"name": "echo", "command": [sys.executable, str(ECHO_BOT)]}

    def stop_when_asleep() -> None:
        deadline = time.monotonic() + GENEROUS / 1000
        while not asleep.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGTERM)

    stopper = threading.Thread(target=stop_when_asleep)
    stopper.start()
    try:
        with pytest.raises(MatchInterrupted):
            play(tmp_path, {"preset": "standard", "layout": "2x2", "holes": 1}, seats=[echo, sleeper])
    finally:
        stopper.join()
    log = tmp_path / "m.json"
    doc = read_log(log)
    asked = [s["request"] for s in doc["holes"][0]["steps"] if s["request"] is not None]
    open_request = json.loads(
        next(r["line"] for r in read_transcript(log, 1) if r["dir"] == "to_bot" and '"request"' in r["line"])
    )
    assert doc["status"] == "interrupted" and open_request["id"] == max(asked, default=0) + 1
    result = audit_file(str(log))
    assert result.clean, [f.line() for f in result.findings]
    assert result.messages == sum(1 for s in (0, 1) for r in read_transcript(log, s) if r["dir"] == "to_bot")


def test_the_played_match_is_clean_and_says_how_much_was_checked(match: Path) -> None:
    result = audit_file(str(match))
    assert result.clean and result.transcripts == 2
    sent = sum(1 for s in (0, 1) for r in read_transcript(match, s) if r["dir"] == "to_bot")
    assert result.messages == sent


# -- planted leaks -----------------------------------------------------------------------------------


def test_a_face_down_card_of_its_own_grid(match: Path) -> None:
    hidden = deal(match)[3]  # seat 0's slot 3: face down after the standard two peeks of slots 0 and 1
    rid: list[int] = []

    def show(m: dict[str, Any]) -> None:
        rid.append(m["id"])
        assert m["view"]["grids"][0][3] is None
        m["view"]["grids"][0][3] = hidden

    line = plant(match, 0, first_request, show)
    assert findings(match) == [
        f"leak: seat 0, request {rid[0]} (hole 0), transcript line {line}, field view.grids[0][3]: "
        f"shows {hidden} (its own face-down card at slot 3), which seat 0 could not know"
    ]
    code, lines, _ = audit(str(match))
    assert code == EXIT_FAULTED
    assert lines[-1] == f"{match}: 1 leak, 0 warnings ({lines[-1].split('(')[1]}"


def test_an_opponents_unseen_card(match: Path) -> None:
    hidden = deal(match)[4 + 2]  # seat 1's slot 2, before seat 1 has moved

    def show(m: dict[str, Any]) -> None:
        m["view"]["grids"][1][2] = hidden

    line = plant(match, 0, first_request, show)
    (finding,) = findings(match)
    assert finding.startswith("leak: seat 0, request ")
    assert f"transcript line {line}, field view.grids[1][2]: shows {hidden} (seat 1's face-down card at slot 2)" in (
        finding
    )


def test_the_stock_order(match: Path) -> None:
    cards = deal(match)
    top, second = cards[2 * 4 + 1], cards[2 * 4 + 2]  # the stock's first two cards after the discard's

    def show(m: dict[str, Any]) -> None:
        m["stock"] = [top, second]

    line = plant(match, 0, first_request, show)
    (finding,) = findings(match)
    assert f"transcript line {line}, field stock: shows {top} (the stock's next card), " in finding
    assert f"{second} (the stock's card 2 from the top)" in finding


def test_the_seed_in_hello_and_inside_a_string(match: Path) -> None:
    hello = plant(match, 1, lambda m: m["type"] == "hello", lambda m: m.update(seed=SEED))
    request = plant(match, 0, first_request, lambda m: m["view"].update(note=f"shuffled with {SEED}"))
    found = findings(match)
    assert f"leak: seat 1, hello, transcript line {hello}, field seed: the match's seed ({SEED})" in found
    assert any(f"transcript line {request}, field view.note: the match's seed" in f for f in found)
    assert len(found) == 2


def test_the_stock_at_a_hole_end_and_a_card_before_any_deal(match: Path) -> None:
    bottom = deal(match, 0)[-1]  # the stock's last card: still there when a short hole ends
    hole_end = plant(match, 1, lambda m: m["type"] == "hole_end", lambda m: m.update(stock=[bottom]))
    hello = plant(match, 0, lambda m: m["type"] == "hello", lambda m: m.update(first=deal(match)[0]))
    found = findings(match)
    assert len(found) == 2
    assert (
        f"seat 1, hole_end of hole 0, transcript line {hole_end}, field stock: shows {bottom} (the stock's card "
        in (found[1])
    )
    assert f"seat 0, hello, transcript line {hello}, field first: shows {deal(match)[0]} (not dealt yet" in found[0]


def test_a_leak_the_gate_itself_would_make_is_found_apart_from_it(match: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Were view.py to show every card, the referee and the re-derived messages would agree:
    the audit still finds the card, because it also checks every card against what the seat saw."""
    real_view = audit_module.view
    hidden = deal(match)[3]

    leaked: list[int] = []

    class Leaky:  # the first view of seat 0 shows its slot 3
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def to_json(self) -> dict[str, Any]:
            data: dict[str, Any] = self.inner.to_json()
            if data["seat"] == 0 and not leaked:
                leaked.append(1)
                data["grids"][0][3] = hidden
            return data

    monkeypatch.setattr(audit_module, "view", lambda game, seat: Leaky(real_view(game, seat)))
    plant(match, 0, first_request, lambda m: m["view"]["grids"][0].__setitem__(3, hidden))
    (finding,) = findings(match)
    assert finding.startswith("leak: seat 0, request ") and "field view.grids[0][3]" in finding


def test_a_difference_that_shows_nothing_hidden_is_a_mismatch(match: Path) -> None:
    line = plant(match, 1, lambda m: m["type"] == "request", lambda m: m["legal"].append("knock"))
    (finding,) = findings(match)
    assert finding.startswith("warning: mismatch: seat 1, request ")
    assert f"transcript line {line}: differs from what the engine's gate derives at legal[" in finding


def test_a_request_missing_from_the_transcript(match: Path) -> None:
    records = read_transcript(match, 1)
    i = next(i for i, r in enumerate(records) if r["dir"] == "to_bot" and '"request"' in r["line"])
    rid = json.loads(records[i]["line"])["id"]
    del records[i : i + 2]  # the request and its answer
    write_transcript(match, 1, records)
    (finding,) = findings(match)
    assert finding.startswith(f"warning: mismatch: seat 1, request {rid} (hole 0): the log records this request")


# -- timing --------------------------------------------------------------------------------------------


def test_an_answer_timed_before_its_request(match: Path) -> None:
    records = read_transcript(match, 0)
    i = next(i for i, r in enumerate(records) if r["dir"] == "to_bot" and '"request"' in r["line"])
    rid = json.loads(records[i]["line"])["id"]
    assert records[i + 1]["dir"] == "from_bot"
    records[i + 1]["ms"] = records[i]["ms"] - 1
    write_transcript(match, 0, records)
    (finding,) = findings(match)
    assert finding == (
        f"warning: timing: seat 0, transcript line {i + 2}: answers request {rid} at {records[i]['ms'] - 1} ms, "
        f"before it was sent at {records[i]['ms']} ms (transcript line {i + 1})"
    )


def test_a_real_answer_before_its_request(tmp_path: Path) -> None:
    """tests/bots/bad_bot.py early-answer prints an answer to request 1 with its ready."""
    bad = {"name": "early", "command": [sys.executable, str(ROOT / "tests" / "bots" / "bad_bot.py"), "early-answer"]}
    rules = {"preset": "standard", "layout": "2x2", "holes": 1}
    log = play(tmp_path, rules, seats=[bad, {"name": "house", "builtin": "greedy"}])
    assert [f["kind"] for f in read_log(log)["faults"]] == ["unasked_output"]
    (finding,) = findings(log)
    assert finding.startswith("warning: timing: seat 0, transcript line 3: answers request 1 before it was sent")


def test_impossible_times(match: Path) -> None:
    records = read_transcript(match, 1)
    records[3]["ms"] = -5
    records[5]["ms"] = 10**9  # long after a match of a few seconds ended
    write_transcript(match, 1, records)
    found = findings(match)
    assert (
        found[0]
        == "warning: timing: seat 1, transcript line 4: timed -5: the referee writes whole milliseconds from its start"
    )
    assert found[1].startswith("warning: timing: seat 1, transcript line 6: timed 1000000000 ms, after the match ended")
    assert len(found) == 3 and "the referee's clock never goes back" in found[2]  # the line after it


def test_an_answer_faster_than_a_pipe(match: Path) -> None:
    doc = read_log(match)
    step = next(s for s in doc["holes"][1]["steps"] if s["by"] == "bot" and s["seat"] == 1)
    step["ms"] = 0.0
    doc["digest"] = compute_digest(doc)
    match.write_text(json.dumps(doc), encoding="utf-8")
    assert MIN_ANSWER_MS > 0.0
    (finding,) = findings(match)
    assert finding.startswith(f"warning: timing: seat 1, request {step['request']} (hole 1): answered in 0.0 ms")


def spread_times(log: Path) -> dict[int, list[int]]:
    """Re-time both transcripts as if each request came 10 ms after the one before; each seat's request times.

    Fast bots play a whole match within a few milliseconds, the transcripts' resolution: this
    gives every turn its own time, in the order the requests were sent.
    """
    starts: dict[int, list[int]] = {}
    for seat in (0, 1):
        records = read_transcript(log, seat)
        rid, since = 0, 0
        for record in records:
            message = json.loads(record["line"]) if record["dir"] == "to_bot" else {}
            if message.get("type") == "request":
                rid, since = message["id"], 0
                starts.setdefault(seat, []).append(10 * rid)
            record["ms"] = 10 * rid + since
            since += 1
        write_transcript(log, seat, records)
    return starts


@pytest.mark.parametrize("count", [CLUSTER_MIN - 1, CLUSTER_MIN])
def test_faults_clustered_around_another_seats_turns(match: Path, count: int) -> None:
    doc = read_log(match)
    at = [ms + 1 for ms in spread_times(match)[0][1 : 1 + count]]  # as seat 0 answers, after its first turn
    assert findings(match) == []
    for ms in at:
        doc["faults"].append(
            {"seat": 1, "kind": "unasked_output", "message": "output when no request was open",
             "line": "hello world", "hole": 0, "request": None, "at_ms": ms}
        )  # fmt: skip
    doc["players"][1].update(status="faulted", faults=count)
    doc["digest"] = compute_digest(doc)
    match.write_text(json.dumps(doc), encoding="utf-8")
    found = findings(match)
    if count < CLUSTER_MIN:
        assert found == []
        return
    (finding,) = found
    assert finding.startswith(f"warning: faults: seat 1: {count} of its {count} faults came while no request")
    assert "during or just after seat 0's turns (requests " in finding


# -- output and bad input ---------------------------------------------------------------------------


def test_json_output(match: Path) -> None:
    plant(match, 0, first_request, lambda m: m.update(seed=SEED))
    code, lines, _ = audit("--json", str(match))
    assert code == EXIT_FAULTED
    (item,) = json.loads("\n".join(lines))
    assert item["status"] == "findings" and item["transcripts"] == 2
    (finding,) = item["findings"]
    assert finding["kind"] == Kind.LEAK.value and finding["seat"] == 0 and finding["field"] == "seed"
    assert finding["warning"] is False


def test_a_tampered_log_is_a_finding(match: Path) -> None:
    doc = read_log(match)
    doc["players"][0]["name"] = "someone else"
    match.write_text(json.dumps(doc), encoding="utf-8")
    code, lines, _ = audit(str(match))
    assert code == EXIT_FAULTED
    changed = "the content was changed after it was written (digest mismatch)"
    assert lines == [
        f"{match}: tampered: {changed}; nothing else was audited",
        f"{match}: not audited: the log is tampered",
    ]


# -- the signature and the match it names -------------------------------------------------------


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A finished 2-hole match of two bots with transcripts, its log signed; (its folder, the public key)."""
    keys = tmp_path_factory.mktemp("keys")
    private, public, _ = keygen(keys / "key")
    log = play(tmp_path_factory.mktemp("signed"), {"preset": "standard", "layout": "2x2", "holes": 2},
               sign=Signer.from_file(private))  # fmt: skip
    return log.parent, public


def copied(folder: Path, to: Path, stem: str = "m") -> Path:
    """The signed match's log and transcripts copied into `to` under the name `stem`; the log's path."""
    to.mkdir(exist_ok=True)
    for path in folder.glob("m.*"):
        if path.suffix in (".json", ".jsonl"):
            shutil.copy(path, to / (stem + path.name[1:]))
    return to / f"{stem}.json"


def test_a_signed_log_is_audited_with_its_signature_and_match(signed: tuple[Path, Path], tmp_path: Path) -> None:
    folder, public = signed
    log = copied(folder, tmp_path)
    match_id = read_log(log)["match_id"]
    code, lines, stderr = audit(str(log))
    assert (code, stderr) == (EXIT_OK, "")
    assert len(lines) == 2 and lines[1].startswith(f"{log}: clean: ")
    assert lines[0].startswith(f"{log}: signature: signed by ed25519:")
    assert lines[0].endswith(f": match {match_id} as m.json")
    code, lines, _ = audit("--trust", str(public), str(log))
    assert code == EXIT_OK and lines[0].startswith(f"{log}: signature: signed by the trusted key ed25519:")
    code, lines, _ = audit("--json", "--trust", str(public), str(log))
    (item,) = json.loads(lines[0])
    assert item["status"] == "clean" and item["signature"]["status"] == "trusted"
    assert item["signature"]["identity"]["match_id"] == match_id and item["signature"]["identity"]["file"] == "m.json"
    assert [f.line() for f in audit_file(str(log)).findings] == []  # the signature is no finding of fair play


def test_audit_recognises_a_renamed_copy(signed: tuple[Path, Path], tmp_path: Path) -> None:
    folder, public = signed
    log = copied(folder, tmp_path, "other")
    code, lines, _ = audit("--trust", str(public), str(log))
    assert code == EXIT_FAULTED  # clean of findings, but not the trusted key's log under this name
    assert lines[0].endswith("signed as m.json, found as other.json: a copy") and "clean: " in lines[1]
    code, lines, _ = audit(str(log))  # without --trust, a copy is named and passes
    assert code == EXIT_OK and lines[0].endswith(": a copy")


def test_audit_reports_a_forged_signature_and_fails(signed: tuple[Path, Path], tmp_path: Path) -> None:
    folder, public = signed
    log = copied(folder, tmp_path)
    doc = read_log(log)
    doc["players"][0]["name"] = "someone else"
    doc["digest"] = compute_digest(doc)  # sealed again: not tampered, but not what was signed
    log.write_text(json.dumps(doc), encoding="utf-8")
    code, lines, _ = audit(str(log))
    assert code == EXIT_FAULTED
    assert any(line.startswith(f"{log}: signature: forged: the signature by ed25519:") for line in lines), lines
    (item,) = json.loads(audit("--json", str(log))[1][0])
    assert item["signature"]["status"] == "forged"


def test_audit_with_trust_fails_an_unsigned_log(match: Path, signed: tuple[Path, Path]) -> None:
    code, lines, _ = audit("--trust", str(signed[1]), str(match))
    assert code == EXIT_FAULTED
    assert lines[0] == f"{match}: signature: unsigned" and lines[1].startswith(f"{match}: clean: ")
    assert audit(str(match))[1] == lines[1:]  # without --trust an unsigned log's audit says nothing of it


def test_audit_refuses_the_duplicate_players_attack(signed: tuple[Path, Path], tmp_path: Path) -> None:
    log = copied(signed[0], tmp_path)
    raw = log.read_bytes()
    doc = json.loads(raw)
    fake = [dict(p, name="mallory") for p in doc["players"]]
    log.write_bytes(b'{"players":' + json.dumps(fake).encode() + b"," + raw[1:])
    code, lines, _ = audit("--trust", str(signed[1]), str(log))
    assert code == EXIT_FAULTED
    assert lines == [
        f'{log}: invalid: duplicate key "players" at the top level; nothing else was audited',
        f"{log}: not audited: the log is invalid",
    ]


def test_audit_trust_with_a_bad_key_is_one_line(match: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["audit", "--trust", str(tmp_path / "missing.pub"), str(match)])
    assert result.exit_code == EXIT_USAGE and result.stdout == ""
    assert result.stderr == f"golfref: error: --trust {tmp_path / 'missing.pub'}: no such file\n"


def bad_input_cases(tmp: Path, match: Path) -> dict[str, tuple[Path, str]]:
    (tmp / "notjson.json").write_text("this is not json", encoding="utf-8")
    (tmp / "object.json").write_text("{}", encoding="utf-8")
    shutil.copy(ROOT / "tests" / "logs" / "standard_2p.json", tmp / "plain.json")
    shutil.copy(ROOT / "tests" / "logs" / "example_1hole_2p_2x2.json", tmp / "one_bot.json")
    transcript_file(match, 1).write_text("garbage\n", encoding="utf-8")
    return {
        "missing": (tmp / "nowhere.json", "no such file"),
        "not a log": (tmp / "object.json", "not a golfref log"),
        "all built-in": (tmp / "plain.json", "no transcripts: every seat is a built-in player"),
        "no transcripts": (tmp / "one_bot.json", "the match ran without log.transcript: true"),
        "bad transcript": (match, "line 1: not a transcript line"),
    }


def test_bad_input_is_one_line_and_exit_2(match: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    for name, (path, words) in bad_input_cases(other, match).items():
        code, lines, stderr = audit(str(path))
        assert code == EXIT_USAGE, name
        assert lines == [], name
        (line,) = stderr.splitlines()
        assert line.startswith("golfref: error: ") and words in line, (name, line)


def test_a_damaged_or_invalid_log_is_a_finding_and_exit_1(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.json"
    damaged.write_text("this is not json", encoding="utf-8")
    invalid = tmp_path / "invalid.json"
    doc = json.loads((ROOT / "tests" / "logs" / "standard_2p.json").read_text(encoding="utf-8"))
    doc["totals"][0] += 1
    doc["digest"] = compute_digest(doc)  # resealed: only the re-play can tell
    invalid.write_text(json.dumps(doc), encoding="utf-8")
    for path, words in ((damaged, "not JSON"), (invalid, "field totals")):
        code, lines, stderr = audit(str(path))
        assert (code, stderr) == (EXIT_FAULTED, ""), path
        assert lines[0].startswith(f"{path}: invalid: ") and words in lines[0], lines
        assert lines[1] == f"{path}: not audited: the log is invalid"


def test_bad_input_from_the_real_command_has_no_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "golfref.cli.app", "audit", str(tmp_path / "nowhere.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == EXIT_USAGE
    assert done.stdout == ""
    assert done.stderr == f"golfref: error: {tmp_path / 'nowhere.json'}: no such file\n"


def test_several_logs_exit_with_the_worst(match: Path, tmp_path: Path) -> None:
    code, lines, stderr = audit(str(match), str(tmp_path / "nowhere.json"))
    assert code == EXIT_USAGE
    assert lines[0].endswith("no leak, no warning") and "no such file" in stderr


def test_the_docs_state_the_thresholds_and_every_kind() -> None:
    text = " ".join((ROOT / "docs" / "AUDIT.md").read_text(encoding="utf-8").split())
    assert f"under {MIN_ANSWER_MS} ms (`audit.MIN_ANSWER_MS`)" in text
    assert f"at least {CLUSTER_MIN} faults (`audit.CLUSTER_MIN`)" in text
    assert f"within {CLUSTER_WINDOW_MS} ms (`audit.CLUSTER_WINDOW_MS`)" in text
    assert f"a seed of {SEED_DIGITS_MIN} or more digits" in text
    for kind in Kind:
        assert f"`{kind.value}`" in text or f"`warning: {kind.value}`" in text, kind
    commands = (ROOT / "docs" / "COMMANDS.md").read_text(encoding="utf-8")
    assert "`golfref audit LOG... [--json] [--trust KEY.pub]`" in commands and "(AUDIT.md)" in commands
