"""Keep the seed off golfref's command line as other users see it (`/proc/PID/cmdline`).

Every user of a Linux machine may read every process's command line, so a `--seed N` typed
there would be read by a bot running as a user of its own (docs/SANDBOX.md). Before any bot
starts (first thing in `golfref.__main__.main`, before the command line is parsed), the
referee overwrites the value in place: the kernel shows `/proc/PID/cmdline` from the
process's own memory between the `arg_start` and `arg_end` addresses of `/proc/self/stat`,
which `/proc/self/mem` lets a process rewrite. Python keeps its own copy of the arguments
(`sys.argv`), so parsing is unchanged; processes forked later (tournament workers) inherit
the overwritten memory. Nothing here is imported by anything but the entry point.

`GOLFREF_SEED`, read by every command that takes `--seed`, never reaches a command line at all
(a process's environment is readable only by its own user and root, and golfref's by root
alone once it makes itself not dumpable; bots get an environment of their own).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

__all__ = ["SECRET_OPTIONS", "MASK", "hide_secrets", "masked", "warn_if_shown"]

SECRET_OPTIONS = ("--seed",)
"""The options whose values other users must not read on golfref's command line."""
MASK = b"*"
"""What each byte of a hidden value becomes (its length stays: the memory is rewritten in place)."""
_ARG_START = 48 - 3  # /proc/self/stat: fields counted from 1, and these counted after the command name (field 2)
_ARG_END = 49 - 3


def masked(region: bytes, options: Sequence[str] = SECRET_OPTIONS) -> bytes:
    """The NUL-separated arguments `region` with the value of each of `options` (`--seed N`, `--seed=N`) masked."""
    args = region.split(b"\0")
    names = [o.encode() for o in options]
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                args[i + 1] = MASK * len(args[i + 1])
            elif arg.startswith(name + b"="):
                args[i] = name + b"=" + MASK * (len(arg) - len(name) - 1)
    return b"\0".join(args)


def _given(argv: Sequence[str], options: Sequence[str]) -> bool:
    return any(a == o or a.startswith(o + "=") for a in argv for o in options)


def hide_secrets(argv: Sequence[str] | None = None, options: Sequence[str] = SECRET_OPTIONS) -> str | None:
    """Mask the values of `options` in this process's command line as the kernel shows it.

    None when done (or when none of them is given); else why not, in a few words.
    """
    if not _given(sys.argv[1:] if argv is None else argv, options):
        return None
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
        fields = stat[stat.rindex(b")") + 2 :].split()
        start, end = int(fields[_ARG_START]), int(fields[_ARG_END])
        if not 0 < start < end:
            return "/proc/self/stat does not show where the command line is"
        with open("/proc/self/mem", "r+b", buffering=0) as mem:
            mem.seek(start)
            region = mem.read(end - start)
            hidden = masked(region, options)
            if hidden != region:
                mem.seek(start)
                mem.write(hidden)
        with open("/proc/self/cmdline", "rb") as f:
            shown = f.read()
    except (OSError, ValueError, IndexError) as e:
        return f"{type(e).__name__}: {getattr(e, 'strerror', None) or e}"
    if masked(shown, options) != shown:
        return "/proc/self/cmdline still shows it"
    return None


def warn_if_shown(problem: str | None) -> None:
    """Say in one line, on stderr, that a secret option stayed readable (and what to use instead)."""
    if problem is not None:
        sys.stderr.write(
            f"golfref: warning: --seed stays readable by every user of this machine in /proc/{os.getpid()}/cmdline "
            f"(it could not be hidden: {problem}); give it as GOLFREF_SEED=N in the environment instead\n"
        )
