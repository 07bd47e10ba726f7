"""Golf for reinforcement learning: a PettingZoo AEC environment and a Gymnasium single-seat wrapper.

`golfref.env.env(config=..., render_mode=...)` is the environment with PettingZoo's usual
wrappers, `golfref.env.raw_env(...)` the bare one, `golfref.env.GolfEnv` (registered as
`golfref/Golf-v0`) one seat against built-in policies. Observations come from the one gate
(golfref.game.view) through the Python kit's encoder, so a bot built on the kit sees what the
environment gave in training (docs/ENVIRONMENT.md). Needs the `rl` extra: `pip install golfref[rl]`.

May import: golfref.config, golfref.match (the hello's rules), golfref.game, golfref.kit, and
pettingzoo, gymnasium and numpy.
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as error:  # pragma: no cover - checked by tests/test_env.py in a process without the extra
    raise ImportError(f"golfref.env needs the rl extra ({error.name} is missing): pip install golfref[rl]") from None

from .aec import REWARDS, EnvConfigError, GolfAEC, env, raw_env, resolve_env_rules
from .gym_env import GolfEnv, register

__all__ = ["GolfAEC", "GolfEnv", "EnvConfigError", "REWARDS", "env", "raw_env", "register", "resolve_env_rules"]

register()
