"""Building a starter kit's bots for the tests, through golfref.tools.kits (the table `golfref init` uses).

A bot of a kit is the kit's files in a folder of its own with the example bot's file written
by the test (an echo bot, a broken bot) or kept (the example); it is built there strictly
(every warning an error), and run from anywhere by absolute paths. Where a kit's tool is
missing, the test skips, naming it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from golfref.tools.kits import KITS, Kit, build, copy_kit, kit

KIT_NAMES = tuple(k.name for k in KITS)


def usable(name: str) -> Kit:
    """The kit `name`, or a skip naming the tool it needs that is not installed."""
    which = kit(name)
    absent = which.missing()
    if absent:
        pytest.skip(f"{absent[0].program} is not on PATH: the {which.title} kit needs {which.needs_text()}")
    return which


def kit_bot(name: str, folder: Path, main: str | None = None) -> list[str]:
    """Write kit `name`'s bot into `folder` (the example, or `main` as the example's file), build it
    strictly, and give the command that runs it from any working directory."""
    which = usable(name)
    folder.mkdir(parents=True, exist_ok=True)
    copy_kit(which, folder, example=main is None)
    if main is not None:
        (folder / which.example).write_text(main, encoding="utf-8")
    build(which, folder, strict=True)
    argv = run_argv(which, folder)
    # The tests' own interpreter, not whichever python3 comes first on PATH.
    return [sys.executable, "-B", *argv[1:]] if argv[0] == "python3" else argv


def run_argv(which: Kit, folder: Path) -> list[str]:
    """The kit's run command with the bot's own files named by absolute paths in `folder`, for a test whose
    working directory is elsewhere (a config gives a bot its folder as `cwd` instead)."""
    return [str(folder / word) if word.startswith("./") or (folder / word).exists() else word for word in which.run]
