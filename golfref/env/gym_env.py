"""A Gymnasium single-agent wrapper: one seat of the AEC environment against built-in policies.

The opponents are golfref's built-in policies (golfref.game.policies: `greedy`, `random`),
which decide from their own seat's view, as every seat does. Bots run as commands are not
offered here: they belong to a refereed match (clocks, faults, sandbox), which golfref's match
loop runs, not an environment stepped by a learner.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np

from golfref.game.policies import POLICIES, GreedyPolicy, Policy, make_policy
from golfref.kit import golfbot

from .aec import EnvConfigError, GolfAEC

__all__ = ["GolfEnv", "register", "ENV_ID"]

ENV_ID = "golfref/Golf-v0"
"""The id `gymnasium.make` knows the wrapper by, once golfref.env is imported."""


class GolfEnv(gymnasium.Env[dict[str, np.ndarray[Any, Any]], int]):
    """One seat (`seat`, default 0) of a golfref match; the other seats play built-in policies.

    A step is one decision of the learner's seat; the reward is what the AEC environment paid
    that seat since its previous decision (opponents' moves included). An action that the mask
    does not allow is a fault, as for any bot: the greedy fallback plays it instead, the step
    adds `illegal_penalty` to the reward and says `"illegal_action": True` in its info.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        config: object = "standard",
        *,
        options: Mapping[str, Any] | None = None,
        players: int | None = None,
        seat: int = 0,
        opponents: str | Sequence[str] = "greedy",
        reward: str = "hole",
        illegal_penalty: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        self.aec = GolfAEC(config, options=options, players=players, reward=reward, render_mode=render_mode)
        rules = self.aec.rules
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < rules.players:
            raise EnvConfigError(f"golfref.env: seat must be 0 to {rules.players - 1}, got {seat!r}")
        names = [opponents] * (rules.players - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != rules.players - 1 or any(n not in POLICIES for n in names):
            raise EnvConfigError(
                f"golfref.env: opponents must be one built-in ({', '.join(POLICIES)}) or one per other seat "
                f"({rules.players - 1}), got {opponents!r}"
            )
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.opponent_names = names
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self._opponents: dict[str, Policy] = {}
        self._fallback = GreedyPolicy(rules, random.Random(0))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray[Any, Any]], dict[str, Any]]:
        """Start a match and play the opponents up to the learner's first decision."""
        super().reset(seed=seed)
        if seed is not None or not self._opponents:
            # The opponents' choices are drawn from a generator of their own, seeded with the episode.
            base = int(self.np_random.integers(2**63))
            others = [a for a in self.aec.possible_agents if a != self.agent]
            rules = self.aec.rules
            pairs = zip(others, self.opponent_names, strict=True)
            self._opponents = {a: make_policy(n, rules, random.Random(base + i)) for i, (a, n) in enumerate(pairs)}
        self.aec.reset(seed=int(self.np_random.integers(2**63)))
        self._play_opponents()
        observation = self.aec.observe(self.agent)
        return observation, {"view": self.aec.infos[self.agent]["view"]}

    def _play_opponents(self) -> None:
        aec = self.aec
        while aec.agent_selection != self.agent and not aec.terminations[aec.agent_selection]:
            agent = aec.agent_selection
            action = self._opponents[agent].choose(aec.seat_view(agent), aec.game.legal_actions())
            aec.step(golfbot.ACTION_INDEX[action.text])

    def step(self, action: int) -> tuple[dict[str, np.ndarray[Any, Any]], float, bool, bool, dict[str, Any]]:
        """Play the learner's decision, then the opponents' up to its next one (or the match's end)."""
        aec = self.aec
        legal = aec.game.legal_actions()
        index = golfbot.ACTION_INDEX
        penalty = 0.0
        info: dict[str, Any] = {}
        if not any(index[a.text] == action for a in legal):
            fallback = self._fallback.choose(aec.seat_view(self.agent), legal)
            action = index[fallback.text]
            penalty = self.illegal_penalty
            info["illegal_action"] = True
        aec.step(int(action))
        self._play_opponents()
        # What the AEC environment paid this seat since it stepped: its own move and the opponents' after it.
        reward = aec._cumulative_rewards[self.agent]
        observation = aec.observe(self.agent)
        info["view"] = aec.infos[self.agent]["view"]
        terminated, truncated = aec.terminations[self.agent], aec.truncations[self.agent]
        return observation, float(reward) + penalty, terminated, truncated, info

    def render(self) -> str | None:
        """The table and the public events since the last render (see GolfAEC.render)."""
        return self.aec.render()


def register() -> None:
    """Register `GolfEnv` with Gymnasium as `golfref/Golf-v0` (done when golfref.env is imported)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(ENV_ID, entry_point="golfref.env.gym_env:GolfEnv")
