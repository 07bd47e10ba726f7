"""Text that bots control made safe to show, on a terminal and on a page (a hole's name is the narrator's
`hole_label`).

One definition of what is shown escaped serves both: every character `str.isprintable` refuses,
that is the C0 controls (ESC among them) and DEL, the C1 controls U+0080 to U+009F (CSI U+009B
and OSC U+009D among them), the format characters (the bidirectional controls among them), the
line and paragraph separators U+2028 and U+2029, spaces other than U+0020, surrogates and
unassigned code points. Each is written as its visible escape (`escaped`). The terminal
(`sanitize`) escapes all of them; a page (`page_text`) all of them but the line break, which a
page shows as one.
"""

from __future__ import annotations

__all__ = ["BIDI_CONTROLS", "escaped", "sanitize", "page_text"]

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The bidirectional controls (ALM, LRM, RLM, the embeddings and overrides, the isolates), all among what
`sanitize` escapes: each can make a text read otherwise than it is stored (`evil`, U+202E, `txt.exe`
shows as `evilexe.txt`)."""


def escaped(ch: str) -> str:
    """One character as its visible escape, the one form golfref shows everywhere: `\\x1b`, `\\u202e`."""
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def sanitize(text: str) -> str:
    """Replace every character that is not printable (controls, bidirectional controls, separators) with its escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else escaped(ch) for ch in text)


def page_text(text: str) -> str:
    """`sanitize` line by line, for a page: a line break stays one (a bot's stderr keeps its lines), all else as
    on the terminal."""
    if text.isprintable():
        return text
    return "\n".join(sanitize(line) for line in text.split("\n"))
