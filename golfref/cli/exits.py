"""The exit policy: every exit status of every command in one table, the views of it that each command's
--help and docs/COMMANDS.md show, and the one way out of a command with a status.

One rule runs through the statuses (docs/COMMANDS.md, "Exit statuses"): 2 is bad input found before
anything runs; 1 a verdict that did not pass; 3 golfref's own failure; 4 a tournament stopped
because a bot's files changed; 128 + N a signal.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

import typer

from .output import err, one_line

if TYPE_CHECKING:
    from ..config.match import ConfigError
    from ..record.signing import SignatureCheck
    from ..record.validate import Validation

EXIT_OK = 0
EXIT_FAULTED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_BOT_CHANGED = 4
EXIT_SIGNAL_BASE = 128  # stopped by signal N: 128 + N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)
EXIT_INTERRUPTED = EXIT_SIGNAL_BASE + signal.SIGINT

EVERY = "every command"
"""The table's name for the statuses any command may give beside its own."""


@dataclass(frozen=True)
class Row:
    """One exit status of one command (or of `EVERY` command) and what it means there."""

    command: str
    code: int
    meaning: str


TABLE: tuple[Row, ...] = (
    Row(
        "run",
        EXIT_OK,
        "the match finished; a fault the fault policy played through (status faulted: a timeout, an illegal "
        "move) is reported, and fails only with --strict",
    ),
    Row(
        "run",
        EXIT_FAULTED,
        "the match finished (log written), but a fault ended a bot's seat (status disqualified: it crashed "
        "or exited, failed to start, hit a resource limit, ran out of match time, or reached max_faults), unless "
        "--accept-faults (faults.fail_on: never); with --strict (fail_on: any), any fault",
    ),
    Row(
        "run",
        EXIT_USAGE,
        "bad usage or a bad config (a `golfref: error:` line per problem, naming file, line and key), "
        "before any bot starts",
    ),
    Row("run", EXIT_INTERNAL, "an internal error, or the log or the output could not be written"),
    Row(
        "run",
        EXIT_INTERRUPTED,
        "stopped by Ctrl-C (143 SIGTERM, 129 SIGHUP: 128 + the signal's number): every bot stopped, "
        "the incomplete log kept",
    ),
    Row("play", EXIT_OK, "the match finished (the standings show any fault of the bot's)"),
    Row("play", EXIT_USAGE, "bad usage: a preset, option or bot command that cannot be used"),
    Row("play", EXIT_INTERNAL, "an internal error, or the log could not be written"),
    Row(
        "play",
        EXIT_INTERRUPTED,
        "stopped by Ctrl-C or the end of input (143 SIGTERM, 129 SIGHUP): the bot stopped, the incomplete log kept",
    ),
    Row("check-config", EXIT_OK, "the config is good: a match or tournament would start with it"),
    Row(
        "check-config",
        EXIT_USAGE,
        "the config has problems (a `golfref: error:` line each), or its log path would be refused",
    ),
    Row(
        "tournament",
        EXIT_OK,
        "every match played (or the SPRT decided early), no bot's seat ended by a fault (or --accept-faults), "
        "and the gate and the SPRT, if any, passed",
    ),
    Row(
        "tournament",
        EXIT_FAULTED,
        "a bot's seat was ended by a fault in some match (with --strict: any fault), unless --accept-faults; "
        "or the gate or the SPRT did not pass (failed, not enough data, or undecided)",
    ),
    Row(
        "tournament",
        EXIT_USAGE,
        "bad usage, a bad config, or a results directory holding another tournament (or an older or malformed "
        "store: one line naming it and what is wrong)",
    ),
    Row(
        "tournament",
        EXIT_INTERNAL,
        "an internal error, a match could not be played (its log could not be written), "
        "or the cluster's scheduler was lost",
    ),
    Row(
        "tournament",
        EXIT_BOT_CHANGED,
        "stopped because a bot's files changed since the tournament started (one line naming the bot "
        "and what changed), unless --allow-bot-changes: finished matches kept; restore the files and run again "
        "to resume",
    ),
    Row(
        "tournament",
        EXIT_INTERRUPTED,
        "interrupted by Ctrl-C (143 SIGTERM, 129 SIGHUP): finished matches kept; run again to resume",
    ),
    Row("standings", EXIT_OK, "the results were printed (and, with --gate, the gate passed)"),
    Row("standings", EXIT_FAULTED, "with --gate: the gate failed, or had not enough data to pass"),
    Row(
        "standings",
        EXIT_USAGE,
        "bad usage, a folder that holds no tournament results, or a store golfref will not read (older, damaged "
        "or not golfref's: one line naming it and what is wrong)",
    ),
    Row("standings", EXIT_INTERNAL, "an internal error, or an output file could not be written"),
    Row(
        "replay",
        EXIT_OK,
        "the log is valid and was shown (an incomplete one after a warning); with --check, every log is valid "
        "and none forged (with --trust, every one signed by the trusted key under the name it was signed as)",
    ),
    Row(
        "replay",
        EXIT_FAULTED,
        "the log is invalid or tampered (and not shown); with --check, a log is invalid, tampered, "
        "incomplete or forged (with --trust, or not signed by the trusted key, or a copy under another name)",
    ),
    Row(
        "replay",
        EXIT_USAGE,
        "bad usage, or a LOG that is no golfref log: no such file, a folder, JSON of another kind",
    ),
    Row("replay", EXIT_INTERNAL, "an internal error, or the output could not be written"),
    Row(
        "audit",
        EXIT_OK,
        "every log is clean: no leak, no warning, no forged signature (with --trust, every one signed by "
        "the trusted key under the name it was signed as)",
    ),
    Row(
        "audit",
        EXIT_FAULTED,
        "a leak or a warning in some log, a log that is tampered or invalid, or a forged signature "
        "(with --trust, or one not by the trusted key, or a copy under another name)",
    ),
    Row(
        "audit",
        EXIT_USAGE,
        "bad usage or input that cannot be audited: no such file, not a golfref log, no transcripts",
    ),
    Row("check-bot", EXIT_OK, "every check passed (a skipped check is not a failure)"),
    Row(
        "check-bot",
        EXIT_FAULTED,
        "a check failed (a run that stops early has one); with --house, a house option not supported too",
    ),
    Row(
        "check-bot",
        EXIT_USAGE,
        "bad usage: no command or one that cannot start, a bad config, an unknown player, preset or layout, "
        "--set options that apply to no check, --preset or --house with a config",
    ),
    Row("replay-bot", EXIT_OK, "the bot did what the log says at every request replayed"),
    Row(
        "replay-bot",
        EXIT_FAULTED,
        "the bot diverged from the log (the first divergence is printed), or the log is tampered or invalid",
    ),
    Row(
        "replay-bot",
        EXIT_USAGE,
        "bad usage, no such file, not a golfref log, or a seat or transcript that cannot be replayed",
    ),
    Row("replay-bot", EXIT_INTERRUPTED, "stopped by Ctrl-C (the bot is stopped too)"),
    Row("export-bot", EXIT_OK, "the bot folder was written"),
    Row(
        "export-bot",
        EXIT_USAGE,
        "bad usage: a policy that cannot be imported or has no choose, a folder that is there and not empty, "
        "a policy that imports golfref beyond the kit (nothing is left written)",
    ),
    Row("init", EXIT_OK, "the bot project was written and its bot built (with --list: the kits were listed)"),
    Row(
        "init",
        EXIT_USAGE,
        "bad usage: an unknown language or built-in, a folder that is there and not empty, a tool the kit needs "
        "that is not installed (nothing is written), or a build that failed (the files are kept, to fix and build)",
    ),
    Row("examples", EXIT_OK, "the examples were written"),
    Row("examples", EXIT_USAGE, "a folder that is there and not empty, or cannot be written (nothing is left written)"),
    Row("keygen", EXIT_OK, "the key pair was written"),
    Row(
        "keygen",
        EXIT_USAGE,
        "a key file is there already (none is replaced), or the folder is missing or not writable",
    ),
    Row("score", EXIT_OK, "the grid's score was printed"),
    Row("score", EXIT_USAGE, "bad usage: a grid, preset or option that cannot be read"),
    Row("rules", EXIT_OK, "the rules were printed"),
    Row("rules", EXIT_USAGE, "bad usage: an unknown preset or option, or a value it cannot take"),
    Row(
        EVERY,
        EXIT_INTERNAL,
        "an internal error in golfref (one `golfref: internal error:` line, no traceback), or its output "
        "could not be written",
    ),
    Row(EVERY, EXIT_INTERRUPTED, "stopped by Ctrl-C (143 SIGTERM, 129 SIGHUP: 128 + the signal's number)"),
)
"""Every command's exit statuses, in the order docs/COMMANDS.md's table lists them (a command's own row says more
than `EVERY`'s where it has one)."""


