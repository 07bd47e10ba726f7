"""The tournament report (golfref/show/html_report.py, golfref/show/viewer/standings.*), written by the CLI and
opened in headless Chromium.

Two small tournaments of built-ins: one whose player names are markup and script (nothing of it
may run or render), and one with an SPRT and a gate whose report the docs show (with
GOLDEN_UPDATE=1 its screenshot is written to docs/report.png). The report's numbers are checked
against the statistics recomputed here from the store's records, its links are followed to the
replay and seat pages and back, every bar chart must carry its numbers as text, and every colour
pair of text on the page must have WCAG AA contrast (4.5:1), computed from the page's styles.

The browser is Debian's `chromium`, driven by Playwright for Python; where either is missing the
browser tests skip with a one-line reason.
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

from golfref.show.html_replay import render_html
from golfref.show.html_report import report_data
from golfref.tournament.results import Verdicts, tournament_results
from golfref.tournament.runner import load_stored
from tests.browser import needs_browser
from tests.conftest import ROOT
from tests.test_outcomes import sweep
from tests.test_tournament_text import SWEEP_BOUND, stored, strict_json

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PLANTED = ['<b class="planted">b</b>', "<script>window.__pwned=1</script>", "<img src=x onerror=__pwned=2>"]


def golfref(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "golfref.cli.app", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def page_data(page_html: str) -> dict[str, Any]:
    """The JSON data inlined in a page."""
    match = re.search(r'<script type="application/json" id="data">(.*?)</script>', page_html, re.S)
    assert match is not None
    return json.loads(match.group(1))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def planted_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small finished round robin of built-ins whose names are markup and script."""
    tmp = tmp_path_factory.mktemp("planted")
    builtins = ["greedy", "random", "greedy"]
    players = "".join(f"  - {{name: {json.dumps(n)}, builtin: {b}}}\n" for n, b in zip(PLANTED, builtins, strict=True))
    (tmp / "t.yaml").write_text(
        f"tournament: t\nrules: {{preset: standard, layout: 2x2, holes: 2}}\nplayers:\n{players}deal_sets: 2\n"
        "seed: 3\nresults: out\n",
        encoding="utf-8",
    )
    done = golfref("tournament", str(tmp / "t.yaml"), "-q")
    assert done.returncode == 0, done.stderr
    return tmp / "out"


