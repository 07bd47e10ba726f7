"""Text for people on a terminal: text that bots control made safe (a hole's name is the narrator's `hole_label`)."""

from __future__ import annotations

__all__ = ["BIDI_CONTROLS", "escaped", "sanitize", "show_bidi"]

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The bidirectional controls (ALM, LRM, RLM, the embeddings and overrides, the isolates): each can
make a text read otherwise than it is stored (`evil`, U+202E, `txt.exe` shows as `evilexe.txt`)."""


def escaped(ch: str) -> str:
    """One character as its visible escape, the one form golfref shows everywhere: `\\x1b`, `\\u202e`."""
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def sanitize(text: str) -> str:
    """Replace control characters (escape sequences and bidirectional controls included) with visible escapes."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else escaped(ch) for ch in text)


def show_bidi(text: str) -> str:
    """Replace only the bidirectional controls with their visible escapes (`escaped`), as `sanitize` does:
    for a page, where a newline in a bot's stderr stays a newline."""
    if BIDI_CONTROLS.isdisjoint(text):
        return text
    return "".join(escaped(ch) if ch in BIDI_CONTROLS else ch for ch in text)

