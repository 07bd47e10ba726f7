"""Where a bot's program is found, as its exec finds it: lookups on the file system, no process started.

A config's check that a player's program exists and the sandbox's check that it shows the program the
user meant (golfref.bots.sandbox) both ask here, so the two can never disagree.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["find_program", "on_path"]


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
