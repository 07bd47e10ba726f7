"""The one door to a started bot (golfref/bots/launch.py): the process launcher, and the referee going through it."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from golfref.bots.framing import ReadStatus
from golfref.bots.launch import Launcher, ProcessLauncher, StartedBot, StartFailed
from golfref.bots.sandbox import OFF
from golfref.config.match import PlayerSpec, parse_config
from golfref.config.sandbox_spec import SandboxSpec
from golfref.match.referee import run_match
from golfref.record.faults import FaultKind, SeatStatus

BOTS = Path(__file__).parent / "bots"
ECHO_BOT = BOTS / "echo_bot.py"
GENEROUS = 30_000


def echo_player(cwd: Path) -> PlayerSpec:
    return PlayerSpec(name="echo", command=(sys.executable, str(ECHO_BOT)), cwd=str(cwd))


@pytest.mark.process
def test_a_started_process_is_read_and_closed_through_the_door(tmp_path: Path) -> None:
    launcher = ProcessLauncher()
    player = echo_player(tmp_path)
    launcher.prepare(SandboxSpec(), [player], tmp_path / "logs", "test", ())
    assert launcher.protections(0) == OFF.to_json()
    built = launcher.fingerprint(0, player, [tmp_path / "logs"])
    assert built is not None and built == launcher.fingerprint(0, player, [tmp_path / "logs"])
    bot = launcher.start(0, player)
    try:
        assert bot.sends == 0
        assert bot.send('{"type": "hello"}', time.monotonic() + GENEROUS / 1000)
        assert bot.sends == 1
        result = bot.read_line(time.monotonic() + GENEROUS / 1000)
        assert result.status is ReadStatus.LINE and '"ready"' in (result.line or "")
        assert bot.take_unasked() == []
        assert bot.limit_hit(1) is None  # no sandbox, no limit to hit
    finally:
        launcher.close_all(0.5)
    assert bot.read_line(time.monotonic() + GENEROUS / 1000).status is ReadStatus.EXITED
    assert bot.wait_exit(GENEROUS / 1000) is not None
    launcher.release()  # nothing prepared is left: a no-op


@pytest.mark.process
def test_a_program_that_cannot_start_says_which_and_where(tmp_path: Path) -> None:
    launcher = ProcessLauncher()
    player = PlayerSpec(name="gone", command=("./no_such_bot",), cwd=str(tmp_path))
    launcher.prepare(SandboxSpec(), [player], tmp_path / "logs", "test", ())
    try:
        launcher.start(0, player)
    except StartFailed as e:
        message = str(e)
    else:
        raise AssertionError("a missing program started")
    assert f"(program {tmp_path / 'no_such_bot'}, working directory {tmp_path})" in message
    launcher.close_all(0.1)


class _Recording:
    """A launcher around the process one that notes each call the referee makes, and may refuse a start."""

    def __init__(self, check: Callable[[], None] | None, calls: list[str], refuse: int | None) -> None:
        self.inner = ProcessLauncher(check)
        self.clock = self.inner.clock
        self.calls = calls
        self.refuse = refuse

    def prepare(
        self, spec: SandboxSpec, players: Sequence[PlayerSpec], log_folder: Path, source: str, hide: Sequence[Path]
    ) -> None:
        self.calls.append("prepare")
        self.inner.prepare(spec, players, log_folder, source, hide)

    def fingerprint(self, seat: int, player: PlayerSpec, outputs: Sequence[Path]) -> dict[str, Any] | None:
        self.calls.append(f"fingerprint {seat}")
        return {"door": seat}

    def start(self, seat: int, player: PlayerSpec) -> StartedBot:
        self.calls.append(f"start {seat}")
        if seat == self.refuse:
            raise StartFailed("refused at the door")
        return self.inner.start(seat, player)

    def protections(self, seat: int) -> dict[str, Any]:
        return self.inner.protections(seat)

    def release(self) -> None:
        self.calls.append("release")
        self.inner.release()

    def close_all(self, grace: float) -> None:
        self.calls.append("close_all")
        self.inner.close_all(grace)


@pytest.mark.process
def test_the_referee_gets_its_bots_through_the_launcher_it_is_given(tmp_path: Path) -> None:
    command = f"[{sys.executable!r}, {str(ECHO_BOT)!r}]"
    text = f"""
match: door
rules: {{preset: standard, layout: 2x2, holes: 1, turn_limit: 10}}
players:
  - {{name: a, command: {command}}}
  - {{name: b, command: {command}}}
time: {{startup_ms: {GENEROUS}, move_ms: {GENEROUS}}}
faults: {{policy: fallback, max_faults: 5}}
log: {{path: {str(tmp_path / 'logs' / 'match.json')!r}}}
"""
    config = parse_config(text, source=str(tmp_path / "match.yaml"))
    calls: list[str] = []

    def door(check: Callable[[], None] | None) -> Launcher:
        return _Recording(check, calls, refuse=0)

    result = run_match(config, seed=3, launcher=door)
    assert calls == ["prepare", "fingerprint 0", "fingerprint 1", "start 0", "start 1", "close_all", "release"]
    assert [(f.seat, f.kind, f.message) for f in result.faults] == [(0, FaultKind.START_FAILED, "refused at the door")]
    assert result.statuses == (SeatStatus.DISQUALIFIED, SeatStatus.OK)
    assert [p["fingerprint"] for p in result.log["players"]] == [{"door": 0}, {"door": 1}]
