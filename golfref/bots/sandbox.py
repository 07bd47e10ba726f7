"""The bot sandbox: a user of its own, a private view of the system, and resource limits.

Each external bot of a sandboxed match is started through a `Sandbox`, which decides
three layers, each applied where the machine allows it and recorded in the log
(`Protections`, ``players[i].sandbox``):

- **Its own user.** When the referee runs as root, the bot's process tree runs as an
  unprivileged user id of its own, leased for the bot's lifetime from `UID_RANGES` (an id
  no account and no running process has; the lease is an advisory lock, so concurrent
  matches and tournament workers never share one). Another user can neither read, trace,
  signal nor write into the referee or another bot. Every process left with that id when
  the bot closes is killed.
- **bubblewrap** (Debian's ``bubblewrap``, the ``bwrap`` program): new PID, IPC, UTS, cgroup
  and (unless the config allows it) network namespaces, and a user namespace when the
  referee is not root (as root, bubblewrap sets up and `setpriv` drops to the bot's own
  user, with no capabilities and no new privileges); a file system that shows
  only the system's program folders (``/usr``, ``/etc`` and the ``/bin``, ``/lib``
  links), the bot's own directory and the extra ``paths`` of the config and of its player,
  all read-only; a private ``/tmp`` capped at ``tmp_mb``; ``HOME`` set to ``/tmp``; death
  with the referee. The referee's config, its log folder, its signing key and its virtual
  environment are covered where they fall inside a folder the bot sees, and no folder
  shown may be one of them or lie inside one.
- **A system-call filter** (`golfref.bots.seccomp`, given to bubblewrap, or loaded in the bot's
  child before exec without it): file locks, file watches, the key store and the calls that
  probe or evict the page cache fail, so that bots cannot signal each other through the
  system files every sandbox shows.
- **Resource limits** (``setrlimit``, inherited by each process of the bot): memory per
  process (``RLIMIT_DATA``, what a program allocates, and ``ADDRESS_SPACE_FACTOR`` times
  that of address space, which shared mappings count in and runtimes such as the JVM
  reserve more of than they use), CPU seconds per process over the match, processes
  of its user (only with a user of its own: otherwise the count would include the
  referee's), open files and file size; and, where the referee may make control groups,
  memory and processes of the bot as a whole (`golfref.bots.cgroups`).

Under bubblewrap the bot's stdout is a pipe of the sandbox's own (`Sandbox.own_stdout`):
bubblewrap's processes keep their fds 0-2 for the bot's lifetime, so a stdout handed to it
as fd 1 would never reach its end when the bot closes it.

A bot whose program (or its script's ``#!`` interpreter) is a Python the sandbox does not
show as it is (a virtual environment's, a pyenv shim, conda's, one under /opt) runs with the
base installation that Python says it belongs to (`golfref.bots.pythons`), named by its path
in the bot's command; bubblewrap shows that installation read-only, its site-packages
covered (`PythonRun`, recorded in the log). Before any bot starts, a `Sandbox` refuses in
one line (`SandboxError`) what would make a bot run other than the user meant: with
bubblewrap, any other program (or a script's interpreter) that the user's shell finds where
the sandbox shows nothing, or shows another one first, and a Python installation it cannot
show whole (`/`, a home folder, the referee's files); without it, as root, a program (that
Python included), file or folder the bot's own user could not reach (every folder on the way
must let other users in: `others_cannot`).

A bot that dies at a limit gets a `resource_limit` fault naming it (`Sandbox.limit_hit`):
the CPU and file-size limits are told by the signal that ended it, memory, processes, open
files and a full ``/tmp`` by the error its runtime (or the bot, as an errno name) printed
on stderr.

docs/SANDBOX.md is the user's account of what this promises and what it does not.
"""

from __future__ import annotations

import enum
import fcntl
import functools
import os
import pwd
import re
import resource
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config.programs import find_program, interpreter, on_path, shebang, within
from ..config.sandbox_spec import SandboxSpec, unsafe_path
from . import cgroups, seccomp
from .lifetime import reap_session
from .pythons import Installation, PythonAskError, ask, is_python

if TYPE_CHECKING:  # the process layer loads no config reader (yaml, the rules): only its values
    from ..config.match import PlayerSpec

__all__ = [
    "ADDRESS_SPACE_FACTOR",
    "Protections",
    "PythonRun",
    "Sandbox",
    "SandboxError",
    "Unreachable",
    "Access",
    "bubblewrap_problem",
    "Exposure",
    "exposure",
    "readable_by_bots",
    "others_cannot",
    "SEED_INSTEAD",
    "seed_file_problem",
]

UID_RANGES = ((600_000, 700_000), (50_000, 60_000))
"""Where bot user ids are leased from: the first range the machine's user namespace maps whole."""
SYSTEM_PATHS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""The system folders every sandboxed bot sees, read-only (links are kept as links)."""
_BASH = next((p for p in ("/usr/bin/bash", "/bin/bash") if os.access(p, os.X_OK)), None)
"""The shell that hands a bubblewrapped bot its stdout (every sandbox shows /usr); None: fd 1 as is."""
_LEASE_DIRS = ("/run/golfref-uids", os.path.join(tempfile.gettempdir(), "golfref-uids-0"))


class SandboxError(Exception):
    """The sandbox cannot be set up as the config requires (one line, names the bot or the problem)."""


ADDRESS_SPACE_FACTOR = 4
"""A bot's address space may be this many times its ``memory_mb`` (see `config.sandbox_spec.Limits.memory_mb`)."""


