#!/usr/bin/env python3
"""Attack of issue 21, item 2: find the match seed where the referee leaves it, and predict the deal.

`seed_bot.py OUT REPO`: at hello it looks for the seed as any user of the machine could:

- on the command line of every golfref process (`/proc/PID/cmdline`, readable by every user):
  `--seed N` or `--seed=N`;
- in every file such a command line names (the config: a `seed: N` line).

For each seed found (at most `MAX_SEEDS`), it re-derives the first hole's deal the way the
referee does (the engine's card ids in canonical order, `golfref.game.cards.deck_set` imported
from REPO, shuffled by the referee's published hash of seed, hole and count), as an attacker
who read the source would: one of them is its match's deal when the seed leaked. Report:
{"cmdline_seeds", "config_seeds", "predicted_deals" (card names, one list per seed, in
the order of the seeds sorted), "cmdlines" (how many golfref command lines it read)}. Then it
plays like echo_bot.py.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import stat
import sys
from typing import Any

import hostile

MAX_SEEDS = 50
"""At most this many seeds are tried (every golfref process of the machine is read, other matches' too)."""
_FLAG = re.compile(r"^--seed(?:=(\d+))?$")
_CONFIG_SEED = re.compile(rb"^seed:\s*(\d{1,19})\s*$", re.MULTILINE)


def golfref_cmdlines() -> list[list[str]]:
    """The argv of every process whose command line names golfref (other than this bot's own)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        argv = hostile.cmdline(int(entry))
        if any("golfref" in arg for arg in argv):
            found.append(argv)
    return found


def seeds_on(argv: list[str]) -> list[int]:
    """The values of `--seed` on one command line."""
    seeds = []
    for i, arg in enumerate(argv):
        match = _FLAG.match(arg)
        if match is None:
            continue
        value = match.group(1) if match.group(1) is not None else (argv[i + 1] if i + 1 < len(argv) else "")
        if value.isdigit():
            seeds.append(int(value))
    return seeds


def seeds_in_files(argv: list[str]) -> list[int]:
    """The `seed:` of every file a command line names that this bot can read."""
    seeds = []
    for arg in argv:
        try:
            # Without blocking, regular files only: another golfref on the machine may name a
            # FIFO (a hostile-file test's), whose open would hang this bot past its start limit.
            fd = os.open(arg, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            text = os.read(fd, 1 << 20)
        except OSError:
            continue
        finally:
            os.close(fd)
        seeds += [int(m) for m in _CONFIG_SEED.findall(text)]
    return seeds


def predict_deal(seed: int, rules: dict[str, Any]) -> list[str]:
    """The first hole's deal under `seed`, as the referee's Shuffler makes it."""
    from golfref.game.cards import deck_set

    cards = deck_set(int(rules.get("decks", 1)), rules.get("jokers") is not None)
    order = list(range(len(cards)))
    digest = hashlib.sha256(f"golfref-shuffle:{seed}:0:0".encode()).digest()
    random.Random(int.from_bytes(digest, "big")).shuffle(order)
    return [cards[c].name for c in order]


def main() -> int:
    out, repo = sys.argv[1], sys.argv[2]
    sys.path.insert(0, repo)

    def at_hello(hello: dict[str, Any]) -> None:
        lines = golfref_cmdlines()
        on_cmdline = sorted({s for argv in lines for s in seeds_on(argv)})
        in_config = sorted({s for argv in lines for s in seeds_in_files(argv)})
        seeds = sorted(set(on_cmdline) | set(in_config))[:MAX_SEEDS]
        result: dict[str, Any] = {
            "cmdline_seeds": on_cmdline,
            "config_seeds": in_config,
            "cmdlines": len(lines),
            "predicted_deals": [],
        }
        try:
            result["predicted_deals"] = [predict_deal(seed, hello.get("rules") or {}) for seed in seeds]
        except ImportError as e:  # golfref's source out of sight (a sandbox)
            result["import"] = str(e)
        hostile.report(out, result)

    return hostile.play("seed-spy", at_hello=at_hello)


if __name__ == "__main__":
    sys.exit(main())