class ExitPolicy:
    """Every exit status golfref gives: a table of rows, its views, and the only way a command exits with one."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = tuple(rows)
        self._known = frozenset(row.code for row in self.rows)

    def commands(self) -> tuple[str, ...]:
        """The commands with statuses of their own, in the table's order."""
        return tuple(dict.fromkeys(row.command for row in self.rows if row.command != EVERY))

    def codes(self, command: str) -> dict[int, str]:
        """The statuses of `command` (or of `EVERY` command), each with what it means there."""
        codes = {row.code: row.meaning for row in self.rows if row.command == command}
        if not codes:
            raise KeyError(f"{command!r} has no exit statuses in the table")
        return codes

    def epilog(self, command: str) -> str:
        """The statuses of `command` as its --help epilog."""
        # "\b" keeps click from re-flowing the table into one paragraph.
        rows = "\n".join(f"  {code:>3}  {meaning}" for code, meaning in self.codes(command).items())
        return f"\b\nExit codes:\n{rows}"

    def check(self, code: int) -> int:
        """`code`, when it is a status of the table or a signal's (128 + N); a ValueError otherwise."""
        if code not in self._known and not EXIT_SIGNAL_BASE < code < EXIT_SIGNAL_BASE + signal.NSIG:
            raise ValueError(f"exit status {code} is not in golfref's table of exit statuses")
        return code

    def exit(self, code: int) -> NoReturn:
        """Leave the command running now with the status `code`."""
        raise typer.Exit(self.check(code))

    def leave(self, code: int) -> NoReturn:
        """Leave golfref with the status `code` (the entry point, once the command has ended)."""
        sys.exit(self.check(code))

    def signalled(self, signum: int) -> NoReturn:
        """Leave the command stopped by the signal `signum`: 128 + its number."""
        self.exit(EXIT_SIGNAL_BASE + signum)

    def fail(self, message: str, code: int = EXIT_USAGE) -> NoReturn:
        """Print one `golfref: error: ...` line and exit with `code`."""
        err(f"golfref: error: {one_line(message)}")
        self.exit(code)

    def fail_config(self, error: ConfigError) -> NoReturn:
        """Print each problem of a config as its own `golfref: error:` line, in file order, and exit 2."""
        for problem in error.errors:
            err(f"golfref: error: {one_line(problem)}")
        self.exit(EXIT_USAGE)

    def of_replay_check(
        self, reports: list[Validation], signatures: list[SignatureCheck | None] | None = None, trusting: bool = False
    ) -> int:
        """`golfref replay --check` exits 0 only when every log is valid and none is forged; with
        --trust (`trusting`), only when every one is also signed by the trusted key under its own name."""
        from ..record.signing import signature_passes
        from ..record.validate import Status

        signed_ok = all(signature_passes(s, trusting) for s in signatures or [])
        if any(r.status is Status.NOT_A_LOG for r in reports):
            return EXIT_USAGE  # a missing file or another kind of file, as in every command that reads logs
        return EXIT_OK if all(r.status is Status.VALID for r in reports) and signed_ok else EXIT_FAULTED


EXITS = ExitPolicy(TABLE)
"""golfref's exit policy: every command exits through it."""

fail = EXITS.fail
fail_config = EXITS.fail_config
