#!/usr/bin/env python3
"""The sample greedy bot behind a gate: `gated_bot.py DIR K`.

Each start takes the next number in DIR (by creating DIR/start.N exclusively). The first K
starts play at once; every later one waits, before saying anything, until DIR/open exists.
A test can so hold a tournament at a known point, however fast the machine is, and let it
run on when it likes; with DIR/open already there it is the plain greedy bot.
"""

import os
import sys
import time
from pathlib import Path

GREEDY = Path(__file__).resolve().parents[2] / "sample_matches" / "bots" / "greedy_bot.py"


def take_number(folder: Path) -> int:
    n = 0
    while True:
        try:
            os.close(os.open(folder / f"start.{n}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return n
        except FileExistsError:
            n += 1


def main() -> None:
    folder, free = Path(sys.argv[1]), int(sys.argv[2])
    if take_number(folder) >= free:
        while not (folder / "open").exists():
            time.sleep(0.02)
    os.execv(sys.executable, [sys.executable, str(GREEDY)])


if __name__ == "__main__":
    main()
