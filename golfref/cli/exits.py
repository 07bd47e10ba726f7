"""The exit statuses of every command, and the one way a command exits with one."""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING, NoReturn

import typer

from .output import err, one_line

if TYPE_CHECKING:
    from ..config.match import ConfigError, FailOn
    from ..record.signing import SignatureCheck
    from ..record.validate import Report


# Exit codes, documented in the README and in `golfref run --help`.
EXIT_OK = 0
EXIT_FAULTED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_BOT_CHANGED = 4
EXIT_SIGNAL_BASE = 128  # stopped by signal N: 128 + N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)
EXIT_INTERRUPTED = EXIT_SIGNAL_BASE + signal.SIGINT


RUN_EXIT_CODES = {
    EXIT_OK: "the match finished; a fault the fault policy played through (status faulted: a timeout, an illegal "
    "move) is reported, and fails only with --strict",
    EXIT_FAULTED: "the match finished (log written), but a fault ended a bot's seat (status disqualified: it crashed "
    "or exited, failed to start, hit a resource limit, ran out of match time, or reached max_faults), unless "
    "--accept-faults (faults.fail_on: never); with --strict (fail_on: any), any fault",
    EXIT_USAGE: "bad usage or a bad config (a `golfref: error:` line per problem, naming file, line and key), "
    "before any bot starts",
    EXIT_INTERNAL: "an internal error, or the log or the output could not be written",
    EXIT_INTERRUPTED: "stopped by Ctrl-C (143 SIGTERM, 129 SIGHUP: 128 + the signal's number): every bot stopped, "
    "the incomplete log kept",
}


PLAY_EXIT_CODES = {
    EXIT_OK: "the match finished (the standings show any fault of the bot's)",
    EXIT_USAGE: "bad usage: a preset, option or bot command that cannot be used",
    EXIT_INTERNAL: "an internal error, or the log could not be written",
    EXIT_INTERRUPTED: "stopped by Ctrl-C or the end of input (143 SIGTERM, 129 SIGHUP): the bot stopped, "
    "the incomplete log kept",
}


CHECK_CONFIG_EXIT_CODES = {
    EXIT_OK: "the config is good: a match or tournament would start with it",
    EXIT_USAGE: "the config has problems (a `golfref: error:` line each), or its log path would be refused",
}


TOURNAMENT_EXIT_CODES = {
    EXIT_OK: "every match played (or the SPRT decided early), no bot's seat ended by a fault (or --accept-faults), "
    "and the gate and the SPRT, if any, passed",
    EXIT_FAULTED: "a bot's seat was ended by a fault in some match (with --strict: any fault), unless --accept-faults; "
    "or the gate or the SPRT did not pass (failed, not enough data, or undecided)",
    EXIT_USAGE: "bad usage, a bad config, or a results directory holding another tournament (or an older store)",
    EXIT_INTERNAL: "an internal error, a match could not be played (its log could not be written), "
    "or the cluster's scheduler was lost",
    EXIT_BOT_CHANGED: "stopped because a bot's files changed since the tournament started (one line naming the bot "
    "and what changed), unless --allow-bot-changes: finished matches kept; restore the files and run again to resume",
    EXIT_INTERRUPTED: "interrupted by Ctrl-C (143 SIGTERM, 129 SIGHUP): finished matches kept; run again to resume",
}


STANDINGS_EXIT_CODES = {
    EXIT_OK: "the results were printed (and, with --gate, the gate passed)",
    EXIT_FAULTED: "with --gate: the gate failed, or had not enough data to pass",
    EXIT_USAGE: "bad usage, or a folder that holds no tournament results",
    EXIT_INTERNAL: "an internal error, or an output file could not be written",
}


REPLAY_EXIT_CODES = {
    EXIT_OK: "the log is valid and was shown (an incomplete one after a warning); with --check, every log is valid "
    "and none forged (with --trust, every one signed by the trusted key under the name it was signed as)",
    EXIT_FAULTED: "the log is invalid or tampered (and not shown); with --check, a log is invalid, tampered, "
    "incomplete or forged (with --trust, or not signed by the trusted key, or a copy under another name)",
    EXIT_USAGE: "bad usage, or a LOG that is no golfref log: no such file, a folder, JSON of another kind",
    EXIT_INTERNAL: "an internal error, or the output could not be written",
}


AUDIT_EXIT_CODES = {
    EXIT_OK: "every log is clean: no leak, no warning, no forged signature (with --trust, every one signed by "
    "the trusted key under the name it was signed as)",
    EXIT_FAULTED: "a leak or a warning in some log, a log that is tampered or invalid, or a forged signature "
    "(with --trust, or one not by the trusted key, or a copy under another name)",
    EXIT_USAGE: "bad usage or input that cannot be audited: no such file, not a golfref log, no transcripts",
}


