"""Two tiny helpers for what a command prints: results on stdout, diagnostics on stderr."""

from __future__ import annotations

import sys


def out(text: str = "") -> None:
    """Print a result line on stdout."""
    sys.stdout.write(text + "\n")


def err(text: str) -> None:
    """Print a diagnostic line on stderr."""
    sys.stderr.write(text + "\n")


def one_line(text: str) -> str:
    """`text` on one line: every run of whitespace, newlines too, one space."""
    return " ".join(str(text).split())
