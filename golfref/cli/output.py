"""Two tiny helpers for what a command prints: results on stdout, diagnostics on stderr."""

from __future__ import annotations

import re
import sys

# ASCII whitespace only: str.split() would also break at U+2028, U+0085 and other controls a bot
# can send, which must reach `terminal.sanitize` and show escaped rather than vanish into a space.
_SPACES = re.compile(r"[ \t\n\r\x0b\x0c]+")


def out(text: str = "") -> None:
    """Print a result line on stdout."""
    sys.stdout.write(text + "\n")


def err(text: str) -> None:
    """Print a diagnostic line on stderr."""
    sys.stderr.write(text + "\n")


def one_line(text: str) -> str:
    """`text` on one line: every run of ASCII whitespace, newlines too, one space."""
    return _SPACES.sub(" ", str(text)).strip(" ")