@dataclass(frozen=True)
class PythonRun:
    """The Python a sandboxed bot runs where golfref chose it: its program, or the interpreter its
    script's ``#!`` line names, is a Python the sandbox does not show as it is (docs/SANDBOX.md,
    "Which Python a sandboxed bot runs"). The log's ``players[i].sandbox.interpreter``."""

    program: str
    """The Python the bot's command (or its script's ``#!`` line) names, where the bot's PATH finds it."""
    executable: str
    """The interpreter that runs, named by the bot's command in the sandbox: its installation's own,
    or a virtual environment's that the sandbox shows."""
    version: str
    """Its version (``3.11.7``)."""
    shown: tuple[str, ...] = ()
    """The folders of its installation shown read-only for it (bubblewrap only; none under /usr)."""
    covered: tuple[str, ...] = ()
    """The site-packages folders covered in them (bubblewrap only)."""

    def to_json(self) -> dict[str, Any]:
        """The record of ``players[i].sandbox.interpreter`` (docs/LOG_FORMAT.md)."""
        return {"program": self.program, "executable": self.executable, "version": self.version,
                "shown": list(self.shown), "covered": list(self.covered)}  # fmt: skip


@dataclass(frozen=True)
class Protections:
    """What was in force for one bot, as recorded in the log."""

    enabled: bool
    user: int | None = None
    """The user id the bot ran as, when not the referee's."""
    bubblewrap: bool = False
    network_isolated: bool = False
    limits: Mapping[str, int] = field(default_factory=dict)
    """The limits applied, by name."""
    missing: tuple[str, ...] = ()
    """What the config asked for and was not applied, each with why."""
    paths: tuple[str, ...] = ()
    """The folders and files shown read-only beside the bot's own folder and the system's: the
    config's ``sandbox.paths``, then its player's (with bubblewrap only)."""
    interpreter: PythonRun | None = None
    """The Python golfref runs the bot with, where it chose one (see `PythonRun`)."""

    def to_json(self) -> dict[str, Any]:
        """The record of ``players[i].sandbox`` (docs/LOG_FORMAT.md); ``paths`` and ``interpreter`` only when
        there are any."""
        data: dict[str, Any] = {
            "enabled": self.enabled,
            "user": self.user,
            "bubblewrap": self.bubblewrap,
            "network_isolated": self.network_isolated,
            "limits": dict(self.limits),
            "missing": list(self.missing),
        }
        if self.paths:
            data["paths"] = list(self.paths)
        if self.interpreter is not None:
            data["interpreter"] = self.interpreter.to_json()
        return data


OFF = Protections(enabled=False)
"""The record of a bot played without the sandbox."""


# -- what the machine offers -------------------------------------------------------------


def _mapped(path: str) -> list[tuple[int, int]]:
    """The id ranges (first, end) this process's user namespace maps, from /proc/self/uid_map or gid_map."""
    try:
        with open(path) as f:
            rows = [line.split() for line in f]
    except OSError:
        return [(0, 2**32 - 1)]
    return [(int(inside), int(inside) + int(count)) for inside, _outside, count in rows]


@functools.cache
def _uid_range() -> range | None:
    maps = [_mapped("/proc/self/uid_map"), _mapped("/proc/self/gid_map")]
    for first, end in UID_RANGES:
        if all(any(a <= first and end <= b for a, b in m) for m in maps):
            return range(first, end)
    return None


def _is_root() -> bool:
    return os.geteuid() == 0


def _drop_to(uid: int) -> list[str]:
    """The setpriv command that ends a root bubblewrap's set-up as `uid`: no groups, no capabilities,
    no new privileges (set-user-id programs under /usr stay powerless)."""
    setpriv = shutil.which("setpriv") or "setpriv"
    return [setpriv, "--reuid", str(uid), "--regid", str(uid), "--clear-groups", "--no-new-privs",
            "--inh-caps=-all", "--bounding-set=-all", "--"]  # fmt: skip


def _namespaces(network: bool) -> list[str]:
    """bubblewrap's namespace options: its own user namespace unless it runs as root (which then drops
    to the bot's user itself, see `_drop_to`)."""
    argv = [] if _is_root() else ["--unshare-user"]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not network:
        argv.append("--unshare-net")
    argv.append("--die-with-parent")
    if _is_root():
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return argv


@functools.cache
def bubblewrap_problem() -> str | None:
    """Why bubblewrap cannot sandbox bots here (one line), or None when it can."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)"
    if _is_root() and shutil.which("setpriv") is None:
        return "setpriv (util-linux) is not installed"
    drop = _drop_to(_probe_uid()) if _is_root() else []
    probe = [bwrap, *_namespaces(network=False), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
             "--", *drop, "true"]  # fmt: skip
    try:
        proc = subprocess.Popen(
            probe, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={"PATH": os.defpath}, start_new_session=True
        )
    except OSError as e:
        return f"bubblewrap cannot be run: {e}"
    try:
        _, stderr = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return "bubblewrap cannot be run: its trial did not end within 30 s"
    finally:
        reap_session(proc.pid)
    if proc.returncode != 0:
        said = stderr.decode(errors="replace").strip().splitlines()
        why = said[-1] if said else f"exit code {proc.returncode}"
        return f"bubblewrap cannot create a sandbox here (are user namespaces disabled?): {why}"
    return None


def _probe_uid() -> int:
    """An id with no account, to try bubblewrap as a bot's user would."""
    ids = _uid_range()
    return ids[-1] if ids is not None else 65534


