"""A bot's stderr as the log keeps it: how its last lines are cut, and how many each report shows."""

from __future__ import annotations

__all__ = [
    "TERMINAL_STDERR_LINES",
    "JUNIT_STDERR_LINES",
    "CHECK_STDERR_LINES",
    "REPLAY_STDERR_LINES",
    "stderr_lines",
    "stderr_tail_lines",
    "stderr_tail",
]

TERMINAL_STDERR_LINES = 8
"""Lines of a bot's stderr shown on the terminal: a match's fault report, a tournament's fault summary."""
JUNIT_STDERR_LINES = 20
"""Lines of a faulted bot's stderr a tournament's JUnit failure quotes."""
CHECK_STDERR_LINES = 20
"""Lines of a bot's stderr a check-bot failure shows: a Python traceback or node's report of an uncaught error fits."""
REPLAY_STDERR_LINES = 10
"""Lines of a bot's stderr shown where a re-run seat diverged from its log."""


def stderr_lines(text: str) -> list[str]:
    """A bot's stderr as lines: each ends at a newline, a carriage return before it dropped, as the transcripts
    cut them (`transcript.StderrRecorder`); blank lines at the end are left out.

    Nothing else ends a line (`str.splitlines` would end one at U+2028, U+0085 or a form feed too): such a
    character stays in its line, for `show.terminal` to show escaped.
    """
    body = text.rstrip("\r\n")
    return [line.removesuffix("\r") for line in body.split("\n")] if body else []


def stderr_tail_lines(text: str, lines: int) -> list[str]:
    """The last `lines` lines of a bot's stderr (`stderr_lines`)."""
    return stderr_lines(text)[-lines:]


def stderr_tail(text: str, lines: int) -> str:
    """The last `lines` lines of a bot's stderr, as one text (`stderr_tail_lines` joined by newlines)."""
    return "\n".join(stderr_tail_lines(text, lines))
