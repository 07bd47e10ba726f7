"""Two checkouts' benchmarks, interleaved in one run: `python -m bench.compare OLD NEW [SECTION...]`.

OLD and NEW are checkouts of golfref (each with its own `make install`ed `.venv`; `--compiled`
also needs each one's `make compiled`). Each round runs every section once in each checkout,
in a fresh process, the two alternating which goes first, so a change of the machine's load
falls on both alike. Every figure a section prints is matched by its line's wording (the
numbers taken out) and reported as the median over the rounds of each checkout and the
ratio NEW/OLD, flagged when NEW is worse by more than `--worse` percent. A figure's direction
comes from its unit: rates ("/s") are better higher, times and sizes better lower;
figures of neither kind (ratios, counts), and the goals both checkouts print alike, are shown without a flag.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?")
# The unit right after a number, which says whether more of it is better.
_HIGHER = re.compile(r"^\s*[\w ]*/s\b")
_LOWER = re.compile(r"^\s*(?:ms|s|µs|us|ns|MiB|KiB|GiB|B|%)\b")


@dataclass(frozen=True)
class Figure:
    """One number a benchmark prints: its line's wording with the numbers taken out, and its place there."""

    key: str
    index: int
    higher_is_better: bool | None

    def label(self) -> str:
        """The line's wording with this figure marked `#` and the other numbers as `_`."""
        parts = self.key.split("\x00")
        pieces = [parts[0]]
        for i, rest in enumerate(parts[1:]):
            pieces.append(("#" if i == self.index else "_") + rest)
        return "".join(pieces).strip()


def figures(output: str) -> dict[Figure, float]:
    """Every number in a section's output, keyed by where it stands (the n-th repeat of a line counts apart)."""
    found: dict[Figure, float] = {}
    seen: dict[str, int] = {}
    for line in output.splitlines():
        numbers = list(NUMBER.finditer(line))
        if not numbers:
            continue
        key = NUMBER.sub("\x00", line)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key = f"{key} (#{seen[key]})"
        for i, match in enumerate(numbers):
            after = line[match.end() :]
            direction = True if _HIGHER.match(after) else False if _LOWER.match(after) else None
            found[Figure(key, i, direction)] = float(match.group().replace(",", ""))
    return found


def run_section(checkout: Path, section: str, quick: bool, compiled: bool) -> str:
    """One section's output, run by the checkout's own environment from the checkout."""
    python = checkout / ".venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"bench.compare: {checkout}: no .venv (run make install there)")
    argv = [str(python), "-m", "bench", *(["--quick"] if quick else []), *(["--compiled"] if compiled else []), section]
    env = dict(os.environ, PYTHONPATH=str(checkout))
    done = subprocess.run(argv, cwd=checkout, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = done.stderr.strip()[-400:]
        raise SystemExit(f"bench.compare: {checkout}: {section} failed (exit {done.returncode}): {tail}")
    return done.stdout


def compare(
    runs_old: Sequence[dict[Figure, float]], runs_new: Sequence[dict[Figure, float]], worse: float
) -> Iterable[str]:
    """Lines of the report: each figure both checkouts printed, with medians, ratio and a flag."""
    shared = [f for f in runs_old[0] if all(f in r for r in [*runs_old, *runs_new])]
    for figure in shared:
        old = statistics.median(r[figure] for r in runs_old)
        new = statistics.median(r[figure] for r in runs_new)
        if old == new and all(r[figure] == old for r in [*runs_old, *runs_new]):
            continue  # a goal or a count both print alike: not a measurement
        ratio = new / old if old else float("inf") if new else 1.0
        flag = ""
        if figure.higher_is_better is not None and old:
            loss = (old - new) / old if figure.higher_is_better else (new - old) / old
            flag = f"  WORSE by {loss:.0%}" if loss > worse / 100 else ""
        yield f"  {figure.label()}\n      old {old:,.4g}  new {new:,.4g}  new/old {ratio:.3f}{flag}"


def main(argv: list[str]) -> int:
    """Run the comparison; exit 1 when a figure with a direction is worse by more than --worse percent."""
    parser = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("sections", nargs="*", default=["engine", "referee", "replay"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--compiled", action="store_true")
    parser.add_argument("--worse", type=float, default=10.0, help="percent worse that is flagged (default 10)")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    print(f"bench.compare: {args.old} (old) against {args.new} (new), {args.rounds} rounds, interleaved")
    print(f"  load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    flagged = 0
    for section in args.sections:
        runs: dict[str, list[dict[Figure, float]]] = {"old": [], "new": []}
        for round_ in range(args.rounds):
            order = ["old", "new"] if round_ % 2 == 0 else ["new", "old"]
            for which in order:
                checkout = args.old if which == "old" else args.new
                runs[which].append(figures(run_section(checkout, section, args.quick, args.compiled)))
        print(f"{section}{' (compiled)' if args.compiled else ''}: medians of {args.rounds} runs each")
        for line in compare(runs["old"], runs["new"], args.worse):
            flagged += "WORSE" in line
            print(line)
    load = os.getloadavg()
    print(f"  load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"bench.compare: {flagged} figure(s) worse by more than {args.worse:g}%")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