@pytest.fixture(scope="module")
def verdicts_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament with an SPRT and a gate, its report written by `golfref tournament --html`."""
    tmp = tmp_path_factory.mktemp("verdicts")
    (tmp / "t.yaml").write_text(
        "tournament: three built-ins\nrules: {preset: knock, layout: 2x2, holes: 3}\n"
        "players:\n  - {name: good, builtin: good}\n  - {name: greedy, builtin: greedy}\n"
        "  - {name: random, builtin: random}\ndeal_sets: 20\nseed: 3\nresults: out\n"
        "stop:\n  sprt: {player: greedy, baseline: random, d0: 0, d1: -10, alpha: 0.1, beta: 0.1}\n"
        "gate: {player: good, baseline: greedy, margin: 3}\n",
        encoding="utf-8",
    )
    # Relative paths, so that the page names the directory as a user would see it (docs/report.png).
    done = golfref("tournament", "t.yaml", "-q", "--html", "report.html", cwd=tmp)
    assert done.returncode == 0, done.stderr
    assert "replays, each with its seats' pages" in done.stderr
    return tmp


# -- what the CLI writes -------------------------------------------------------------------------


@pytest.mark.process
def test_standings_html_writes_the_report_a_replay_and_seat_pages_per_match(planted_dir: Path, tmp_path: Path) -> None:
    # One log gone: its match is listed with the reason, without a link, and a warning says so.
    broken = tmp_path / "copy"
    shutil.copytree(planted_dir, broken)
    (broken / "logs" / "m00001-d0.json").unlink()
    out = tmp_path / "report.html"
    done = golfref("standings", str(broken), "--html", str(out))
    assert done.returncode == 0, done.stderr
    assert "standings" in done.stdout and "outcomes" in done.stdout  # the tables print as without --html
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "logs/m00001-d0.json" in warnings[0]
    folder = tmp_path / "report-replays"
    whole = sorted(p.name for p in folder.glob("m?????-d?.html"))
    seats = sorted(p.name for p in folder.glob("*.seat*.html"))
    assert len(whole) == 11 and "m00001-d0.html" not in whole
    assert seats == sorted(f"{w[:-5]}.seat{s}.html" for w in whole for s in (0, 1))
    data = page_data(out.read_text(encoding="utf-8"))
    assert len(data["matches"]) == 12 and [m["replay"] for m in data["matches"]].count(None) == 1
    assert sorted(data["players"]) == sorted(PLANTED)
    # Every replay page links back to the report, relative to its own folder.
    for name in whole[:2] + seats[:2]:
        assert page_data((folder / name).read_text(encoding="utf-8"))["report"] == "../report.html"
    seat_page = page_data((folder / seats[1]).read_text(encoding="utf-8"))
    assert seat_page["seat"] == 1 and seat_page["seed"] is None  # the one gate: a seat page is the seat's


@pytest.mark.process
def test_no_replays_writes_the_report_alone(planted_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    done = golfref("standings", str(planted_dir), "--html", str(out), "--no-replays")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "r-replays").exists() and "no replay pages" in done.stderr
    data = page_data(out.read_text(encoding="utf-8"))
    assert data["replays"] is False and all(m["replay"] is None and m["problem"] is None for m in data["matches"])
    alone = golfref("standings", str(planted_dir), "--no-replays")
    assert alone.returncode == 2 and alone.stderr.strip().startswith("golfref: error: --no-replays goes with --html")


@pytest.mark.process
def test_standings_html_of_a_directory_without_results_is_one_line(tmp_path: Path) -> None:
    done = golfref("standings", str(tmp_path), "--html", str(tmp_path / "r.html"))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "no tournament results" in done.stderr


@pytest.mark.process
def test_the_report_data_are_the_statistics_of_the_store(verdicts_dir: Path) -> None:
    data = page_data((verdicts_dir / "report.html").read_text(encoding="utf-8"))
    stored = load_stored(verdicts_dir / "out")
    counted = stored.counted()
    # Wins, draws and losses by the penalised places, counted here from the records alone.
    w = d = losses = 0
    per_set: dict[int, float] = {}
    for r in counted:
        if "greedy" not in r.seating or "random" not in r.seating:
            continue
        g, x = r.placings[r.seating.index("greedy")], r.placings[r.seating.index("random")]
        w, d, losses = w + (g < x), d + (g == x), losses + (g > x)
        per_set[r.deal_set] = per_set.get(r.deal_set, 0.0) + (1.0 if g < x else 0.5 if g == x else 0.0)
    (pair,) = [p for p in data["outcomes"]["pairs"] if (p["a"], p["b"]) == ("greedy", "random")]
    assert (pair["wins"], pair["draws"], pair["losses"]) == (w, d, losses) and len(data["outcomes"]["pairs"]) == 3
    paired = [0] * 5
    for points in per_set.values():
        paired[round(2 * points)] += 1
    assert pair["paired"] == paired and pair["deal_sets"] == len(per_set)
    # The SPRT's trace: its last LLR is the one the tournament stopped on, past one of its bounds.
    sprt = data["sprt"]
    assert sprt["player"] == "greedy" and sprt["d1"] == -10 and len(sprt["trace"]) == len(per_set)
    assert sprt["trace"][-1]["llr"] >= sprt["upper"] or sprt["trace"][-1]["llr"] <= sprt["lower"]
    assert data["gate"]["verdict"] == "pass" and len(data["gate"]["trace"]) == len(per_set)
    # docs/TOURNAMENT_STATS.md quotes this very trace.
    quoted = "".join(f"    {line}\n" for line in sprt["lines"])
    assert quoted in (ROOT / "docs" / "TOURNAMENT_STATS.md").read_text(encoding="utf-8")
    # Hole endings: every counted hole of each player once.
    holes = {row[0]: int(row[1]) for row in data["endings"]["rows"]}
    played = {n: sum(len(r.hole_scores) * r.seating.count(n) for r in counted) for n in ("good", "greedy", "random")}
    assert holes == played


@pytest.mark.parametrize("a_wins", [True, False], ids=["won all", "lost all"])
def test_a_sweep_on_the_report_is_words_and_a_finite_bound(a_wins: bool) -> None:
    # Once `-inf [-inf, -inf]` in the outcomes table; the page's data is read by JSON.parse, which takes no inf.
    results = tournament_results(stored(sweep(6, a_wins), "A"), Verdicts(None, None, None, None))
    page = render_html(report_data(results, {}, {}, {}, replays=False), "standings")
    data = page_data(page)
    assert strict_json(json.dumps(data)) == data
    for key in ("outcomes", "gauntlet"):
        (row,) = data[key]["rows"]
        assert not any(re.search(r"inf|nan", cell, flags=re.I) for cell in row), row
        cells = ["n/a (won all)", f">= {SWEEP_BOUND}"] if a_wins else ["n/a (lost all)", f"<= -{SWEEP_BOUND[1:]}"]
        elo = data[key]["headers"].index("Elo")
        assert row[elo : elo + 2] == cells
    (pair,) = data["outcomes"]["pairs"]
    assert pair["elo"] is None and pair["sweep"] == ("won_all" if a_wins else "lost_all")
    assert "n/a at a sweep" in data["outcomes"]["notes"]["Elo"] and "infinite" not in data["outcomes"]["notes"]["Elo"]


# -- in the browser ------------------------------------------------------------------------------


class Opened:
    """A page opened on a file, which may open files under `root` and nothing else; errors recorded."""

    def __init__(
        self, browser: Browser, path: Path, root: Path, viewport: dict[str, int] = DESKTOP, scheme: str = "light"
    ) -> None:
        self.context = browser.new_context(viewport=viewport, color_scheme=scheme)  # type: ignore[arg-type]
        self.page: Page = self.context.new_page()
        self.root = root.resolve().as_uri()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.context.route(
            "**/*", lambda route: route.continue_() if route.request.url.startswith(self.root) else route.abort()
        )
        self.page.goto(path.resolve().as_uri())

    def close(self) -> None:
        self.context.close()

    def check_quiet(self) -> None:
        assert all(u.startswith(self.root) for u in self.requests), f"requests left the folder: {self.requests}"
        assert self.errors == [], f"console errors: {self.errors}"


@pytest.mark.process
@needs_browser
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_report_shows_its_tables_safely_and_fits(
    browser: Browser, planted_dir: Path, tmp_path: Path, viewport: dict[str, int]
) -> None:
    out = tmp_path / "report.html"
    assert golfref("standings", str(planted_dir), "--html", str(out), "--no-replays").returncode == 0
    opened = Opened(browser, out, tmp_path, viewport)
    page = opened.page
    try:
        for table, rows in (("standings", 3), ("pairwise", 3), ("outcomes", 3), ("ratings", 3), ("endings", 3),
                            ("player-seats", 6), ("seats", 2), ("matches", 12)):  # fmt: skip
            assert page.locator(f"#{table} tbody tr").count() == rows, table
        assert page.locator("#deal-sets details").count() == 3
        assert page.locator("#sprt-section").is_hidden() and page.locator("#gauntlet-section").is_hidden()
        assert page.evaluate("window.__pwned") is None
        assert page.locator(".planted, img").count() == 0
        text = page.evaluate("document.body.innerText")
        assert all(name in text for name in PLANTED)
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], "horizontal overflow"
        # Every chart label at 11 px or more, as drawn (the charts are as wide as their box).
        sizes = page.eval_on_selector_all("#standings-bars svg text, #pairwise-bars svg text, #rating-chart svg text",
                                          "ns => ns.map(n => parseFloat(getComputedStyle(n).fontSize) * "
                                          "n.ownerSVGElement.getBoundingClientRect().width / "
                                          "n.ownerSVGElement.viewBox.baseVal.width)")  # fmt: skip
        assert sizes and min(sizes) >= 11 - 0.01, min(sizes)
        # Every column note sits under its table: one line per column whose meaning is not obvious.
        assert page.locator("#outcomes-notes li").count() == 4 and page.locator("#endings-notes li").count() == 5
        opened.check_quiet()
    finally:
        opened.close()


_BARS = """id => [...document.querySelectorAll(`#${id} svg[role=img]`)].map(s => ({
  label: s.getAttribute('aria-label'), title: s.querySelector('title').textContent,
  caption: s.parentNode.querySelector('figcaption').textContent,
  bars: [...s.querySelectorAll('g.bar')].map(g => [g.dataset.label, g.querySelector('title').textContent]),
}))"""


@pytest.mark.process
@needs_browser
def test_the_interval_bars_carry_their_numbers_as_text(browser: Browser, verdicts_dir: Path) -> None:
    out = verdicts_dir / "report.html"
    data = page_data(out.read_text(encoding="utf-8"))
    opened = Opened(browser, out, verdicts_dir)
    try:
        (chart,) = opened.page.evaluate(_BARS, "standings-bars")
        assert chart["label"] == chart["title"] and chart["caption"]
        for bar in data["standings_bars"]:
            said = f"{bar['label']}: {bar['mean']:.3f}, 95% CI [{bar['low']:.3f}, {bar['high']:.3f}]"
            assert said in chart["label"]
            assert [said] == [t for label, t in chart["bars"] if label == bar["label"]]
        (pairs,) = opened.page.evaluate(_BARS, "pairwise-bars")
        bar = data["pairwise_bars"][0]
        said = f"{bar['label']}: {bar['mean']:+.3f}, 95% CI [{bar['low']:+.3f}, {bar['high']:+.3f}]"
        assert len(pairs["bars"]) == 3 and said in pairs["label"]
        # The traces: a chart with a text alternative naming its last value, and every value in a table.
        llr = data["sprt"]["trace"][-1]["llr"]
        label = opened.page.get_attribute("#sprt-chart svg[role=img]", "aria-label") or ""
        assert f"ending at {llr:.3f}" in label
        assert opened.page.locator("#sprt-trace tbody tr").count() == len(data["sprt"]["trace"])
        assert opened.page.get_attribute("#gate-chart svg[role=img]", "aria-label")
        verdicts = opened.page.locator("#verdicts li").all_inner_texts()
        assert verdicts[0].startswith("Gate: pass: good - greedy = ") and verdicts[1].startswith("SPRT: SPRT accept")
        opened.check_quiet()
    finally:
        opened.close()


@pytest.mark.process
@needs_browser
def test_the_links_open_the_replay_and_seat_pages_and_they_link_back(browser: Browser, verdicts_dir: Path) -> None:
    out = verdicts_dir / "report.html"
    opened = Opened(browser, out, verdicts_dir)
    page = opened.page
    try:
        page.locator("#matches a.replay-link").first.click()
        page.wait_for_selector("#seats .seat")
        # The replay page writes its moment into the address (#hole=0&step=deal): the file is what counts.
        assert page.url.split("#")[0].endswith("/report-replays/m00000-d0.html")
        assert page.locator("#seats .seat").count() == 2
        page.locator("#report-link").click()
        page.wait_for_selector("#standings tbody tr")
        assert page.url == out.resolve().as_uri()
        page.locator("#matches tr[data-match='1'] a.seat-link[data-seat='1']").click()
        page.wait_for_selector("#seats .seat")
        assert page.url.split("#")[0].endswith("/report-replays/m00001-d0.seat1.html")
        assert page.evaluate("JSON.parse(document.getElementById('data').textContent).seat") == 1
        page.locator("#report-link").click()
        page.wait_for_selector("#matches")
        opened.check_quiet()
    finally:
        opened.close()


# Every element with its own text, and every SVG text: its colour and the colour behind it (the first
# ancestor with a background that is not transparent), as the browser computed them.
_COLOUR_PAIRS = """() => {
  const pairs = [];
  const behind = node => {
    for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
      const bg = getComputedStyle(n).backgroundColor;
      if (bg && bg !== 'transparent' && !bg.endsWith(', 0)')) return bg;
    }
    return 'rgb(255, 255, 255)';
  };
  for (const n of document.querySelectorAll('body *')) {
    if (n.closest('[hidden]') || ['script', 'style', 'title'].includes(n.tagName.toLowerCase())) continue;
    const own = [...n.childNodes].some(c => c.nodeType === 3 && c.textContent.trim());
    if (!own) continue;
    const style = getComputedStyle(n);
    const ink = n instanceof SVGElement ? style.fill : style.color;
    pairs.push({ what: n.tagName + '.' + (n.getAttribute('class') || '') + ' ' + n.textContent.slice(0, 30),
                 ink: ink, paper: behind(n instanceof SVGElement ? n.ownerSVGElement : n) });
  }
  return pairs;
}"""


def _luminance(colour: str) -> float:
    r, g, b = (int(x) / 255 for x in re.findall(r"[\d.]+", colour)[:3])

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a: str, b: str) -> float:
    """The WCAG contrast ratio of two CSS rgb() colours."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_the_contrast_formula_by_hand() -> None:
    assert contrast("rgb(0, 0, 0)", "rgb(255, 255, 255)") == pytest.approx(21.0)
    assert contrast("rgb(87, 96, 106)", "rgb(255, 255, 255)") == pytest.approx(6.4, abs=0.05)  # the muted grey