def _memfd(name: str, data: bytes) -> int:
    """A descriptor of an anonymous file holding `data`, read from its start."""
    fd = os.memfd_create(name)
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


def _system_paths() -> list[str]:
    """The `SYSTEM_PATHS` this machine has (a link counts: it is made inside as the same link)."""
    return [p for p in SYSTEM_PATHS if os.path.lexists(p)]


def _homes(env: Mapping[str, str]) -> set[str]:
    """The home folders a sandbox never shows whole, as real paths: root's and the users' (ids 1000 up,
    as useradd gives them), the referee's and the bot's ``HOME``."""
    homes = [os.path.expanduser("~"), env.get("HOME", "")]
    homes += [entry.pw_dir for entry in pwd.getpwall() if entry.pw_uid == 0 or 1000 <= entry.pw_uid < 65534]
    real = {os.path.realpath(h) for h in homes if h}
    return {h for h in real if h != "/" and os.path.isdir(h)}


def _bwrap() -> str:
    found = shutil.which("bwrap")
    assert found is not None  # bubblewrap_problem() said it is there
    return found


# -- where a program is, and who may reach it ---------------------------------------------


_MAX_LINKS = 40  # the kernel's own limit of links followed in one lookup


def _lookups(path: str) -> tuple[list[str], str | None]:
    """Every location looked up, in order, to resolve the absolute `path` as the kernel does (each
    link's place, then where it leads), and the real path it ends at (None: a part is missing, or
    the links loop)."""
    todo = [part for part in path.split("/") if part]
    where = "/"
    looked: list[str] = []
    links = 0
    while todo:
        part = todo.pop(0)
        if part == ".":
            continue
        if part == "..":
            where = os.path.dirname(where)
            continue
        step = os.path.join(where, part)
        looked.append(step)
        try:
            mode = os.lstat(step).st_mode
        except OSError:
            return looked, None
        if stat.S_ISLNK(mode):
            links += 1
            if links > _MAX_LINKS:
                return looked, None
            target = os.readlink(step)
            if target.startswith("/"):
                where = "/"
            todo[:0] = [p for p in target.split("/") if p]
        elif todo and not stat.S_ISDIR(mode):
            return looked, None
        else:
            where = step
    return looked, where


class Access(enum.Enum):
    """What a bot's process does with a path."""

    ENTER = "enter"
    """Look into a folder (its search bit): every folder on the way to a path, and a working directory."""
    READ = "read"
    """Read a file: a script, the bot's own file."""
    RUN = "run"
    """Execute a file: the program, a script's interpreter."""


_OTHERS_BIT = {Access.ENTER: stat.S_IXOTH, Access.READ: stat.S_IROTH, Access.RUN: stat.S_IXOTH}


@dataclass(frozen=True)
class Unreachable:
    """Where another user is stopped on the way to a path: a folder it cannot enter, or the file it cannot use."""

    access: Access
    path: str
    mode: int
    """The permission bits of `path`."""

    def __str__(self) -> str:
        return f"cannot {self.access.value} {self.path} (mode {self.mode:04o})"


def others_cannot(path: str | os.PathLike[str], access: Access) -> Unreachable | None:
    """Where a user that owns nothing and has no groups (a bot's own, leased user) is stopped on the
    way to `path` (links followed) or at it, for `access`; None when it gets there, or when the
    path does not exist (the bot then fails as with any missing file).

    The "other" permission bits decide. ACLs are not read: such a user is named by no ACL entry,
    and an ACL's entry for other users is those same bits.
    """
    looked, end = _lookups(os.path.abspath(path))
    for folder in dict.fromkeys(os.path.dirname(step) for step in looked):
        mode = stat.S_IMODE(os.stat(folder).st_mode)
        if not mode & stat.S_IXOTH:
            return Unreachable(Access.ENTER, folder, mode)
    if end is None:
        return None
    st = os.stat(end)
    if stat.S_ISDIR(st.st_mode) and access is not Access.ENTER:
        return None  # a folder where a file was expected: it fails at start, saying so
    mode = stat.S_IMODE(st.st_mode)
    return Unreachable(access, end, mode) if not mode & _OTHERS_BIT[access] else None


class Exposure(enum.Enum):
    """What of the referee's machine its bots can read, by how they run (docs/SANDBOX.md, "The seed")."""

    HIDDEN = "hidden"
    """bubblewrap: the system's folders and the bot's own; the referee's processes and files out of sight."""
    OTHER_USER = "other user"
    """A user of its own (a root referee without bubblewrap): whatever every user may read."""
    SAME_USER = "same user"
    """The referee's own user (the sandbox off, or neither root nor bubblewrap): everything the referee may read."""


def exposure(spec: SandboxSpec) -> Exposure:
    """How the external bots of a match or tournament under `spec` run, as far as what they can read goes."""
    if not spec.enabled:
        return Exposure.SAME_USER
    if bubblewrap_problem() is None:
        return Exposure.HIDDEN
    return Exposure.OTHER_USER if _is_root() else Exposure.SAME_USER


def readable_by_bots(spec: SandboxSpec, path: str | os.PathLike[str], access: Access = Access.READ) -> str | None:
    """Why a bot under `spec` could reach `path` (`access`: READ a file, ENTER a folder), or None when it cannot.

    Only a bot of a user of its own is told apart: under bubblewrap it sees none of the
    referee's files, and as the referee's own user it sees all of them (nothing is secret
    from it, which the docs and a warning say instead).
    """
    if exposure(spec) is not Exposure.OTHER_USER or not os.path.exists(path):
        return None
    if others_cannot(path, access) is not None:
        return None
    mode = stat.S_IMODE(os.stat(path).st_mode)
    return f"other users may {access.value} it (mode {mode:04o}), and bots run as users of their own without bubblewrap"


