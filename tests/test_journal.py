"""The journal: a match in play is logged by appending one line per hole, and survives a killed referee.

A referee is killed with SIGKILL at seeded random decisions, and in the middle of writing a
hole's line; whatever is left at the log's path must read back as a running log holding
exactly the holes that had finished, and validate as incomplete.
"""

from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from golfref.cli.app import app
from golfref.config.match import MatchConfig, parse_config
from golfref.match.referee import run_match
from golfref.record.log import CUT_SHORT, JOURNAL_FORMAT, LogError, TamperedLog, parse_log, read_log
from golfref.record.validate import Status, validate, validate_file

HOLES = 5
SEED = 21
CONFIG = (
    "match: journal\n"
    f"rules: {{preset: classic, holes: {HOLES}}}\n"
    "players:\n"
    "  - {name: greedy, builtin: greedy}\n"
    "  - {name: random, builtin: random}\n"
    "  - {name: second, builtin: greedy}\n"
)


def config(tmp_path: Path) -> MatchConfig:
    return parse_config(CONFIG, source="journal.yaml", base_dir=tmp_path)


def decisions_per_hole(doc: dict[str, Any]) -> list[int]:
    return [sum(1 for s in h["steps"] if "reshuffle" not in s) for h in doc["holes"]]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The whole match, played to its end: what every killed run must agree with."""
    tmp = tmp_path_factory.mktemp("reference")
    result = run_match(config(tmp), seed=SEED, log_path=str(tmp / "log.json"))
    return result.log


def test_the_journal_only_grows_one_line_per_hole(tmp_path: Path, reference: dict[str, Any]) -> None:
    log = tmp_path / "log.json"
    seen: list[bytes] = []
    run_match(
        config(tmp_path), seed=SEED, log_path=str(log), on_hole=lambda result, names: seen.append(log.read_bytes())
    )
    assert len(seen) == HOLES
    for hole, (before, after) in enumerate(zip(seen, seen[1:], strict=False), start=1):
        assert after.startswith(before), f"hole {hole}: the journal was rewritten, not appended to"
        added = after[len(before) :].decode("utf-8")
        assert added.endswith("\n") and added.count("\n") == 1, "one line per hole"
        entry = json.loads(added)
        assert [h["hole"] for h in entry["holes"]] == [hole], "a line holds its own hole, not the earlier ones"
    first = json.loads(seen[0].decode("utf-8").splitlines()[0])
    assert first["format"] == JOURNAL_FORMAT and first["log"]["seed"] is None and first["log"]["holes"] == []
    for done, raw in enumerate(seen, start=1):
        doc = parse_log(raw)
        assert (doc["status"], doc["seed"], doc["holes"]) == ("running", None, reference["holes"][:done])
        report = validate(doc)
        assert (report.status, report.holes_checked) == (Status.INCOMPLETE, done)
    final = read_log(log)
    assert final["status"] == "finished" and final["holes"] == reference["holes"], "the final log replaced the journal"
    assert log.read_bytes().startswith(b'{"cards":'), "the final log is a log, not a journal"


KILLER = textwrap.dedent(
    """\
    import os, signal, sys
    from golfref.config.match import parse_config
    from golfref.record.log import Journal
    from golfref.match.referee import run_match

    config_text, log_path, seed, mode, point = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    count = [0]

    def at_turn(game):
        if mode == "decision" and count[0] == point:
            os.kill(os.getpid(), signal.SIGKILL)
        count[0] += 1

    line = Journal._line

    def cut_line(self, entry):
        data = line(self, entry)
        if mode == "mid-line" and self._fd is not None and self._holes == point:
            os.write(self._fd, data[: len(data) // 2])  # half of the line reaches the disk, then the end
            os.kill(os.getpid(), signal.SIGKILL)
        return data

    Journal._line = cut_line
    run_match(parse_config(config_text, source="journal.yaml"), seed=seed, log_path=log_path, on_turn=at_turn)
    """
)


def killed_run(tmp_path: Path, mode: str, point: int) -> Path:
    log = tmp_path / f"{mode}-{point}.json"
    done = subprocess.run(
        [sys.executable, "-c", KILLER, CONFIG, str(log), str(SEED), mode, str(point)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    return log


@pytest.mark.process
def test_a_referee_killed_at_random_decisions_leaves_every_finished_hole(
    tmp_path: Path, reference: dict[str, Any]
) -> None:
    per_hole = decisions_per_hole(reference)
    total = sum(per_hole)
    points = sorted(random.Random(SEED).sample(range(total), 6)) + [0, per_hole[0], total - 1]
    for point in points:
        finished = sum(1 for h in range(HOLES) if sum(per_hole[: h + 1]) <= point)
        report = validate_file(killed_run(tmp_path, "decision", point))
        assert report.doc is not None, report.message
        assert (report.status, report.holes_checked) == (Status.INCOMPLETE, finished), (point, report.message)
        assert report.doc["status"] == "running" and report.doc["holes"] == reference["holes"][:finished]
        assert report.doc["seed"] is None, "the seed reaches the disk only at the end"


@pytest.mark.process
@pytest.mark.parametrize("point", [1, HOLES - 1])
def test_a_line_cut_off_by_the_kill_is_left_out(tmp_path: Path, reference: dict[str, Any], point: int) -> None:
    log = killed_run(tmp_path, "mid-line", point)
    assert not log.read_bytes().endswith(b"\n"), "the kill came in the middle of the line"
    report = validate_file(log)
    assert (report.status, report.holes_checked) == (Status.INCOMPLETE, point), report.message
    assert report.doc is not None and report.doc["holes"] == reference["holes"][:point]


def journal(tmp_path: Path, holes: int) -> Path:
    """A journal as a killed referee leaves it after `holes` holes."""
    log = tmp_path / "log.json"
    kept = tmp_path / "kept.json"

    def keep(result: Any, names: Any) -> None:
        if result.hole + 1 == holes:
            kept.write_bytes(log.read_bytes())

    run_match(config(tmp_path), seed=SEED, log_path=str(log), on_hole=keep)
    return kept


def test_a_changed_journal_is_tampered_and_a_broken_line_is_named(tmp_path: Path) -> None:
    path = journal(tmp_path, 2)
    lines = path.read_bytes().split(b"\n")
    edited = lines[2].replace(b'"by":"builtin"', b'"by":"bot"', 1)
    assert edited != lines[2]
    path.write_bytes(b"\n".join(lines[:2] + [edited] + lines[3:]))
    report = validate_file(path)
    assert (report.status, report.message) == (
        Status.TAMPERED,
        "journal line 3: the content was changed after it was written (chain mismatch)",
    )
    with pytest.raises(TamperedLog):
        read_log(path)
    path.write_bytes(b"\n".join(lines[:2] + [b"{not json"] + lines[3:]))
    with pytest.raises(LogError, match=r"^journal line 3: not JSON: "):
        read_log(path)
    path.write_bytes(lines[0][:40])
    with pytest.raises(LogError, match="the journal ends inside its first line"):
        read_log(path)


def test_a_journal_line_with_a_duplicate_key_is_invalid(tmp_path: Path) -> None:
    # A repeated key leaves the chain intact (it is computed over what orjson read: the last
    # key), but a reader keeping the first key would see another match.
    path = journal(tmp_path, 2)
    lines = path.read_bytes().split(b"\n")
    assert lines[1].startswith(b'{"faults":')
    header = lines[0].replace(b'"log":{', b'"log":{"players":[],', 1)
    cases = ((2, b'{"holes":[],' + lines[1][1:], "holes", "at the top level"), (1, header, "players", "in log"))
    for number, line, key, where in cases:
        edited = list(lines)
        edited[number - 1] = line
        path.write_bytes(b"\n".join(edited))
        report = validate_file(path)
        assert (report.status, report.message) == (
            Status.INVALID,
            f'journal line {number}: duplicate key "{key}" {where}',
        )


def test_replay_shows_a_journal_as_an_incomplete_log(tmp_path: Path) -> None:
    path = journal(tmp_path, 3)
    done = CliRunner().invoke(app, ["replay", str(path), "--summary", "--no-color"])
    assert done.exit_code == 0, done.output
    assert "incomplete" in done.output and "status running: validates through hole 2" in done.output
    checked = CliRunner().invoke(app, ["replay", str(path), "--check"])
    assert checked.exit_code != 0 and "incomplete" in checked.output


@pytest.mark.parametrize("where", ["inside the header", "at the header's end", "inside a hole's line", "after a line"])
def test_a_journal_cut_short_says_where_it_ends_and_what_to_do(tmp_path: Path, where: str) -> None:
    path = journal(tmp_path, 2)
    raw = path.read_bytes()
    header, first, _ = raw.split(b"\n", 2)
    third = len(header) + 1 + len(first) + 1  # where the second hole's line starts
    cut = {"inside the header": 40, "at the header's end": len(header), "inside a hole's line": third + 50,
           "after a line": third}[where]  # fmt: skip
    path.write_bytes(raw[:cut])
    checked = CliRunner().invoke(app, ["replay", "--check", str(path)])
    assert checked.exit_code == 1 and "Traceback" not in checked.output, checked.output
    report = validate_file(path)
    if where.startswith(("inside the header", "at the header")):
        # Nothing to read: the header, written whole before any hole, was cut by a copy.
        assert checked.stdout == (
            f"{path}: invalid: truncated: the journal ends inside its first line at byte {cut} (line 1, column "
            f"{cut + 1}), the end of the file: {CUT_SHORT}\n"
        )
        return
    # The finished hole is read; a cut-off line is left out, and said with where it lies.
    assert (report.status, report.holes_checked) == (Status.INCOMPLETE, 1), report.message
    shown = CliRunner().invoke(app, ["replay", "--summary", "--no-color", str(path)])
    assert shown.exit_code == 0 and "Traceback" not in shown.output
    cut_off = (
        f"the journal's last line, from byte {third} to the end of the file at byte {cut}, is unfinished and left "
        "out: a hole's line cut off when the referee was killed, or by a copy that stopped or is still under way"
    )
    if where == "inside a hole's line":
        through = r"status running: validates through hole 0 and its \d+ steps; "
        assert re.fullmatch(through + re.escape(cut_off), report.message), report.message
        assert checked.stdout == f"{path}: incomplete: {report.message}\n"
        assert cut_off in shown.stderr
    else:
        assert "unfinished" not in report.message and "unfinished" not in shown.output
