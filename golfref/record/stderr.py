"""A bot's stderr as the log keeps it: how its last lines are cut, and how many each report shows."""

from __future__ import annotations

__all__ = [
    "TERMINAL_STDERR_LINES",
    "JUNIT_STDERR_LINES",
    "CHECK_STDERR_LINES",
    "REPLAY_STDERR_LINES",
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


def stderr_tail_lines(text: str, lines: int) -> list[str]:
    """The last `lines` lines of a bot's stderr (a final newline ends the last line; it starts no empty one)."""
    return text.rstrip("\n").splitlines()[-lines:]


def stderr_tail(text: str, lines: int) -> str:
    """The last `lines` lines of a bot's stderr, as one text (`stderr_tail_lines` joined by newlines)."""
    return "\n".join(stderr_tail_lines(text, lines))