SEED_INSTEAD = "give the seed as --seed N or GOLFREF_SEED=N instead"
"""How to keep a match's seed secret other than in a private config file."""


def seed_file_problem(
    spec: SandboxSpec, players: Sequence[PlayerSpec], source: str, what: str, instead: str = SEED_INSTEAD
) -> str | None:
    """Why the config file `source`, which holds `what` (the seed in play), must not be used as it is, in one
    line naming the fix; None when no bot of `players` under `spec` could read it (docs/SANDBOX.md, "The seed").

    Built-in players play inside the referee: only a bot's program could read the file.
    """
    if not os.path.isfile(source) or all(p.command is None for p in players):
        return None
    why = readable_by_bots(spec, source)
    if why is None:
        return None
    return (f"{source}: holds {what} (its seed: key), and {why}: a bot could read it and know every deal; "
            f"chmod o-r {source}, or take seed: out of it and {instead}")  # fmt: skip


# -- user ids ----------------------------------------------------------------------------


def _lease_dir() -> Path | None:
    """A folder only root can write, for the uid locks."""
    for candidate in _LEASE_DIRS:
        path = Path(candidate)
        try:
            path.mkdir(mode=0o700, exist_ok=True)
            st = os.lstat(path)
        except OSError:
            continue
        if not path.is_symlink() and st.st_uid == 0 and st.st_mode & 0o077 == 0:
            return path
    return None


