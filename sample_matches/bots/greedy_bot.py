#!/usr/bin/env python3
"""A Golf bot for golfref that plays a one-ply greedy heuristic.

It looks only at the request's view (what its seat may see) and the rules from hello,
values every legal action by how it changes an estimate of the grid scores, and plays
the best. Standard library only. The protocol is done by the Python starter kit's
library, golfbot.py, generated from kits/python/golfbot.py next to this file (make
samples): a bot's files are its folder (a sandbox shows the bot nothing else, and its
fingerprint covers them).
See random_bot.py for the bare protocol.
"""

import sys
from collections import Counter
from functools import cache

sys.dont_write_bytecode = True  # no __pycache__ in the samples' folder
import golfbot  # noqa: E402  (next to this file: sys.path[0])

UNSEEN = 5.0  # expected points of a card this seat has not seen: about a deck's mean
DRAW_MARGIN = 1.0  # the discard top must beat an unknown stock card by this much
KNOCK_MARGIN = 2.0  # knock only when clearly lowest: a failed knock costs a penalty
KEPT = 2.0  # a rival's face-down card at knock time is mostly one it has seen and chose to keep
RIVAL_WEIGHT = 0.5  # a point given to (or taken from) one rival is worth less than our own
PEEK_VALUE = 1.5  # learning one hidden card with a J or Q power, in points
CLOSE_PENALTY = 5.0  # closing the hole while not ahead ends our chances to catch up


class Rules:
    """The parts of hello's rules that scoring depends on."""

    def __init__(self, rules):
        self.rows, self.cols = rules.rows, rules.cols
        self.values = golfbot.rank_points(rules)
        self.pairs = rules.cancel == "pairs"
        self.groups = self._groups(rules)
        self.swap_face_up = rules.swap_face == "up"

    def _groups(self, rules):
        rows, cols = self.rows, self.cols
        columns = [[r * cols + c for r in range(rows)] for c in range(cols)]
        lines = [[r * cols + c for c in range(cols)] for r in range(rows)]
        diagonals = [[i * cols + i for i in range(rows)], [i * cols + cols - 1 - i for i in range(rows)]]
        if self.pairs:
            scope = rules.pair_scope
            groups = [list(range(rows * cols))] if scope == "grid" else columns
            if scope == "columns+rows":
                groups = columns + lines
        else:
            which = rules.lines
            groups = columns + (lines if "rows" in which else [])
            groups += diagonals if "diagonals" in which and rows == cols else []
        return [g for g in groups if len(g) >= 2]  # one card alone never cancels

    def estimate(self, grid, unseen=UNSEEN):
        """Expected score of a grid: seen cards at their value, cancelled lines at 0.

        Unseen cards count `unseen` and never cancel, so completing a matching column is
        worth the whole column's points. Block bonuses are left out for brevity.
        """
        cancelled = set()
        for group in self.groups:
            ranks = [grid[s][0] if grid[s] else None for s in group]
            if self.pairs:
                counts = Counter(r for r in ranks if r)
                cancelled.update(s for s, r in zip(group, ranks) if r and counts[r] > 1)
            elif None not in ranks and len(set(ranks)) == 1:
                cancelled.update(group)
        return sum(0 if s in cancelled else unseen if card is None else self.values.get(card[0], UNSEEN)
                   for s, card in enumerate(grid))


