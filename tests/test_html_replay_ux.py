"""The replay page as people use it (issue 25), in headless Chromium: deep links, the move list
and the charts as ways to a moment, autoplay, turn and hole stepping, the key help, the last
move marked, a layout that never moves while stepping, dark mode, the print pages, contrast,
keyboard reach, chart labels on a phone; and, without a browser, the packed frames and the
size of a big match's page.

What the page shows at each step (the engine's table, a seat's knowledge) is checked in
tests/test_html_viewer.py; this module reuses its browser helpers and skips as it does.
With GOLDEN_UPDATE=1 the screenshots of docs/VIEWER.md are written to docs/.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from golfref.api import match_config, run
from golfref.record.log import read_log
from golfref.show.html_replay import pack_frames, replay_data, replay_html, unpack_frames
from tests.browser import needs_browser
from tests.conftest import ROOT, TESTS
from tests.test_html_viewer import (
    DESKTOP,
    PHONE,
    Opened,
    _all_doc_logs,
    expected_frames,
    page_data,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CLASSIC = TESTS / "logs" / "classic_4p_9holes.json"
FAULTS = TESTS / "logs" / "faults_3p.json"
POWERS = TESTS / "logs" / "arena_2x2_powers.json"
DOCS = ROOT / "docs"


def moment(frame: dict[str, Any]) -> str:
    """A frame's address as the page writes it: `#hole=H&step=S` (S `deal`, `end` or the log's step)."""
    step = {"deal": "deal", "end": "end"}.get(frame["kind"], str(frame["step"]))
    return f"#hole={frame['hole']}&step={step}"


# -- without a browser -------------------------------------------------------------------------


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize(("name", "doc"), _all_doc_logs(), ids=[n for n, _ in _all_doc_logs()])
def test_packed_frames_unpack_to_the_frames_and_add_nothing(name: str, doc: dict[str, Any]) -> None:
    seats = [None, *range(len(doc["players"]))]
    for seat in seats:
        frames = replay_data(doc, seat)["frames"]
        packed = pack_frames(frames)
        assert unpack_frames(packed) == frames, f"{name} seat {seat}"
        # Every text of the packed frames is a text of the frames: nothing new (the keys gone, "-", are numbers).
        values = [{k: v for k, v in delta.items() if k != "-"} for delta in packed["packed"]]
        assert _strings(values) <= _strings(frames), f"{name} seat {seat}"
        assert set(packed["keys"]) <= {k for f in frames for k in f}
        assert len(json.dumps(packed)) < len(json.dumps(frames)), f"{name} seat {seat}: packing made it bigger"


def test_the_report_link_is_a_relative_url_or_refused() -> None:
    doc = read_log(CLASSIC)
    assert replay_data(doc, report="../report.html")["report"] == "../report.html"
    assert replay_data(doc)["report"] is None
    for bad in (
        "javascript:alert(1)",
        " JavaScript:x",
        "https://example.com/r.html",
        "/etc/report.html",
        "",
        "//host/x",
    ):
        with pytest.raises(ValueError, match="report link"):
            replay_data(doc, report=bad)


def big_match_log(directory: Path, layout: str = "2x3", preset: str = "classic") -> Path:
    """A 36-hole 8-player match of random built-in players (whose holes run longest)."""
    config = match_config(
        [{"name": f"player-{i}", "builtin": "random"} for i in range(8)],
        preset=preset,
        rules={"holes": 36, "layout": layout},
        seed=11,
        log=str(directory / f"big-{layout}.json"),
    )
    return run(config).log_path


def test_a_36_hole_8_player_page_is_under_2_mb(tmp_path: Path) -> None:
    # In 3x3, whose holes are longer than the default 2x3's: 7.0 MB of frames unpacked (bench/viewer.py).
    doc = read_log(big_match_log(tmp_path, "3x3", "arena"))
    assert len(doc["holes"]) == 36 and len(doc["players"]) == 8
    page = replay_html(doc)
    size = len(page.encode("utf-8"))
    assert size < 2_000_000, f"{size} bytes"
    # Still one file that loads nothing, whose frames are the whole match.
    assert not re.search(r"""(?:src|href)\s*=|https?://(?!www\.w3\.org/2000/svg)""", page)
    assert len(page_data(page)["frames"]) == len(expected_frames(doc, None))


