"""Which Python a bot's ``python3`` is: its interpreter, asked once where its installation lies.

A bot's ``python3`` may be found in a virtual environment, as a pyenv shim, in a conda
installation or under /opt: places a sandbox does not show. Which interpreter a shim runs
depends on pyenv's rules (``PYENV_VERSION``, the ``.python-version`` files from the working
directory up, the global version file), a virtual environment's on its ``pyvenv.cfg``, a
conda one on how it was made. Rather than copy those rules, golfref asks the interpreter
itself (`ask`): it runs it once, isolated (``-I -S``: neither the working directory, nor
``PYTHON*`` variables, nor any site-packages or ``.pth`` file takes part), from the bot's
working directory with the bot's environment, and reads what it says of itself
(`Installation`). That is the user's own interpreter, not the bot's code: it runs outside
the sandbox, before any bot starts, bounded in time (`ASK_SECONDS`) and output
(`ANSWER_BYTES`), and leaves no process behind. Its answer is kept for the rest of the run,
per program, working directory and environment.

`golfref.bots.sandbox` decides from the answer what a sandboxed bot runs and what its
sandbox shows (docs/SANDBOX.md, "Which Python a sandboxed bot runs").
"""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import subprocess
import sys
import sysconfig
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config.programs import within
from .lifetime import peek_exit, reap_session

__all__ = [
    "ANSWER_BYTES",
    "ASK_SECONDS",
    "Installation",
    "PythonAskError",
    "ask",
    "is_python",
    "referee_packages",
]

ASK_SECONDS = 10.0
"""How long an interpreter may take to answer: a pyenv shim does in a tenth of a second; this bounds
only one that hangs, with room for a machine loaded with matches."""
ANSWER_BYTES = 64 * 1024
"""The most of an interpreter's answer (stdout and stderr together) read: it is some hundreds of bytes."""

_NAME = re.compile(r"python(3(\.\d+)?)?")

# Run with -I -S by the interpreter asked, any Python 3 (hence no f-strings): where it runs from,
# the installation it belongs to, and that installation's site-packages (its own, not a venv's).
# Without site (-S) a virtual environment's sys.prefix is not set, so its pyvenv.cfg is looked
# for here where site.py would look: beside the executable, or one folder up.
_QUESTION = """\
import json, os, site, sys, sysconfig
base, platbase = sys.base_prefix, sys.base_exec_prefix
names = {"base": base, "platbase": platbase, "installed_base": base, "installed_platbase": platbase}
paths = sysconfig.get_paths(vars=names)
sites = [paths["purelib"], paths["platlib"]] + list(site.getsitepackages([base, platbase]))
here = os.path.dirname(os.path.abspath(sys.executable))
prefix, home = sys.prefix, None
for folder in (here, os.path.dirname(here)):
    if os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
        prefix = os.path.dirname(here)
        with open(os.path.join(folder, "pyvenv.cfg")) as f:
            for line in f:
                key, _, value = line.partition("=")
                if key.strip() == "home":
                    home = value.strip()
        break
print(json.dumps({"executable": sys.executable, "base_executable": getattr(sys, "_base_executable", sys.executable),
                  "prefix": prefix, "base_prefix": base, "base_exec_prefix": platbase,
                  "version": sys.version.split()[0], "site_packages": sites, "home": home}))
"""


class PythonAskError(Exception):
    """An interpreter could not say where it is installed (the message says why, in a few words)."""


def is_python(program: str | os.PathLike[str]) -> bool:
    """Whether a program's name is CPython's (``python``, ``python3``, ``python3.12``)."""
    return _NAME.fullmatch(os.path.basename(program)) is not None


@dataclass(frozen=True)
class Installation:
    """What a Python interpreter says of itself: where it runs from, and the installation it belongs to."""

    executable: str
    """``sys.executable``: the interpreter asked, as it knows itself (a virtual environment's keeps its own path)."""
    base_executable: str
    """``sys._base_executable``: a virtual environment's base interpreter (Python 3.11 on; before, ``executable``)."""
    prefix: str
    """The virtual environment it runs in (the folder of its ``pyvenv.cfg``, as site.py finds it), else
    ``sys.prefix``: the installation."""
    base_prefix: str
    """``sys.base_prefix``: the installation, with its standard library."""
    base_exec_prefix: str
    """``sys.base_exec_prefix``: where the installation keeps its compiled modules (mostly ``base_prefix``)."""
    version: str
    """Its version number (``3.11.7``)."""
    site_packages: tuple[str, ...]
    """The installation's site-packages folders as it names them (some may not exist)."""
    home: str | None = None
    """A virtual environment's ``home`` (its ``pyvenv.cfg``): the folder of the interpreter it was made from."""

    @property
    def in_venv(self) -> bool:
        """Whether the interpreter runs in a virtual environment (``sys.prefix`` is not the installation)."""
        return os.path.realpath(self.prefix) != os.path.realpath(self.base_prefix)

    def folders(self) -> tuple[str, ...]:
        """The installation's folders, as real paths: its prefix, and its exec prefix where that lies elsewhere."""
        prefix, exec_prefix = os.path.realpath(self.base_prefix), os.path.realpath(self.base_exec_prefix)
        return (prefix,) if within(exec_prefix, prefix) else (prefix, exec_prefix)

    def base_interpreter(self) -> str | None:
        """The installation's own interpreter, as a real path inside its `folders` (never in a virtual
        environment), or None when no candidate is one."""
        candidates = [self.base_executable, self.executable]
        if self.home is not None:
            major_minor = ".".join(self.version.split(".")[:2])
            names = (os.path.basename(self.executable), f"python{major_minor}", "python3")
            candidates += [os.path.join(self.home, name) for name in names]
        venv = os.path.realpath(self.prefix) if self.in_venv else None
        for candidate in candidates:
            real = os.path.realpath(candidate)
            if not os.path.isfile(real) or not os.access(real, os.X_OK):
                continue
            if venv is not None and within(real, venv):
                continue  # a venv made with --copies: its python is a copy that finds its venv
            if any(within(real, folder) for folder in self.folders()):
                return real
        return None

    def existing_site_packages(self) -> tuple[str, ...]:
        """The installation's site-packages folders that exist, as real paths inside its `folders`, once each."""
        found = (os.path.realpath(p) for p in self.site_packages)
        return tuple(dict.fromkeys(p for p in found if os.path.isdir(p) and any(within(p, f) for f in self.folders())))


