"""Shared test setup: hypothesis profiles and the path to test bots.

Profiles: `ci` (the default: a fixed, moderate number of examples) and `thorough`
(on demand: `HYPOTHESIS_PROFILE=thorough make test`).
"""

from __future__ import annotations

import os
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
