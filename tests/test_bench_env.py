"""bench/env.py times what it says: whole episodes, one step per decision and per dead agent, and
its encoder figure is taken on the very views the environment observed."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed: pip install -e .[rl]")

from bench.env import aec_steps, encode_all, recorded_views  # noqa: E402
from golfref.env import raw_env  # noqa: E402
from golfref.game.engine import Move  # noqa: E402


def test_an_episode_is_one_step_per_decision_and_per_dead_agent() -> None:
    env = raw_env("standard", options={"holes": 2}, players=3)
    steps = aec_steps(env, 1, 5)
    assert env.game.over
    assert steps == sum(isinstance(event, Move) for event in env.game.history) + 3


def test_the_encoder_is_timed_on_the_views_the_episodes_observed() -> None:
    env = raw_env("standard", options={"holes": 2})
    views = recorded_views(env, 2, 9)
    assert len(views) == aec_steps(raw_env("standard", options={"holes": 2}), 2, 9)
    assert encode_all(env, views) == len(views)
    assert views[-1].seat in (0, 1) and all(v is not None for v in views)