_answers: dict[tuple[str, str, tuple[tuple[str, str], ...]], Installation] = {}


def ask(program: str | os.PathLike[str], cwd: str, env: Mapping[str, str]) -> Installation:
    """What the Python `program` says of itself when run from `cwd` with `env` (the bot's environment; the
    referee's ``GOLFREF_`` variables are left out). A `PythonAskError` when it cannot say."""
    plain = {key: value for key, value in env.items() if not key.startswith("GOLFREF_")}
    key = (os.fspath(program), os.path.realpath(cwd), tuple(sorted(plain.items())))
    known = _answers.get(key)
    if known is None:
        known = _answers[key] = _ask(os.fspath(program), cwd, plain)
    return known


def _ask(program: str, cwd: str, env: dict[str, str]) -> Installation:
    try:
        proc = subprocess.Popen(
            [program, "-I", "-S", "-c", _QUESTION], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
    except OSError as e:
        raise PythonAskError(f"it cannot be started ({e.strerror or e})") from None
    give_up = time.monotonic() + ASK_SECONDS
    try:
        out, err, stopped = _collect(proc, give_up)
        while stopped is None and peek_exit(proc)[0]:
            if time.monotonic() > give_up:
                stopped = f"it did not end within {ASK_SECONDS:g} s"
            time.sleep(0.005)  # its output has ended: its exit status is a moment away (not reaped: see below)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # what it left in its group: its pid is not reaped yet, so ours
        except OSError:
            pass
        proc.kill()  # even had it left its group, the wait below must end
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        proc.wait()
        reap_session(proc.pid)
    if stopped is not None:
        raise PythonAskError(stopped)
    said = err.decode(errors="replace").strip().splitlines()
    if proc.returncode != 0:
        why = f": {said[-1][:200]}" if said else ""
        raise PythonAskError(f"it exited with code {proc.returncode}{why}")
    try:
        data = json.loads(out)
        return _installation(data)
    except (ValueError, KeyError, TypeError):
        shown = out.decode(errors="replace").strip()[:120] or "nothing"
        raise PythonAskError(f"its answer is not a Python's: it printed {shown!r}") from None


def _collect(proc: subprocess.Popen[bytes], give_up: float) -> tuple[bytes, bytes, str | None]:
    """Its stdout and stderr until both end; with why it was stopped early (too slow, too much), or None."""
    assert proc.stdout is not None and proc.stderr is not None
    got: dict[int, bytearray] = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    with selectors.DefaultSelector() as sel:
        for pipe in (proc.stdout, proc.stderr):
            sel.register(pipe.fileno(), selectors.EVENT_READ)
        while sel.get_map():
            left = give_up - time.monotonic()
            if left <= 0:
                return b"", b"", f"it did not answer within {ASK_SECONDS:g} s"
            for key, _ in sel.select(left):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                got[key.fd] += chunk
                if sum(len(b) for b in got.values()) > ANSWER_BYTES:
                    return b"", b"", f"it printed more than {ANSWER_BYTES} bytes"
    return bytes(got[proc.stdout.fileno()]), bytes(got[proc.stderr.fileno()]), None


def _installation(data: Any) -> Installation:
    """The answer's fields, checked: absolute paths, text."""
    paths = {name: data[name] for name in ("executable", "base_executable", "prefix", "base_prefix",
                                           "base_exec_prefix")}  # fmt: skip
    for value in paths.values():
        if not isinstance(value, str) or not os.path.isabs(value):
            raise ValueError(value)
    sites, home, version = data["site_packages"], data["home"], data["version"]
    if not isinstance(sites, list) or not all(isinstance(p, str) and os.path.isabs(p) for p in sites):
        raise ValueError(sites)
    if not isinstance(version, str) or (home is not None and not isinstance(home, str)):
        raise ValueError(version)
    return Installation(**paths, version=version, site_packages=tuple(dict.fromkeys(sites)), home=home)


def referee_packages() -> tuple[Path, ...]:
    """The Python packages golfref itself runs with, which no bot may see: its virtual environment; or,
    where it runs without one, its interpreter's site-packages and the folder its own package lies in
    when that is a site-packages (``pip install --user``)."""
    if sys.prefix != sys.base_prefix:
        return (Path(sys.prefix),)
    found = [sysconfig.get_paths()[key] for key in ("purelib", "platlib")]
    holder = Path(__file__).resolve().parents[2]  # the folder holding the golfref package
    if holder.name in ("site-packages", "dist-packages"):
        found.append(str(holder))
    return tuple(dict.fromkeys(Path(p) for p in found if os.path.isdir(p)))
