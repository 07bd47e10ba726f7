"""Text for people on a terminal: text that bots control made safe, and shared wording."""

from __future__ import annotations

__all__ = ["hole_label", "sanitize"]


def sanitize(text: str) -> str:
    """Replace control characters (escape sequences included) with visible escapes."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(f"\\u{ord(ch):04x}")
    return "".join(out)


def hole_label(hole: int, holes: int) -> str:
    """`hole 3 of 0-8`: holes count from 0 everywhere, so the range names the last one too."""
    if holes == 1:
        return f"hole {hole} (the only hole)"
    return f"hole {hole} of 0-{holes - 1}"
