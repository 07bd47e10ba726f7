"""record/matchlog.py: every log reads into typed values, and no other module reads a log by its keys."""

from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from golfref.config.match import TimeControl
from golfref.game.engine import Decision, HoleEnd
from golfref.record.faults import FaultKind, SeatStatus
from golfref.record.log import Journal, read_log
from golfref.record.matchlog import (
    Chooser,
    DecisionStep,
    LogStatus,
    MalformedLog,
    ReshuffleStep,
    as_match_log,
    history_from_log,
    read_match_log,
)
from golfref.record.validate import log_schema, validate

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(
    [*(ROOT / "tests" / "logs").glob("*.json"), *(ROOT / "tests" / "data").rglob("*.json")],
    key=lambda p: p.name,
)
SCHEMA = log_schema()


def _defs(name: str) -> dict[str, Any]:
    found: dict[str, Any] = SCHEMA["$defs"][name]
    return found


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_log_reads_and_says_what_its_json_says(path: Path) -> None:
    doc = read_log(path)
    log = read_match_log(doc)
    assert (log.match_id, log.match, log.status.value, log.complete) == (
        doc["match_id"], doc["match"], doc["status"], doc["complete"]
    )  # fmt: skip
    assert log.cards == tuple(doc["cards"]) and log.seed == doc["seed"] and log.digest == doc["digest"]
    assert log.time_control.to_json() == doc["time_control"]
    assert log.fault_policy.to_json() == doc["fault_policy"]
    assert [p.name for p in log.players] == [p["name"] for p in doc["players"]]
    assert [p.status.value for p in log.players] == [p["status"] for p in doc["players"]]
    assert [p.is_bot for p in log.players] == ["command" in p for p in doc["players"]]
    assert [f.to_json() for f in log.faults] == doc["faults"]
    assert len(log.holes) == len(doc["holes"])
    for hole, written in zip(log.holes, doc["holes"], strict=True):
        assert (hole.hole, hole.starter, list(hole.deal)) == (written["hole"], written["starter"], written["deal"])
        assert (hole.result.to_json() if hole.result is not None else None) == written["result"]
        for step, raw in zip(hole.steps, written["steps"], strict=True):
            if isinstance(step, ReshuffleStep):
                assert list(step.cards) == raw["reshuffle"]
            else:
                as_written = {
                    "seat": step.seat, "decision": step.decision.value, "action": step.action,
                    "by": step.by.value, "request": step.request, "ms": step.ms,
                }  # fmt: skip
                assert as_written == raw
    assert log.step_count == sum(len(h["steps"]) for h in doc["holes"])
    assert (log.signature is None) == (doc.get("signature") is None)
    assert as_match_log(log) is log


def test_every_sample_log_that_validates_still_does() -> None:
    """Validation goes through the reader: the samples keep their verdicts."""
    verdicts = {p.name: validate(read_log(p)).status.value for p in SAMPLES}
    assert set(verdicts.values()) <= {"valid", "incomplete"}, verdicts
    assert verdicts["interrupted.json"] == verdicts["running_journal.json"] == "incomplete"
    assert verdicts["classic_4p_9holes.json"] == "valid"


def test_the_enums_are_exactly_the_schemas_words() -> None:
    """LogStatus, Chooser, SeatStatus, FaultKind, Decision and HoleEnd round-trip every value the schema allows."""
    pairs: list[tuple[type[Any], list[str]]] = [
        (LogStatus, SCHEMA["properties"]["status"]["enum"]),
        (Chooser, _defs("step")["oneOf"][0]["properties"]["by"]["enum"]),
        (Decision, _defs("step")["oneOf"][0]["properties"]["decision"]["enum"]),
        (SeatStatus, _defs("player")["properties"]["status"]["enum"]),
        (FaultKind, _defs("fault")["properties"]["kind"]["enum"]),
        (HoleEnd, _defs("result")["properties"]["end"]["enum"]),
    ]
    for kind, words in pairs:
        assert sorted(m.value for m in kind) == sorted(words), kind
        assert all(kind(w).value == w for w in words)


def test_an_interrupted_log_has_an_open_last_hole_and_no_totals() -> None:
    log = read_match_log(read_log(ROOT / "tests" / "logs" / "interrupted.json"))
    assert log.status is LogStatus.INTERRUPTED and not log.finished
    assert log.holes[-1].result is None and all(h.result is not None for h in log.holes[:-1])
    assert log.totals is None and log.placings is None and log.error is not None


def test_a_journal_cut_off_mid_line_reads_as_the_running_log_it_stands_for(tmp_path: Path) -> None:
    """A referee killed mid-write leaves a journal whose last line is cut: what is whole reads, status running."""
    doc = read_log(ROOT / "tests" / "logs" / "running_journal.json")
    assert len(doc["holes"]) == 1
    path = tmp_path / "journal.json"
    journal = Journal(path)
    journal.write({**doc, "holes": [], "faults": []})
    journal.write(doc)
    journal.close()
    with open(path, "ab") as f:
        f.write(b'{"chain":"sha256:00","faults":[],"holes":[{"deal":["AS"')  # the hole being written
    log = read_match_log(read_log(path))
    assert log.status is LogStatus.RUNNING and log.seed is None and log.totals is None and log.placings is None
    assert log.holes == read_match_log(doc).holes
    assert validate(read_log(path)).status.value == "incomplete"


