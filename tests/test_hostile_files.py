"""Hostile files (issue 21, items 4 and 6): no write follows a link a bot placed, and hostile
configs, logs and keys get one-line errors in bounded time and memory.

Item 4 plays real matches: `tests/bots/hostile/link_bot.py` replaces its transcript or the log
with a symbolic link to a file outside the match, with the sandbox off (where it can reach
them) and on (where it cannot), and the file outside must be left as it was.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from golfref.files import UnsafeFile, create_new, open_append, read_capped, replace_file

from .conftest import default_signals
from .test_sandbox_attacks import BOT_PYTHON, HOSTILE, WAIT, bot, hostile, sandbox  # noqa: F401

PRECIOUS = "precious: not the referee's to write\n"


def run(tmp_path: Path, config: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    """`golfref run` on `config` (written to tmp_path/match.yaml), in its own process group."""
    path = tmp_path / "match.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    referee = subprocess.Popen(
        [sys.executable, "-m", "golfref", "run", str(path), "--quiet", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        start_new_session=True, preexec_fn=default_signals(),
    )  # fmt: skip
    try:
        stdout, stderr = referee.communicate(timeout=WAIT)
    finally:
        if referee.poll() is None:
            os.killpg(referee.pid, signal.SIGKILL)  # its own group: the referee and nothing else of ours
            referee.wait()
    return subprocess.CompletedProcess(referee.args, referee.returncode, stdout, stderr)


def link_match(tmp_path: Path, what: str, sandbox: bool) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """A 2-hole match of link_bot.py (seat 0, swapping `what`) against echo play; the target and the log."""
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "victim.txt"
    target.write_text(PRECIOUS, encoding="utf-8")
    log_path = tmp_path / "logs" / "log.json"
    config: dict[str, Any] = {
        "match": "links",
        "seed": 11,
        "rules": {"preset": "standard", "layout": "2x2", "holes": 2},
        "players": [
            {"name": "linker", "command": bot("link_bot.py", what, log_path, target, tmp_path / "report.json")},
            {"name": "honest", "command": bot("victim_bot.py", tmp_path / "victim.json")},
        ],
        "time": {"startup_ms": 20000, "move_ms": 10000},
        "log": {"path": str(log_path), "transcript": True},
    }
    if sandbox:
        config["sandbox"] = {"enabled": True}
    return run(tmp_path, config), target, log_path


def one_error_line(stderr: str) -> str:
    """The single `golfref: error:` line of `stderr` (no traceback)."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("golfref: error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.mark.process
def test_a_transcript_swapped_for_a_link_is_not_written_through(tmp_path: Path, sandbox: bool) -> None:
    done, target, log_path = link_match(tmp_path, "transcript", sandbox)
    assert target.read_text(encoding="utf-8") == PRECIOUS
    log = json.loads(log_path.read_text(encoding="utf-8"))
    report = hostile_report(log)
    transcript = log_path.with_name("log.seat0.transcript.jsonl")
    if sandbox:
        # The log's folder is hidden from a sandboxed bot: nothing to swap.
        assert report["result"] != "done", report
        assert done.returncode == 0, done.stderr
        assert log["status"] == "finished"
    else:
        assert report["result"] == "done", report
        assert transcript.is_symlink()
        assert done.returncode == 3, done.stderr
        line = one_error_line(done.stderr)
        assert f"cannot write {transcript}: is a symbolic link" in line, line
        assert log["status"] == "error" and str(transcript) in log["error"], log["error"]


@pytest.mark.process
def test_a_log_swapped_for_a_link_is_not_written_through(tmp_path: Path, sandbox: bool) -> None:
    done, target, log_path = link_match(tmp_path, "log", sandbox)
    assert target.read_text(encoding="utf-8") == PRECIOUS
    if sandbox:
        log = json.loads(log_path.read_text(encoding="utf-8"))
        assert hostile_report(log)["result"] != "done"
        assert done.returncode == 0, done.stderr
    else:
        # The journal goes on into the file the referee made; the final log refuses the link.
        assert log_path.is_symlink()
        assert done.returncode == 3, done.stderr
        line = one_error_line(done.stderr)
        assert f"cannot write {log_path}: is a symbolic link" in line, line


def hostile_report(log: dict[str, Any]) -> dict[str, Any]:
    """link_bot's attack report, from its stderr kept in the log."""
    text = log["players"][0]["stderr"] or ""
    lines = [x for x in text.splitlines() if x.startswith(hostile.REPORT_PREFIX)]
    assert lines, text
    return dict(json.loads(lines[-1][len(hostile.REPORT_PREFIX) :]))


# -- golfref.files, the one place that opens files ---------------------------------------


def test_writes_refuse_links_and_fifos(tmp_path: Path) -> None:
    target = tmp_path / "victim.txt"
    target.write_text(PRECIOUS, encoding="utf-8")
    link = tmp_path / "out.txt"
    link.symlink_to(target)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (link, fifo):
        with pytest.raises(UnsafeFile, match="not a regular file|symbolic link"):
            replace_file(path, b"x")
        with pytest.raises(UnsafeFile, match="not a regular file|symbolic link"):
            os.close(open_append(path))
        with pytest.raises(FileExistsError):
            os.close(create_new(path))
    assert target.read_text(encoding="utf-8") == PRECIOUS
    assert link.is_symlink() and fifo.is_fifo()


def test_reads_refuse_fifos_devices_and_big_files(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeFile, match="is a FIFO"):
        read_capped(fifo, 100)  # never blocks waiting for a writer
    with pytest.raises(UnsafeFile, match="is a device"):
        read_capped("/dev/zero", 100)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(UnsafeFile, match="larger than golfref reads: more than 100 bytes"):
        read_capped(big, 100)
    assert read_capped(big, 101) == b"x" * 101
