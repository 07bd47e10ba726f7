"""What the browser tests share: Debian's Chromium through Playwright, and the skip where either is missing.

A test that needs the browser is marked `needs_browser` and takes the `browser` fixture
(tests/conftest.py: one Chromium per test module).
"""

from __future__ import annotations

import shutil

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None

needs_browser = pytest.mark.skipif(
    sync_playwright is None or CHROMIUM is None,
    reason="needs chromium (apt-get install chromium; .ci/run installs it)"
    if sync_playwright is not None
    else "needs the playwright package (make install puts it in .venv)",
)
