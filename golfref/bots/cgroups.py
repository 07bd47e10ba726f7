"""A control group of one's own for each sandboxed bot: its memory and processes bounded as a whole.

``setrlimit`` bounds each process: a bot with a shared mapping, or with several processes,
uses more than ``memory_mb`` in all. Where the referee may make control groups (root, with
the memory and pids controllers mounted writable), each bot runs in a group of its own,
``golfref/bot-<id>`` under the controllers' mount: ``memory.max`` (cgroup v2) or
``memory.limit_in_bytes`` (v1) is ``memory_mb`` with no swap beyond it, and ``pids.max`` is
``processes``. The kernel then kills a process of the bot when the bot as a whole passes
its memory (`BotGroup.memory_hit` tells it afterwards), and a fork past the process bound
fails. The group is removed when the bot has ended, once the pages of files the bot brought
into memory are dropped (so what it read does not outlive it in the page cache); the empty
groups of a referee that was killed before it could remove them are removed by the next one.

Both layouts are read from /proc/self/mounts: the unified hierarchy (cgroup v2, Debian 12
and Ubuntu 22.04 on) when it has both controllers, else v1's ``memory`` and ``pids``
hierarchies. Anything else, or a hierarchy the referee may not write, leaves the bot with
its per-process limits: `group_problem` says why.
"""

from __future__ import annotations

import functools
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BotGroup", "group_problem"]

_MIB = 1024 * 1024
_PARENT = "golfref"
_REMOVE_WAIT = 2.0  # a killed process leaves its group in microseconds; this bounds an odd stuck one


@dataclass(frozen=True)
class _Layout:
    """Where the groups are made: one folder (v2), or one per controller (v1)."""

    v2: bool
    memory: Path
    pids: Path


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, file system type, options) of each cgroup mount."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as f:
            rows = [line.split() for line in f]
    except OSError:
        return []
    return [(r[1], r[2], set(r[3].split(","))) for r in rows if len(r) > 3 and r[2] in ("cgroup", "cgroup2")]


def _layout() -> _Layout | str:
    """The hierarchy to make bots' groups in, or why there is none (one line)."""
    mounts = _mounts()
    for point, kind, _ in mounts:
        if kind == "cgroup2":
            try:
                controllers = Path(point, "cgroup.controllers").read_text().split()
            except OSError:
                continue
            if "memory" in controllers and "pids" in controllers:
                return _Layout(True, Path(point, _PARENT), Path(point, _PARENT))
    v1 = {c: Path(point) for point, kind, options in mounts if kind == "cgroup" for c in ("memory", "pids")
          if c in options}  # fmt: skip
    if "memory" in v1 and "pids" in v1:
        return _Layout(False, v1["memory"] / _PARENT, v1["pids"] / _PARENT)
    return "no cgroup hierarchy with the memory and pids controllers is mounted"


@functools.cache
def _ready() -> _Layout | str:
    """The layout once its parent folder exists (with v2, its controllers enabled for the bots' groups)."""
    if os.geteuid() != 0:
        return "the referee is not root"
    layout = _layout()
    if isinstance(layout, str):
        return layout
    try:
        for parent in {layout.memory, layout.pids}:
            parent.mkdir(mode=0o755, exist_ok=True)
        if layout.v2:
            enabled = (layout.memory.parent / "cgroup.subtree_control").read_text().split()
            if "memory" not in enabled or "pids" not in enabled:
                (layout.memory.parent / "cgroup.subtree_control").write_text("+memory +pids")
            (layout.memory / "cgroup.subtree_control").write_text("+memory +pids")
    except OSError as e:
        return f"cannot make control groups in {layout.memory.parent}: {e.strerror or e}"
    for parent in {layout.memory, layout.pids}:
        _sweep(parent)
    return layout


def _sweep(parent: Path) -> None:
    """Remove the empty groups of referees that died without removing them (SIGKILL)."""
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for entry in entries:
        owner = entry.name.split("-")
        if len(owner) != 3 or owner[0] != "bot" or not owner[1].isdigit() or os.path.exists(f"/proc/{owner[1]}"):
            continue
        try:
            entry.rmdir()  # fails, and is left, while a process is in it
        except OSError:
            pass


