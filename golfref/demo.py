"""`make demo`: a 9-hole match between the built-in policies, with the standings."""

from __future__ import annotations

import random

from .policies import GreedyPolicy, RandomPolicy, play_local
from .rules import resolve_rules


def main() -> None:
    """Play greedy against random under the standard preset and print the standings."""
    rules = resolve_rules("standard", {}, players=2)
    rng = random.Random(2026)
    names = ["greedy", "random"]
    game = play_local(rules, [GreedyPolicy(rules, rng), RandomPolicy(rng)], rng)
    print(f"{'hole':>4}  " + "  ".join(f"{n:>8}" for n in names) + "  ended")
    for r in game.results:
        print(f"{r.hole + 1:>4}  " + "  ".join(f"{s:>8}" for s in r.scores) + f"  {r.end.value}")
    print(f"{'tot':>4}  " + "  ".join(f"{t:>8}" for t in game.totals))
    for seat, place in sorted(enumerate(game.placings()), key=lambda x: x[1]):
        print(f"{place}. {names[seat]} ({game.totals[seat]})")


if __name__ == "__main__":
    main()