# -- in the browser ---------------------------------------------------------------------------


class At(Opened):
    """A page opened at a fragment (`#hole=...`), with a colour scheme, on a file."""

    def __init__(
        self,
        browser: Browser,
        path: Path,
        fragment: str = "",
        viewport: dict[str, int] = DESKTOP,
        scheme: str = "light",
    ) -> None:
        self.context = browser.new_context(viewport=viewport, color_scheme=scheme)  # type: ignore[arg-type]
        self.page: Page = self.context.new_page()
        self.url = path.resolve().as_uri()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url.split("#")[0]))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.context.route(
            "**/*", lambda route: route.continue_() if route.request.url.split("#")[0] == self.url else route.abort()
        )
        self.page.goto(self.url + fragment)


def write_page(tmp_path: Path, doc: dict[str, Any], seat: int | None = None, name: str = "page") -> Path:
    out = tmp_path / f"{name}.html"
    out.write_text(replay_html(doc, seat), encoding="utf-8")
    return out


def until(page: Page, expression: str, seconds: float = 30) -> None:
    """Wait until `expression` is true in the page (polled: the page's CSP forbids the eval of wait_for_function)."""
    for _ in range(int(seconds * 20)):
        if page.evaluate(expression):
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"not true within {seconds} s: {expression}")


CHECKS = (TESTS / "replay_checks.js").read_text(encoding="utf-8")


def in_page(page: Page, check: str) -> Any:
    """Run one of tests/replay_checks.js's checks in the page."""
    return page.evaluate(f"({CHECKS}).{check}()")


def frame_no(page: Page) -> int:
    return int(page.get_attribute("#table", "data-frame") or "-1")


def hash_of(page: Page) -> str:
    return str(page.evaluate("location.hash"))


@needs_browser
def test_deep_links_open_the_moment_and_the_fragment_follows(browser: Browser, tmp_path: Path) -> None:
    doc = read_log(CLASSIC)
    frames = expected_frames(doc, None)
    out = write_page(tmp_path, doc)
    target = next(i for i, f in enumerate(frames) if f["hole"] == 3 and f["step"] == 12)
    opened = At(browser, out, "#hole=3&step=12&seat=1")
    page = opened.page
    try:
        assert frame_no(page) == target
        position = page.locator("#position")
        assert (position.get_attribute("data-hole"), position.get_attribute("data-step")) == ("3", "12")
        assert "hole 3" in position.text_content() and "step 12" in position.text_content()
        # On the whole-table page, seat marks that seat's panel, and stays in the address.
        assert page.locator("#seats .seat.focus").get_attribute("data-seat") == "1"
        for k in range(1, 6):
            page.keyboard.press("ArrowRight")
            assert frame_no(page) == target + k
            assert hash_of(page) == moment(frames[target + k]) + "&seat=1"
        assert page.get_attribute("#cite", "href") == hash_of(page)
        # A changed address (a pasted link, the back button) goes there too.
        end = next(i for i, f in enumerate(frames) if f["hole"] == 5 and f["kind"] == "end")
        page.evaluate("location.hash = '#hole=5&step=end'")
        until(page, f"golfrefReplay.current === {end}")
        assert page.locator("#seats .seat.focus").count() == 0
        deal = next(i for i, f in enumerate(frames) if f["hole"] == 7)
        page.evaluate("location.hash = '#hole=7&step=deal'")
        until(page, f"golfrefReplay.current === {deal}")
        # A moment not in the log: the first step, and a note that says so (not a fault).
        page.evaluate("location.hash = '#hole=99&step=3'")
        until(page, "golfrefReplay.current === 0")
        note = page.locator("#faults li.note").first
        assert "hole 99, step 3: not in this log" in note.text_content()
        page.keyboard.press("ArrowRight")
        assert page.locator("#faults li.note").count() == 0, "the note goes with the next step"
        opened.check_quiet()
    finally:
        opened.close()
    # A seat page keeps its own seat in the address and says when a link named another.
    seat_page = write_page(tmp_path, doc, 2, "seat2")
    opened = At(browser, seat_page, "#hole=1&step=end&seat=0")
    page = opened.page
    try:
        assert frames[frame_no(page)]["hole"] == 1 and frames[frame_no(page)]["kind"] == "end"
        assert hash_of(page) == "#hole=1&step=end&seat=2"
        assert "only what seat 2" in page.locator("#faults li.note").first.text_content()
        opened.check_quiet()
    finally:
        opened.close()