class GreedyBot:
    """Chooses an action for each decision from the view alone."""

    def __init__(self, rules):
        self.rules = Rules(rules)

    def choose(self, view, legal):
        self.view, self.me = view, view.seat
        self.own = list(view.grids[self.me])
        handler = {"reveal": self.reveal, "draw": self.draw, "place": self.place,
                   "flip": self.flip, "target": self.target}.get(view.decision)
        return handler(legal) if handler else legal[0]

    # -- estimates --------------------------------------------------------------

    def rivals(self):
        return [g for s, g in enumerate(self.view.grids) if s != self.me]

    def ahead(self, grid):
        estimate = self.rules.estimate
        return estimate(grid) < min(estimate(g) for g in self.rivals())

    def help_to_next(self, card):
        """How much `card` on the discard pile would help the next seat, if it plays again."""
        v = self.view
        nxt = (self.me + 1) % len(v.grids)
        if card is None or nxt in (v.closer, v.knocker):
            return 0.0
        theirs = v.grids[nxt]
        estimate = self.rules.estimate
        base = estimate(theirs)
        # A card matching one they show completes a column for them: a big gain here.
        best = max(base - estimate(theirs[:s] + [card] + theirs[s + 1:]) for s in range(len(theirs)))
        return max(best, 0.0)

    def swap_values(self, card):
        """Value of swapping `card` into each own slot: our gain, less what we hand the next seat."""
        v, own, estimate = self.view, self.own, self.rules.estimate
        base = estimate(own)
        values = {}
        for slot in range(len(own)):
            trial = own[:slot] + [card] + own[slot + 1:]
            value = base - estimate(trial) - RIVAL_WEIGHT * self.help_to_next(own[slot])
            face_up = list(v.face_up[self.me])
            face_up[slot] = self.rules.swap_face_up
            closes = all(face_up) and v.closer is None and v.knocker is None
            if closes and not self.ahead(trial):
                value -= CLOSE_PENALTY
            values[f"swap:{slot}"] = value
        return values

    def king_moves(self):
        """(value, own slot, rival seat, rival slot) for each trade a K power can make."""
        estimate, own = self.rules.estimate, self.own
        base = estimate(own)
        for slot, mine in enumerate(own):
            for seat, theirs in enumerate(self.view.grids):
                if seat == self.me:
                    continue
                for their_slot, card in enumerate(theirs):
                    ours = own[:slot] + [card] + own[slot + 1:]
                    after = theirs[:their_slot] + [mine] + theirs[their_slot + 1:]
                    value = base - estimate(ours) + RIVAL_WEIGHT * (estimate(after) - estimate(theirs))
                    yield value, slot, seat, their_slot

    # -- decisions ----------------------------------------------------------------

    def reveal(self, legal):
        # Spread the start reveals over columns: each known column is a place we can pair.
        known_columns = {s % self.rules.cols for s, card in enumerate(self.own) if card}
        for action in legal:
            if int(action.split(":")[1]) % self.rules.cols not in known_columns:
                return action
        return legal[0]

    def draw(self, legal):
        own, estimate = self.own, self.rules.estimate
        # Counting rivals' hidden cards at UNSEEN here made about four knocks in ten fail.
        if "knock" in legal and None not in own and (
            estimate(own) < min(estimate(g, unseen=KEPT) for g in self.rivals()) - KNOCK_MARGIN
        ):
            return "knock"
        discard = self.view.discard
        if "discard" in legal and discard and max(self.swap_values(discard[-1]).values()) > DRAW_MARGIN:
            return "discard"
        return "stock" if "stock" in legal else legal[0]

    def place(self, legal):
        card = self.view.drawn
        if card is None:
            return legal[0]
        values = self.swap_values(card)
        # Throwing a card away (or using its power, which throws it too) hands it to the next seat.
        handed = RIVAL_WEIGHT * self.help_to_next(card)
        values["throw"] = -handed
        if card[0] in "JQ":
            values["power"] = PEEK_VALUE - handed
        elif card[0] == "K":
            values["power"] = max(self.king_moves())[0] - handed
        return max((a for a in legal if a in values), key=values.get, default=legal[0])

    def flip(self, legal):
        flips = [a for a in legal if a.startswith("flip:")]
        unseen = [a for a in flips if self.own[int(a.split(":")[1])] is None]
        if "pass" in legal:
            closing = len(flips) == 1 and self.view.closer is None and self.view.knocker is None
            if (closing and not self.ahead(self.own)) or (not closing and not unseen):
                return "pass"
        # Flip a card we have not seen: the flip then also tells us something.
        return (unseen or flips or legal)[0]

    def target(self, legal):
        v, me = self.view, self.me
        if v.power == "K":
            first = v.first_target
            moves = list(self.king_moves())
            if first is None:
                return f"target:{me}:{max(moves)[1]}"
            seat, slot = first
            if seat == me:
                _, _, their_seat, their_slot = max(m for m in moves if m[1] == slot)
                return f"target:{their_seat}:{their_slot}"
            return f"target:{me}:{max(m for m in moves if (m[2], m[3]) == (seat, slot))[1]}"
        # J and Q peek: a card we have not seen yet; for Q, at the rival who looks best,
        # since that is whose score decides whether we should knock.
        grids, estimate = v.grids, self.rules.estimate
        unseen = [a for a in legal if grids[int(a.split(":")[1])][int(a.split(":")[2])] is None]
        return min(unseen or legal, key=lambda a: estimate(grids[int(a.split(":")[1])]))


@cache
def bot_for(rules):
    """One bot per rule set (the rules are the same all match long)."""
    return GreedyBot(rules)


def choose(view, legal):
    """The golfbot entry point: the greedy choice for this view."""
    return bot_for(view.rules).choose(view, legal)


if __name__ == "__main__":
    golfbot.play(choose, name="greedy_bot", version="1.0")
