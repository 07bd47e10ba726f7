"""Issue 21, item 8c: memory_mb and processes bound the bot as a whole where it gets a control group.

The hostile bot (tests/bots/hostile/memory_share_bot.py) holds more than memory_mb under
per-process limits: one shared mapping, or three children each under the bound. With a
control group of its own (root, cgroups writable) the kernel stops it at memory_mb for the
whole bot, with bubblewrap and without it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from golfref.bots import cgroups
from golfref.bots import sandbox as sandbox_module
from golfref.record.faults import FaultKind

from .test_sandbox import HOUSE, SYSTEM_PYTHON, _config, _play, _reachable_python, needs_bubblewrap
from .test_sandbox_attacks import HOSTILE, hostile

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(cgroups.group_problem() is not None, reason=f"no control groups: {cgroups.group_problem()}"),
]

LIMITS = {"memory_mb": 128, "processes": 32}
HOLD_MIB = 400  # one shared mapping: over memory_mb, under the address space bound (4 x memory_mb)
CHILD_MIB = 100  # each of three children: under memory_mb, together over it


def _report(log: dict[str, Any]) -> dict[str, Any] | None:
    text = log["players"][0]["stderr"] or ""
    lines = [line for line in text.splitlines() if line.startswith(hostile.REPORT_PREFIX)]
    return hostile.json.loads(lines[-1][len(hostile.REPORT_PREFIX) :]) if lines else None


def _match(folder: Path, python: str, bot: Path, mode: str, mib: int) -> tuple[Any, dict[str, Any]]:
    player = {"name": "share", "command": [python, str(bot), str(folder / "out.json"), mode, str(mib)]}
    return _play(folder, _config(folder, [player, HOUSE], {"enabled": True, "limits": LIMITS}))


@pytest.fixture(
    params=[pytest.param(True, marks=needs_bubblewrap, id="bubblewrap"), pytest.param(False, id="own-user")]
)
def setup(request: pytest.FixtureRequest, shared: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:  # noqa: F811
    """The interpreter and the bot, with bubblewrap or (as root) without it."""
    if not request.param:
        monkeypatch.setattr(sandbox_module, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    for name in ("memory_share_bot.py", "hostile.py"):
        shutil.copy(HOSTILE / name, shared)  # where its own user may read it
    python = SYSTEM_PYTHON if request.param else _reachable_python()
    return python, shared / "memory_share_bot.py"


def test_a_shared_mapping_over_memory_mb_kills_the_bot(shared: Path, setup: tuple[str, Path]) -> None:  # noqa: F811
    python, bot = setup
    result, log = _match(shared, python, bot, "shared", HOLD_MIB)
    assert log["players"][0]["sandbox"]["missing"] == [] or "bubblewrap" in log["players"][0]["sandbox"]["missing"][0]
    report = _report(log)
    assert report is None or report.get("touched_mib", 0) < HOLD_MIB
    kinds = [(f.kind, f.message) for f in result.faults if f.seat == 0]
    assert any(kind is FaultKind.RESOURCE_LIMIT and "memory_mb (128 MiB)" in message for kind, message in kinds), kinds


def test_children_together_over_memory_mb_do_not_get_it(shared: Path, setup: tuple[str, Path]) -> None:  # noqa: F811
    """A memory cgroup v1 kills the largest process (a child here) and the bot plays on; v2 kills the
    whole bot (memory.oom.group). Either way the three children never hold their memory at once."""
    python, bot = setup
    result, log = _match(shared, python, bot, "children", CHILD_MIB)
    report = _report(log)
    faulted = [f for f in result.faults if f.seat == 0]
    assert (report is not None and report["children_done"] < 3) or any(
        f.kind is FaultKind.RESOURCE_LIMIT and "memory_mb" in f.message for f in faulted
    ), (report, faulted)


def test_no_control_group_outlives_its_bot(shared: Path, setup: tuple[str, Path]) -> None:  # noqa: F811
    python, bot = setup
    layout = cgroups._ready()
    assert not isinstance(layout, str)
    mine = f"bot-{cgroups.os.getpid()}-"
    result, log = _match(shared, python, bot, "shared", 1)  # well within its bounds
    assert [f for f in result.faults if f.seat == 0] == [] and log["players"][0]["status"] == "ok"
    for parent in {layout.memory, layout.pids}:
        assert [p.name for p in parent.iterdir() if p.name.startswith(mine)] == []


def test_the_groups_of_a_killed_referee_are_removed_by_the_next() -> None:
    """A referee killed with SIGKILL cannot remove its bots' groups: the next referee removes the
    empty ones whose referee is gone (here one named after a pid no process has)."""
    layout = cgroups._ready()
    assert not isinstance(layout, str)
    dead = 2**22 + 1  # above pid_max's largest setting: never a live process
    assert not Path(f"/proc/{dead}").exists()
    left = [parent / f"bot-{dead}-0badc0de" for parent in {layout.memory, layout.pids}]
    for folder in left:
        folder.mkdir()
    try:
        cgroups._sweep(layout.memory)
        cgroups._sweep(layout.pids)
        assert [f for f in left if f.exists()] == []
    finally:
        for folder in left:
            if folder.exists():
                folder.rmdir()
