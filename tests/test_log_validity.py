"""Every log the referee writes validates, whatever the bots do and whatever the limits.

Matches between chaotic bots (tests/bots/chaos_bot.py) and built-in players, under random
time controls (tight move limits, banks, increments, whole-match limits) and fault
policies; each log, as written on disk, must pass `golfref replay --check`'s validator.
Which faults happen depends on the machine's speed; that every log is valid must not.
"""

from __future__ import annotations

import sys
import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golfref.match.referee import run_match
from golfref.record.log import read_log
from golfref.record.validate import Status, validate
from tests.conftest import BOTS
from tests.test_referee import bot, builtin, leftovers, make_config

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inspects /proc"),
]

# Each example starts real processes: a quarter of the profile's examples.
EXAMPLES = max(8, settings.default.max_examples // 4)

time_controls = st.fixed_dictionaries(
    {
        "startup_ms": st.sampled_from([150, 5_000]),
        "move_ms": st.sampled_from([40, 120, 2_000]),
        "bank_ms": st.sampled_from([0, 60]),
        "increment_ms": st.sampled_from([0, 20]),
        "grace_ms": st.sampled_from([10, 100]),
        "match_ms": st.sampled_from([60, 150, 400, 0]),
    }
)
fault_policies = st.fixed_dictionaries(
    {
        "policy": st.sampled_from(["fallback", "forfeit"]),
        "fallback": st.sampled_from(["greedy", "random"]),
        "max_faults": st.sampled_from([50, 3, 1]),
    }
)
seats = st.lists(st.one_of(st.integers(0, 10**6), st.just(None)), min_size=2, max_size=3).filter(
    lambda s: any(x is not None for x in s)
)


@settings(max_examples=EXAMPLES)
@given(time=time_controls, faults=fault_policies, players=seats, holes=st.integers(1, 2), seed=st.integers(0, 999))
def test_every_log_the_referee_writes_validates(
    tmp_path_factory: pytest.TempPathFactory,
    time: dict[str, int],
    faults: dict[str, Any],
    players: list[int | None],
    holes: int,
    seed: int,
) -> None:
    tmp_path = tmp_path_factory.mktemp("chaos")
    token = uuid.uuid4().hex
    entries = [
        builtin(f"house{i}") if s is None else bot(f"chaos{i}", BOTS / "chaos_bot.py", str(s), token=token)
        for i, s in enumerate(players)
    ]
    config = make_config(
        tmp_path, entries, rules={"holes": holes, "turn_limit": 6}, time=time, faults=faults, seed=seed
    )
    result = run_match(config)
    assert leftovers(token) == {}, "processes of the match outlived it"
    report = validate(read_log(result.log_path))
    assert report.status is Status.VALID, report.message
