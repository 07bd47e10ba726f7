"""Where a bot's program is found, as its exec finds it: lookups on the file system, no process started.

A config's check that a player's program exists and the sandbox's check that it shows the program the
user meant (golfref.bots.sandbox) both ask here, so the two can never disagree; so does the sandbox's
reading of a script's ``#!`` line (`Shebang`), which decides both what it checks and what it runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Shebang", "find_program", "interpreter", "on_path", "shebang", "within"]


def within(path: str, folder: str) -> bool:
    """Whether the absolute, normalised `path` is `folder` or lies inside it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _seen_from(cwd: Path, path: str) -> Path:
    """`path` as a process in `cwd` reaches it: from the real working directory (which is where a
    process is once it changed to it), `..` taken there."""
    return Path(os.path.normpath(os.path.join(os.path.realpath(cwd), path)))


def on_path(program: str, search: str, cwd: Path) -> Iterator[Path]:
    """Each executable file called `program` on the PATH `search`, in order (relative entries from `cwd`,
    as the bot's exec reads them: it changes to its working directory first)."""
    for entry in search.split(os.pathsep):
        candidate = _seen_from(cwd, os.path.join(entry or ".", program))
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            yield candidate


def find_program(program: str, search: str, cwd: Path) -> Path | None:
    """Where the bot's exec finds `program`, as the user's shell would: a path with a slash from `cwd`,
    else the first executable file on the PATH `search`; None if none."""
    if "/" in program:
        return _seen_from(cwd, program)
    return next(on_path(program, search, cwd), None)


_SHEBANG_BYTES = 256  # the most of a #! line Linux reads (since 5.1; 128 before)


@dataclass(frozen=True)
class Shebang:
    """A script's ``#!`` line as the kernel reads it: the interpreter, and one optional argument (not split)."""

    interpreter: str
    argument: str | None = None

    @property
    def via_env(self) -> bool:
        """Whether the line runs ``env``, which finds the program its argument names on the PATH."""
        return os.path.basename(self.interpreter) == "env"

    def env_program(self) -> str | None:
        """The program ``env`` runs (its first word that is neither an option nor an assignment), or None."""
        names = [w for w in (self.argument or "").split() if not w.startswith("-") and "=" not in w]
        return names[0] if names else None

    def arguments(self) -> tuple[str, ...] | None:
        """What the interpreter is given before the script's path: the line's argument, or through ``env``
        the words after its program (``env -S`` splits them; without it there are none). None where ``env``
        is given anything else (options, assignments), which running the interpreter directly would drop."""
        if not self.via_env:
            return (self.argument,) if self.argument else ()
        words = (self.argument or "").split()
        if words and words[0].startswith("-S"):
            words = [words[0][2:], *words[1:]] if words[0] != "-S" else words[1:]
            splits = True
        else:
            splits = False
        if not words or words[0].startswith("-") or "=" in words[0] or (len(words) > 1 and not splits):
            return None
        return tuple(words[1:])


def shebang(program: str | os.PathLike[str]) -> Shebang | None:
    """The ``#!`` line of the file `program`, or None for a binary, an unreadable file or an empty line."""
    try:
        with open(program, "rb") as f:
            line = f.readline(_SHEBANG_BYTES)
    except OSError:
        return None
    if not line.startswith(b"#!"):
        return None
    parts = line[2:].decode(errors="replace").strip().split(None, 1)
    if not parts:
        return None
    return Shebang(parts[0], parts[1].strip() if len(parts) > 1 else None)


def interpreter(program: Path, search: str, cwd: Path) -> Path | None:
    """The interpreter a script's ``#!`` line names (through ``/usr/bin/env NAME``: NAME on the PATH
    `search`, as env finds it), or None for a binary or an unreadable file."""
    line = shebang(program)
    if line is None:
        return None
    if line.via_env:
        name = line.env_program()
        return find_program(name, search, cwd) if name is not None else None
    return Path(line.interpreter)
