"""A bot's stderr tail (golfref.record.stderr): the one way every report cuts it."""

from __future__ import annotations

from golfref.record.stderr import stderr_tail, stderr_tail_lines


def test_the_tail_is_the_last_lines_and_a_final_newline_starts_no_empty_one() -> None:
    text = "".join(f"line {i}\n" for i in range(12))
    assert stderr_tail_lines(text, 3) == ["line 9", "line 10", "line 11"]
    assert stderr_tail(text, 3) == "line 9\nline 10\nline 11"
    assert stderr_tail_lines("only\n\n\n", 5) == ["only"]
    assert stderr_tail_lines("a\r\nb", 5) == ["a", "b"]
    assert stderr_tail("", 8) == "" and stderr_tail_lines("", 8) == []
