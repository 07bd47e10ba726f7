"""Ordinary programs run under the sandbox's system-call filter (golfref/bots/seccomp.py, issue 38).

The filter denies file locks, watches, the key store and every way to probe or evict the page
cache (mincore, cachestat, io_uring, Linux AIO, RWF_NOWAIT, DONTNEED/PAGEOUT/COLD advice):
calls a runtime may make at start or in passing. The starter bot of each kit (Python, node,
the JVM, C, C++, Rust and Go), built here, plays a whole match sandboxed, with bubblewrap
(which loads the filter) and without it (a user of its own, the filter loaded before exec),
with no fault and nothing on its stderr; a Python bot keeps a SQLite database in its `/tmp`
as docs/SANDBOX.md says it can; and node, told to read files through io_uring, reads them
the ordinary way. A kit whose toolchain is missing skips, naming it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from golfref.bots import sandbox, seccomp
from golfref.tools.kits import build, copy_kit

from .conftest import BOTS
from .kitbuild import KIT_NAMES, usable
from .test_sandbox import HOUSE, SYSTEM_PYTHON, _config, _play, _reachable_python, needs_bubblewrap

NO_FILTER = seccomp.filter_problem()

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(NO_FILTER is not None, reason=f"no system-call filter: {NO_FILTER}"),
]


@pytest.fixture(scope="module")
def kits_folder() -> Iterator[Path]:
    """Where the kits are built, once for the module: a folder every user may enter (without bubblewrap a
    bot's own user must reach its files)."""
    folder = Path(tempfile.mkdtemp(prefix="golfref-runtimes-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


_BUILT: dict[str, dict[str, Any]] = {}


def kit_player(name: str, kits_folder: Path) -> dict[str, Any]:
    """A player running kit `name`'s example bot from its folder, built there (once), as `golfref init` writes it."""
    if name not in _BUILT:
        which = usable(name)
        folder = kits_folder / name
        copy_kit(which, folder)
        build(which, folder)
        command = [SYSTEM_PYTHON if word == "python3" else word for word in which.run]
        _BUILT[name] = {"name": name, "command": command, "cwd": str(folder)}
    return _BUILT[name]


def _assert_played(log: dict[str, Any], bubblewrap: bool) -> None:
    """The bot played the whole match with the filter in force, without a fault or a word on stderr."""
    assert log["status"] == "finished" and log["faults"] == [], log["faults"]
    player = log["players"][0]
    assert player["status"] == "ok" and player["sandbox"]["bubblewrap"] is bubblewrap, player
    assert not any(line.startswith("system-call filter") for line in player["sandbox"]["missing"]), player["sandbox"]
    assert (player["stderr"] or "") == "", player["stderr"]


@needs_bubblewrap
@pytest.mark.parametrize("kit", KIT_NAMES)
def test_each_kits_bot_plays_in_bubblewrap_under_the_filter(kit: str, kits_folder: Path) -> None:
    _, log = _play(kits_folder, _config(kits_folder, [kit_player(kit, kits_folder), HOUSE], {"enabled": True}))
    _assert_played(log, bubblewrap=True)


@pytest.mark.parametrize("kit", KIT_NAMES)
def test_each_kits_bot_plays_under_the_filter_without_bubblewrap(
    kit: str, kits_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = kit_player(kit, kits_folder)
    monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    if kit == "python":
        player = {**player, "command": [_reachable_python(), *player["command"][1:]]}
    _, log = _play(kits_folder, _config(kits_folder, [player, HOUSE], {"enabled": True}))
    _assert_played(log, bubblewrap=False)


@pytest.mark.parametrize("boxed", ["bubblewrap", "own user"])
def test_a_bot_keeps_a_sqlite_database_in_its_tmp(boxed: str, shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if boxed == "bubblewrap" and sandbox.bubblewrap_problem() is not None:
        pytest.skip(f"needs a usable bubblewrap ({sandbox.bubblewrap_problem()})")
    if boxed == "own user":
        monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    shutil.copy(BOTS / "sqlite_bot.py", shared)  # where its own user may read it: the checkout may be private
    player = {"name": "sqlite", "command": [_reachable_python(), str(shared / "sqlite_bot.py")]}
    _, log = _play(shared, _config(shared, [player, HOUSE], {"enabled": True}))
    assert log["status"] == "finished" and log["faults"] == [], log["faults"]
    said = log["players"][0]["stderr"]
    # Locked the default way, a database reports the lock the filter denies; without locks it works.
    assert "sqlite locking: database is locked" in said, said
    assert "sqlite nolock: 100 rows, sum 4950" in said, said


def test_node_reading_files_through_io_uring_falls_back_under_the_filter(tmp_path: Path) -> None:
    """libuv (under node) reads files through io_uring where it may (UV_USE_IO_URING=1, the default of some
    releases): under the filter its io_uring_setup fails with ENOSYS and it reads them the ordinary way."""
    node, strace = shutil.which("node"), shutil.which("strace")
    if node is None:
        pytest.skip("needs node (apt-get install nodejs)")
    if strace is None:
        pytest.skip("needs strace to see what node tried (apt-get install strace)")
    (tmp_path / "card.txt").write_text("7H", encoding="utf-8")
    script = "require('fs').promises.readFile(process.argv[1], 'utf8').then((s) => console.log('read ' + s))"
    done = subprocess.run(
        [strace, "-f", "-qq", "-e", "trace=io_uring_setup", node, "-e", script, str(tmp_path / "card.txt")],
        capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "UV_USE_IO_URING": "1"},
        preexec_fn=seccomp.loader(),
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout == "read 7H\n", (done.stdout, done.stderr)
    tried = [line for line in done.stderr.splitlines() if "io_uring_setup(" in line]
    assert tried and all("ENOSYS" in line for line in tried), done.stderr
