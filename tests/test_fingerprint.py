"""Bot fingerprints (golfref/bots/fingerprint.py): which build of a bot played."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from golfref.bots import fingerprint as fingerprint_module
from golfref.bots.fingerprint import fingerprint
from golfref.config.match import parse_config
from golfref.match.referee import run_match
from golfref.record.validate import Status, validate

BOTS = Path(__file__).resolve().parent / "bots"


def make_bot(tmp_path: Path) -> Path:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.py").write_text("print('v1')\n")
    (bot / "weights.txt").write_text("0.5\n")
    return bot


def test_the_script_an_interpreter_was_given_is_the_file(tmp_path: Path) -> None:
    bot = make_bot(tmp_path)
    fp = fingerprint([sys.executable, "-u", "bot.py", "--level", "3"], str(bot))
    assert fp is not None
    assert fp["file"] == "bot.py"
    assert fp["directory"] == {**fp["directory"], "files": 2, "truncated": False}


def test_a_program_named_by_a_relative_path_is_the_bots_own(tmp_path: Path) -> None:
    bot = make_bot(tmp_path)
    (bot / "run").write_text("#!/bin/sh\n")
    fp = fingerprint(["./run", "weights.txt"], str(bot))
    assert fp is not None and fp["file"] == "./run"


def test_an_interpreter_given_no_script_is_the_file_and_the_working_directory_is_hashed(tmp_path: Path) -> None:
    bot = make_bot(tmp_path)
    fp = fingerprint([sys.executable, "-m", "bot"], str(bot))
    assert fp is not None and fp["file"] == sys.executable
    assert fp["directory"]["files"] == 2


def test_a_program_that_cannot_be_found_has_no_fingerprint(tmp_path: Path) -> None:
    assert fingerprint(["./missing"], str(tmp_path)) is None
    assert fingerprint(["no-such-program-golfref"], str(tmp_path), {"PATH": str(tmp_path)}) is None


def test_the_fingerprint_changes_with_the_script_and_its_directory_not_with_files_elsewhere(tmp_path: Path) -> None:
    bot = make_bot(tmp_path)
    command = [sys.executable, "bot.py"]
    before = fingerprint(command, str(bot))
    (tmp_path / "unrelated.txt").write_text("outside the bot's directory\n")
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "bot.cpython.pyc").write_bytes(b"cache")
    assert fingerprint(command, str(bot)) == before
    (bot / "bot.py").write_text("print('v2')\n")
    changed = fingerprint(command, str(bot))
    assert changed is not None and before is not None
    assert changed["sha256"] != before["sha256"]
    assert changed["directory"]["sha256"] != before["directory"]["sha256"]
    (bot / "bot.py").write_text("print('v1')\n")
    assert fingerprint(command, str(bot)) == before
    (bot / "weights.txt").write_text("0.6\n")
    other = fingerprint(command, str(bot))
    assert other is not None
    assert other["sha256"] == before["sha256"] and other["directory"]["sha256"] != before["directory"]["sha256"]


def _hashes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Record every file the fingerprint reads to hash, from now on."""
    hashed: list[Path] = []
    real = fingerprint_module._sha256

    def counting(path: str | Path) -> str:
        hashed.append(Path(path))
        return real(path)

    monkeypatch.setattr(fingerprint_module, "_sha256", counting)
    return hashed


def _after_a_clock_tick(path: Path) -> None:
    """Return once a file written now would get a later status-change time than `path` has."""
    scratch = path.parent / "tick"
    while True:
        scratch.write_bytes(b"")
        if scratch.stat().st_ctime_ns > path.stat().st_ctime_ns:
            scratch.unlink()
            return


