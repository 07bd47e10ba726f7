"""The `golfref` command's entry point (also `python -m golfref`).

It imports the command line itself, so that Ctrl-C while the modules load ends the
program like Ctrl-C at any other time: one line and exit status 130, not a traceback.
"""

from __future__ import annotations

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
    cli_main()


if __name__ == "__main__":
    main()
