"""Printing a game log for people: the match re-played through the engine, turn by turn.

`render_match(doc)` rebuilds the game from the log's rules and history and prints, for each
hole, the deal, every turn with the grids after it, and the revealed grids with their
scores; then the standings. Every card it prints comes through the one gate, `view.view`
and `view.events_for`:

- with `seat=S` it prints exactly what seat S saw at each moment (and, at a hole's end, the
  revealed grids, which everyone sees);
- without a seat it prints what the players knew between them: a card shows as soon as
  any seat has seen it (a stock draw, a peek, a face-down swap); a face-down card nobody
  has seen stays a back until the hole ends.

The printer is a `screen.Screen` (the layout, the cards, the grids, turns in the narrator's
words) that replays a log: the header, each hole, the summary and the standings are here.
Text a bot controls (names, reported program names and versions, fault messages and the
offending lines) goes through `terminal.sanitize`, so no escape sequence in a log reaches
the terminal. With `ascii_only` every character printed is ASCII; without `color` no
escape sequence at all is printed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ..game.cards import Card, Rank, Suit
from ..game.engine import Decision, Event, Game, GameError, HoleResult, Move, Shuffle, placings
from ..game.narrate import hole_label, reshuffle_text, rules_summary
from ..game.rules import rules_from_dict
from ..game.scoring import block_slots
from ..game.view import events_for, events_seen, view
from ..record.faults import EXPLAINED, Fault, SeatStatus, explain_disqualification, explain_fault
from ..record.matchlog import (
    DecisionStep,
    LogHole,
    LogLike,
    MatchLog,
    ReshuffleStep,
    Step,
    as_match_log,
    history_from_log,
)
from .screen import BOLD, DEFAULT_WIDTH, DIM, MIN_WIDTH, Screen, Turn, check_width, columns, fill, fit, pad

__all__ = ["DEFAULT_WIDTH", "MIN_WIDTH", "render_match"]

_FAULT_LINE_KEEP = 72
_SEVEN = Card(Rank.SEVEN, Suit.SPADES)  # the legend's example cards
_SEVEN_OF_DECK_2 = Card(Rank.SEVEN, Suit.SPADES, 2)


def render_match(
    doc: LogLike,
    *,
    hole: int | None = None,
    seat: int | None = None,
    summary: bool = False,
    compact: bool = False,
    color: bool = False,
    ascii_only: bool = False,
    width: int = DEFAULT_WIDTH,
) -> list[str]:
    """The lines that show a logged match to people, none wider than `width` columns.

    `hole` (from 0) prints that hole only; `seat` prints the match as that seat saw it;
    `summary` prints the header, a table of hole scores and the standings; `compact`
    prints one line per turn instead of the grids. Raises ValueError when the hole or
    seat is out of range, the width is below `MIN_WIDTH` or the log does not replay.
    """
    printer = _Printer(doc, seat=seat, color=color, ascii_only=ascii_only, width=width, compact=compact)
    return printer.render(hole=hole, summary=summary)


class _Printer(Screen):
    """A logged match on a terminal: the log replayed through the engine, hole by hole, and its summary."""

    def __init__(
        self,
        doc: LogLike,
        *,
        seat: int | None,
        color: bool,
        ascii_only: bool,
        width: int = DEFAULT_WIDTH,
        compact: bool = False,
    ) -> None:
        check_width(width)
        try:
            self.log: MatchLog = as_match_log(doc)
            rules = rules_from_dict(self.log.rules)
            self.history: list[Event] = history_from_log(self.log)
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"the log cannot be printed: {e}") from None
        log = self.log
        names = [p.name for p in log.players]
        super().__init__(rules, names, seat=seat, color=color, ascii_only=ascii_only, width=width, compact=compact)
        self.faults: list[Fault] = list(log.faults)
        # A fault is shown at the step of its request (request ids are unique in a match),
        # whatever hole it names; one without a known request at the end of its hole, or
        # in the header when it names none.
        self.request_hole: dict[int | None, int] = {
            step.request: h for h, step in log.decisions() if step.request is not None
        }
        self._compact_notes: dict[int, dict[int | None, list[str]]] = {}
        # How long the referee waited for each request's answer, for the words of a timeout.
        self.waited: dict[int, float] = {
            s.request: s.ms for _, s in log.decisions() if s.request is not None and s.ms is not None
        }

    # -- the whole match -----------------------------------------------------------------

    def render(self, *, hole: int | None, summary: bool) -> list[str]:
        holes = self.log.holes
        if hole is not None and not (isinstance(hole, int) and 0 <= hole < len(holes)):
            has = f"holes 0 to {len(holes) - 1}" if holes else "no hole"
            raise ValueError(f"hole {hole} is out of range: the log has {has}")
        out = self.header()
        events = iter(self.history)
        for h, hole_log in enumerate(holes):
            shown = not summary and (hole is None or hole == h)
            lines = self.play_hole(h, hole_log, events, shown)
            if shown:
                out.append("")
                out += lines
            if hole is not None and h >= hole:
                break
        if summary:
            out.append("")
            out += self.score_table(hole)
        if hole is None:
            out.append("")
            out += self.standings()
        return [piece for line in out for piece in fit(line, self.width)]

    def header(self) -> list[str]:
        log = self.log
        cols = self.width
        out = [self.style(line, BOLD) for line in fill("golfref match ", [self.text(log.match)], "", 4, cols)]
        status = self.text(log.status.value)
        out += fill("id       ", [self.text(log.match_id), f"({status})"], " ", 9, cols)
        seed = log.seed
        out.append(f"seed     {seed if seed is not None else 'not recorded'}")
        for i, group in enumerate(self.rules_groups()):
            out += fill("rules    " if i == 0 else " " * 9, group, ", ", 9, cols)
        out.append("")
        out += self.players_table()
        for f in self.faults:
            if self.fault_hole(f) is None:
                out += self.fault_lines(f, indent=2, with_name=True)
        error = log.error
        if error:
            out += fill("error    ", self.text(error).split(" "), " ", 9, cols)
        out.append("")
        if self.seat is not None:
            seen = f"as seat {self.seat} ({self.names[self.seat]}) saw it"
        else:
            seen = "every card any player saw; unseen face-down cards stay hidden until the hole ends"
        out += fill("view     ", seen.split(" "), " ", 9, cols)
        dot = self.g.dot
        legend = [
            f"{self.style(self.g.back, DIM)} face down",
            f"[{self.card(_SEVEN)}] face down, known",
            f"{self.g.cancelled} cancelled",
            f"{self.g.block} in a block",
        ]
        if self.rules.decks > 1:
            legend.append(f"{self.card(_SEVEN_OF_DECK_2)} of deck 2")
        legend.append("seats, holes and slots count from 0")
        out += fill("legend   ", legend, f" {dot} ", 9, cols)
        return out

    def rules_groups(self) -> list[list[str]]:
        """The rules in three groups: the table, the play, the scoring."""
        return rules_summary(self.rules)

    def players_table(self) -> list[str]:
        rows = [("seat", "player", "program", "status")]
        for i, p in enumerate(self.log.players[: self.players]):
            if p.builtin:
                program = f"built-in {self.text(p.builtin)}"
            elif p.python is not None:
                program = f"python {self.text(p.python if p.object is None else p.object, 40)}"
            else:
                name, version = p.reported_name, p.reported_version
                program = self.text(name, 24) if name is not None else "(did not report)"
                if version is not None:
                    program += " " + self.text(version, 16)
            status = self.text(p.status.value)
            count = p.faults
            if count:
                status += f" ({count} fault{'s' if count != 1 else ''})"
            at = p.disqualified_at
            if at is not None and at.hole is not None:
                status += f" at {hole_label(at.hole, self.rules.holes)}"
            rows.append((str(i), self.names[i], program, status))
        return self.table(rows, right=(), shrink=2)

    # -- one hole --------------------------------------------------------------------

    def play_hole(self, h: int, hole_log: LogHole, events: Iterator[Any], shown: bool) -> list[str]:
        """Apply one hole of the log to the game; its lines when `shown`."""
        game = self.game
        deal = next(events, None)
        if not isinstance(deal, Shuffle) or game.chance is None:
            raise ValueError(f"hole {h}: the log does not replay (no deal where one is due)")
        game.apply_shuffle(deal.order)
        out = [self.rule_line(f"{hole_label(h, self.rules.holes)} {self.g.dot} {self.names[game.starter]} starts")]
        if self.compact:
            out += self.block(self.wrap(pad("deal", self.text_indent), [self.pile_text(game)]), [])
        else:
            if not self.banded:
                out += self.block([""], [self.names_row(range(self.players))], tap=False)
            out += self.block(["deal", " " * self.text_indent + self.pile_text(game)], self.panel(game))
        notes = self.notes_by_request(h)
        steps = hole_log.steps
        results_before = len(game.results)
        mark = 0  # the hole's events printed so far
        turn_no = 0
        i = 0
        while i < len(steps) and len(game.results) == results_before:
            if isinstance(steps[i], ReshuffleStep):
                ev = next(events, None)
                if not isinstance(ev, Shuffle) or game.chance is None:
                    raise ValueError(f"hole {h}, step {i}: the log does not replay (a reshuffle out of turn)")
                game.apply_shuffle(ev.order)
                count = next((e["cards"] for e in self.events(game, mark) if e["event"] == "reshuffle"), 0)
                mark = len(game.events)
                out += self.block(self.wrap(" " * self.text_indent, [reshuffle_text(count)]), [])
                i += 1
                continue
            closer = game.closer
            turn, i = self.play_turn(h, steps, i, events)
            ended = len(game.results) > results_before
            # The hole's last turn is told from the table as it stood before every card turned up.
            table = game.last_table if ended and game.last_table is not None else game
            turn.events = self.events(table, mark)
            turn.closes = closer is None and table.closer == turn.seat
            mark = len(table.events)
            if not turn.reveal:
                turn_no += 1
            head = pad(f"{self.g.dot if turn.reveal else turn_no:>3} {self.names[turn.seat]}", self.text_indent)
            phrases = self.turn_text(turn)
            if i >= len(steps) and not ended and game.to_move == turn.seat and game.decision is not Decision.DRAW:
                phrases.append("(the log ends mid-turn)")
            if self.compact:
                # One line a turn: its faults said briefly at its end, no grids, no piles.
                said = [p for step in turn.steps for p in self.compact_notes(h).get(step.request, [])]
                phrases += [p + (f" ({said.count(p)})" if said.count(p) > 1 else "") for p in dict.fromkeys(said)]
                out += self.block(self.wrap(head, phrases), [], game=table)
                continue
            left = self.wrap(head, phrases)
            if not ended:
                left.append(" " * self.text_indent + self.pile_text(game))
            out += self.block(left, self.panel(table, self.changed(turn)), game=table)
            for step in turn.steps:
                out += notes.get(step.request, [])
        for f in self.faults:
            if self.fault_hole(f) == h and f.request not in self.request_hole:
                out += self.fault_lines(f, indent=4, with_name=True)
        if len(game.results) > results_before:
            out += self.hole_end(game.results[-1])
        else:
            out.append(f"    hole not finished (match {self.text(self.log.status.value)})")
        return out if shown else []

    def play_turn(self, h: int, steps: Sequence[Step], i: int, events: Iterator[Any]) -> tuple[Turn, int]:
        """Apply the steps of one turn (or of one seat's reveals) from step `i`; the turn and the next step."""
        game = self.game
        results_before = len(game.results)
        first = steps[i]
        assert isinstance(first, DecisionStep)
        turn = Turn(seat=first.seat, steps=[], events=[], reveal=first.decision is Decision.REVEAL)
        while i < len(steps):
            step = steps[i]
            if not isinstance(step, DecisionStep):
                break
            ev = next(events, None)
            if not isinstance(ev, Move) or game.to_move != ev.seat or ev.seat != turn.seat:
                raise ValueError(f"hole {h}, step {i}: the log does not replay (not this seat's turn)")
            try:
                game.apply(ev.action)
            except GameError as e:
                raise ValueError(f"hole {h}, step {i}: the log does not replay: {e}") from None
            turn.steps.append(step)
            i += 1
            if len(game.results) > results_before or game.chance is not None:
                break
            if game.to_move != turn.seat or game.decision in (None, Decision.DRAW):
                break
        return turn, i

    def notes_by_request(self, h: int) -> dict[int | None, list[str]]:
        """Fault and disqualification lines of hole `h`, by the request they belong to."""
        notes: dict[int | None, list[str]] = {}
        for f in self.faults:
            if self.request_hole.get(f.request) == h:
                notes.setdefault(f.request, []).extend(self.fault_lines(f, indent=self.text_indent))
        for s, p in enumerate(self.log.players[: self.players]):
            at = p.disqualified_at
            if at is not None and self.request_hole.get(at.request) == h:
                words = f"{self.names[s]} is disqualified; the fallback plays its turns from here".split(" ")
                pad = " " * self.text_indent
                notes.setdefault(at.request, []).extend(fill(pad + "! ", words, " ", len(pad) + 2, self.width))
        return notes

    def compact_notes(self, h: int) -> dict[int | None, list[str]]:
        """The compact mode's fault and disqualification phrases of hole `h`, by request."""
        if h not in self._compact_notes:
            # The kinds only: the messages are in the full view.
            notes: dict[int | None, list[str]] = {}
            for f in self.faults:
                if self.request_hole.get(f.request) == h:
                    notes.setdefault(f.request, []).append("! " + self.text(f.kind.value, 24))
            for p in self.log.players[: self.players]:
                at = p.disqualified_at
                if at is not None and self.request_hole.get(at.request) == h:
                    notes.setdefault(at.request, []).append("! disqualified")
            self._compact_notes[h] = notes
        return self._compact_notes[h]

    def fault_hole(self, fault: Fault) -> int | None:
        """The hole a fault is shown in: its request's, else the one it names (None: the header)."""
        hole = self.request_hole.get(fault.request, fault.hole)
        holes = len(self.log.holes)
        return hole if hole is not None and 0 <= hole < holes else None

    def pile_text(self, game: Game) -> str:
        v = view(game, self.seat if self.seat is not None else 0)
        top = self.card(v.discard[-1]) if v.discard else "-"
        return f"discard {top}  stock {v.stock_size}"

    # -- what the viewer sees ---------------------------------------------------------

    def grids(self, game: Game) -> tuple[tuple[tuple[Card | None, ...], ...], tuple[tuple[bool, ...], ...]]:
        """Each seat's grid as the viewer sees it: `None` where the viewer has not seen the card."""
        if self.seat is not None:
            v = view(game, self.seat)
            return v.grids, v.face_up
        views = [view(game, s) for s in range(self.players)]
        grids = tuple(
            tuple(next((v.grids[g][i] for v in views if v.grids[g][i] is not None), None) for i in range(len(grid)))
            for g, grid in enumerate(views[0].grids)
        )
        return grids, views[0].face_up

    def events(self, game: Game, start: int) -> list[dict[str, Any]]:
        """The hole's events from `start` as the viewer sees them (all seats' knowledge merged)."""
        if self.seat is not None:
            return events_for(game, self.seat, start)
        return events_seen(game, range(self.players), start)

    def panel(self, game: Game, seats: Sequence[int] | None = None) -> list[str]:
        """The grids of `seats` (all by default) as the viewer sees them, one text line per grid row."""
        grids, face_up = self.grids(game)
        cols = self.rules.cols
        rows: dict[int, list[str]] = {}
        for s in range(self.players) if seats is None else seats:
            rows[s] = [
                "".join(self.cell(grids[s][r * cols + c], face_up[s][r * cols + c]) for c in range(cols))
                for r in range(self.rules.rows)
            ]
        return self.arrange(rows)

    # -- faults ----------------------------------------------------------------------

    def fault_lines(self, fault: Fault, indent: int, with_name: bool = False) -> list[str]:
        seat = fault.seat
        who = f"{self.names[seat]}: " if with_name and 0 <= seat < self.players else ""
        kind = self.text(fault.kind.value)
        request = fault.request
        where = f" (request {request})" if request is not None else ""
        pad = " " * indent
        words = self.text(fault.message).split(" ")
        out = fill(f"{pad}! {who}{kind}{where}: ", words, " ", indent + 2, self.width)
        if fault.kind in EXPLAINED:
            waited = self.waited.get(request) if request is not None else None
            slots = self.rules.rows * self.rules.cols
            why = explain_fault(fault, self.log.time_control, slots, waited, self.seat_label(seat))
            out += fill(f"{pad}  why: ", self.text(why).split(" "), " ", indent + 7, self.width)
        line = fault.line
        if line is not None:
            keep = min(_FAULT_LINE_KEEP, self.width - indent - 8)
            out.append(f"{pad}  line: {self.text(line, keep)}")
        return out

    # -- hole end ---------------------------------------------------------------------

    def hole_end(self, result: HoleResult) -> list[str]:
        g = self.g
        how = self.narrator.result(result)
        cards = self.game.cards
        cols, rows = self.rules.cols, self.rules.rows
        grid_rows: dict[int, list[str]] = {}
        for s, grid in enumerate(result.grids):
            gs = result.grid_scores[s]
            in_block = {slot for b in gs.blocks for slot in block_slots(b, cols)}
            cancelled = {slot for line in gs.cancelled for slot in line.slots}
            marks = [g.block if i in in_block else g.cancelled if i in cancelled else " " for i in range(len(grid))]
            grid_rows[s] = [
                "".join(self.cell(cards[grid[r * cols + c]], True, marks[r * cols + c]) for c in range(cols))
                for r in range(rows)
            ]

        def numbers(values: Sequence[str]) -> str:
            return " ".join(pad(v + " ", self.grid_width, right=True) for v in values)

        if self.compact:
            out = [f"    end: {how}"]
        else:
            left = [f"    end: {how}", "    every card turned up"]
            out = [] if self.banded else self.block([""], [self.names_row(range(self.players))], tap=False)
            out += self.block(left, self.arrange(grid_rows), tap=False)
        # The compact mode leaves out the grids' points: the hole score and the penalty make them.
        rows_out = [] if self.compact else [("    points", [str(gs.total) for gs in result.grid_scores])]
        if any(result.penalties):
            rows_out.append(("    knock penalty", [f"+{p}" if p else "" for p in result.penalties]))
        rows_out.append(("    hole score", [str(s) for s in result.scores]))
        rows_out.append(("    total", [str(t) for t in result.totals]))
        for label, values in rows_out:
            if self.stacked:
                pairs = [f"{self.names[s]} {v}" for s, v in enumerate(values) if v]
                out += fill(f"{label}: ", pairs, ", ", columns(label) + 2, self.width)
            else:
                out.append((pad(label, self.left_width) + " " + numbers(values)).rstrip())
        notes = self.narrator.score_notes(result)
        if notes:
            out += fill("    cancelled: ", notes, "; ", 6, self.width)
        return out

    # -- summary and standings ------------------------------------------------------------

    def score_table(self, hole: int | None) -> list[str]:
        results = self.game.results
        rows: list[list[str]] = [["hole", *self.names, "end"]]
        for r in results:
            if hole is not None and r.hole != hole:
                continue
            end = self.narrator.result(r)
            penalties = [f"+{p} {self.names[s]}" for s, p in enumerate(r.penalties) if p]
            if penalties:
                end += f" (knock penalty {', '.join(penalties)})"
            rows.append([str(r.hole), *(str(s) for s in r.scores), end])
        last = [r for r in results if hole is None or r.hole <= hole]
        if last:
            rows.append(["total", *(str(t) for t in last[-1].totals), ""])
        widths = [max(columns(row[c]) for row in rows) for c in range(len(rows[0]))]
        if sum(widths) + 2 * (len(widths) - 1) <= self.width:
            return self.table(rows, right=range(self.players + 1))
        # Too wide: how each hole ended goes under the table, and the seats' columns go in
        # bands of as many as fit, each band under the hole numbers.
        out: list[str] = []
        start = 1
        while start <= self.players:
            used = widths[0]
            stop = start
            while stop <= self.players and (stop == start or used + 2 + widths[stop] <= self.width):
                used += 2 + widths[stop]
                stop += 1
            if out:
                out.append("")
            out += self.table([[row[0], *row[start:stop]] for row in rows], right=range(stop - start + 1))
            start = stop
        for row in rows[1:-1] if last else rows[1:]:
            out += fill(f"hole {row[0]}: ", row[-1].split(" "), " ", 4, self.width)
        return out

    def standings(self) -> list[str]:
        log = self.log
        totals: Sequence[int] | None = log.totals
        places: Sequence[int] | None = log.placings
        players = log.players
        note = ""
        if not (totals is not None and places is not None and len(totals) == len(places) == self.players):
            totals = list(self.game.totals)
            out_seats = [i for i, p in enumerate(players) if p.status is SeatStatus.DISQUALIFIED]
            places = list(placings(totals, out_seats))
            status = self.text(log.status.value)
            note = f" after {len(self.game.results)} of {self.rules.holes} holes (match {status})"
        rows = [["place", "player", "total", "status"]]
        for s in sorted(range(self.players), key=lambda s: (places[s], s)):
            status = self.text(players[s].status.value) if s < len(players) else "?"
            rows.append([str(places[s]), self.names[s], str(totals[s]), status])
        out = [self.style("standings" + note, BOLD), *self.table(rows, right=(2,))]
        for s, p in enumerate(players[: self.players]):
            if p.status is SeatStatus.DISQUALIFIED:
                at = p.disqualified_at
                why = explain_disqualification(log.seat_faults(s), log.fault_policy, at.request if at else None,
                                               at.hole if at else None, self.seat_label(s))  # fmt: skip
                out += fill("", self.text(why).split(" "), " ", 2, self.width)
        return out

    def seat_label(self, seat: int) -> str:
        """A seat in a sentence: its name and number."""
        return f"{self.names[seat]} (seat {seat})" if 0 <= seat < self.players else f"seat {seat}"