def test_a_settled_file_is_hashed_once_and_again_after_any_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = make_bot(tmp_path)
    command = [sys.executable, "bot.py"]
    monkeypatch.setattr(fingerprint_module, "_SETTLED_NS", 0)  # the files were written just now
    first = fingerprint(command, str(bot))
    hashed = _hashes(monkeypatch)
    assert fingerprint(command, str(bot)) == first and hashed == []
    # The same size and the old modification time put back, as a bot covering its tracks
    # would: the status-change time still moves, and the file is hashed again.
    weights = bot / "weights.txt"
    old = weights.stat()
    _after_a_clock_tick(weights)
    weights.write_text("0.9\n")
    os.utime(weights, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert weights.stat().st_size == old.st_size and weights.stat().st_mtime_ns == old.st_mtime_ns
    changed = fingerprint(command, str(bot))
    assert changed is not None and first is not None
    assert changed["directory"]["sha256"] != first["directory"]["sha256"]
    assert hashed == [weights]


def test_a_file_changed_moments_ago_is_hashed_every_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Within the same clock tick a second write would leave the status unchanged: no digest is kept."""
    bot = make_bot(tmp_path)
    monkeypatch.setattr(fingerprint_module, "_SETTLED_NS", 3600 * 10**9)
    fingerprint([sys.executable, "bot.py"], str(bot))
    hashed = _hashes(monkeypatch)
    fingerprint([sys.executable, "bot.py"], str(bot))
    assert sorted(hashed) == [bot / "bot.py", bot / "bot.py", bot / "weights.txt"]


def test_the_size_cap_is_honoured(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "a_bot.py").write_bytes(b"x" * 10)
    (bot / "b_data").write_bytes(b"y" * 100)
    (bot / "c_small").write_bytes(b"z" * 5)
    fp = fingerprint([sys.executable, "a_bot.py"], str(bot), cap_bytes=50)
    assert fp is not None
    # The walk stops before b_data, the first file past the cap: c_small is not hashed either.
    assert fp["directory"] | {"sha256": None} == {"sha256": None, "files": 1, "bytes": 10, "truncated": True}
    (bot / "c_small").write_bytes(b"changed")
    assert fingerprint([sys.executable, "a_bot.py"], str(bot), cap_bytes=50) == fp
    whole = fingerprint([sys.executable, "a_bot.py"], str(bot))
    assert whole is not None and whole["directory"]["truncated"] is False and whole["directory"]["bytes"] == 117


def test_the_file_count_cap_is_honoured(tmp_path: Path) -> None:
    bot = make_bot(tmp_path)
    fp = fingerprint([sys.executable, "bot.py"], str(bot), cap_files=1)
    assert fp is not None and fp["directory"]["files"] == 1 and fp["directory"]["truncated"] is True


@pytest.mark.process
def test_the_log_records_each_external_bots_fingerprint_before_it_starts(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    script = (BOTS / "echo_bot.py").read_bytes()
    (bot / "echo_bot.py").write_bytes(script)
    text = (
        "match: fp\nrules: {preset: standard, layout: 2x2, holes: 1}\nplayers:\n"
        "  - {name: greedy, builtin: greedy}\n"
        f"  - {{name: echo, command: [{json.dumps(sys.executable)}, echo_bot.py]}}\n"
    )
    cfg = parse_config(text, source="fp.yaml", base_dir=bot)
    result = run_match(cfg, seed=1, log_path=str(tmp_path / "log.json"))
    players = result.log["players"]
    assert "fingerprint" not in players[0]
    assert players[1]["fingerprint"] == fingerprint([sys.executable, "echo_bot.py"], str(bot))
    assert validate(json.loads(Path(result.log_path).read_text())).status is Status.VALID


def test_old_logs_without_fingerprints_still_validate() -> None:
    doc = json.loads((Path(__file__).parent / "logs" / "faults_3p.json").read_text())
    for player in doc["players"]:
        player.pop("fingerprint", None)
    doc.pop("signature", None)
    from golfref.record.log import compute_digest

    doc["digest"] = compute_digest(doc)
    assert validate(doc).status is Status.VALID


def test_a_malformed_fingerprint_is_invalid_and_located() -> None:
    doc = json.loads((Path(__file__).parent / "logs" / "faults_3p.json").read_text())
    doc["players"][1]["fingerprint"]["sha256"] = "XYZ"
    from golfref.record.log import compute_digest

    doc["digest"] = compute_digest(doc)
    report = validate(doc)
    assert report.status is Status.INVALID
    assert "players[1]" in report.message or "seat 1" in report.message, report.message
    assert "64 lowercase hex digits" in report.message


def test_the_referees_outputs_inside_the_bots_folder_are_left_out(tmp_path: Path) -> None:
    # The quick form's layout: a tournament's results (its store, logs and transcripts) under the
    # bot's folder. The logs written there as matches are played are no part of the bot.
    bot = make_bot(tmp_path)
    command = [sys.executable, "bot.py"]
    results = bot / "tournaments" / "t"
    (results / "logs").mkdir(parents=True)
    outputs = [results, tmp_path / "elsewhere"]
    before = fingerprint(command, str(bot), outputs=outputs)
    assert before is not None and before["directory"]["files"] == 2
    (results / "logs" / "m0.json").write_text("{}\n")
    (results / "store.sqlite").write_bytes(b"rows")
    assert fingerprint(command, str(bot), outputs=outputs) == before
    assert fingerprint(command, str(bot)) != before  # without being told, they are the bot's files
    # By another path to the same folder (a link), it is still left out.
    (tmp_path / "via").symlink_to(bot)
    assert fingerprint(command, str(tmp_path / "via"), outputs=[results]) == before
    # The bot's own folder, or one holding it, is never left out as a whole.
    assert fingerprint(command, str(bot), outputs=[bot, tmp_path]) == fingerprint(command, str(bot))
    (bot / "weights.txt").write_text("0.7\n")  # the bot's own files still count
    assert fingerprint(command, str(bot), outputs=outputs) != before


@pytest.mark.process
def test_a_logs_fingerprint_leaves_out_the_logs_written_in_the_bots_folder(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "echo_bot.py").write_bytes((BOTS / "echo_bot.py").read_bytes())
    text = (
        "match: fp\nrules: {preset: standard, layout: 2x2, holes: 1}\nplayers:\n"
        "  - {name: greedy, builtin: greedy}\n"
        f"  - {{name: echo, command: [{json.dumps(sys.executable)}, echo_bot.py]}}\n"
        "log: {path: 'logs/{match_id}.json', transcript: true}\n"
    )
    cfg = parse_config(text, source=str(bot / "fp.yaml"), base_dir=bot)
    first = run_match(cfg, seed=1)
    second = run_match(cfg, seed=2)  # the first's log and transcript are in the bot's folder now
    assert Path(first.log_path).parent == bot / "logs"
    assert first.log["players"][1]["fingerprint"] == second.log["players"][1]["fingerprint"]
    assert first.log["players"][1]["fingerprint"]["directory"]["files"] == 1


# -- files that are not the bot's ------------------------------------------------------------


@pytest.mark.parametrize(
    ("patterns", "left"),
    [
        (["out.txt"], ["bot.py", "logs/a.log", "logs/deep/b.log", "sub/out.txt", "weights.txt"]),
        (["*.log"], ["bot.py", "out.txt", "sub/out.txt", "weights.txt"]),  # `*` crosses `/`: any depth
        (["logs"], ["bot.py", "out.txt", "sub/out.txt", "weights.txt"]),  # a folder: all under it
        (["./logs/", "sub/*"], ["bot.py", "out.txt", "weights.txt"]),
        (["*.txt", "logs/deep"], ["bot.py", "logs/a.log"]),
    ],
)
def test_exclude_patterns_leave_out_files_relative_to_the_bots_folder(
    tmp_path: Path, patterns: list[str], left: list[str]
) -> None:
    bot = make_bot(tmp_path)
    for rel in ("out.txt", "logs/a.log", "logs/deep/b.log", "sub/out.txt"):
        (bot / rel).parent.mkdir(parents=True, exist_ok=True)
        (bot / rel).write_text(rel)
    found = fingerprint_module.build([sys.executable, "bot.py"], str(bot), exclude=patterns)
    assert found is not None and [rel for rel, _, _ in found.listing] == left
    # The log says what the hash does not cover.
    assert found.fingerprint["directory"]["excluded"] == patterns
    assert "excluded" not in (fingerprint([sys.executable, "bot.py"], str(bot)) or {})["directory"]
    # An excluded file may change at will; a covered one may not.
    (bot / "out.txt").write_text("a run's output\n")
    again = fingerprint_module.build([sys.executable, "bot.py"], str(bot), exclude=patterns)
    assert again is not None and (again.key() == found.key()) == ("out.txt" not in left)


def test_excluded_files_take_no_share_of_the_caps(tmp_path: Path) -> None:
    bot = make_bot(tmp_path)  # bot.py 12 bytes, weights.txt 4
    (bot / "big.log").write_bytes(b"x" * 1000)
    capped = fingerprint([sys.executable, "bot.py"], str(bot), cap_bytes=100)
    assert capped is not None and capped["directory"]["truncated"] is True
    left = fingerprint([sys.executable, "bot.py"], str(bot), cap_bytes=100, exclude=["*.log"])
    assert left is not None and left["directory"]["truncated"] is False and left["directory"]["files"] == 2


def test_a_build_taken_before_leaves_out_what_is_left_out_now(tmp_path: Path) -> None:
    # A tournament compares the build it started with (stored) with one taken now: a pattern added
    # to the config since, or a file golfref wrote since, is left out of both.
    bot = make_bot(tmp_path)
    (bot / "out.txt").write_text("first run\n")
    (bot / "report.html").write_text("<html>\n")
    command = [sys.executable, "bot.py"]
    started = fingerprint_module.build(command, str(bot))
    assert started is not None and started.root == os.path.realpath(bot)
    stored = fingerprint_module.Build.from_json(json.loads(json.dumps(started.to_json())))
    assert stored == started
    (bot / "out.txt").write_text("second run, longer\n")
    now = fingerprint_module.build(command, str(bot), outputs=[bot / "report.html"], exclude=["out.txt"])
    assert now is not None and now.key() != started.key()
    assert stored.without(["out.txt"], [bot / "report.html"]) == now
    # A build stored before golfref kept its folder takes the folder from the build taken now.
    old = fingerprint_module.Build(started.fingerprint, started.listing, started.own)
    assert old.without(["out.txt"], [bot / "report.html"], now.root).key() == now.key()
    assert stored.without((), ()) is stored


def test_the_file_a_stream_is_redirected_into_is_found_by_its_inode(tmp_path: Path) -> None:
    bot = make_bot(tmp_path)
    out = bot / "out.txt"
    found = fingerprint_module.build([sys.executable, "bot.py"], str(bot))
    assert found is not None
    with open(out, "w", encoding="utf-8") as stream:
        found = fingerprint_module.build([sys.executable, "bot.py"], str(bot))
        assert found is not None
        assert fingerprint_module.redirected_into(found, [stream.fileno()]) == ("out.txt",)
        # The same name for another file (recreated, as a shell's `>` does on the next run) is not it.
        (bot / "other.txt").write_text("x")
        os.replace(bot / "other.txt", out)
        again = fingerprint_module.build([sys.executable, "bot.py"], str(bot))
        assert again is not None and fingerprint_module.redirected_into(again, [stream.fileno()]) == ()
    # A stream that is no regular file (a pipe, a terminal) names none.
    read_end, write_end = os.pipe()
    try:
        assert fingerprint_module.redirected_into(found, [write_end]) == ()
    finally:
        os.close(read_end)
        os.close(write_end)


def test_the_referees_fingerprint_leaves_out_the_players_patterns_and_the_log_says_so(tmp_path: Path) -> None:
    from golfref.bots.launch import ProcessLauncher
    from golfref.record.log import compute_digest

    bot = make_bot(tmp_path)
    (bot / "out.txt").write_text("not the bot's\n")
    text = (
        "match: fp\nrules: {preset: standard, layout: 2x2, holes: 1}\nplayers:\n"
        "  - {name: greedy, builtin: greedy}\n"
        f"  - {{name: b, command: [{json.dumps(sys.executable)}, bot.py], fingerprint: {{exclude: [out.txt]}}}}\n"
    )
    player = parse_config(text, source="fp.yaml", base_dir=bot).players[1]
    assert player.fingerprint_exclude == ("out.txt",)
    fp = ProcessLauncher().fingerprint(1, player, [])
    assert fp is not None and fp["directory"]["files"] == 2 and fp["directory"]["excluded"] == ["out.txt"]
    # Such a fingerprint is a valid log's.
    doc = json.loads((Path(__file__).parent / "logs" / "faults_3p.json").read_text())
    doc["players"][1]["fingerprint"] = fp
    doc.pop("signature", None)
    doc["digest"] = compute_digest(doc)
    assert validate(doc).status is Status.VALID, validate(doc).message