def _process_uids() -> dict[int, int]:
    """The real user id of every process, by pid (from its status: a process that is not
    dumpable shows root as the owner of its /proc folder)."""
    out: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"{entry.path}/status", "rb") as f:
                    for line in f:
                        if line.startswith(b"Uid:"):
                            out[int(entry.name)] = int(line.split()[1])
                            break
            except (OSError, ValueError, IndexError):
                continue
    return out


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def _lease_uid() -> tuple[int, int] | None:
    """A user id for one bot and the locked file that holds it, or None when none is free."""
    ids = _uid_range()
    where = _lease_dir()
    if ids is None or where is None:
        return None
    in_use = set(_process_uids().values())
    start = secrets.randbelow(len(ids))
    for k in range(len(ids)):
        uid = ids[(start + k) % len(ids)]
        if uid in in_use or _has_account(uid):
            continue
        fd = os.open(where / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return uid, fd
    return None


def _become(uid: int) -> None:
    """Drop every id and group to `uid` (in a child, before exec)."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def _kill_user(uid: int) -> None:
    """Kill every process of `uid` (a leased bot id: only that bot's processes have it)."""
    for _ in range(5):
        pids = [pid for pid, owner in _process_uids().items() if owner == uid]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


# -- one bot -----------------------------------------------------------------------------

_MIB = 1024 * 1024
_SIGNAL_LIMITS = {signal.SIGXCPU: "cpu_seconds", signal.SIGXFSZ: "file_size_mb"}
# What runtimes and C's strerror print when an allocation, a write, a fork or an open fails
# at a limit, and the errno names a bot may print itself (matched in lower case).
_STDERR_LIMITS = (
    ("memory_mb", re.compile(
        r"memoryerror|out of memory|cannot allocate memory|bad_alloc|outofmemoryerror"
        r"|memory allocation of \d+ bytes failed|allocation failed|heap limit|\benomem\b"
        r"|failed to reserve page summary memory|runtime: cannot reserve arena")),  # Go, at its start
    ("tmp_mb", re.compile(r"no space left on device|\benospc\b")),
    ("file_size_mb", re.compile(r"file too large|\befbig\b")),  # where SIGXFSZ is ignored (Python ignores it)
    ("processes", re.compile(r"cannot fork|fork: retry|fork failed|blockingioerror: \[errno 11\]"
                             r"|resource temporarily unavailable|\beagain\b")),
    ("open_files", re.compile(r"too many open files|\bemfile\b")),
)  # fmt: skip
_UNITS = {"memory_mb": "MiB", "cpu_seconds": "s", "processes": "processes", "open_files": "files",
          "file_size_mb": "MiB", "tmp_mb": "MiB"}  # fmt: skip


@dataclass(frozen=True)
class _View:
    """What a bubblewrap sandbox shows, to tell whether a path on the host is there, the same, inside."""

    roots: list[str]
    """The real folders (and files) bound inside at their own paths."""
    links: set[str]
    """The system's links made inside as the same links (/bin -> usr/bin)."""
    hidden: list[str]
    """The referee's files, covered (or never shown)."""

    def gap(self, path: Path) -> str | None:
        """The first place on the way to `path` (links followed) that the sandbox does not show, or None."""
        looked, end = _lookups(os.path.abspath(path))
        for step in looked:
            if step in self.links:
                continue
            if any(within(step, h) for h in self.hidden):
                return step
            # Shown, or a folder bubblewrap makes on the way to one (empty but for it).
            if not any(within(step, r) or within(r, step) for r in self.roots):
                return step
        if end is None:
            return looked[-1] if looked else str(path)
        if not any(within(end, r) for r in self.roots) or any(within(end, h) for h in self.hidden):
            return end
        return None

    def fix(self, program: Path, gap: str) -> str:
        """What to add to the player's sandbox.paths so that the sandbox shows `program`."""
        if any(within(gap, h) for h in self.hidden):
            referee = sys.prefix if sys.prefix != sys.base_prefix else None
            if referee is not None and within(gap, referee):
                return (f"the referee's own virtual environment ({referee}) is never shown to bots: give the bot "
                        "one of its own and add that to the player's sandbox.paths")  # fmt: skip
            return "it lies among the referee's own files, which no bot may see: give the bot its own copy"

        def prefix(path: str) -> str:
            # A virtual environment or an installation keeps its libraries beside its bin folder.
            folder = os.path.dirname(path)
            return os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder

        wanted: list[str] = []
        for place in (os.path.abspath(program), os.path.realpath(program)):
            folder = prefix(place)
            if folder != "/" and folder not in wanted and not any(within(folder, r) for r in self.roots):
                wanted.append(folder)
        if not wanted:
            wanted.append(gap if os.path.isdir(gap) else os.path.dirname(gap))
        return f"add {' and '.join(wanted)} to the player's sandbox.paths"


class Sandbox:
    """How one bot is started and held: its command, environment, limits and user; `close` after it ends.

    `directory` is the bot's own folder and `own_file` its own file (the fingerprint's,
    `fingerprint.bot_file`), `paths` the folders and files its player's config shows it
    beside the spec's, `hide` the referee's files that must stay out of its sight, `env` the
    bot's environment (`environment.bot_environment`; by default only `path_env` as its PATH),
    with which a Python it names is asked where it is installed (`pythons.ask`).
    """

    def __init__(
        self,
        spec: SandboxSpec,
        command: Sequence[str],
        cwd: str,
        path_env: str,
        directory: Path | None,
        hide: Iterable[Path] = (),
        label: str = "the bot",
        *,
        own_file: Path | None = None,
        paths: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.spec = spec
        self._command = list(command)
        self._named = self._command[0]  # as configured: a Python golfref chooses takes its place in the command
        self._cwd = cwd
        self._path_env = path_env
        self._env = dict(env) if env is not None else {"PATH": path_env}
        self._label = label
        self._lease: tuple[int, int] | None = None
        self._group: cgroups.BotGroup | None = None  # the bot's own control group, where one can be made
        self._filter: int | None = None  # bubblewrap's copy of the filter (--seccomp), or None
        self._stdout: tuple[int, int] | None = None  # the bot's stdout pipe under bubblewrap, or None
        missing: list[str] = []
        user: int | None = None
        if _is_root():
            self._lease = _lease_uid()
            if self._lease is None:  # never the referee's own: root
                raise SandboxError(f"{label}: no free user id to run it as (golfref.bots.sandbox.UID_RANGES)")
            user = self._lease[0]
        else:
            missing.append("own user: the referee is not root, so the bot runs as the referee's user")
        problem = bubblewrap_problem()
        if problem is not None and spec.required:
            self.close()
            raise SandboxError(f"the sandbox is required but {problem}")
        self._bwrap = problem is None
        if problem is not None:
            missing.append(f"bubblewrap: {problem}")
        limits = spec.limits.to_json()
        if user is None:
            limits.pop("processes")
            missing.append("processes: counted per user, and the bot has no user of its own")
        if not self._bwrap:
            limits.pop("tmp_mb")
        if not self._bwrap or spec.network:
            missing.append(
                "network: allowed by the config" if spec.network else "network: not isolated without bubblewrap"
            )
        whole = [name for name in ("memory_mb", "processes") if name in limits]
        ungrouped = cgroups.group_problem()
        if ungrouped is None:
            try:
                self._group = cgroups.BotGroup(limits.get("memory_mb"), limits.get("processes"))
            except OSError as e:
                ungrouped = f"cannot make its control group: {e.strerror or e}"
        if ungrouped is not None and whole:
            missing.append(f"{' and '.join(whole)} for the bot as a whole (per process only): {ungrouped}")
        unfiltered = seccomp.filter_problem()
        if unfiltered is not None:
            missing.append(f"system-call filter (file locks, watches, page cache): {unfiltered}")
        # The config checked that each exists; one gone since is neither shown nor recorded.
        extra = tuple(p for p in dict.fromkeys([*spec.paths, *paths]) if os.path.exists(p))
        self.protections = Protections(
            enabled=True,
            user=user,
            bubblewrap=self._bwrap,
            network_isolated=self._bwrap and not spec.network,
            limits=limits,
            missing=tuple(missing),
            paths=extra if self._bwrap else (),
        )
        self._uid = user  # bubblewrap as root drops to it itself (`_drop_to`); without it, the preexec does
        try:
            if self._bwrap:
                if unfiltered is None:
                    self._filter = _memfd("golfref-seccomp", seccomp.program())
                if _BASH is not None:
                    self._stdout = os.pipe()
        except OSError as e:
            self.close()
            raise SandboxError(f"{label}: cannot prepare its sandbox: {e}") from e
        self._load_filter = seccomp.loader() if unfiltered is None and not self._bwrap else None
        try:
            if self._bwrap:
                self.argv = self._wrap(directory, extra, list(hide))
            else:
                # Nothing is shown or hidden without bubblewrap, but the bot runs the same Python as with it.
                self._choose_python(self._shown(directory, extra)[1], list(hide))
                if user is not None:
                    self._check_reach(directory, own_file)
                self.argv = list(self._command)
        except SandboxError:
            self.close()
            raise

    # -- start -------------------------------------------------------------------------

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """The bot's environment in the sandbox: HOME is its private /tmp under bubblewrap."""
        return {**env, "HOME": "/tmp"} if self._bwrap else dict(env)

    def preexec(self, then: Callable[[], None] | None) -> Callable[[], None]:
        """The function run in the bot's child process before exec: user, limits, then `then`."""
        uid = None if self._bwrap else self._uid
        rlimits = self._rlimits()
        load_filter = self._load_filter
        group = self._group

        def run() -> None:
            if group is not None:
                group.join()  # first: as root, and before any other process of the bot exists
            if uid is not None:
                _become(uid)
            for which, soft, hard in rlimits:
                resource.setrlimit(which, (soft, hard))
            if then is not None:
                then()  # after the user change, which would clear a parent-death signal
            if load_filter is not None:
                load_filter()  # last: the calls above are allowed anyway, but nothing after it is needed

        return run

    @property
    def pass_fds(self) -> tuple[int, ...]:
        """The referee's descriptors the bot's child keeps, at the same numbers (bubblewrap's
        filter and the bot's stdout, which its command line names)."""
        return tuple(fd for fd in (self._filter, self._stdout[1] if self._stdout else None) if fd is not None)

    @property
    def own_stdout(self) -> bool:
        """Whether the bot's stdout is the sandbox's own pipe (`started` gives its read end) rather than
        the child's fd 1, which bubblewrap's own processes would hold open after the bot closes it."""
        return self._stdout is not None

    def started(self) -> int | None:
        """Once the bot's child exists: close the referee's copies of what it was handed, and give the
        read end of its stdout when `own_stdout` (the caller owns it then)."""
        stdout, self._stdout = self._stdout, None
        filt, self._filter = self._filter, None
        for fd in (filt, stdout[1] if stdout else None):
            if fd is not None:
                os.close(fd)
        return stdout[0] if stdout is not None else None

    def _rlimits(self) -> list[tuple[int, int, int]]:
        applied = self.protections.limits
        out = []
        if "memory_mb" in applied:
            data = applied["memory_mb"] * _MIB
            out.append((resource.RLIMIT_DATA, data, data))
            out.append((resource.RLIMIT_AS, data * ADDRESS_SPACE_FACTOR, data * ADDRESS_SPACE_FACTOR))
        if "cpu_seconds" in applied:
            # SIGXCPU at the soft limit; a bot that ignores it is killed a few seconds later.
            out.append((resource.RLIMIT_CPU, applied["cpu_seconds"], applied["cpu_seconds"] + 5))
        if "processes" in applied:
            out.append((resource.RLIMIT_NPROC, applied["processes"], applied["processes"]))
        if "open_files" in applied:
            out.append((resource.RLIMIT_NOFILE, applied["open_files"], applied["open_files"]))
        if "file_size_mb" in applied:
            out.append((resource.RLIMIT_FSIZE, applied["file_size_mb"] * _MIB, applied["file_size_mb"] * _MIB))
        return out

    @staticmethod
    def _shown(directory: Path | None, extra: Sequence[str]) -> tuple[list[Path], list[Path]]:
        """The bot's own folder (none or one), and all that is shown beside the system's: its own, then `extra`."""
        own = [directory.resolve()] if directory is not None else []
        return own, own + [Path(p).resolve() for p in extra]

    def _wrap(self, directory: Path | None, extra: Sequence[str], hide: list[Path]) -> list[str]:
        """The bubblewrap command line that runs the bot's command."""
        spec = self.spec
        own, shown = self._shown(directory, extra)
        system = _system_paths()
        covers = self._covers(shown, own, hide, system)  # first: a folder showing the referee's files is refused
        python = self._choose_python(shown, hide)
        if python is not None:
            shown += [Path(folder) for folder in python.shown]
            for site_packages in python.covered:
                covers += ["--tmpfs", site_packages, "--remount-ro", site_packages]
        self._check_program(shown, hide)
        argv = [_bwrap(), *_namespaces(spec.network), "--proc", "/proc", "--dev", "/dev"]
        for path in system:
            if os.path.islink(path):
                argv += ["--symlink", os.readlink(path), path]
            else:
                argv += ["--ro-bind", path, path]
        argv += ["--perms", "1777", "--size", str(spec.limits.tmp_mb * _MIB), "--tmpfs", "/tmp"]
        cwd = Path(self._cwd).resolve()
        # Folders on the way to what the bot sees are made searchable (bubblewrap would copy
        # the modes of the real ones, and a 0700 parent would lock the bot's own user out).
        made = {Path("/"), Path("/tmp")}
        for folders in [*(f.parents for f in shown), (cwd, *cwd.parents)]:
            for folder in reversed(folders):
                if folder not in made and not any(folder.is_relative_to(p) for p in system):
                    made.add(folder)
                    argv += ["--perms", "0755", "--dir", str(folder)]
        for folder in shown:
            argv += ["--ro-bind", str(folder), str(folder)]
        argv += covers
        drop = _drop_to(self._uid) if _is_root() and self._uid is not None else []
        if self._filter is not None:
            argv += ["--seccomp", str(self._filter)]
        command = self._command
        if self._stdout is not None and _BASH is not None:
            # bubblewrap's own processes keep fds 0-2 open for the bot's lifetime (and close any
            # other): handed its stdout as another fd, they hold no copy of it, so the referee sees
            # the end of its output when the bot closes it, as without the sandbox.
            fd = self._stdout[1]
            command = [_BASH, "--norc", "--noprofile", "-p", "-c", f'exec 1>&{fd} {fd}>&-; exec "$@"', "golfref",
                       *command]  # fmt: skip
        argv += ["--remount-ro", "/", "--chdir", str(cwd), "--", *drop, *command]
        return argv

    def _covers(self, shown: list[Path], own: list[Path], hide: list[Path], system: list[str]) -> list[str]:
        """bubblewrap arguments that cover the referee's files inside the folders a bot sees (the system's
        too: golfref's site-packages may lie under /usr); a SandboxError where a folder shown would be, or
        lie inside, one of them."""
        argv: list[str] = []
        seen_folders = shown + [Path(os.path.realpath(p)) for p in system if not os.path.islink(p)]
        for path in hide:
            secret = path.resolve()
            for seen in shown:
                if secret == seen or seen.is_relative_to(secret):
                    if seen in own:
                        raise SandboxError(
                            f"{self._label}: its folder {seen} would show the referee's {secret}; "
                            "keep logs and configs outside the bots' folders"
                        )
                    raise SandboxError(
                        f"{self._label}: its sandbox path {seen} would show the referee's {secret}, which no bot "
                        "may see (its config, logs, results, signing key and Python packages); name another folder"
                    )
            if not any(secret.is_relative_to(seen) for seen in seen_folders):
                continue
            if secret.is_dir():
                argv += ["--tmpfs", str(secret), "--remount-ro", str(secret)]
            elif secret.exists():
                argv += ["--ro-bind", os.devnull, str(secret)]
        return argv

    def _view(self, shown: list[Path], hide: list[Path]) -> _View:
        """What the sandbox shows: the system's folders, `shown`, less the referee's files (`hide`)."""
        system = _system_paths()
        return _View(
            roots=[os.path.realpath(p) for p in system if not os.path.islink(p)] + [str(p) for p in shown],
            links={p for p in system if os.path.islink(p)},
            hidden=[os.path.realpath(p) for p in hide],
        )

    def _choose_python(self, shown: list[Path], hide: list[Path]) -> PythonRun | None:
        """Where the bot's program, or the interpreter its script's #! line names, is a Python the sandbox
        does not show as it is: the Python it runs instead, its command rewritten to name it, and (with
        bubblewrap) the folders of its installation to show and their site-packages to cover, as the log
        records them; None where the program runs as it is (docs/SANDBOX.md, "Which Python a sandboxed bot
        runs")."""
        view = self._view(shown, hide)
        cwd = Path(self._cwd)
        program = self._command[0]
        meant = find_program(program, self._path_env, cwd)
        if meant is None or not os.path.isfile(meant):
            return None
        line = None
        python = meant
        what = f"its program {program}"
        if view.gap(meant) is None:
            line = shebang(meant)
            named = interpreter(meant, self._path_env, cwd)
            if line is None or named is None or not os.path.isfile(named) or view.gap(named) is None:
                return None
            python = named
            what = f"the interpreter of its program {program}, {named},"
        if not is_python(python):
            return None
        try:
            found = ask(python, self._cwd, self._env)
        except PythonAskError as e:
            raise SandboxError(
                f"{self._label}: {what} is a Python the sandbox does not show ({python}), and it cannot say where it "
                f"is installed: {e}; check that `{python} -c 'import sys; print(sys.base_prefix)'` runs in the bot's "
                "working directory, or name an interpreter under /usr"
            ) from None
        if found.in_venv and view.gap(Path(found.prefix)) is None:
            executable = found.executable  # a virtual environment the sandbox shows: its interpreter and packages
        else:
            base = found.base_interpreter()
            if base is None:
                raise SandboxError(
                    f"{self._label}: {what} runs Python {found.version} from {found.base_prefix}, but golfref finds "
                    f"no interpreter of that installation in it ({found.base_executable}); name the interpreter by its "
                    "path"
                )
            executable = base
        folders = [f for f in found.folders() if view.gap(Path(f)) is not None] if self._bwrap else []
        for folder in folders:
            self._check_installation(folder, what, found, hide)
        covered = [p for p in found.existing_site_packages() if any(within(p, f) for f in folders)]
        if line is None:
            self._command = [executable, *self._command[1:]]
        else:
            before = line.arguments()
            if before is None:
                raise SandboxError(
                    f"{self._label}: the #! line of its program {program} gives env more than the Python to run "
                    f"({line.argument}), which golfref cannot pass on when it runs {executable} itself; name the "
                    "interpreter in the command instead"
                )
            script = program if "/" in program else str(meant)  # what the kernel would hand the interpreter
            self._command = [executable, *before, script, *self._command[1:]]
        run = PythonRun(str(python), executable, found.version, tuple(folders), tuple(covered))
        self.protections = replace(self.protections, interpreter=run)
        return run

    def _check_installation(self, folder: str, what: str, found: Installation, hide: list[Path]) -> None:
        """Refuse, in one line, an installation folder a sandbox may not show whole: the file system's root,
        the machine's own /proc, /sys, /dev or /run, a home folder or one holding it, or one holding (or
        inside) the referee's files other than its site-packages, which are covered anyway."""
        where = f"{self._label}: {what} runs Python {found.version} installed in {folder}"
        instead = "install that Python in a folder of its own (pyenv, /opt/python3.X, conda) or use one under /usr"
        if folder == "/":
            raise SandboxError(f"{where}, the whole file system, which a sandbox never shows; {instead}")
        problem = unsafe_path(folder)
        if problem is not None:
            raise SandboxError(f"{where}: {problem}; {instead}")
        home = next((h for h in _homes(self._env) if within(h, folder)), None)
        if home is not None:
            which = "the home folder" if home == folder else "a folder that holds the home folder"
            raise SandboxError(
                f"{where}, {which} {home}: a sandbox shows a Python's installation whole, and never a home folder; "
                f"{instead}"
            )
        site_packages = found.existing_site_packages()
        for path in hide:
            secret = os.path.realpath(path)
            if within(folder, secret) or (within(secret, folder) and not any(within(secret, p) for p in site_packages)):
                relation = "lies among" if within(folder, secret) else "holds"
                raise SandboxError(f"{where}, which {relation} the referee's {secret} (no bot may see it); {instead}")

    def _check_program(self, shown: list[Path], hide: list[Path]) -> None:
        """Fail early, in one line, when the program the user's shell would run (or the interpreter
        its #! line names) is not the one the sandbox would run: not shown there, or another found first."""
        view = self._view(shown, hide)
        program = self._command[0]
        cwd = Path(self._cwd)
        meant = find_program(program, self._path_env, cwd)
        if meant is None or not os.path.isfile(meant):
            return  # not there at all: it fails to start like any missing program
        gap = view.gap(meant)
        if gap is None:
            script = interpreter(meant, self._path_env, cwd)
            if script is None or not os.path.isfile(script) or (gap := view.gap(script)) is None:
                return
            raise SandboxError(
                f"{self._label}: the interpreter of its program {program}, {script}, is not visible in the sandbox "
                f"(it does not show {gap}); {view.fix(script, gap)}, or name one under /usr on the #! line"
            )
        inside = None if "/" in program else next(
            (c for c in on_path(program, self._path_env, cwd) if view.gap(c) is None), None)  # fmt: skip
        fix = view.fix(meant, gap)
        if inside is not None:
            raise SandboxError(
                f"{self._label}: its program {program} is {meant} on its PATH but {inside} in the sandbox, which "
                f"does not show {gap}; {fix}, or name the interpreter by a path the sandbox shows"
            )
        found = "" if str(meant) == program else f"found at {meant}; "
        raise SandboxError(
            f"{self._label}: its program {program} is not visible in the sandbox ({found}it does not show {gap}); "
            f"{fix}, or name an interpreter under /usr"
        )

    def _check_reach(self, directory: Path | None, own_file: Path | None) -> None:
        """Without bubblewrap, fail early, in one line, where the bot's own user (which sees the file
        system as any other user does) could not reach its program, its files or its working directory."""
        cwd = Path(self._cwd)
        needs: list[tuple[Path, Access, str]] = []
        program = find_program(self._command[0], self._path_env, cwd)
        if program is not None and os.path.isfile(program):
            chosen = self.protections.interpreter is not None
            said = f"the Python of its program {self._named}," if chosen else "its program"
            needs.append((program, Access.RUN, said))
            script = interpreter(program, self._path_env, cwd)
            if script is not None:  # the interpreter reads the script
                needs += [(program, Access.READ, "its program"), (script, Access.RUN, "the interpreter of its program")]
        if own_file is not None and (program is None or own_file.resolve() != program.resolve()):
            needs.append((own_file, Access.READ, "its file"))
        if directory is not None:
            needs.append((directory, Access.ENTER, "its folder"))
        needs.append((cwd, Access.ENTER, "its working directory"))
        for path, access, what in needs:
            stop = others_cannot(path, access)
            if stop is None:
                continue
            where = os.path.abspath(path)
            if stop.path in (where, os.path.realpath(where)):
                said = f"cannot {stop.access.value} {what} {stop.path} (mode {stop.mode:04o})"
            else:
                said = f"{stop}, on the way to {what} {where}"
            if stop.access is Access.ENTER:
                fix = "keep the bot and its interpreter under folders other users may enter"
            else:
                fix = f"let other users {stop.access.value} it (chmod o+{'r' if stop.access is Access.READ else 'rx'})"
            raise SandboxError(
                f"{self._label}: the bot's own user {said}: without bubblewrap, a root referee runs each bot as a "
                f"user of its own; install bubblewrap (apt-get install bubblewrap), {fix}, or play with --no-sandbox"
            )

    # -- after it ends -----------------------------------------------------------------

    def exit_code(self, code: int | None) -> int | None:
        """The bot's own exit status: bubblewrap reports a death by signal N as code 128+N."""
        if self._bwrap and code is not None and 128 < code < 128 + signal.NSIG:
            return -(code - 128)
        return code

    def limit_hit(self, code: int | None, stderr: str) -> str | None:
        """The limit a bot that ended with `code` (and printed `stderr`) ran into, or None."""
        applied = self.protections.limits
        if code != 0 and self._group is not None:
            if self._group.memory_hit():
                return "memory_mb"
            if self._group.processes_hit():
                return "processes"
        if code is not None and code < 0:
            name = _SIGNAL_LIMITS.get(signal.Signals(-code)) if -code in signal.valid_signals() else None
            if name in applied:
                return name
        if code == 0:
            return None
        tail = stderr[-4000:].lower()
        for name, pattern in _STDERR_LIMITS:
            if name in applied and pattern.search(tail):
                return name
        return None

    def describe(self, name: str) -> str:
        """A limit as said in a fault: ``memory_mb (1024 MiB)``."""
        return f"{name} ({self.protections.limits[name]} {_UNITS[name]})"

    def close(self) -> None:
        """Kill whatever still runs as the bot's user and give its user id back."""
        self.started()
        lease, self._lease = self._lease, None
        if lease is not None:
            uid, fd = lease
            _kill_user(uid)
            os.close(fd)
        group, self._group = self._group, None
        if group is not None:
            group.remove()
