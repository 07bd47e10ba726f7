"""In-process engine speed: decisions per second with and without views, against a bare loop, and memory.

The baseline, `bare_matches`, is the fastest honest plain-Python version of the same games:
the standard preset for two players (2x3 grids, two cards peeked, a thrown stock card makes
its thrower turn one up, a full face-up grid closes the hole and the other player has one
more turn, the pile reshuffled into an empty stock, the turn limit, column pairs cancel),
with the same random generator choosing uniformly among the same options at the same
decisions. It checks nothing, records nothing and shows nothing: the engine's ratio to it
is the cost of a general, checked, replayable engine.
"""

from __future__ import annotations

import random
import resource
import statistics
import time
from collections.abc import Callable

from golfref.game.engine import Game
from golfref.game.rules import Rules, resolve_rules
from golfref.game.view import view


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


_VALUES = (1, -2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 0)  # A to K under the standard preset
_DRAW = (True, False)  # stock, discard
_SWAP_OR_THROW = tuple(range(7))  # six slots, or throw (6)
_SWAP = tuple(range(6))


def bare_matches(matches: int, seed: int) -> int:
    """Play standard 2-player, 9-hole random games in plain Python; returns the decisions taken."""
    rng = random.Random(seed)
    choice, shuffle = rng.choice, rng.shuffle
    decisions = 0
    for _ in range(matches):
        totals = [0, 0]
        for hole in range(9):
            deck = list(range(52))
            shuffle(deck)
            grids = [deck[0:6], deck[6:12]]
            up = [[False] * 6, [False] * 6]
            discard, stock = [deck[12]], deck[13:]
            seat, final, turns = hole % 2, -1, [0, 0]
            while True:
                if choice(_DRAW):
                    card, options = stock.pop(), _SWAP_OR_THROW
                else:
                    card, options = discard.pop(), _SWAP
                slot = choice(options)
                decisions += 2
                grid, face = grids[seat], up[seat]
                if slot < 6:
                    discard.append(grid[slot])
                    grid[slot], face[slot] = card, True
                else:
                    discard.append(card)
                    down = [i for i in _SWAP if not face[i]]
                    if down:
                        face[choice(down)] = True
                        decisions += 1
                turns[seat] += 1
                if final > 0:
                    final -= 1
                elif final < 0 and all(face):
                    final = 1
                if final == 0 or min(turns) >= 100:
                    break
                if not stock:
                    if len(discard) <= 1:
                        break
                    stock = discard[:-1]
                    del discard[:-1]
                    shuffle(stock)
                seat ^= 1
            for s, grid in enumerate(grids):
                for col in range(3):
                    a, b = grid[col] % 13, grid[col + 3] % 13
                    totals[s] += 0 if a == b else _VALUES[a] + _VALUES[b]
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
    rates: dict[tuple[str, bool], list[float]] = {}
    bare: list[float] = []
    for _ in range(repeats):  # interleaved, so that a change of the machine's load touches every figure alike
        bare.append(rate(lambda: bare_matches(matches, 7), 1)[0])
        for label, rules in cases:
            for with_views in (False, True):
                one = rate(lambda r=rules, v=with_views: play_matches(r, matches, 7, v), 1)[0]
                rates.setdefault((label, with_views), []).append(one)
    medians = {key: statistics.median(runs) for key, runs in rates.items()}
    for (label, with_views), median in medians.items():
        tag = "with views   " if with_views else "without views"
        print(f"  {label:<30} {tag} median {median:>10,.0f} decisions/s ({repeats} runs x {matches} matches)")
    bare_rate = statistics.median(bare)
    plain, viewed = medians[(cases[0][0], False)], medians[(cases[0][0], True)]
    print(f"  bare plain-Python loop of the same standard 2-player games: median {bare_rate:,.0f} decisions/s")
    ratio = plain / bare_rate
    print(f"  engine without views against the bare loop: {ratio:.2f} (goal at least 0.4: {_met(ratio >= 0.4)})")
    ratio = viewed / plain
    print(f"  engine with a view per decision against without: {ratio:.2f} (goal at least 0.7: {_met(ratio >= 0.7)})")
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


def _met(ok: bool) -> str:
    return "met" if ok else "missed"
