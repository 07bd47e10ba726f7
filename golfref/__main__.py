"""The `golfref` command's entry point (also `python -m golfref`).

It imports the command line itself, so that Ctrl-C while the modules load ends the
program like Ctrl-C at any other time: one line and exit status 130, not a traceback.
Once the command is done it leaves without the interpreter's teardown (see `leave_now`).
"""

from __future__ import annotations

import atexit
import gc
import os
import signal
import sys


def main() -> None:
    """Run the golfref command line."""
    # First of all, before any bot can start: a `--seed` on the command line is readable by
    # every user through /proc/PID/cmdline (docs/SANDBOX.md, "The seed").
    from .cli.cmdline import hide_secrets, warn_if_shown

    warn_if_shown(hide_secrets())
    try:
        from .cli.app import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("golfref: interrupted\n")
        sys.exit(128 + signal.SIGINT)
    try:
        cli_main()
    except SystemExit as done:
        leave_now(done)
        raise


def leave_now(done: SystemExit) -> None:
    """End the program with `done`'s status now: its output flushed and its atexit functions run, no teardown.

    The interpreter's teardown frees, one by one, every object the imports made (typer, pydantic,
    the referee), and its last garbage collection walks them all: 0.1 to 0.3 s after a run's last
    output on a loaded machine (bench/botstart.py), which the operating system does for nothing.
    Where another thread still runs, a profiler or tracer watches (`python -m cProfile` writes its
    report after the program returns), the status is no number or the output cannot be flushed,
    the ordinary exit follows instead, with the objects frozen so that its last collection skips them.
    """
    code = done.code
    threading = sys.modules.get("threading")
    alone = threading is None or threading.active_count() == 1
    watched = sys.getprofile() is not None or sys.gettrace() is not None
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)  # CPython's own, as its exit calls it
    if type(code) is int and alone and not watched and run_exit_functions is not None:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            run_exit_functions()
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass  # a closed or broken stream: the ordinary exit reports it as it always has
        else:
            os._exit(code)
    gc.freeze()


if __name__ == "__main__":
    main()
