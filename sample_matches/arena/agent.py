"""A linear policy for golfref, in plain Python: a weight per observation number and action.

It standardises the seat's observation (the kit's encoder: the very numbers the environment gave
in training) with the shift and scale train.py measured, scores each legal action as the dot
product of its weights with it, and plays the best. The policy is read from weights.json beside
this file, as train.py writes it; with none, every action scores 0 and the first legal one is
played.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from golfref.kit import golfbot


class LinearAgent:
    """Plays the legal action whose weights score the standardised observation highest."""

    name = "linear-arena"

    def __init__(self, policy: dict[str, Any]) -> None:
        size = golfbot.OBSERVATION_SIZE
        self.shift: list[float] = policy.get("shift", [0.0] * size)
        self.scale: list[float] = policy.get("scale", [1.0] * size)
        self.weights: dict[str, list[float]] = policy.get("weights", {})
        self._encoders: dict[golfbot.Rules, golfbot.Encoder] = {}

    @classmethod
    def load(cls, path: Path) -> LinearAgent:
        """The agent of the policy train.py wrote at `path` (an untrained one if there is no such file)."""
        return cls(json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {})

    def scores(self, view: golfbot.View, legal: list[str]) -> dict[str, float]:
        """Each legal action's score for this view."""
        encoder = self._encoders.get(view.rules)
        if encoder is None:
            encoder = self._encoders[view.rules] = golfbot.Encoder(view.rules)
        z = [(x - m) / s for x, m, s in zip(encoder.encode(view), self.shift, self.scale)]
        return {a: sum(w * v for w, v in zip(self.weights.get(a, ()), z)) for a in legal}

    def choose(self, view: golfbot.View, legal: list[str]) -> str:
        """The best-scoring legal action (the first of equals)."""
        scores = self.scores(view, legal)
        return max(legal, key=scores.__getitem__)


agent = LinearAgent.load(Path(__file__).with_name("weights.json"))
