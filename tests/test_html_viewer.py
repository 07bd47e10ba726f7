"""The HTML replay viewer (golfref/show/html_replay.py, golfref/show/viewer/), in headless Chromium.

Every sample log's page is opened and stepped through to its end; at each step the table
read from the page's DOM (its data- attributes) must be the engine's table at that step,
re-derived here from the log with `Game` and the engine's own knowledge bits (`up`,
`known`), not through the page's builder. A `--seat` page must show, and contain, nothing
the seat could not know at any step. Keyboard stepping, requests (none may leave the page),
console errors, layout at desktop and phone widths, and bot text planted with markup and
script are checked too.

The browser is Debian's `chromium`, driven by Playwright for Python (no browser download);
where either is missing the browser tests skip with a one-line reason. `.ci/run` installs
chromium, so CI runs them. Screenshots go to a temporary folder; with GOLDEN_UPDATE=1 the
desktop one is copied to docs/viewer.png.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from golfref.game.engine import Game, Move, Shuffle
from golfref.game.narrate import hole_label
from golfref.game.rules import rules_from_dict
from golfref.record.log import read_log, write_log
from golfref.record.matchlog import history_from_log
from golfref.record.validate import Status, validate
from golfref.show.html_replay import card_label, json_for_script, replay_data, replay_html, unpack_frames
from tests.browser import needs_browser
from tests.conftest import ROOT, TESTS
from tests.test_pretty import log_for

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

LOGS = sorted((TESTS / "logs").glob("*.json"))
SHOWN = [p for p in LOGS if validate(read_log(p)).status in (Status.VALID, Status.INCOMPLETE)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


# -- the engine's table at every step, re-derived here ------------------------------------------


def expected_frames(doc: dict[str, Any], seat: int | None) -> list[dict[str, Any]]:
    """The table at each deal, step and hole end, as `seat` (None: any seat) may know it."""
    rules = rules_from_dict(doc["rules"])
    game = Game(rules)
    mask = game.all_seats if seat is None else 1 << seat
    history = iter(history_from_log(doc))
    frames = []

    def table(g: Game, hole: int, step: int, kind: str) -> dict[str, Any]:
        def shown(c: int) -> bool:
            return g.up[c] or bool(g.known[c] & mask)

        hand = None
        if g.drawn >= 0:
            visible = not g.drawn_from_stock or shown(g.drawn)
            hand = [g.cards[g.drawn].name if visible else "", "stock" if g.drawn_from_stock else "discard"]
        return {
            "hole": hole,
            "step": step,
            "kind": kind,
            "cards": [
                [[g.cards[c].name if shown(c) else "", "1" if g.up[c] else "0"] for c in grid] for grid in g.grids
            ],
            "totals": list(g.totals),
            "to_move": g.to_move,
            "stock": len(g.stock),
            "discard": g.cards[g.discard[-1]].name if g.discard else "",
            "hand": hand,
            # What a seat could know at this moment, for the leak checks.
            "knowable": {g.cards[c].name for c in range(len(g.cards)) if shown(c)}
            | ({g.cards[g.drawn].name} if hand and hand[0] else set()),
        }

    for h, hole in enumerate(doc["holes"]):
        deal = next(history)
        assert isinstance(deal, Shuffle)
        game.apply_shuffle(deal.order)
        frames.append(table(game, h, -1, "deal"))
        for t, step in enumerate(hole["steps"]):
            event = next(history)
            if isinstance(event, Shuffle):
                game.apply_shuffle(event.order)
                frames.append(table(game, h, t, "reshuffle"))
                continue
            assert isinstance(event, Move) and "reshuffle" not in step
            before = len(game.results)
            game.apply(event.action)
            if len(game.results) > before:
                assert game.last_table is not None
                frames.append(table(game.last_table, h, t, "step"))
                result = game.results[-1]
                frames.append(
                    {
                        "hole": h,
                        "step": len(hole["steps"]),
                        "kind": "end",
                        "cards": [[[game.cards[c].name, "1"] for c in grid] for grid in result.grids],
                        "totals": list(result.totals),
                        "to_move": None,
                        "stock": None,
                        "discard": None,
                        "hand": None,
                        "knowable": {game.cards[c].name for grid in result.grids for c in grid},
                    }
                )
            else:
                frames.append(table(game, h, t, "step"))
    return frames


def page_data(page_html: str) -> dict[str, Any]:
    """The JSON data inlined in a page (a replay page's frames unpacked)."""
    match = re.search(r'<script type="application/json" id="data">(.*?)</script>', page_html, re.S)
    assert match is not None
    data = json.loads(match.group(1))
    assert isinstance(data, dict)
    if "frames" in data:  # a replay page: its frames packed, each what changed since the one before
        data["frames"] = unpack_frames(data["frames"])
    return data


def _all_doc_logs() -> list[tuple[str, dict[str, Any]]]:
    return [(p.stem, read_log(p)) for p in SHOWN] + [
        (name, log_for(name)) for name in ("standard_2p", "arena_2p_2x2", "two_decks_3p")
    ]


# -- without a browser: the file itself --------------------------------------------------------


def golfref(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "golfref.cli.app", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.process
def test_replay_html_writes_one_page_that_loads_nothing(tmp_path: Path) -> None:
    out = tmp_path / "match.html"
    done = golfref("replay", str(TESTS / "logs" / "classic_4p_9holes.json"), "--html", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    # Self-contained: no URL to fetch and no external resource of any kind.
    assert not re.search(r"""(?:src|href)\s*=|https?://(?!www\.w3\.org/2000/svg)|@import|url\(""", page), "a reference"
    assert "default-src 'none'" in page
    # A 9-hole, 4-player match under 1 MB.
    assert len(page.encode("utf-8")) < 1_000_000
    data = page_data(page)
    assert len(data["frames"]) == len(expected_frames(read_log(TESTS / "logs" / "classic_4p_9holes.json"), None))


@pytest.mark.process
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--check", "--html", "x.html"), "--html applies when showing a match, not with --check"),
        (("--html", "x.html", "--hole", "1"), "--hole applies when showing a match on the terminal, not with --html"),
        (("--html", "x.html", "--seat", "9"), "--seat 9: the match has 4 seats (0 to 3)"),
    ],
)
def test_replay_html_usage_errors_are_one_line(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    done = golfref("replay", str(TESTS / "logs" / "classic_4p_9holes.json"), *args)
    assert done.returncode == 2
    assert done.stderr.strip() == f"golfref: error: {message}"
    assert not (ROOT / "x.html").exists()


@pytest.mark.process
def test_replay_html_refuses_a_tampered_log(tmp_path: Path) -> None:
    doc = read_log(TESTS / "logs" / "standard_2p.json")
    doc["totals"][0] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    done = golfref("replay", str(bad), "--html", str(tmp_path / "out.html"))
    assert done.returncode == 1
    assert "tampered" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.html").exists()


@pytest.mark.process
def test_replay_html_to_an_unwritable_place_is_one_line(tmp_path: Path) -> None:
    target = tmp_path / "no-such-folder" / "out.html"
    done = golfref("replay", str(TESTS / "logs" / "standard_2p.json"), "--html", str(target))
    assert done.returncode == 3
    assert done.stderr.startswith(f"golfref: error: --html {target}: cannot write") and "Traceback" not in done.stderr


def test_script_data_cannot_close_its_element() -> None:
    text = json_for_script({"name": "</script><script>alert(1)</script><!--"})
    assert "<" not in text and ">" not in text
    assert json.loads(text) == {"name": "</script><script>alert(1)</script><!--"}


def test_the_page_names_each_hole_as_the_text_printer_does() -> None:
    doc = log_for("standard_2p")
    hole = doc["holes"][1]
    hole["steps"] = hole["steps"][:7]
    hole["result"] = None
    doc.update(status="interrupted", complete=False, totals=None, placings=None, error="interrupted by the user")
    frames = replay_data(doc)["frames"]
    assert [f["text"] for f in frames if f["kind"] == "deal"] == ["hole 0 of 0-1: the deal", "hole 1 of 0-1: the deal"]
    assert frames[-1]["note"] == "The log ends here: hole 1 of 0-1 was not finished (match interrupted)."


@pytest.mark.process
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the viewer's holeLabel is not run")
def test_the_viewers_hole_label_is_the_narrators() -> None:
    # The viewer keeps its own copy of the phrasing (the page has no Python): run it and compare.
    script = (ROOT / "golfref" / "show" / "viewer" / "replay.js").read_text(encoding="utf-8")
    (function,) = re.findall(r"^\s*(function holeLabel\(f\) \{.*\})$", script, flags=re.M)
    cases = [(hole, holes) for holes in (1, 2, 9, 36) for hole in sorted({0, holes // 2, holes - 1})]
    code = (
        "let RULES;\n" + function + "\n"
        f"console.log(JSON.stringify({json.dumps(cases)}.map(([hole, holes]) => "
        "{ RULES = { holes: holes }; return holeLabel({ hole: hole }); })));"
    )
    done = subprocess.run(["node", "-e", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [hole_label(hole, holes) for hole, holes in cases]


@pytest.mark.parametrize(("name", "doc"), _all_doc_logs(), ids=[n for n, _ in _all_doc_logs()])
def test_seat_pages_hold_only_what_the_seat_knew(name: str, doc: dict[str, Any]) -> None:
    rules = rules_from_dict(doc["rules"])
    for seat in range(rules.players):
        page = replay_html(doc, seat)
        data = page_data(page)
        expected = expected_frames(doc, seat)
        assert len(data["frames"]) == len(expected)
        cards = Game(rules).cards
        for i, (frame, want) in enumerate(zip(data["frames"], expected, strict=True)):
            named = {c for grid in frame["grids"] for c in grid if c is not None}
            named |= {c for c in (frame["discard"], (frame["hand"] or {}).get("card")) if c is not None}
            assert named <= want["knowable"], f"{name} seat {seat} frame {i}: {named - want['knowable']}"
            said = {c.name for c in cards if re.search(re.escape(card_label(c)) + "(?!#)", frame["text"])}
            assert said <= want["knowable"], f"{name} seat {seat} frame {i} text {frame['text']!r}"
        # Never in the file at all: the seed, a deal's order, other seats' bot output.
        assert data["seed"] is None and '"seed":null' in page
        for hole in doc["holes"]:
            assert json.dumps(hole["deal"], separators=(",", ":")) not in page
        for p in doc["players"]:
            if p["seat"] != seat and p.get("stderr"):
                assert p["stderr"] not in page
        for f in doc["faults"]:
            if f["seat"] != seat and f.get("line"):
                assert json_for_script(f["line"]) not in page


def test_a_one_hole_seat_page_never_names_a_card_the_seat_never_saw() -> None:
    doc = read_log(TESTS / "logs" / "example_1hole_2p_2x2.json")
    cards = Game(rules_from_dict(doc["rules"])).cards
    for seat in (0, 1):
        ever = set().union(*(f["knowable"] for f in expected_frames(doc, seat)))
        unseen = [c for c in cards if c.name not in ever]
        assert unseen, "the stock keeps cards nobody sees"
        page = replay_html(doc, seat)
        for c in unseen:
            assert f'"{c.name}"' not in page and card_label(c) not in page, f"seat {seat}: {c.name} is in the file"


# -- in the browser ---------------------------------------------------------------------------


class Opened:
    """A page opened on a file, recording every request, console error and page error."""

    def __init__(self, browser: Browser, path: Path, viewport: dict[str, int] = DESKTOP) -> None:
        self.context = browser.new_context(viewport=viewport)
        self.page: Page = self.context.new_page()
        self.url = path.resolve().as_uri()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        # Anything but the file itself is refused, so a stray request cannot reach the network.
        self.context.route("**/*", lambda route: route.continue_() if route.request.url == self.url else route.abort())
        self.page.goto(self.url)

    def close(self) -> None:
        self.context.close()

    def check_quiet(self) -> None:
        assert self.requests == [self.url], f"requests left the page: {self.requests[1:]}"
        assert self.errors == [], f"console errors: {self.errors}"


_READ_ALL = """() => {
  const out = [];
  for (let i = 0; i < golfrefReplay.frames; i++) {
    golfrefReplay.show(i);
    const t = document.getElementById('table').dataset;
    const stock = document.getElementById('stock');
    const discard = document.getElementById('discard');
    const hand = document.getElementById('hand');
    const seats = [...document.querySelectorAll('#seats .seat')];
    out.push({
      frame: Number(t.frame), hole: Number(t.hole), step: Number(t.step), kind: t.kind,
      cards: seats.map(s => [...s.querySelectorAll('.card')].map(c => [c.dataset.card, c.dataset.up])),
      totals: seats.map(s => Number(s.dataset.total)),
      to_move: seats.findIndex(s => s.dataset.toMove === '1'),
      stock: stock ? Number(stock.dataset.count) : null,
      discard: discard ? discard.dataset.top : null,
      hand: hand ? [hand.dataset.card, hand.dataset.from] : null,
      labels: [...document.querySelectorAll('#table .card')].every(c => c.getAttribute('aria-label')),
      text: document.getElementById('move').textContent,
    });
  }
  return out;
}"""


def check_every_step(opened: Opened, expected: list[dict[str, Any]], where: str) -> None:
    seen = opened.page.evaluate(_READ_ALL)
    assert len(seen) == len(expected), where
    for i, (got, want) in enumerate(zip(seen, expected, strict=True)):
        at = f"{where}, frame {i} (hole {want['hole']}, step {want['step']}, {want['kind']})"
        assert (got["frame"], got["hole"], got["step"], got["kind"]) == (i, want["hole"], want["step"], want["kind"]), (
            at
        )
        assert got["cards"] == want["cards"], at
        assert got["totals"] == want["totals"], at
        assert got["to_move"] == (-1 if want["to_move"] is None else want["to_move"]), at
        assert got["stock"] == want["stock"] and got["discard"] == want["discard"], at
        assert got["hand"] == want["hand"], at
        assert got["labels"], f"{at}: a card without a text alternative"


@needs_browser
@pytest.mark.parametrize("log", SHOWN, ids=[p.stem for p in SHOWN])
def test_every_step_of_the_page_is_the_engines_table(browser: Browser, tmp_path: Path, log: Path) -> None:
    doc = read_log(log)
    out = tmp_path / f"{log.stem}.html"
    out.write_text(replay_html(doc), encoding="utf-8")
    opened = Opened(browser, out)
    try:
        check_every_step(opened, expected_frames(doc, None), log.stem)
        closing = opened.page.locator("#closing")
        assert closing.is_visible(), "the closing note shows at the last step"
        assert ("Match over." if doc["status"] == "finished" else "The log ends here") in closing.text_content()
        opened.check_quiet()
    finally:
        opened.close()


@needs_browser
@pytest.mark.parametrize("name", ["standard_2p", "arena_2p_2x2", "two_decks_3p"])
def test_every_step_of_a_seat_page_is_the_seats_knowledge(browser: Browser, tmp_path: Path, name: str) -> None:
    doc = log_for(name)
    for seat in range(len(doc["players"])):
        out = tmp_path / f"{name}-{seat}.html"
        out.write_text(replay_html(doc, seat), encoding="utf-8")
        opened = Opened(browser, out)
        try:
            check_every_step(opened, expected_frames(doc, seat), f"{name} seat {seat}")
            opened.check_quiet()
        finally:
            opened.close()


@needs_browser
def test_multi_deck_cards_carry_their_deck(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "two_decks.html"
    out.write_text(replay_html(log_for("two_decks_3p")), encoding="utf-8")
    opened = Opened(browser, out)
    try:
        opened.page.keyboard.press("End")
        decks = opened.page.eval_on_selector_all("#seats .card .deck", "ns => ns.map(n => n.dataset.deck)")
        labels = opened.page.eval_on_selector_all("#seats .card", "ns => ns.map(n => n.getAttribute('aria-label'))")
        assert decks and set(decks) <= {"1", "2"}
        assert any("deck 2" in label for label in labels) and all(re.search(r"deck [12]", label) for label in labels)
    finally:
        opened.close()


def _frame(page: Page) -> int:
    return int(page.get_attribute("#table", "data-frame") or "-1")


@needs_browser
def test_keyboard_buttons_slider_and_hole_picker_step_the_match(browser: Browser, tmp_path: Path) -> None:
    doc = read_log(TESTS / "logs" / "classic_4p_9holes.json")
    out = tmp_path / "classic.html"
    out.write_text(replay_html(doc), encoding="utf-8")
    frames = expected_frames(doc, None)
    opened = Opened(browser, out)
    page = opened.page
    try:
        assert _frame(page) == 0
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        assert _frame(page) == 3
        page.keyboard.press("ArrowLeft")
        assert _frame(page) == 2
        page.keyboard.press("End")
        assert _frame(page) == len(frames) - 1
        page.keyboard.press("Home")
        assert _frame(page) == 0
        page.keyboard.press("PageDown")
        hole1 = next(i for i, f in enumerate(frames) if f["hole"] == 1)
        assert _frame(page) == hole1
        page.keyboard.press("PageUp")
        assert _frame(page) == 0
        # Tab reaches the Next button; Enter presses it.
        page.focus("#next")
        page.keyboard.press("Enter")
        assert _frame(page) == 1
        page.click("#last")
        assert _frame(page) == len(frames) - 1
        page.fill("#slider", "10")
        assert _frame(page) == 10
        page.select_option("#hole", label="4")
        assert frames[_frame(page)]["hole"] == 4 and frames[_frame(page) - 1]["hole"] == 3
        opened.check_quiet()
    finally:
        opened.close()


@needs_browser
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_layout_fits_the_screen(browser: Browser, tmp_path: Path, viewport: dict[str, int]) -> None:
    doc = read_log(TESTS / "logs" / "classic_4p_9holes.json")
    out = tmp_path / "classic.html"
    out.write_text(replay_html(doc), encoding="utf-8")
    opened = Opened(browser, out, viewport)
    page = opened.page
    try:
        # A hole's end: cancelled cards, scores, the chart with some holes.
        end = next(i for i, f in enumerate(expected_frames(doc, None)) if f["kind"] == "end" and f["hole"] == 2)
        page.evaluate(f"golfrefReplay.show({end})")
        width = viewport["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width, "horizontal overflow"
        seats = page.locator("#seats .seat")
        assert seats.count() == 4
        for i in range(4):
            box = seats.nth(i).bounding_box()
            assert box is not None and box["width"] > 100 and box["x"] >= 0 and box["x"] + box["width"] <= width
        for selector in ("#chart svg[role=img]", "#score-table", ".controls #next", "#slider"):
            box = page.locator(selector).bounding_box()
            assert box is not None and box["width"] > 0 and box["height"] > 0, selector
        assert page.locator("#score-table tbody tr").count() == 4  # holes 0-2 and the total
        shot = tmp_path / f"viewer-{'phone' if width < 600 else 'desktop'}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
        if os.environ.get("GOLDEN_UPDATE") and width >= 600:
            page.screenshot(path=str(ROOT / "docs" / "viewer.png"))
        page.keyboard.press("End")
        assert page.locator("#closing").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        opened.check_quiet()
    finally:
        opened.close()


PAYLOADS = [
    '<script>window.__pwned = "script"</script>',
    "<img src=x onerror=\"window.__pwned = 'img'\">",
    '</script><script>window.__pwned = "close"</script>',
    '<b class="planted">bold</b><!--',
    "<svg onload=\"window.__pwned = 'svg'\"></svg>]]>&amp;",
]


def planted_log(tmp_path: Path) -> tuple[Path, list[str]]:
    """faults_3p with script and markup in every text a bot (or its config) controls, sealed again."""
    doc = read_log(TESTS / "logs" / "faults_3p.json")
    planted = []

    def plant(where: str, most: int | None = None) -> str:
        text = f"{where} {PAYLOADS[len(planted) % len(PAYLOADS)]}"[:most]
        planted.append(text)
        return text

    doc["match"] = plant("match")
    for p in doc["players"]:
        p["name"] = plant(f"name{p['seat']}", 40)  # a log's names are bounded as a config's
        if "builtin" not in p:
            p["reported_name"] = plant(f"program{p['seat']}")
            p["reported_version"] = plant(f"version{p['seat']}")
            p["stderr"] = plant(f"stderr{p['seat']}") + "\n" + plant(f"stderr-more{p['seat']}")
    for i, f in enumerate(doc["faults"]):
        f["message"] = plant(f"message{i}")
        f["line"] = plant(f"line{i}")
    path = tmp_path / "planted.json"
    write_log(path, doc)
    assert validate(read_log(path)).status is Status.VALID
    return path, planted


@pytest.mark.process
@needs_browser
def test_planted_markup_and_script_in_bot_text_neither_runs_nor_renders(browser: Browser, tmp_path: Path) -> None:
    log, planted = planted_log(tmp_path)
    out = tmp_path / "planted.html"
    done = golfref("replay", str(log), "--html", str(out))
    assert done.returncode == 0, done.stderr
    opened = Opened(browser, out)
    page = opened.page
    try:
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        shown = ""
        for i in range(page.evaluate("golfrefReplay.frames")):
            page.evaluate(f"golfrefReplay.show({i})")
            assert page.evaluate("window.__pwned") is None, f"frame {i}: a planted script ran"
            assert page.locator(".planted, img, iframe, object, embed").count() == 0, f"frame {i}: planted markup"
            assert page.locator("script").count() == 3
            shown += page.evaluate("document.body.innerText")
        # Every planted text is shown as the text it is, markup and all.
        for text in planted:
            head = text.split("\n")[0]
            assert head in shown.replace("\n", " ") or head in shown, f"not shown as text: {head!r}"
        opened.check_quiet()
    finally:
        opened.close()


# -- inside a bot: each bot's times and stderr, on its own pages only --------------------------------

BIDI = "\u202e\u2066"


class HostileBrain:
    """A scripted bot whose stderr names the other seat, holds bidirectional controls, markup and an
    escape sequence, and marks each line with its seat and request (`S1R7`)."""

    def __init__(self, seat: int, other: str) -> None:
        self.seat, self.other = seat, other

    def start(self) -> Any:
        from golfref.bots.scripted import Stderr

        return (Stderr(f"S{self.seat}-start {BIDI}evil <b class='planted'>x</b>\n"),)

    def react(self, message: Any) -> Any:
        from golfref.bots.scripted import Answer, Exit, Ready, Stderr

        kind = message.get("type")
        if kind == "hello":
            return (Ready(f"hostile{self.seat}"),)
        if kind == "request":
            markup = '<img src=x onerror="window.__pwned=1">'
            text = f"S{self.seat}R{message['id']} I am {self.other} {BIDI} {markup} \x1b[31m"
            return (Stderr(text + "\n"), Answer())
        if kind == "goodbye":
            return (Stderr(f"S{self.seat}-bye\n"), Exit(0))
        return ()


@pytest.fixture(scope="module")
def hostile_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-hole match of two hostile bots, played with transcripts."""
    from tests.test_referee_scripted import play, scripted

    brains: dict[int, Any] = {0: HostileBrain(0, "bob"), 1: HostileBrain(1, "alice")}
    result, _ = play(tmp_path_factory.mktemp("hostile"), brains, [scripted("alice"), scripted("bob")],
                     log={"transcript": True}, rules={"holes": 2})  # fmt: skip
    return result.log_path


def inside_of(page_html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="inside-data">(.*?)</script>', page_html, re.S)
    assert match is not None
    data = json.loads(match.group(1))
    assert isinstance(data, dict)
    return data


def as_seat(seat: int | None) -> tuple[str, ...]:
    """The `--seat` option of a seat's page; nothing for the whole table's."""
    return ("--seat", str(seat)) if seat is not None else ()


def bot_requests(doc: dict[str, Any]) -> dict[tuple[int, int], tuple[int, int]]:
    """(hole, step) -> (seat, request) of every bot decision."""
    return {(h, t): (s["seat"], s["request"]) for h, hole in enumerate(doc["holes"])
            for t, s in enumerate(hole["steps"]) if s.get("request")}  # fmt: skip


@pytest.mark.process
def test_replay_html_finds_the_transcripts_and_a_seat_page_holds_only_its_bots_inside(
    hostile_match: Path, tmp_path: Path
) -> None:
    doc = read_log(hostile_match)
    asked = bot_requests(doc)
    for seat in (None, 0, 1):
        out = tmp_path / f"page-{seat}.html"
        done = golfref("replay", str(hostile_match), "--html", str(out), *as_seat(seat))
        assert done.returncode == 0, done.stderr
        page = out.read_text(encoding="utf-8")
        inside = inside_of(page)
        mine = [0, 1] if seat is None else [seat]
        assert inside["seats"] == mine and inside["transcripts"] == mine and inside["notes"] == []
        steps = inside["steps"]
        assert {key: (v["s"], v["r"]) for key, v in steps.items()} == {
            f"{h}:{t}": sr for (h, t), sr in asked.items() if sr[0] in mine
        }
        for turn in steps.values():
            # The transcript's clock, against a budget that is the move limit (no bank in this match).
            assert "clock" not in turn and "budget" not in turn and isinstance(turn["ms"], int)
            (line,) = turn["err"]
            # Shown escaped: the bidirectional controls and the escape sequence as visible text.
            assert line.startswith(f"S{turn['s']}R{turn['r']} I am ") and line.endswith(
                '\\u202e\\u2066 <img src=x onerror="window.__pwned=1"> \\x1b[31m'
            ), line
        for other in {0, 1} - set(mine):
            assert f"S{other}R" not in page and f"S{other}-" not in page, f"seat {seat}'s page holds seat {other}'s"
        assert BIDI[0] not in page and BIDI[1] not in page


@pytest.mark.process
@needs_browser
def test_every_step_of_a_seat_page_shows_only_its_own_bots_times_and_stderr(
    browser: Browser, hostile_match: Path, tmp_path: Path
) -> None:
    doc = read_log(hostile_match)
    asked = bot_requests(doc)
    for seat in (0, 1, None):
        out = tmp_path / f"inside-{seat}.html"
        done = golfref("replay", str(hostile_match), "--html", str(out), *as_seat(seat))
        assert done.returncode == 0, done.stderr
        opened = Opened(browser, out)
        try:
            check_every_step(opened, expected_frames(doc, seat), f"hostile seat {seat}")
            seen = opened.page.evaluate("""() => {
              const out = [];
              for (let i = 0; i < golfrefReplay.frames; i++) {
                golfrefReplay.show(i);
                const t = document.getElementById('table').dataset;
                const box = document.getElementById('inside');
                const turn = box.querySelector('.inside-turn');
                out.push({hole: Number(t.hole), step: Number(t.step), kind: t.kind, text: box.innerText,
                  body: document.body.innerText, pwned: window.__pwned === undefined ? null : window.__pwned,
                  planted: document.querySelectorAll('.planted, img').length,
                  turn: turn ? [Number(turn.dataset.seat), Number(turn.dataset.request)] : null,
                  ms: turn && turn.querySelector('[data-ms]') ? turn.querySelector('[data-ms]').dataset.clock : null});
              }
              return out;
            }""")
            mine = {0, 1} if seat is None else {seat}
            for got in seen:
                at = f"seat {seat}'s page, hole {got['hole']} step {got['step']} ({got['kind']})"
                assert got["pwned"] is None and got["planted"] == 0, at
                assert BIDI[0] not in got["body"] and BIDI[1] not in got["body"] and "\x1b" not in got["body"], at
                for other in {0, 1} - mine:
                    assert f"S{other}R" not in got["text"] and f"S{other}-" not in got["text"], at
                decided = asked.get((got["hole"], got["step"])) if got["kind"] == "step" else None
                if decided is not None and decided[0] in mine:
                    assert got["turn"] == list(decided) and got["ms"] == "transcript", at
                    assert f"S{decided[0]}R{decided[1]} I am " in got["text"], at
                    assert "\\u202e\\u2066 <img src=x" in got["text"], at
                else:
                    assert got["turn"] is None and "S0R" not in got["text"] and "S1R" not in got["text"], at
            assert any(f"S{s}-bye" in seen[-1]["text"] for s in mine), "the stderr after the last request, at the end"
            if os.environ.get("GOLDEN_UPDATE") and seat == 1:
                opened.page.evaluate("golfrefReplay.show(3)")
                opened.page.locator("#inside").screenshot(path=str(ROOT / "docs" / "viewer_inside.png"))
            opened.check_quiet()
        finally:
            opened.close()


def test_without_transcripts_the_panel_says_so_and_shows_the_logs_times_and_why_a_seat_left() -> None:
    doc = read_log(TESTS / "logs" / "faults_3p.json")
    inside = inside_of(replay_html(doc))
    assert inside["transcripts"] == [] and inside["notes"][0].startswith("No transcripts beside the log")
    ms = {f"{h}:{t}": s["ms"] for h, hole in enumerate(doc["holes"]) for t, s in enumerate(hole["steps"])
          if s.get("request")}  # fmt: skip
    assert {k: v["ms"] for k, v in inside["steps"].items()} == ms
    assert all("clock" not in v and "err" not in v for v in inside["steps"].values())
    (why,) = inside["summary"]
    assert why.startswith("quitter (seat 2) was disqualified at request 12 (exited): a fault of kind exited")
    illegal = [w for v in inside["steps"].values() for w in v.get("faults", [])]
    assert "illegal (seat 1) answered 'swap:99' to request 4 but the grid has 4 slots (0 to 3)" in illegal
    # A seat's page: its own turns only, the others' faults in no words.
    mine = inside_of(replay_html(doc, 2))
    assert {v["s"] for v in mine["steps"].values()} == {2} and mine["summary"] == [why]
    assert not any("illegal (seat 1)" in w for v in mine["steps"].values() for w in v.get("faults", []))


@pytest.mark.process
def test_a_transcript_that_cannot_be_read_is_named_on_the_page(hostile_match: Path, tmp_path: Path) -> None:
    log = tmp_path / "m.json"
    shutil.copyfile(hostile_match, log)
    shutil.copyfile(hostile_match.with_name(f"{hostile_match.stem}.seat0.transcript.jsonl"),
                    tmp_path / "m.seat0.transcript.jsonl")  # fmt: skip
    (tmp_path / "m.seat1.transcript.jsonl").write_text("not json\n", encoding="utf-8")
    out = tmp_path / "page.html"
    done = golfref("replay", str(log), "--html", str(out))
    assert done.returncode == 0, done.stderr
    inside = inside_of(out.read_text(encoding="utf-8"))
    assert inside["transcripts"] == [0]
    assert inside["notes"] == [
        f"The transcript of bob (seat 1) could not be read: {tmp_path / 'm.seat1.transcript.jsonl'} line 1: "
        "not a transcript line (a JSON object of ms, dir and line)"
    ]
