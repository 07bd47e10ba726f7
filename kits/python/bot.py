#!/usr/bin/env python3
"""The Python starter bot: keeps low cards, swaps out its worst one. Edit `choose`.

docs/WRITING_A_BOT.md builds this very bot step by step. golfbot.py, next to this file,
does the protocol. Run it as `python3 bot.py`.
"""

import golfbot

UNSEEN = 5  # points a card this seat has not seen is guessed at


def choose(view, legal):
    ranks = golfbot.rank_points(view.rules)

    def points(card):
        return golfbot.card_points(view.rules, card, UNSEEN, ranks)

    grid = view.grid
    worst = max(range(len(grid)), key=lambda slot: points(grid[slot]))
    if view.decision == "draw":
        if "discard" in legal and points(view.discard[-1]) < points(grid[worst]) - 2:
            return "discard"
        return "stock"
    if view.decision == "place":
        if points(view.drawn) < points(grid[worst]):
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
