"""Environment speed (issue 23, item 4): golfref.env's steps per second beside PettingZoo's card games.

What is timed, for every environment alike: the bare `raw_env` stepped through whole episodes,
`last()` at each step and the random masked action chosen with numpy, as PettingZoo's own
performance_benchmark chooses it (`random.choice(np.flatnonzero(mask).tolist())`); dead steps
count as steps. PettingZoo's classic card environments need rlcard (`pettingzoo[classic]`).
PettingZoo no longer ships Gin Rummy (1.24 did): where it is missing, the Gin Rummy row steps rlcard's own
Gin Rummy environment, the engine PettingZoo's `gin_rummy_v4` wrapped, which makes it faster
than PettingZoo's was (the ratio against it is a lower bound). The engine's own cost with a
view per decision is bench/engine.py's figure, measured in the same run. Memory: the resident
set after every fifth of 100,000 one-hole episodes.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import statistics
import time
from collections.abc import Callable
from typing import Any

from golfref.game.rules import resolve_rules

from .engine import play_matches

GOALS = "goals: >= 100,000 steps/s on standard, >= 3x Gin Rummy, at most 2x the engine's cost with a view per decision"


def aec_steps(env: Any, episodes: int, seed: int) -> int:
    """Step `env` through `episodes` whole episodes with random masked actions; the steps taken."""
    import numpy as np

    choice = random.Random(seed).choice
    flatnonzero = np.flatnonzero
    steps = 0
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        last, step = env.last, env.step
        while env.agents:
            obs, _, terminated, truncated, _ = last()
            step(None if terminated or truncated else choice(flatnonzero(obs["action_mask"]).tolist()))
            steps += 1
    return steps


def rlcard_steps(name: str, episodes: int, seed: int) -> int:
    """Step rlcard's own environment `name` through whole episodes with random legal actions (numpy's mask)."""
    import numpy as np
    import rlcard

    env = rlcard.make(name, config={"seed": seed})
    choice = random.Random(seed).choice
    steps = 0
    size = env.num_actions
    for _ in range(episodes):
        state, _ = env.reset()
        while not env.is_over():
            mask = np.zeros(size, dtype=np.int8)
            mask[list(state["legal_actions"])] = 1
            state, _ = env.step(choice(np.flatnonzero(mask).tolist()))
            steps += 1
    return steps


def recorded_views(env: Any, episodes: int, seed: int) -> list[Any]:
    """The views the environment observed over `episodes` episodes of `aec_steps`, in order."""
    import numpy as np

    choice = random.Random(seed).choice
    views = []
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        while env.agents:
            obs, _, terminated, truncated, info = env.last()
            views.append(info["view"])
            env.step(None if terminated or truncated else choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return views


def encode_all(env: Any, views: list[Any]) -> int:
    """Encode `views` in order with a fresh encoder, as the environment did; the observations made."""
    encode = type(env.encoder)(env.encoder_rules).encode
    for v in views:
        encode(v)
    return len(views)


def classic_cases() -> tuple[list[tuple[str, Callable[[], int]]], list[str]]:
    """PettingZoo's classic card environments that install here, and why any is missing."""
    cases: list[tuple[str, Callable[[], int]]] = []
    notes: list[str] = []
    try:
        from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4
    except Exception as error:  # rlcard missing: `pip install 'pettingzoo[classic]'`
        return [], [f"PettingZoo's classic card games did not load ({error}): pip install 'pettingzoo[classic]'"]
    try:
        from pettingzoo.classic import gin_rummy_v4  # type: ignore[attr-defined]

        gin = gin_rummy_v4.raw_env()
        cases.append(("PettingZoo gin_rummy_v4", lambda: aec_steps(gin, 4, 1)))
    except Exception:
        import pettingzoo

        notes.append(
            f"PettingZoo {pettingzoo.__version__} no longer ships gin_rummy_v4 (1.24 did): "
            "the Gin Rummy row is rlcard's own environment, which PettingZoo's wrapped"
        )
        cases.append(("rlcard gin-rummy (no PettingZoo)", lambda: rlcard_steps("gin-rummy", 4, 1)))
    leduc, texas = leduc_holdem_v4.raw_env(), texas_holdem_v4.raw_env()
    cases.append(("PettingZoo leduc_holdem_v4", lambda: aec_steps(leduc, 400, 1)))
    cases.append(("PettingZoo texas_holdem_v4", lambda: aec_steps(texas, 300, 1)))
    return cases, notes


