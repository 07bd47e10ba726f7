"""In-process engine speed: decisions per second with and without views, and memory."""

from __future__ import annotations

import random
import resource
import statistics
import time
from collections.abc import Callable

from golfref.engine import Game
from golfref.rules import Rules, resolve_rules
from golfref.view import view


def play_matches(rules: Rules, matches: int, seed: int, with_views: bool) -> int:
    """Play random-vs-random matches; returns the number of decisions taken."""
    rng = random.Random(seed)
    choice = rng.choice
    shuffle = rng.shuffle
    decisions = 0
    for _ in range(matches):
        game = Game(rules)
        legal_actions, apply = game.legal_actions, game.apply
        while not game.over:
            chance = game.chance
            if chance is not None:
                order = list(chance)
                shuffle(order)
                game.apply_shuffle(order)
                continue
            if with_views:
                view(game, game.to_move)  # type: ignore[arg-type]
            apply(choice(legal_actions()))
            decisions += 1
    return decisions


def rate(fn: Callable[[], int], repeats: int) -> tuple[float, list[float]]:
    """Median of `repeats` runs of decisions per second."""
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        n = fn()
        rates.append(n / (time.perf_counter() - start))
    return statistics.median(rates), rates


def max_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(quick: bool = False) -> None:
    """Print the engine benchmark figures."""
    repeats = 3 if quick else 5
    matches = 20 if quick else 60
    cases = [
        ("standard, 2 players, 9 holes", resolve_rules("standard", {}, 2)),
        ("classic, 4 players, 9 holes", resolve_rules("classic", {}, 4)),
    ]
    print("engine: random vs random, in-process, one core")
    print("  goals: >= 150,000 decisions/s without views, >= 100,000 with a view per decision")
    for label, rules in cases:
        for with_views in (False, True):
            median, _ = rate(lambda r=rules, v=with_views: play_matches(r, matches, 7, v), repeats)
            tag = "with views   " if with_views else "without views"
            print(f"  {label:<30} {tag} median {median:>10,.0f} decisions/s ({repeats} runs x {matches} matches)")
    total = 2_000 if quick else 10_000
    rules = resolve_rules("standard", {}, 2)
    checkpoints = []
    done = 0
    step = total // 5
    while done < total:
        play_matches(rules, step, done, with_views=False)
        done += step
        checkpoints.append((done, max_rss_mb()))
    marks = ", ".join(f"{n:,}: {mb:.1f} MiB" for n, mb in checkpoints)
    growth = checkpoints[-1][1] - checkpoints[0][1]
    print(
        f"  peak RSS over {total:,} matches (standard 2p): {marks}; growth after the first {step:,}: {growth:+.1f} MiB"
    )