@needs_browser
def test_the_move_list_the_charts_and_the_score_table_jump_to_a_moment(browser: Browser, tmp_path: Path) -> None:
    doc = read_log(CLASSIC)
    frames = expected_frames(doc, None)
    out = write_page(tmp_path, doc)
    opened = At(browser, out, "#hole=4&step=end")
    page = opened.page
    try:
        moves = page.locator("#moves a")
        assert moves.count() == sum(1 for f in frames if f["hole"] == 4)
        assert page.locator("#moves li.current a").get_attribute("aria-current") == "step"
        moves.nth(3).click()
        want = next(i for i, f in enumerate(frames) if f["hole"] == 4) + 3
        until(page, f"golfrefReplay.current === {want}")
        assert page.locator("#moves li.current").get_attribute("data-frame") == str(want)
        # A click on a hole's column of either chart shows that hole's end.
        end2 = next(i for i, f in enumerate(frames) if f["hole"] == 2 and f["kind"] == "end")
        page.click("#chart rect.pick[data-x='2']")
        assert frame_no(page) == end2
        end1 = next(i for i, f in enumerate(frames) if f["hole"] == 1 and f["kind"] == "end")
        page.click("#totals-chart rect.pick[data-x='1']")
        assert frame_no(page) == end1
        # The table is the keyboard's way: a link per hole.
        page.focus("#score-table a >> text='0'")
        page.keyboard.press("Enter")
        end0 = next(i for i, f in enumerate(frames) if f["hole"] == 0 and f["kind"] == "end")
        until(page, f"golfrefReplay.current === {end0}")
        opened.check_quiet()
    finally:
        opened.close()


@needs_browser
def test_turn_and_hole_steps(browser: Browser, tmp_path: Path) -> None:
    doc = read_log(CLASSIC)
    frames = expected_frames(doc, None)
    out = write_page(tmp_path, doc)
    opened = At(browser, out, "#hole=0&step=deal")
    page = opened.page
    try:
        data = page_data(out.read_text(encoding="utf-8"))["frames"]

        def turn(i: int) -> tuple[Any, ...]:
            f = data[i]
            return (f["hole"], f["seat"]) if f["kind"] == "step" else (f["hole"], f["kind"], i)

        # Each Shift+Right ends on the last frame of a turn: the next frame is another seat's.
        for _ in range(12):
            before = frame_no(page)
            page.keyboard.press("Shift+ArrowRight")
            now = frame_no(page)
            assert now > before
            assert now == len(frames) - 1 or turn(now) != turn(now + 1)
        page.keyboard.press("]")
        after = frame_no(page)
        page.keyboard.press("[")
        assert frame_no(page) < after and turn(frame_no(page)) != turn(after)
        page.click("#next-hole")
        assert frames[frame_no(page)]["hole"] == 1 and frames[frame_no(page)]["kind"] == "deal"
        opened.check_quiet()
    finally:
        opened.close()


@needs_browser
def test_autoplay_advances_and_stops(browser: Browser, tmp_path: Path) -> None:
    doc = read_log(FAULTS)
    frames = expected_frames(doc, None)
    out = write_page(tmp_path, doc)
    opened = At(browser, out)
    page = opened.page
    try:
        page.select_option("#speed", "8")
        page.click("#play")
        assert page.get_attribute("#play", "aria-pressed") == "true"
        until(page, "golfrefReplay.current >= 3")
        page.keyboard.press("Space")  # pause
        assert page.get_attribute("#play", "aria-pressed") == "false" and not page.evaluate("golfrefReplay.playing")
        stopped = frame_no(page)
        page.wait_for_timeout(600)  # several steps' time at 8x: a paused page stays put
        assert frame_no(page) == stopped
        # Played near the end, it stops at the last step by itself.
        page.evaluate(f"golfrefReplay.show({len(frames) - 3})")
        page.click("#play")
        until(page, "!golfrefReplay.playing")
        assert frame_no(page) == len(frames) - 1
        assert page.get_attribute("#play", "aria-pressed") == "false"
        assert page.locator("#closing").is_visible()
        opened.check_quiet()
    finally:
        opened.close()


