"""Train agent.py's linear policy on golfref's arena preset, 2x2 layout, against a built-in, with numpy.

    python train.py [--episodes N] [--opponent greedy] [--seed S] [--out weights.json]

REINFORCE with a running baseline: each episode is a 9-hole match in golfref.env's Gymnasium
wrapper (golfref/Golf-v0), in either seat, and each hole's decisions learn from that hole's
negative points. The observation is standardised with the mean and spread of observations from a
first batch of random play; actions are sampled from the softmax of the legal actions' scores.
The policy is written as agent.py reads it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

import golfref.env  # noqa: F401  (registers golfref/Golf-v0)
from golfref.kit import golfbot

OPTIONS = {"layout": "2x2", "holes": 9}


def make_env(opponent: str, seat: int = 0) -> Any:
    """Seat `seat` of an arena match on the 2x2 layout, the other played by the built-in `opponent`."""
    return gymnasium.make("golfref/Golf-v0", config="arena", options=OPTIONS, seat=seat, opponents=opponent)


def standardisation(env: Any, rng: np.random.Generator, episodes: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """The mean and spread of each observation number over `episodes` matches of random legal play."""
    seen = []
    for episode in range(episodes):
        obs, _ = env.reset(seed=10**9 + episode)
        done = False
        while not done:
            seen.append(obs["observation"])
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            done = terminated or truncated
    data = np.asarray(seen, dtype=float)
    spread = data.std(axis=0)
    return data.mean(axis=0), np.where(spread > 0, spread, 1.0)


def train(episodes: int, opponent: str, seed: int, rate: float = 0.01) -> dict[str, Any]:
    """The policy after `episodes` matches: standardisation, and one weight row per action of golfbot.ACTIONS."""
    envs = [make_env(opponent, seat) for seat in (0, 1)]  # a bot plays either seat
    rng = np.random.default_rng(seed)
    shift, scale = standardisation(envs[0], rng)
    weights = np.zeros((len(golfbot.ACTIONS), golfbot.OBSERVATION_SIZE))
    mean, spread = None, 1.0  # running mean and mean absolute deviation of a hole's reward
    for episode in range(episodes):
        env = envs[episode % 2]
        obs, info = env.reset(seed=seed + episode)
        steps, total, done = [], 0.0, False
        while not done:
            hole = info["view"].hole
            x = (obs["observation"] - shift) / scale
            legal = np.flatnonzero(obs["action_mask"])
            logits = weights[legal] @ x
            p = np.exp(logits - logits.max())
            p /= p.sum()
            pick = rng.choice(len(legal), p=p)
            steps.append((x, legal, pick, p))
            obs, reward, terminated, truncated, info = env.step(int(legal[pick]))
            total += float(reward)
            done = terminated or truncated
            if done or info["view"].hole != hole:  # the hole is over: learn from its points
                if mean is None:
                    mean = total
                advantage = (total - mean) / spread
                mean += 0.01 * (total - mean)
                spread += 0.01 * (abs(total - mean) - spread)
                for x, legal, pick, p in steps:
                    gradient = -p
                    gradient[pick] += 1.0
                    weights[legal] += rate * advantage * np.outer(gradient, x)
                steps, total = [], 0.0
    for env in envs:
        env.close()
    used = {golfbot.ACTIONS[i]: [round(float(w), 6) for w in row] for i, row in enumerate(weights) if row.any()}
    return {"shift": [round(float(v), 6) for v in shift], "scale": [round(float(v), 6) for v in scale], "weights": used}


def main() -> None:
    """Train, then write the policy as agent.py reads it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3_000)
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=0.01)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("weights.json"))
    args = parser.parse_args()
    policy = train(args.episodes, args.opponent, args.seed, args.rate)
    args.out.write_text(json.dumps(policy), encoding="utf-8")
    print(f"{args.out.name}: {len(policy['weights'])} actions trained over {args.episodes} matches against {args.opponent}")


if __name__ == "__main__":
    main()
