#!/usr/bin/env python3
"""The Python starter bot: keeps low cards, swaps out its worst one. Edit `choose`.

docs/WRITING_A_BOT.md builds this very bot step by step. golfbot.py, next to this file,
does the protocol. Run it as `python3 bot.py`.
"""

import golfbot

UNSEEN = 5  # points a card this seat has not seen is guessed at


def points(card, values):
    return UNSEEN if card is None else values[card[0]]


def choose(view, legal):
    values = golfbot.rank_points(view.rules)
    grid = view.grid
    worst = max(range(len(grid)), key=lambda slot: points(grid[slot], values))
    if view.decision == "draw":
        if "discard" in legal and points(view.discard[-1], values) < points(grid[worst], values) - 2:
            return "discard"
        return "stock"
    if view.decision == "place":
        if points(view.drawn, values) < points(grid[worst], values):
            return f"swap:{worst}"
        if "power" in legal:
            return "power"
        return "throw" if "throw" in legal else f"swap:{worst}"
    if view.decision == "flip":
        unseen = [a for a in legal if a.startswith("flip:") and grid[int(a[5:])] is None]
        return unseen[0] if unseen else legal[0]
    if view.decision == "target":
        unseen = [a for a in legal if view.grids[int(a.split(":")[1])][int(a.split(":")[2])] is None]
        return unseen[0] if unseen else legal[0]
    return legal[0]


golfbot.play(choose, name="python-starter", version="1")