@needs_browser
def test_question_mark_opens_and_closes_the_key_help(browser: Browser, tmp_path: Path) -> None:
    out = write_page(tmp_path, read_log(FAULTS))
    opened = At(browser, out)
    page = opened.page
    try:
        help_box = page.locator("#help")
        assert not help_box.is_visible()
        page.keyboard.press("?")
        assert help_box.is_visible()
        assert page.evaluate("document.activeElement.id") == "help-close"
        assert "Page Down" in help_box.text_content() and "Space" in help_box.text_content()
        page.keyboard.press("ArrowRight")  # keys do not step behind the help
        assert frame_no(page) == 0
        page.keyboard.press("Tab")  # and Tab stays in it
        assert page.evaluate("document.activeElement.id") == "help-close"
        if os.environ.get("GOLDEN_UPDATE"):
            page.screenshot(path=str(DOCS / "viewer-help.png"))
        page.keyboard.press("?")
        assert not help_box.is_visible()
        page.click("#help-open")
        assert help_box.is_visible()
        page.keyboard.press("Escape")
        assert not help_box.is_visible()
        assert page.evaluate("document.activeElement.id") == "help-open"
        page.keyboard.press("ArrowRight")
        assert frame_no(page) == 1
        opened.check_quiet()
    finally:
        opened.close()


def expected_marks(doc: dict[str, Any]) -> list[dict[str, Any] | None]:
    """What each frame must mark, read off the log's own action (None: a power, checked as a target)."""
    out: list[dict[str, Any] | None] = []
    for hole in doc["holes"]:
        out.append({"stock": False, "discard": False, "slots": []})  # the deal
        for step in hole["steps"]:
            if "reshuffle" in step:
                out.append({"stock": False, "discard": False, "slots": []})
                continue
            kind, _, arg = step["action"].partition(":")
            seat = step["seat"]
            want: dict[str, Any] | None = {"stock": False, "discard": False, "slots": []}
            if kind == "stock":
                want = {"stock": True, "discard": False, "slots": []}
            elif kind == "discard":
                want = {"stock": False, "discard": True, "slots": []}
            elif kind == "swap":
                want = {"stock": False, "discard": True, "slots": [[seat, int(arg)]]}
            elif kind == "throw":
                want = {"stock": False, "discard": True, "slots": []}
            elif kind in ("flip", "reveal"):
                want = {"stock": False, "discard": False, "slots": [[seat, int(arg)]]}
            elif kind in ("power", "target", "peek"):
                want = None
            out.append(want)
        if hole.get("result") is not None:
            out.append({"stock": False, "discard": False, "slots": []})  # the end
    return out


@needs_browser
@pytest.mark.parametrize("log", [CLASSIC, POWERS, TESTS / "logs" / "knock_3p.json"], ids=lambda p: p.stem)
def test_the_last_move_is_marked_on_the_table(browser: Browser, tmp_path: Path, log: Path) -> None:
    doc = read_log(log)
    out = write_page(tmp_path, doc)
    opened = At(browser, out)
    try:
        got = in_page(opened.page, "marks")
        want = expected_marks(doc)
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert g["labelled"], f"frame {i}: a marked card's text alternative does not say so"
            if w is not None:
                assert {k: g[k] for k in w} == w, f"frame {i}"
        assert any(w and w["slots"] for w in want) and any(w and w["stock"] for w in want)
        opened.check_quiet()
    finally:
        opened.close()


@needs_browser
@pytest.mark.parametrize(
    ("log", "viewport"),
    [(CLASSIC, DESKTOP), (CLASSIC, PHONE), (FAULTS, DESKTOP), (TESTS / "logs" / "reshuffle_8p_1deck.json", DESKTOP)],
    ids=["classic-desktop", "classic-phone", "faults-desktop", "8p-desktop"],
)
def test_the_layout_does_not_move_while_stepping_through_a_match(
    browser: Browser, tmp_path: Path, log: Path, viewport: dict[str, int]
) -> None:
    out = write_page(tmp_path, read_log(log))
    opened = At(browser, out, viewport=viewport)
    try:
        moved = in_page(opened.page, "stable")
        assert moved == [], f"moved at {len(moved)} frames, first: {moved[:3]}"
        opened.check_quiet()
    finally:
        opened.close()


