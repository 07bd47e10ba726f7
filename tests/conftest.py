"""Shared test setup: hypothesis profiles, the path to test bots, and known signal
dispositions for a child a test sends signals to.

Profiles: `ci` (the default: a fixed, moderate number of examples) and `thorough`
(on demand: `HYPOTHESIS_PROFILE=thorough make test`).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

TESTS = Path(__file__).parent
ROOT = TESTS.parent
BOTS = TESTS / "bots"


def default_signals(*ignored: signal.Signals) -> Callable[[], None]:
    """A preexec function: the child starts with the stop signals at their defaults, whatever
    the test process inherited (a suite started in the background ignores SIGINT), except
    `ignored`, which it starts ignoring (as under nohup)."""

    def reset() -> None:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN if sig in ignored else signal.SIG_DFL)

    return reset