def test_a_step_the_schema_would_refuse_is_named_by_its_record() -> None:
    doc = read_log(ROOT / "tests" / "logs" / "standard_2p.json")
    broken = copy.deepcopy(doc)
    del broken["holes"][1]["steps"][3]["by"]
    with pytest.raises(MalformedLog, match=r"^holes\[1\]\.steps\[3\]: field by missing$"):
        read_match_log(broken)
    broken = copy.deepcopy(doc)
    broken["players"][0]["status"] = "resting"
    with pytest.raises(MalformedLog, match=r"^players\[0\]: "):
        read_match_log(broken)


def test_the_steps_are_typed() -> None:
    log = read_match_log(read_log(ROOT / "tests" / "logs" / "reshuffle_8p_1deck.json"))
    steps = [s for h in log.holes for s in h.steps]
    assert any(isinstance(s, ReshuffleStep) for s in steps)
    decisions = [s for _, s in log.decisions()]
    assert decisions and all(isinstance(s, DecisionStep) for s in decisions)
    assert len(decisions) + sum(isinstance(s, ReshuffleStep) for s in steps) == log.step_count
    assert len(history_from_log(log)) == len(log.holes) + log.step_count
    assert isinstance(log.time_control, TimeControl)


# -- nobody else reads a log by its keys -----------------------------------------------------

# Keys that only a log has (its top level, holes, steps, players and faults): a string subscript,
# `.get` or `in` test with one of them outside the reader and the writer is a log read by hand.
LOG_ONLY_KEYS = frozenset({
    "holes", "steps", "deal", "reshuffle", "by", "players", "faults", "match_id", "complete", "started_at",
    "finished_at", "time_control", "fault_policy", "digest", "signature", "golfref_version", "schema_version",
    "disqualified_at", "reported_name", "reported_version", "at_ms",
})  # fmt: skip
READER_AND_WRITER = {"golfref/record/matchlog.py", "golfref/record/log.py"}
# Documents other than a log whose keys share a name with one of the log's, or a log not yet vouched for.
TOLERATED = {
    ("golfref/config/match.py", "players"): "a match config's players",
    ("golfref/config/match.py", "faults"): "a match config's fault policy",
    ("golfref/config/tournament.py", "players"): "a tournament config's players",
    ("golfref/tournament/store.py", "players"): "a tournament config's players, as a results store keeps it",
    ("golfref/game/rules.py", "players"): "the rules object's player count",
    ("golfref/record/signing.py", "signature"): "the seal of a log validation has not vouched for",
    ("golfref/record/signing.py", "digest"): "the seal of a log validation has not vouched for",
    ("golfref/record/signing.py", "players"): "the seats a signature's identity names, of a log not yet vouched for",
    ("golfref/record/signing.py", "match_id"): "the match a signature's identity names, of a log not yet vouched for",
}


def hand_reads(source: str) -> list[tuple[int, str]]:
    """(line, key) of each read of a log-only key by a string: `x["holes"]`, `x.get("steps")`, `"by" in x`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        key: object = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            key = node.args[0].value
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Constant)
            and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops)
        ):
            key = node.left.value
        if isinstance(key, str) and key in LOG_ONLY_KEYS:
            found.append((node.lineno, key))
    return found


def test_hand_reads_finds_each_form_of_reading_a_log_by_its_keys() -> None:
    source = 'a = doc["holes"]\nb = h.get("steps")\nc = "reshuffle" in step\ndoc["players"] = []\nd = e["cards"]\n'
    assert hand_reads(source) == [(1, "holes"), (2, "steps"), (3, "reshuffle")]


def test_no_module_but_the_reader_and_the_writer_reads_a_log_by_its_keys() -> None:
    """Every reader goes through record/matchlog.py; this fails on a new `doc["holes"]` anywhere else."""
    offences = []
    for path in sorted((ROOT / "golfref").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name in READER_AND_WRITER:
            continue
        for line, key in hand_reads(path.read_text(encoding="utf-8")):
            if (name, key) not in TOLERATED:
                offences.append(f"{name}:{line}: {key!r}")
    assert not offences, "read the log through golfref.record.matchlog:\n" + "\n".join(offences)


def test_the_tolerated_reads_are_still_there() -> None:
    """Each tolerated entry names a read that exists: one no longer needed is taken off the list."""
    for (name, key), why in TOLERATED.items():
        assert why and key in {k for _, k in hand_reads((ROOT / name).read_text(encoding="utf-8"))}, (name, key)


def test_a_schema_valid_log_reads_after_a_json_round_trip() -> None:
    """The reader takes what a file holds (lists, not tuples): a log re-encoded reads the same."""
    doc = read_log(ROOT / "tests" / "logs" / "faults_3p.json")
    again = json.loads(json.dumps(doc))
    assert read_match_log(again) == read_match_log(doc)


def test_the_docs_example_of_reading_a_log_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/LOG_FORMAT.md, "Reading a log from Python": the snippet runs on a sample log."""
    doc = (ROOT / "docs" / "LOG_FORMAT.md").read_text(encoding="utf-8")
    (snippet,) = re.findall(r"```py\n(.*?)```", doc, flags=re.S)
    sample = ROOT / "tests" / "logs" / "faults_3p.json"
    exec(snippet.replace('"match.json"', repr(str(sample))), {})
    assert capsys.readouterr().out == "LogStatus.FINISHED ['echo', 'illegal', 'quitter'] (43, 3, 15)\n"
