"""The PettingZoo AEC environment: one golfref match, one agent per seat.

An episode is a whole match. Every observation is built by the one gate (`golfref.game.view`)
and encoded by the Python kit's `Encoder`; the action mask comes from the kit's action table.
Chance steps (deals, D7 reshuffles) are drawn from the environment's own generator, seeded by
`reset(seed=...)`, so an episode is reproducible.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from golfref.config.match import MatchConfig, load_config
from golfref.game.engine import Action, Game
from golfref.game.narrate import Narrator, hole_label
from golfref.game.rules import PRESETS, Rules, RulesError, resolve_rules
from golfref.game.view import SeatView, events_for, view
from golfref.kit import golfbot
from golfref.match.protocol import hello_rules

__all__ = ["GolfAEC", "EnvConfigError", "REWARDS", "env", "raw_env", "resolve_env_rules"]

RENDER_MODES = ("ansi", "human")
"""What `render` can do: return the table as text (`ansi`) or print it after every step (`human`)."""

REWARDS = ("hole", "rank")
"""Reward schemes: `hole` (the default) pays each seat minus its points as each hole is scored;
`rank` pays each seat, when the match ends, (seats it beat - seats that beat it) / (players - 1)."""

_INT16 = np.dtype(np.int16)
_frombuffer = np.frombuffer
_NONE_TO_MOVE = np.zeros(len(golfbot.ACTIONS), dtype=np.int8)
_NONE_TO_MOVE.flags.writeable = False


_Legal = tuple[tuple[Action, ...], np.ndarray[Any, Any], dict[int, Action]]
"""A legal tuple of the engine, its action mask, and its actions by index in the kit's table."""


class EnvConfigError(ValueError):
    """A configuration the environment cannot play: an unknown preset, option, player count or reward."""


def resolve_env_rules(
    config: object = "standard", options: Mapping[str, Any] | None = None, players: int | None = None
) -> Rules:
    """The rules of `config`: a preset name, a `Rules`, a `MatchConfig`, or the path of a match config YAML."""
    if isinstance(config, (str, Path)) and not (isinstance(config, str) and config in PRESETS):
        if Path(config).suffix not in (".yaml", ".yml"):
            raise EnvConfigError(
                f"golfref.env: config must be a preset ({', '.join(PRESETS)}), a Rules, a MatchConfig "
                f"or a match config's .yaml path, got {config!r}"
            )
        try:
            config = load_config(config)
        except (ValueError, OSError) as error:
            raise EnvConfigError(f"golfref.env: {error}") from None
    if isinstance(config, str):
        preset, written = config, {}
    elif isinstance(config, MatchConfig):
        # The options as its `rules:` writes them: a layout-dependent default follows a new layout.
        preset, written, players = config.rules.preset, dict(config.rule_options), players or config.rules.players
    elif isinstance(config, Rules):
        if not options and players is None:
            return config
        # Options on top of a resolved rule set: every option it resolved is kept unless overridden.
        written = {k: v for k, v in config.to_dict().items() if k not in ("preset", "players")}
        preset, players = config.preset, players or config.players
    else:
        raise EnvConfigError(
            f"golfref.env: config must be a preset ({', '.join(PRESETS)}), a Rules, a MatchConfig "
            f"or a match config's .yaml path, got {config!r}"
        )
    try:
        return resolve_rules(preset, {**written, **dict(options or {})}, 2 if players is None else players)
    except RulesError as error:
        raise EnvConfigError(f"golfref.env: {error}") from None


def kit_rules(rules: Rules) -> golfbot.Rules:
    """The kit's `Rules` of `rules`, exactly as a bot reads them from its hello."""
    return golfbot.Rules.from_json(hello_rules(rules))