@pytest.mark.process
@needs_browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_colour_pair_of_the_report_has_aa_contrast(browser: Browser, verdicts_dir: Path, scheme: str) -> None:
    opened = Opened(browser, verdicts_dir / "report.html", verdicts_dir, scheme=scheme)
    try:
        opened.page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        pairs = opened.page.evaluate(_COLOUR_PAIRS)
        assert len(pairs) > 100
        low = [(p["what"], p["ink"], p["paper"], round(contrast(p["ink"], p["paper"]), 2)) for p in pairs
               if contrast(p["ink"], p["paper"]) < 4.5]  # fmt: skip
        assert low == []
        # The bars themselves (not text): 3:1 against the page, WCAG's rule for graphics.
        paper = opened.page.evaluate("getComputedStyle(document.body).backgroundColor")
        for marks, style in (("g.bar .interval, svg .axis", "stroke"), ("g.bar .mean", "fill")):
            colours = opened.page.eval_on_selector_all(marks, f"ns => ns.map(n => getComputedStyle(n).{style})")
            assert colours and all(contrast(c, paper) >= 3.0 for c in colours), (marks, colours, paper)
        if os.environ.get("GOLDEN_UPDATE") and scheme == "light":
            opened.page.evaluate("document.querySelectorAll('details').forEach(d => d.open = false)")
            opened.page.screenshot(path=str(ROOT / "docs" / "report.png"), full_page=False)
            opened.page.locator("#sprt-section").screenshot(path=str(ROOT / "docs" / "report-sprt.png"))
        opened.check_quiet()
    finally:
        opened.close()