@needs_browser
def test_dark_mode_follows_the_system_setting(browser: Browser, tmp_path: Path) -> None:
    out = write_page(tmp_path, read_log(CLASSIC))
    seen = {}
    for scheme in ("light", "dark"):
        opened = At(browser, out, "#hole=2&step=end", scheme=scheme)
        try:
            seen[scheme] = opened.page.evaluate(
                "() => [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color,"
                " getComputedStyle(document.querySelector('#seats .card:not(.cancelled)')).backgroundColor]"
            )
            if os.environ.get("GOLDEN_UPDATE") and scheme == "dark":
                opened.page.screenshot(path=str(DOCS / "viewer-dark.png"))
            opened.check_quiet()
        finally:
            opened.close()
    assert seen["light"][0] == "rgb(255, 255, 255)" and luminance(seen["light"][1]) < 0.05
    assert luminance(seen["dark"][0]) < 0.02 and luminance(seen["dark"][1]) > 0.7
    assert seen["light"][2] == seen["dark"][2] == "rgb(255, 255, 255)"  # cards stay white, as real cards


def luminance(css: str) -> float:
    """The relative luminance (WCAG 2) of a CSS `rgb(...)` colour."""
    r, g, b = (int(v) for v in re.findall(r"\d+", css)[:3])

    def lin(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


@needs_browser
def test_the_print_layout_puts_one_hole_per_page(browser: Browser, tmp_path: Path) -> None:
    doc = read_log(POWERS)
    holes = len(doc["holes"])
    assert holes > 1
    out = write_page(tmp_path, doc)
    opened = At(browser, out)
    page = opened.page
    try:
        page.emulate_media(media="print")
        until(page, "document.querySelectorAll('#print .print-hole').length > 0")
        styles = page.eval_on_selector_all(
            "#print .print-hole", "ns => ns.map(n => [n.dataset.hole, getComputedStyle(n).breakBefore])"
        )
        assert [s[0] for s in styles] == [str(h) for h in range(holes)]
        assert [s[1] for s in styles] == ["auto"] + ["page"] * (holes - 1)
        assert page.evaluate("getComputedStyle(document.querySelector('main')).display") == "none"
        pdf = page.pdf(format="A4")
        assert len(re.findall(rb"/Type\s*/Page(?!s)", pdf)) == holes
        opened.check_quiet()
    finally:
        opened.close()


def contrast_failures(page: Page, where: str) -> list[str]:
    pairs = in_page(page, "contrast")
    assert len(pairs) > 20, f"{where}: too few texts measured"
    return [
        f"{where}: {p['where']} {p['text']!r} {p['fg']} on rgb({p['bg']}): {p['ratio']:.2f}"
        for p in pairs
        if p["ratio"] < 4.5
    ]


@needs_browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_colour_pair_meets_wcag_aa(browser: Browser, tmp_path: Path, scheme: str) -> None:
    failures: list[str] = []
    cases: list[tuple[Path, list[str], int | None]] = [
        (CLASSIC, ["#hole=2&step=end", "#hole=0&step=9", "#hole=8&step=end"], None),
        (FAULTS, ["#hole=0&step=3", "#hole=1&step=end", "#hole=0&step=8"], None),
        (POWERS, ["#hole=0&step=13", "#hole=0&step=12"], None),
        (FAULTS, ["#hole=0&step=5&seat=1"], 1),
    ]
    for log, moments, seat in cases:
        out = write_page(tmp_path, read_log(log), seat, f"{log.stem}-{seat}")
        for at in moments:
            opened = At(browser, out, at, scheme=scheme)
            try:
                page = opened.page
                page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
                page.hover("#moves li.current a")
                failures += contrast_failures(page, f"{log.stem} {at}")
                page.keyboard.press("?")
                failures += contrast_failures(page, f"{log.stem} {at} help")
                opened.check_quiet()
            finally:
                opened.close()
    assert failures == [], "\n".join(failures[:20])


_FOCUSED = "(() => { const a = document.activeElement; return a.id || a.getAttribute('href') || a.tagName; })()"


@needs_browser
def test_every_control_is_reached_with_the_keyboard(browser: Browser, tmp_path: Path) -> None:
    out = write_page(tmp_path, read_log(FAULTS))
    opened = At(browser, out, "#hole=1&step=end")
    page = opened.page
    try:
        wanted = page.evaluate(
            "() => [...document.querySelectorAll('main button, main a[href], main select, main input, header summary,"
            " header a[href]')].filter(n => n.getClientRects().length).length"
        )
        reached = set()
        for _ in range(wanted + 10):
            page.keyboard.press("Tab")
            reached.add(page.evaluate(_FOCUSED))
        assert {
            "first",
            "prev-hole",
            "prev-turn",
            "prev",
            "play",
            "next",
            "next-turn",
            "next-hole",
            "last",
            "slider",
            "speed",
            "hole",
            "help-open",
            "cite",
        } <= reached
        assert "#hole=1&step=0" in reached  # the move list
        assert "#hole=0&step=end" in reached  # the score table
        assert len(reached) >= wanted
        # Charts carry a text alternative: a label and a title naming what they show.
        labels = page.eval_on_selector_all(
            "#chart svg, #totals-chart svg",
            "ns => ns.map(n => [n.getAttribute('role'), n.getAttribute('aria-label'),"
            " n.querySelector('title').textContent])",
        )
        assert len(labels) == 2
        for role, label, title in labels:
            assert role == "img" and label == title and "echo" in label and "holes 0 to 1" in label
        opened.check_quiet()
    finally:
        opened.close()


@needs_browser
def test_chart_labels_on_a_phone_are_11_px_or_more(browser: Browser, tmp_path: Path) -> None:
    doc = read_log(CLASSIC)
    out = write_page(tmp_path, doc)
    opened = At(browser, out, "#hole=8&step=end", viewport=PHONE)
    page = opened.page
    try:
        sizes = page.evaluate(
            """() => [...document.querySelectorAll('#chart svg text, #totals-chart svg text')].map(t => {
              const svg = t.ownerSVGElement;
              const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
              return parseFloat(getComputedStyle(t).fontSize) * scale;
            })"""
        )
        assert len(sizes) > 20 and min(sizes) >= 11, min(sizes)
        # The band of the hole shown is a column, not most of the chart.
        band = page.locator("#chart rect.band").bounding_box()
        plot = page.locator("#chart svg").bounding_box()
        assert band is not None and plot is not None and band["width"] < plot["width"] / 8
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        if os.environ.get("GOLDEN_UPDATE"):
            page.screenshot(path=str(DOCS / "viewer-phone.png"), full_page=True)
        opened.check_quiet()
    finally:
        opened.close()


@needs_browser
def test_the_report_link_shows_when_set(browser: Browser, tmp_path: Path) -> None:
    doc = read_log(FAULTS)
    out = tmp_path / "m.html"
    out.write_text(replay_html(doc, report="../report.html"), encoding="utf-8")
    opened = At(browser, out)
    try:
        assert opened.page.get_attribute("#report-link", "href") == "../report.html"
        opened.check_quiet()
    finally:
        opened.close()
    plain = write_page(tmp_path, doc)
    opened = At(browser, plain)
    try:
        assert opened.page.locator("#report-link").count() == 0 and not opened.page.locator("#report").is_visible()
    finally:
        opened.close()


@needs_browser
def test_docs_screenshots(browser: Browser, tmp_path: Path) -> None:
    """The desktop screenshot of docs/VIEWER.md: a step with the last move marked (GOLDEN_UPDATE=1 writes it)."""
    out = write_page(tmp_path, read_log(CLASSIC))
    opened = At(browser, out, "#hole=2&step=54")
    try:
        assert opened.page.locator(".card[data-last]").count() >= 1
        shot = tmp_path / "viewer-step.png"
        opened.page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000
        if os.environ.get("GOLDEN_UPDATE"):
            opened.page.screenshot(path=str(DOCS / "viewer-step.png"))
        opened.check_quiet()
    finally:
        opened.close()
