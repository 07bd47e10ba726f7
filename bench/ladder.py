"""The ladder of built-in opponents, measured: `python -m bench.ladder [--deal-sets N] [--docs FILE]`.

For each preset and pair of bench/ladder.yaml, a tournament of those two players (duplicate
deals, both seatings, on the ladder's layout) is played by `golfref tournament` into
tournaments/ladder/; its pairwise statistic (A - B points per hole, 95% interval over deal
sets, docs/TOURNAMENT_STATS.md) is one row of the table printed. Running it again resumes
the tournaments, so a larger `--deal-sets` adds deal sets to what is stored. Then the
search bot's decision times are measured in this process, on one core: positions of
`good`-against-`good` holes of each preset, each decided by `expert` at every budget of the
ladder. `--docs FILE` also writes both tables into FILE between its ladder markers.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from golfref.game.engine import Game
from golfref.game.policies import make_policy
from golfref.game.rules import resolve_rules
from golfref.game.view import view

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "bench" / "ladder.yaml"
RESULTS = ROOT / "tournaments" / "ladder"
BEGIN, END = "<!-- ladder table: python -m bench.ladder --docs docs/OPPONENTS.md -->", "<!-- end of ladder table -->"
TIMED_HOLES = 6  # good-against-good holes per preset whose positions the search bot decides


def tournament_config(spec: dict[str, Any], preset: str, pair: list[str], deal_sets: int) -> dict[str, Any]:
    """The tournament of one pair on one preset."""
    players = [{"name": name, **spec["players"][name]} for name in pair]
    return {
        "tournament": f"ladder-{preset}-{pair[0]}-vs-{pair[1]}",
        "rules": {"preset": preset, "layout": spec["layout"], "holes": spec["holes"]},
        "players": players,
        "format": {"type": "round_robin", "table": 2},
        "deal_sets": deal_sets,
        "seed": spec["seed"],
        "seatings": "rotations",
        "duplicate_deals": True,
        "sandbox": {"enabled": False},  # built-ins only: nothing to isolate
    }


def run_pair(
    spec: dict[str, Any], preset: str, pair: list[str], deal_sets: int, workers: int, results: Path
) -> dict[str, Any]:
    """Play (or resume) one pair's tournament; its pairwise statistic of A against B."""
    folder = results / f"{preset}-{pair[0]}-vs-{pair[1]}"
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "ladder.yaml"
    config.write_text(yaml.safe_dump(tournament_config(spec, preset, pair, deal_sets), sort_keys=False))
    golfref = Path(sys.executable).parent / "golfref"
    argv = [str(golfref), "tournament", str(config), "--results", str(folder / "results"), "--json", "--quiet"]
    done = subprocess.run([*argv, "--workers", str(workers)], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        sys.exit(f"bench.ladder: {preset} {pair[0]} vs {pair[1]}: golfref tournament failed: {done.stderr.strip()}")
    stats = json.loads(done.stdout)["stats"]
    row = next(p for p in stats["pairs"] if {p["a"], p["b"]} == set(pair))
    diff = dict(row["diff"])
    if row["a"] != pair[0]:  # the statistic of B against A: turn it round
        diff["mean"], diff["low"], diff["high"] = -diff["mean"], -diff["high"], -diff["low"]
    return diff


def decision_times(spec: dict[str, Any]) -> list[tuple[str, str, float, float, int]]:
    """(preset, player, median ms, p95 ms, decisions) of each search player of the ladder."""
    out = []
    for preset in spec["presets"]:
        rules = resolve_rules(preset, {"layout": spec["layout"], "holes": 1}, 2)
        good = make_policy("good", rules, random.Random(0))
        positions = []
        for deal in range(TIMED_HOLES):
            game, shuffler = Game(rules), random.Random(deal)
            while not game.results:
                if game.chance is not None:
                    order = list(game.chance)
                    shuffler.shuffle(order)
                    game.apply_shuffle(order)
                    continue
                seat = game.to_move
                assert seat is not None
                seen, legal = view(game, seat), game.legal_actions()
                positions.append((seen, legal))
                game.apply(good.choose(seen, legal))
        for name, player in spec["players"].items():
            if player["builtin"] != "expert":
                continue
            policy = make_policy("expert", rules, random.Random(0), player.get("options"))
            times = []
            for seen, legal in positions:
                start = time.perf_counter()
                policy.choose(seen, legal)
                times.append((time.perf_counter() - start) * 1000)
            times.sort()
            out.append((preset, name, statistics.median(times), times[int(0.95 * (len(times) - 1))], len(times)))
    return out


def tables(rows: list[tuple[str, list[str], dict[str, Any]]], times: list[tuple[str, str, float, float, int]]) -> str:
    """Both tables in Markdown."""
    lines = [
        "| preset | A | B | deal sets | A - B per hole | 95% interval |",
        "| --- | --- | --- | ---: | ---: | --- |",
    ]
    for preset, pair, d in rows:
        interval = "-" if d["low"] is None else f"[{d['low']:+.2f}, {d['high']:+.2f}]"
        lines.append(f"| {preset} | {pair[0]} | {pair[1]} | {d['n']} | {d['mean']:+.2f} | {interval} |")
    lines += ["", "| preset | player | median decision | p95 | decisions |", "| --- | --- | ---: | ---: | ---: |"]
    for preset, name, median, p95, n in times:
        lines.append(f"| {preset} | {name} | {median:.1f} ms | {p95:.1f} ms | {n} |")
    return "\n".join(lines)


def write_docs(path: Path, text: str) -> None:
    """Put `text` between the ladder markers of `path`."""
    doc = path.read_text()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"bench.ladder: {path} has no ladder markers ({BEGIN} ... {END})")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")


def main(argv: list[str]) -> None:
    """Play the ladder's tournaments, time the search bot, print the tables."""
    parser = argparse.ArgumentParser(prog="python -m bench.ladder", description=__doc__.splitlines()[0])
    parser.add_argument("--deal-sets", type=int, default=None, help="deal sets per pair (default: bench/ladder.yaml's)")
    parser.add_argument("--workers", type=int, default=2, help="matches played at once (default 2)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where the tournaments are kept")
    parser.add_argument("--docs", type=Path, default=None, help="also write the tables into this file")
    args = parser.parse_args(argv)
    spec = yaml.safe_load(SPEC.read_text())
    deal_sets = args.deal_sets or spec["deal_sets"]
    rows = []
    started = time.monotonic()
    for preset in spec["presets"]:
        for pair in spec["pairs"]:
            diff = run_pair(spec, preset, pair, deal_sets, args.workers, args.results)
            rows.append((preset, pair, diff))
            print(f"{preset:8} {pair[0]:>10} - {pair[1]:<10} {diff['mean']:+6.2f} per hole", file=sys.stderr)
    print(f"bench.ladder: tournaments took {time.monotonic() - started:.0f} s", file=sys.stderr)
    text = tables(rows, decision_times(spec))
    print(text)
    if args.docs is not None:
        write_docs(args.docs, text)


if __name__ == "__main__":
    main(sys.argv[1:])