def rate(fn: Callable[[], int]) -> float:
    """Steps (or decisions) per second of one run of `fn`."""
    start = time.perf_counter()
    n = fn()
    return n / (time.perf_counter() - start)


def rss_mb() -> float:
    """The resident set of this process now, in MiB."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def run(quick: bool = False) -> None:
    """Print the environment benchmark figures."""
    try:
        import golfref.env as golf_env
    except ImportError as error:
        print(f"env: skipped: {error}")
        return
    repeats = 3 if quick else 5
    episodes = 4 if quick else 12
    standard = golf_env.raw_env("standard")
    cases: list[tuple[str, Callable[[], int]]] = [
        ("golfref raw_env standard 2p", lambda: aec_steps(standard, episodes, 7)),
    ]
    rules = resolve_rules("standard", {}, 2)
    engine_case = ("golfref engine, a view per decision", lambda: play_matches(rules, episodes, 7, True))
    bare_case = ("golfref engine, no views", lambda: play_matches(rules, episodes, 7, False))
    views = recorded_views(golf_env.raw_env("standard"), episodes, 7)
    encoder_case = ("golfref kit Encoder on those views", lambda: encode_all(golf_env.raw_env("standard"), views))
    classic, notes = classic_cases()
    everything = cases + [engine_case, bare_case, encoder_case] + classic
    runs: dict[str, list[float]] = {label: [] for label, _ in everything}
    for _ in range(repeats):  # interleaved: a change of the machine's load touches every figure alike
        for label, fn in everything:
            runs[label].append(rate(fn))
    medians = {label: statistics.median(r) for label, r in runs.items()}
    print("env: random masked actions, whole episodes, one core, medians of", repeats, "interleaved runs")
    print("  " + GOALS)
    for note in notes:
        print(f"  note: {note}")
    for label, median in medians.items():
        unit = "decisions/s" if label.startswith("golfref engine") else "steps/s"
        unit = "observations/s" if "Encoder" in label else unit
        print(f"  {label:<36} median {median:>10,.0f} {unit}")
    ours = medians[cases[0][0]]
    engine = medians[engine_case[0]]
    print(f"  standard at {ours:,.0f} steps/s: goal 100,000 {_met(ours >= 100_000)}")
    if classic:
        gin_label = classic[0][0]
        ratio = ours / medians[gin_label]
        print(f"  against {gin_label}: {ratio:.1f}x (goal 3x: {_met(ratio >= 3)})")
    cost = engine / ours
    goal = _met(cost <= 2)
    print(f"  cost per step against the engine's with a view per decision: {cost:.2f}x (goal at most 2x: {goal})")
    us = {label: 1e6 / median for label, median in medians.items()}
    step_us = us[cases[0][0]]
    engine_us, view_us = us[bare_case[0]], us[engine_case[0]] - us[bare_case[0]]
    encode_us = us[encoder_case[0]]
    rest = step_us - engine_us - view_us - encode_us
    print(
        f"  where a step's {step_us:.1f} us go: the engine {engine_us:.1f} (its shuffles and random choice included), "
        f"the seat's view {view_us:.1f}, the kit's encoding {encode_us:.1f}, "
        f"the rest (AEC bookkeeping, the mask, numpy, the chooser) {rest:.1f}"
    )
    buffer = io.StringIO()
    from pettingzoo.test import performance_benchmark

    with contextlib.redirect_stdout(buffer):
        performance_benchmark(golf_env.env("standard"))
    found = re.search(r"([0-9.]+) turns per second", buffer.getvalue())
    turns = f"{float(found.group(1)):,.0f} turns/s" if found else buffer.getvalue().strip()
    print(f"  pettingzoo.test.performance_benchmark on env('standard') (wrapped, 5 s): {turns}")
    total = 10_000 if quick else 100_000
    one_hole = golf_env.raw_env("standard", options={"holes": 1})
    marks = []
    step = total // 5
    for done in range(0, total, step):
        aec_steps(one_hole, step, done)
        marks.append((done + step, rss_mb()))
    shown = ", ".join(f"{n:,}: {mb:.1f} MiB" for n, mb in marks)
    growth = marks[-1][1] - marks[0][1]
    print(f"  RSS over {total:,} one-hole episodes: {shown}; growth after the first {step:,}: {growth:+.1f} MiB")


def _met(ok: bool) -> str:
    return "met" if ok else "missed"