class GolfAEC(AECEnv[str, dict[str, np.ndarray[Any, Any]], int]):
    """Golf as a PettingZoo AEC environment: agents `player_0` .. `player_{n-1}` are the seats."""

    metadata = {
        "name": "golfref_golf_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        config: object = "standard",
        *,
        options: Mapping[str, Any] | None = None,
        players: int | None = None,
        reward: str = "hole",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise EnvConfigError(f"golfref.env: reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise EnvConfigError(f"golfref.env: render_mode must be ansi, human or None, got {render_mode!r}")
        self.rules = resolve_env_rules(config, options, players)
        self.reward_scheme = reward
        self.render_mode = render_mode
        self.encoder_rules = kit_rules(self.rules)
        """The rules as the kit reads them from a hello: what `encoder` was made with."""
        self.encoder = golfbot.Encoder(self.encoder_rules)
        self.possible_agents = [f"player_{s}" for s in range(self.rules.players)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        space = spaces.Dict(
            {
                "observation": spaces.Box(
                    golfbot.OBSERVATION_LOW, golfbot.OBSERVATION_HIGH, (golfbot.OBSERVATION_SIZE,), np.int16
                ),
                "action_mask": spaces.Box(0, 1, (len(golfbot.ACTIONS),), np.int8),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(len(golfbot.ACTIONS)) for a in self.possible_agents}
        self._rng = random.Random(int.from_bytes(os.urandom(8), "little"))
        self._masks: dict[int, _Legal] = {}
        self._narrator = Narrator(self.possible_agents, self.rules)
        self._rendered = (0, 0)
        self.game = Game(self.rules)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of `agent` (the same for every seat)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of `agent`: the kit's action table."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new match; with `seed`, the deals and reshuffles of the episode are reproducible."""
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = Game(self.rules)
        self._deal()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._scored = 0
        self._paid = False
        self._rendered = (0, 0)
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[self.game.to_move]  # type: ignore[index]

    def _deal(self) -> None:
        game, shuffle = self.game, self._rng.shuffle
        while game.chance is not None:
            order = list(game.chance)
            shuffle(order)
            game.apply_shuffle(order)

    def seat_view(self, agent: str) -> SeatView:
        """What `agent`'s seat may see now, from the one gate."""
        return view(self.game, self._seat_of[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        """`agent`'s observation and action mask now; its `SeatView` goes to `infos[agent]["view"]`."""
        game = self.game
        seat = self._seat_of[agent]
        seen = view(game, seat)
        info = self.infos.get(agent)
        if info is not None:
            info["view"] = seen
        if game.to_move == seat:
            legal = game.legal_actions()
            cached = self._masks.get(id(legal))
            if cached is None or cached[0] is not legal:
                cached = self._legal(legal)
            mask = cached[1].copy()
        else:
            mask = _NONE_TO_MOVE.copy()
        return {"observation": _frombuffer(self.encoder.encode(seen), _INT16), "action_mask": mask}

    def _legal(self, legal: tuple[Action, ...]) -> _Legal:
        """The mask of `legal` and its actions by index, kept per tuple (the engine shares most)."""
        cached = self._masks.get(id(legal))
        if cached is not None and cached[0] is legal:
            return cached
        index = golfbot.ACTION_INDEX
        mask = np.zeros(len(golfbot.ACTIONS), dtype=np.int8)
        by_index = {}
        for action in legal:
            i = index[action.text]
            mask[i] = 1
            by_index[i] = action
        cached = (legal, mask, by_index)
        if len(self._masks) > 4096:  # legal tuples built afresh (flips, targets) are not worth keeping
            self._masks.clear()
        self._masks[id(legal)] = cached
        return cached

    def step(self, action: int | None) -> None:
        """Play `action` (an index of the kit's action table) for the agent to move."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        legal = game.legal_actions()
        cached = self._masks.get(id(legal))
        if cached is None or cached[0] is not legal:
            cached = self._legal(legal)
        chosen = cached[2].get(action)  # type: ignore[arg-type]
        if chosen is None:
            shown = ", ".join(f"{golfbot.ACTION_INDEX[a.text]} ({a.text})" for a in legal)
            raise ValueError(f"golfref.env: action {action!r} is not legal for {agent} now; legal: {shown}")
        self._cumulative_rewards[agent] = 0.0
        game.apply(chosen)
        if game.chance is not None:
            self._deal()
        rewards = self.rewards
        if self._paid:  # most steps score nothing: the rewards are reset only after one that did
            for a in rewards:
                rewards[a] = 0.0
            self._paid = False
        if len(game.results) > self._scored:
            self._score(rewards)
            self._paid = True
            self._accumulate_rewards()
        if game.over:
            for a in self.agents:
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[game.to_move]  # type: ignore[index]
        if self.render_mode == "human":
            self.render()

    def _score(self, rewards: dict[str, float]) -> None:
        game = self.game
        names = self.possible_agents
        if self.reward_scheme == "hole":
            for result in game.results[self._scored :]:
                for s, points in enumerate(result.scores):
                    rewards[names[s]] -= float(points)
        elif game.over:
            totals = game.totals
            n = len(totals)
            for s, t in enumerate(totals):
                beaten = sum(1 for u in totals if u > t) - sum(1 for u in totals if u < t)
                rewards[names[s]] = beaten / (n - 1)
        self._scored = len(game.results)

    def render(self) -> str | None:
        """The table as everyone sees it and the public events since the last render, in words."""
        if self.render_mode is None:
            return None
        text = self._table_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _table_text(self) -> str:
        game = self.game
        lines = []
        hole, start = self._rendered
        if hole == game.hole:
            events = events_for(game, -1, start)  # seat -1 is nobody: only what is public
        else:
            events = events_for(game, -1, 0)
        lines += _narrate(self._narrator, events)
        self._rendered = (game.hole, len(game.events))
        status = "match over" if game.over else f"{self.possible_agents[game.to_move or 0]} to move"
        lines.append(f"{hole_label(game.hole, self.rules.holes)}, {status}; totals {list(game.totals)}")
        cols = self.rules.cols
        for s, grid in enumerate(game.grids):
            cells = [game.cards[c].name if game.up[c] else "##" for c in grid]
            rows = [" ".join(f"{c:>4}" for c in cells[r : r + cols]) for r in range(0, len(cells), cols)]
            lines.append(f"  {self.possible_agents[s]}: " + " | ".join(rows))
        top = game.cards[game.discard[-1]].name if game.discard else "-"
        lines.append(f"  discard {top} ({len(game.discard)} cards), stock {len(game.stock)} cards")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release: the match lives in this process."""


def _narrate(narrator: Narrator, events: list[dict[str, Any]]) -> list[str]:
    """One line per turn of `events`, in the narrator's words."""
    lines: list[str] = []
    turn: list[dict[str, Any]] = []
    for event in events + [{"event": "end"}]:
        if turn and (event.get("seat") != turn[0].get("seat") or event["event"] in ("draw", "knock", "end")):
            actor = turn[0].get("seat")
            if actor is None:
                lines.append("  " + " ".join(e["event"] for e in turn))
            else:
                reveal = turn[0]["event"] == "reveal"
                phrases = narrator.turn(actor, turn, reveal=reveal)
                words = "; ".join(" ".join((p.text or "?").strip() for p in phrase) for phrase in phrases)
                lines.append(f"  {narrator.names[actor]}: {words}")
            turn = []
        if event["event"] != "end":
            turn.append(event)
    return lines


def raw_env(config: object = "standard", **kwargs: Any) -> GolfAEC:
    """The bare environment (no wrappers): the fastest to step."""
    return GolfAEC(config, **kwargs)


def env(config: object = "standard", **kwargs: Any) -> AECEnv[str, Any, Any]:
    """The environment with PettingZoo's usual wrappers: an illegal action ends the match with a -1
    penalty for its agent, an action outside the table is refused, the API's order is enforced."""
    wrapped: AECEnv[str, Any, Any] = raw_env(config, **kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