CHECK_BOT_EXIT_CODES = {
    EXIT_OK: "every check passed (a skipped check is not a failure)",
    EXIT_FAULTED: "a check failed (a run that stops early has one)",
    EXIT_USAGE: "bad usage: no command or one that cannot start, a bad config, an unknown player, preset or layout, "
    "--set options that apply to no check",
}


REPLAY_BOT_EXIT_CODES = {
    EXIT_OK: "the bot did what the log says at every request replayed",
    EXIT_FAULTED: "the bot diverged from the log (the first divergence is printed), or the log is tampered or invalid",
    EXIT_USAGE: "bad usage, no such file, not a golfref log, or a seat or transcript that cannot be replayed",
    EXIT_INTERRUPTED: "stopped by Ctrl-C (the bot is stopped too)",
}


KEYGEN_EXIT_CODES = {
    EXIT_OK: "the key pair was written",
    EXIT_USAGE: "a key file is there already (none is replaced), or the folder is missing or not writable",
}


SCORE_EXIT_CODES = {
    EXIT_OK: "the grid's score was printed",
    EXIT_USAGE: "bad usage: a grid, preset or option that cannot be read",
}


RULES_EXIT_CODES = {
    EXIT_OK: "the rules were printed",
    EXIT_USAGE: "bad usage: an unknown preset or option, or a value it cannot take",
}


EVERY_COMMAND_EXIT_CODES = {
    EXIT_INTERNAL: "an internal error in golfref (one `golfref: internal error:` line, no traceback), or its output "
    "could not be written",
    EXIT_INTERRUPTED: "stopped by Ctrl-C (143 SIGTERM, 129 SIGHUP: 128 + the signal's number)",
}
"""The exit codes any command may give, beside its own (a command's own entry says more where it has one)."""


COMMAND_EXIT_CODES: dict[str, dict[int, str]] = {
    "run": RUN_EXIT_CODES,
    "play": PLAY_EXIT_CODES,
    "check-config": CHECK_CONFIG_EXIT_CODES,
    "tournament": TOURNAMENT_EXIT_CODES,
    "standings": STANDINGS_EXIT_CODES,
    "replay": REPLAY_EXIT_CODES,
    "audit": AUDIT_EXIT_CODES,
    "check-bot": CHECK_BOT_EXIT_CODES,
    "replay-bot": REPLAY_BOT_EXIT_CODES,
    "keygen": KEYGEN_EXIT_CODES,
    "score": SCORE_EXIT_CODES,
    "rules": RULES_EXIT_CODES,
}
"""Every command's own exit codes, as its --help lists them and the README's table of exit statuses."""


def exit_codes_help(codes: dict[int, str]) -> str:
    """A command's exit codes as its --help epilog."""
    # "\b" keeps click from re-flowing the table into one paragraph.
    rows = "\n".join(f"  {code:>3}  {meaning}" for code, meaning in codes.items())
    return f"\b\nExit codes:\n{rows}"


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print one `golfref: error: ...` line and exit with `code`."""
    err(f"golfref: error: {one_line(message)}")
    raise typer.Exit(code)


def fail_config(error: ConfigError) -> NoReturn:
    """Print each problem of a config as its own `golfref: error:` line, in file order, and exit 2."""
    for problem in error.errors:
        err(f"golfref: error: {one_line(problem)}")
    raise typer.Exit(EXIT_USAGE)


def faults_fail(fail_on: FailOn, ended: bool, faulted: bool) -> bool:
    """Whether faults make a run exit 1: a seat ended by one (`ended`), or with fail_on any, any fault at all."""
    from ..config.match import FailOn

    if fail_on is FailOn.NEVER:
        return False
    return ended or (fail_on is FailOn.ANY and faulted)


def replay_exit_code(
    reports: list[Report], signatures: list[SignatureCheck | None] | None = None, trusting: bool = False
) -> int:
    """`golfref replay --check` exits 0 only when every log is valid and none is forged; with
    --trust (`trusting`), only when every one is also signed by the trusted key under its own name."""
    from ..record.signing import signature_passes
    from ..record.validate import Status

    signed_ok = all(signature_passes(s, trusting) for s in signatures or [])
    if any(r.status is Status.NOT_A_LOG for r in reports):
        return EXIT_USAGE  # a missing file or another kind of file, as in every command that reads logs
    return EXIT_OK if all(r.status is Status.VALID for r in reports) and signed_ok else EXIT_FAULTED