@pytest.mark.process
@needs_browser
def test_a_gauntlet_report_shows_the_challenger_against_each_opponent(browser: Browser, tmp_path: Path) -> None:
    (tmp_path / "g.yaml").write_text(
        "tournament: g\nrules: {preset: standard, layout: 2x2, holes: 2}\nplayers:\n  - {name: new, builtin: good}\n"
        "  - {name: greedy, builtin: greedy}\n  - {name: random, builtin: random}\n"
        "format: {type: gauntlet, challenger: new, table: 2}\ndeal_sets: 3\nseed: 4\nresults: out\n",
        encoding="utf-8",
    )
    done = golfref("tournament", "g.yaml", "-q", "--html", "g.html", "--no-replays", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^gauntlet: new against each opponent", done.stdout, flags=re.M)
    data = page_data((tmp_path / "g.html").read_text(encoding="utf-8"))
    stored = load_stored(tmp_path / "out")
    gauntlet = data["gauntlet"]
    assert gauntlet["challenger"] == "new" and [row[0] for row in gauntlet["rows"]] == ["greedy", "random"]
    # Each row is new against that opponent alone: its deal sets' differences, recomputed here.
    for row, bar in zip(gauntlet["rows"], gauntlet["bars"], strict=True):
        diffs = []
        shared = [r for r in stored.counted() if row[0] in r.seating]
        for d in sorted({r.deal_set for r in shared}):
            ms = [r for r in shared if r.deal_set == d]

            def per_hole(name: str, ms: list[Any] = ms) -> float:
                return sum(sum(h[r.seating.index(name)] for h in r.hole_scores) for r in ms) / (2 * len(ms))

            diffs.append(per_hole("new") - per_hole(row[0]))
        assert float(row[2]) == pytest.approx(sum(diffs) / len(diffs), abs=5e-4) and bar["label"] == f"new - {row[0]}"
    opened = Opened(browser, tmp_path / "g.html", tmp_path)
    try:
        assert opened.page.locator("#gauntlet-section").is_visible()
        assert opened.page.locator("#gauntlet tbody tr").count() == 2
        assert opened.page.locator("#gauntlet-bars g.bar").count() == 2
        opened.check_quiet()
    finally:
        opened.close()


@pytest.mark.process
def test_standings_shows_the_stored_sprt_and_gate_but_only_its_own_gate_decides(
    verdicts_dir: Path, tmp_path: Path
) -> None:
    from golfref.tournament.runner import VERDICT_RULES_META
    from golfref.tournament.store import Store

    copy = tmp_path / "out"
    shutil.copytree(verdicts_dir / "out", copy)
    # The last run's gate made one that fails: standings shows its verdict, and still exits 0.
    with Store(copy, create=False) as store:
        kept = json.loads(store.meta(VERDICT_RULES_META) or "{}")
        kept["gate"] = {"player": "random", "baseline": "good", "margin": 0.0, "confidence": 0.95}
        store.set_meta({VERDICT_RULES_META: json.dumps(kept)})
    done = golfref("standings", str(copy), "--junit", str(tmp_path / "j.xml"))
    assert done.returncode == 0, done.stderr
    assert re.search(r"^gate: fail: random - good = .* above the margin \+0", done.stdout, flags=re.M)
    assert re.search(r"^LLR by deal sets seen: 1: \+0\.000, ", done.stdout, flags=re.M)
    assert "gate" not in (tmp_path / "j.xml").read_text(encoding="utf-8")  # nor is it a JUnit verdict
    # Its own --gate decides, as before.
    assert golfref("standings", str(copy), "--gate", "random <= good").returncode == 1


@pytest.mark.process
def test_a_damaged_stored_verdict_rule_is_one_line(verdicts_dir: Path, tmp_path: Path) -> None:
    from golfref.tournament.runner import VERDICT_RULES_META
    from golfref.tournament.store import Store

    copy = tmp_path / "out"
    shutil.copytree(verdicts_dir / "out", copy)
    with Store(copy, create=False) as store:
        store.set_meta({VERDICT_RULES_META: json.dumps({"sprt": None, "gate": {"player": "good", "baseline": "good"}})})
    done = golfref("standings", str(copy))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert f"its store's {VERDICT_RULES_META} cannot be read: gate: player and baseline are both 'good'" in done.stderr
