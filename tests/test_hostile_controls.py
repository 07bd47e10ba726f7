"""A bot's control characters reach no page and no terminal raw (issue 38, item 4).

`tests/bots/hostile/control_bot.py` puts C1 controls (CSI U+009B, OSC U+009D, DCS, ST, NEL), the
line and paragraph separators U+2028 and U+2029, bidirectional controls and ESC sequences in its
reported name and version, its stderr and a junk line the log keeps. A match and a tournament
of it are shown by every command that shows a bot's text: the terminal's lines and the pages
(the replay page and a seat's, their data and bot panel, the tournament report and its replay
pages) must hold none of those characters raw, and show each by its escape, `\\x9b`, `\\u2028`,
as `show/terminal.py` defines once for both.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from golfref.cli.output import one_line
from golfref.record.stderr import stderr_lines, stderr_tail_lines
from golfref.show.html_replay import json_for_script
from golfref.show.terminal import BIDI_CONTROLS, escaped, page_text, sanitize

from .test_hostile_files import run
from .test_sandbox_attacks import bot, golfref

C1 = tuple(chr(c) for c in range(0x80, 0xA0))
SEPARATORS = ("\u2028", "\u2029")
SHOWN_ESCAPED = (*C1, *SEPARATORS, *sorted(BIDI_CONTROLS), "\x1b", "\x07", "\x7f", "\x0c", "\x85", "\x00")
"""What a bot may send that a page or a terminal could act on (or that reads otherwise than it is)."""


def raw_controls(text: str) -> list[str]:
    """The characters of `SHOWN_ESCAPED` found raw in `text`, as U+XXXX."""
    return sorted({f"U+{ord(c):04X}" for c in text if c in SHOWN_ESCAPED})


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def page_json(html: str, element: str) -> Any:
    """The JSON a page inlines in `<script type="application/json" id=ELEMENT>`."""
    found = re.search(rf'<script type="application/json" id="{element}">(.*?)</script>', html, re.S)
    assert found is not None, element
    return json.loads(found.group(1))


# -- one definition, two places -----------------------------------------------------------------


def test_the_page_and_the_terminal_escape_the_same_characters() -> None:
    for ch in SHOWN_ESCAPED:
        text = f"a{ch}b\nc"
        shown = escaped(ch)
        assert shown.startswith("\\") and raw_controls(shown) == []
        assert sanitize(text) == f"a{shown}b\\x0ac"
        assert page_text(text) == f"a{shown}b\nc"  # a page keeps the line break, and only it
        data = json_for_script({text: [text]})
        assert raw_controls(data) == [] and json.loads(data) == {page_text(text): [page_text(text)]}
    assert (escaped("\x9b"), escaped("\x9d"), escaped("\u2028")) == ("\\x9b", "\\x9d", "\\u2028")
    assert page_text("tab\there") == "tab\\x09here"  # as on the terminal
    assert sanitize("plain ♠ é 漢") == page_text("plain ♠ é 漢") == "plain ♠ é 漢"


def test_no_separator_vanishes_into_a_line_break_or_a_space_before_it_is_escaped() -> None:
    text = "a\u2028b\x85c\x0cd\u2029e\x1cf\r\ng\n\n"
    assert stderr_lines(text) == ["a\u2028b\x85c\x0cd\u2029e\x1cf", "g"]  # lines end at newlines only
    assert stderr_tail_lines(text, 1) == ["g"] and stderr_lines("") == stderr_lines("\n\n") == []
    assert one_line("  x \n\t y\u2028z\x85 ") == "x y\u2028z\x85"
    assert sanitize(one_line("y\u2028z")) == "y\\u2028z"


# -- a real hostile bot ---------------------------------------------------------------------------


@pytest.mark.process
def test_a_bots_controls_reach_no_page_and_no_terminal_raw(tmp_path: Path) -> None:
    log_path = tmp_path / "logs" / "controls.json"
    config: dict[str, Any] = {
        "match": "controls",
        "seed": 5,
        "rules": {"preset": "standard", "layout": "2x2", "holes": 1},
        "players": [{"name": "ctl", "command": bot("control_bot.py")}, {"name": "house", "builtin": "greedy"}],
        "time": {"startup_ms": 20000, "move_ms": 10000},
        "faults": {"policy": "fallback", "fallback": "greedy", "max_faults": 10},
        "log": {"path": str(log_path), "transcript": True},
    }
    done = run(tmp_path, config)
    assert done.returncode == 0, done.stdout + done.stderr
    log = json.loads(log_path.read_text(encoding="utf-8"))
    player = log["players"][0]
    # The log keeps what the bot sent, as it sent it: what shows it is what must escape it.
    assert "\x9b" in player["reported_name"] and "\u2028" in (player["stderr"] or "")
    assert any("\x9d" in (f.get("line") or "") for f in log["faults"]), log["faults"]
    terminal = {"run": done.stdout + done.stderr}
    for args in (["replay", str(log_path)], ["replay", "--check", str(log_path)], ["audit", str(log_path)]):
        shown = golfref(*args)
        assert shown.returncode == 0, shown.stdout + shown.stderr
        terminal[" ".join(args[:2])] = shown.stdout + shown.stderr
    for what, text in terminal.items():
        assert raw_controls(text) == [], (what, text[:2000])
    # replay shows the reported name and quotes the junk line, each character escaped.
    assert "ctl\\x9b31mred\\x9b0m \\x9d" in terminal["replay " + str(log_path)], terminal
    assert "line: junk \\x9b31mred\\x9b0m \\x9d0;owned" in terminal["replay " + str(log_path)]
    for seat in (None, 0):
        page = tmp_path / f"page-{seat}.html"
        args = ["replay", str(log_path), "--html", str(page), *([] if seat is None else ["--seat", str(seat)])]
        assert golfref(*args).returncode == 0
        html = page.read_text(encoding="utf-8")
        assert raw_controls(html) == [], html[:2000]
        data, inside = page_json(html, "data"), page_json(html, "inside-data")
        texts = [*strings(data), *strings(inside)]
        assert [t for t in texts if raw_controls(t)] == []
        # Shown, escaped: the reported name, the stderr, the fault line, the bot panel's stderr lines.
        assert sanitize(player["reported_name"]) in texts, seat
        assert page_text(player["stderr"]) in texts, seat
        assert any("junk \\x9b31mred" in t for t in texts), seat
        assert any(t.startswith("request ") and "\\x9d0;owned\\x9c" in t for t in texts), seat


@pytest.mark.process
def test_a_bots_controls_reach_neither_the_report_nor_the_standings_raw(tmp_path: Path) -> None:
    control = [sys.executable, str(Path(bot("control_bot.py")[1])), "quit"]
    (tmp_path / "t.yaml").write_text(
        "tournament: t\nrules: {preset: standard, layout: 2x2, holes: 1}\n"
        f"players:\n  - {{name: ctl, command: {json.dumps(control)}}}\n  - {{name: house, builtin: greedy}}\n"
        "deal_sets: 1\nseed: 3\nresults: out\nsandbox: {enabled: false}\n",
        encoding="utf-8",
    )
    played = golfref("tournament", str(tmp_path / "t.yaml"), "-q")
    assert played.returncode == 1, played.stdout + played.stderr  # the bot's exit ended its seat
    report = tmp_path / "report.html"
    shown = golfref("standings", str(tmp_path / "out"), "--html", str(report))
    assert shown.returncode == 0, shown.stdout + shown.stderr  # standings re-prints: no gate, no faults policy
    for text in (played.stdout + played.stderr, shown.stdout + shown.stderr):
        assert raw_controls(text) == [], text[:2000]
    # The fault summary quotes the bot's stderr tail, each character escaped.
    assert "its stderr in match 0 (exited) ends with:" in shown.stderr
    assert "request 1: \\x9b31mred\\x9b0m \\x9d0;owned\\x9c" in shown.stderr, shown.stderr
    pages = [report, *sorted((tmp_path / "report-replays").iterdir())]
    assert len(pages) == 1 + 2 * 3  # the report, and per match its replay and two seat pages
    escaped_stderr = []
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert raw_controls(html) == [], (page.name, html[:2000])
        texts = list(strings(page_json(html, "data")))
        assert [t for t in texts if raw_controls(t)] == [], page.name
        escaped_stderr += [t for t in texts if "\\x9d0;owned\\x9c" in t and "ls\\u2028ps\\u2029" in t]
    assert escaped_stderr, "no replay page shows the bot's stderr"