def group_problem() -> str | None:
    """Why bots cannot get a control group of their own here (one line), or None when they can."""
    ready = _ready()
    return ready if isinstance(ready, str) else None


class BotGroup:
    """One bot's control group: made with its bounds, joined by the bot's child, removed after the bot."""

    def __init__(self, memory_mb: int | None, processes: int | None) -> None:
        ready = _ready()
        if isinstance(ready, str):
            raise OSError(ready)
        self._layout = ready
        name = f"bot-{os.getpid()}-{secrets.token_hex(4)}"
        self._folders = list(dict.fromkeys([ready.memory / name, ready.pids / name]))
        try:
            for folder in self._folders:
                folder.mkdir(mode=0o755)
            memory = ready.memory / name
            if memory_mb is not None:
                limit = str(memory_mb * _MIB)
                if ready.v2:
                    (memory / "memory.max").write_text(limit)
                    if (memory / "memory.swap.max").exists():  # only where swap is accounted
                        (memory / "memory.swap.max").write_text("0")
                    # The whole bot is killed, not only its largest process (v1 has no such switch).
                    (memory / "memory.oom.group").write_text("1")
                else:
                    (memory / "memory.limit_in_bytes").write_text(limit)
                    swap = memory / "memory.memsw.limit_in_bytes"
                    if swap.exists():  # only where swap is accounted: otherwise there is none to bound
                        swap.write_text(limit)
            if processes is not None:
                (ready.pids / name / "pids.max").write_text(str(processes))
        except OSError:
            self.remove()
            raise
        self._memory = memory
        self._pids = ready.pids / name
        # Opened now: the bot's child writes its own pid to them before it execs, as root.
        self._procs = [os.open(f / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for f in self._folders]

    def join(self) -> None:
        """Move the calling process into the group (the bot's child, before exec and before its user changes)."""
        me = str(os.getpid()).encode()
        for fd in self._procs:
            os.write(fd, me)

    def memory_hit(self) -> bool:
        """Whether the kernel killed a process of the bot for passing its memory."""
        if self._layout.v2:
            return _counter(self._memory / "memory.events", "oom_kill") > 0
        return _counter(self._memory / "memory.oom_control", "oom_kill") > 0

    def processes_hit(self) -> bool:
        """Whether a fork of the bot failed at its process bound."""
        return _counter(self._pids / "pids.events", "max") > 0

    def remove(self) -> None:
        """Kill what is left in the group and remove it (idempotent)."""
        for fd in getattr(self, "_procs", ()):
            os.close(fd)
        self._procs = []
        folders, self._folders = self._folders, []
        give_up = time.monotonic() + _REMOVE_WAIT
        for folder in folders:
            dropped = folder != self._layout.memory / folder.name
            while True:
                members = _members(folder)
                for pid in members:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                if not members and not dropped:
                    self._drop_pages(folder)
                    dropped = True
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > give_up:
                        break  # left behind, empty or not: the next referee's groups have other names
                    time.sleep(0.005)

    def _drop_pages(self, memory: Path) -> None:
        """Drop from memory every page the bot brought there (charged to its group), once it has no process left.

        Otherwise the files it read stay in the page cache after it, where a later bot (its own copy in
        the mirrored seating, say) tells a resident page from another by its page faults or the time a
        read takes: the bot could leave the deal it has seen behind it (docs/SANDBOX.md). Pages that
        were in memory before it touched them are not charged to it, and stay.
        """
        try:
            if self._layout.v2:
                # Asks for more than there can be: the kernel reclaims all it can, then answers EAGAIN.
                (memory / "memory.reclaim").write_text(str(1 << 50))
            else:
                (memory / "memory.force_empty").write_text("0")
        except OSError:
            pass  # a kernel without the file (v2 before 5.19), or EAGAIN: what could be dropped is


def _members(folder: Path) -> list[int]:
    try:
        return [int(p) for p in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _counter(path: Path, name: str) -> int:
    """A named counter of a cgroup's events file (``name N`` lines); 0 when it cannot be read."""
    try:
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == name:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0
