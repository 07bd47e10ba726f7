"""Making text that bots control safe to show on a terminal."""

from __future__ import annotations

__all__ = ["sanitize"]


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
