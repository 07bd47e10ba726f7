"""Duplicate deals: every seating of a deal set sees the same cards in every hole, reshuffles or not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from golfref.config.match import parse_config
from golfref.match.referee import Shuffler, run_match

# Eight players on one deck: a stock of 3, so holes reshuffle, and how often depends on play.
POOL = [f"{{name: p{i}, builtin: {'random' if i % 3 else 'greedy'}}}" for i in range(8)]


def _play(seating: list[str], seed: int, tmp: Path, name: str) -> dict[str, Any]:
    text = "match: dup\nrules: {preset: classic, decks: 1, holes: 4}\nplayers:\n" + "".join(
        f"  - {p}\n" for p in seating
    )
    result = run_match(parse_config(text, source="dup.yaml"), seed=seed, log_path=str(tmp / f"{name}.json"))
    doc: dict[str, Any] = orjson.loads(result.log_path.read_bytes())
    return doc


def _reshuffles(hole: dict[str, Any]) -> list[list[str]]:
    return [s["reshuffle"] for s in hole["steps"] if "reshuffle" in s]


def test_rotated_seatings_see_the_same_deal_in_every_hole(tmp_path: Path) -> None:
    docs = [_play(POOL[r:] + POOL[:r], seed=21, tmp=tmp_path, name=f"r{r}") for r in range(0, 8, 3)]
    holes = [[h["deal"] for h in d["holes"]] for d in docs]
    assert all(h == holes[0] for h in holes)
    # The point: earlier holes had different numbers of reshuffles in different seatings,
    # and the later deals are the same all the same.
    counts = [[len(_reshuffles(h)) for h in d["holes"][:-1]] for d in docs]
    assert len({tuple(c) for c in counts}) > 1, counts


def test_a_reshuffle_depends_on_the_hole_and_its_number_within_it() -> None:
    a, b = Shuffler(5), Shuffler(5)
    cards = list(range(30))
    first = [cards[:] for _ in range(3)]
    a.shuffle(first[0], 0)
    a.shuffle(first[1], 0)  # a reshuffle in hole 0 that `b` never does
    a.shuffle(first[2], 1)
    second = [cards[:] for _ in range(2)]
    b.shuffle(second[0], 0)
    b.shuffle(second[1], 1)
    assert first[0] == second[0]
    assert first[2] == second[1]
    assert first[1] != first[0]
