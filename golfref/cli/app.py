"""The `golfref` command line: the app, its root options, its commands in the order --help lists them, and
`main()`, the console entry point. Nothing else imports it but golfref.__main__."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

# The click that typer ships (typer >= 0.29 vendors it; pyproject.toml requires that): its
# usage errors carry the command's context, which names the command in the one-line error.
from typer._click.exceptions import NoArgsIsHelpError, UsageError

from .. import __version__
from . import bot_commands, log_commands, match_commands, rules_commands, tournament_commands
from .exits import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXITS
from .output import err, one_line, out

# Start-up time: a plain `golfref --help` or `golfref score` must not pay for yaml, jsonschema,
# the referee or the replay validator, so each command imports what it needs itself
# (tests/test_cli_startup.py checks it).

app = typer.Typer(
    name="golfref",
    help="Referee and match runner for bots that play the card game Golf.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # Plain help: typer's rich help costs about 50 ms of imports at every start, and shows a
    # `<bool>` value after flags that take none.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        out(f"golfref {__version__}")
        EXITS.exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_version, help="Print the version and exit.")
    ] = False,
) -> None:
    pass


COMMANDS: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("score", rules_commands.score),
    ("rules", rules_commands.rules),
    ("check-config", match_commands.check_config),
    ("keygen", log_commands.keygen),
    ("run", match_commands.run),
    ("play", match_commands.play),
    ("replay", log_commands.replay),
    ("audit", log_commands.audit),
    ("check-bot", bot_commands.check_bot),
    ("replay-bot", bot_commands.replay_bot),
    ("export-bot", bot_commands.export_bot),
    ("init", bot_commands.init),
    ("examples", bot_commands.examples),
    ("tournament", tournament_commands.tournament),
    ("standings", tournament_commands.standings),
)
"""Every command, by name, in the order `golfref --help` lists them."""

for _name, _command in COMMANDS:
    app.command(_name, epilog=EXITS.epilog(_name))(_command)


class _Interrupted(BaseException):
    """Ctrl-C outside a match: typer would turn a KeyboardInterrupt into a silent exit 130."""


def _on_interrupt(signum: int, frame: object) -> None:
    raise _Interrupted


def main() -> None:
    """Console entry point: one-line errors, and the exit codes the README documents."""
    try:
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # ignored in a background job: leave it so
            signal.signal(signal.SIGINT, _on_interrupt)  # run_match puts its own in place while a match runs
        code = app(standalone_mode=False)
    except NoArgsIsHelpError as e:  # `golfref` alone: the help is the answer, as a usage error
        e.show()
        EXITS.leave(EXIT_USAGE)
    except UsageError as e:
        # typer's own rendering of a usage error is a box of several lines; here it is one.
        hint = f" (see {e.ctx.command_path} --help)" if e.ctx is not None else ""
        err(f"golfref: error: {one_line(e.format_message())}{hint}")
        EXITS.leave(e.exit_code)
    except typer.TyperException as e:  # any other error typer reports (a file it could not open...)
        err(f"golfref: error: {one_line(e.format_message())}")
        EXITS.leave(max(e.exit_code, EXIT_USAGE))
    except (_Interrupted, KeyboardInterrupt, typer.Abort):
        err("golfref: interrupted")
        EXITS.leave(EXIT_INTERRUPTED)
    except BrokenPipeError:
        # The reader went away (`golfref replay LOG | head`): nothing left to say to it.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        EXITS.leave(EXIT_INTERNAL)
    except OSError as e:
        err(f"golfref: error: cannot write the output: {e.strerror or e}")
        EXITS.leave(EXIT_INTERNAL)
    except Exception as e:  # a bug in golfref itself: one line, not a traceback
        err(f"golfref: internal error: {type(e).__name__}: {one_line(str(e))}")
        EXITS.leave(EXIT_INTERNAL)
    EXITS.leave(code if isinstance(code, int) else EXIT_OK)


if __name__ == "__main__":
    main()
