"""The HTML replay page of a big match: its size, and how fast Chromium draws it (issue 25).

A 36-hole 8-player match of random built-in players (whose holes run longest), in the
default layout (2x3) and in 3x3, written with `golfref replay --html`'s `replay_html`, opened
from disk in headless Chromium (Debian's `chromium`, driven by Playwright, as the viewer
tests do). Figures, each the median of several loads:

- the page's size, and the size its frames would have unpacked (one full table per frame);
- opened: from the start of navigation to the table drawn (the page's script records
  `golfrefReplay.drawn` at the end of its first draw: reading the data, unpacking the frames,
  drawing the first frame, the charts and the move list); the goal is under 200 ms;
- a step: the mean time of `golfrefReplay.show(i)` over every frame, one after the other;
- a jump: showing the last frame from the first.

Skipped with the reason when chromium or the playwright package is missing.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path

from golfref.api import match_config
from golfref.api import run as run_match
from golfref.record.log import read_log
from golfref.show.html_replay import json_for_script, replay_data, replay_html

GOAL_MS = 200.0
"""Issue 25: a 36-hole 8-player match's table drawn in under 0.2 s."""


def big_match(directory: Path, layout: str) -> Path:
    """Play the 36-hole 8-player match of random built-ins in `layout`; returns its log."""
    config = match_config(
        [{"name": f"player-{i}", "builtin": "random"} for i in range(8)],
        preset="arena" if layout != "2x3" else "classic",
        rules={"holes": 36, "layout": layout},
        seed=11,
        log=str(directory / f"big-{layout}.json"),
    )
    return run_match(config).log_path


_STEPS = """() => {
  const t0 = performance.now();
  for (let i = 0; i < golfrefReplay.frames; i++) golfrefReplay.show(i);
  const each = (performance.now() - t0) / golfrefReplay.frames;
  golfrefReplay.show(0);
  const t1 = performance.now();
  golfrefReplay.show(golfrefReplay.frames - 1);
  return [each, performance.now() - t1, golfrefReplay.frames];
}"""


def measure(page_path: Path, chromium: str, loads: int) -> tuple[float, float, float, int]:
    """Median opened ms over `loads` loads, and one pass's step and jump ms, and the frame count."""
    from playwright.sync_api import sync_playwright

    url = page_path.resolve().as_uri()
    opened: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            for _ in range(loads):
                page.goto(url)
                opened.append(float(page.evaluate("golfrefReplay.drawn")))
            step, jump, frames = page.evaluate(_STEPS)
            context.close()
        finally:
            browser.close()
    return statistics.median(opened), float(step), float(jump), int(frames)


def run(quick: bool = False) -> None:
    """Print the page sizes and Chromium's draw times."""
    print("viewer: the replay page of a 36-hole 8-player match (random built-ins), in headless Chromium")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        print("  skipped: needs the playwright package (make install puts it in .venv)")
        return
    if chromium is None:
        print("  skipped: needs chromium (apt-get install chromium)")
        return
    loads = 3 if quick else 7
    with tempfile.TemporaryDirectory() as tmp:
        for layout in ("2x3",) if quick else ("2x3", "3x3"):
            doc = read_log(big_match(Path(tmp), layout))
            start = time.perf_counter()
            page = replay_html(doc)
            built = time.perf_counter() - start
            full = len(json_for_script(replay_data(doc)).encode("utf-8"))
            path = Path(tmp) / f"big-{layout}.html"
            path.write_text(page, encoding="utf-8")
            size = len(page.encode("utf-8"))
            opened, step, jump, frames = measure(path, chromium, loads)
            verdict = "under" if opened < GOAL_MS else "OVER"
            print(
                f"  {layout}: {frames} frames, page {size / 1e6:.2f} MB (frames unpacked: {full / 1e6:.2f} MB), "
                f"written in {built:.1f} s"
            )
            print(
                f"    opened to the table drawn: median {opened:.0f} ms of {loads} loads ({verdict} the "
                f"{GOAL_MS:.0f} ms goal); a step {step:.2f} ms (mean over every frame); a jump to the end {jump:.1f} ms"
            )
