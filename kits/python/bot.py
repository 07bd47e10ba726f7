#!/usr/bin/env python3
"""The Python starter bot: keeps low cards, swaps out its worst one. Edit `choose`.

Run it as `python3 bot.py`; golfbot.py (next to this file) does the protocol.
"""

import golfbot

UNSEEN = 5  # points a card this seat has not seen is guessed at


def points(card, values):
    """Points of a card such as "7S"; a card this seat has not seen (None) counts UNSEEN."""
    return UNSEEN if card is None else values[card[0]]


def choose(view, legal):
    """Pick one of `legal` for the decision `view.decision`."""
    values = golfbot.rank_points(view.rules)
    grid = view.grid
    worst = max(range(len(grid)), key=lambda slot: points(grid[slot], values))
    if view.decision == "draw":
        top = view.discard[-1]
        if "discard" in legal and points(top, values) < points(grid[worst], values) - 2:
            return "discard"
        return "stock"
    if view.decision == "place":
        if points(view.drawn, values) < points(grid[worst], values):
            return f"swap:{worst}"
        if "power" in legal:
            return "power"  # a J, Q or K with card powers on: throw it away for its power
        return "throw" if "throw" in legal else f"swap:{worst}"
    if view.decision == "flip":
        # Turn up a card we have not seen: the flip then tells us something.
        unseen = [a for a in legal if a.startswith("flip:") and grid[int(a[5:])] is None]
        return unseen[0] if unseen else legal[0]
    if view.decision == "target":
        # A power's target ("target:SEAT:SLOT"): a card we have not seen, if any.
        unseen = [a for a in legal if view.grids[int(a.split(":")[1])][int(a.split(":")[2])] is None]
        return unseen[0] if unseen else legal[0]
    return legal[0]  # reveal: the first legal choice


if __name__ == "__main__":
    golfbot.play(choose, name="python-starter", version="1")
