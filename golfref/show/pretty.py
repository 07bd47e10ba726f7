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

Text a bot controls (names, reported program names and versions, fault messages and the
offending lines) goes through `terminal.sanitize`, so no escape sequence in a log reaches
the terminal. With `ascii_only` every character printed is ASCII; without `color` no
escape sequence at all is printed. Colours are rich styles and every width is rich's cell
width; no text is ever read as rich markup, so `[bold]` in a bot's name prints as written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import zip_longest
from typing import TYPE_CHECKING, Any, Final

from rich.cells import cell_len
from rich.color import ColorSystem
from rich.style import Style

from ..game.cards import Card, Rank, Suit
from ..game.engine import Decision, Event, Game, GameError, HoleEnd, HoleResult, Move, Shuffle, placings
from ..game.rules import Cancel, KnockPenalty, Lines, PairScope, Reveal, RevealChoice, Rules, rules_from_dict
from ..game.scoring import block_slots
from ..game.view import events_for, events_seen, view
from ..record.faults import Fault, SeatStatus
from ..record.matchlog import (
    Chooser,
    DecisionStep,
    LogHole,
    LogLike,
    MatchLog,
    ReshuffleStep,
    Step,
    as_match_log,
    history_from_log,
)
from .terminal import hole_label, sanitize

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

__all__ = ["render_match", "rules_summary", "hole_end_text"]

DEFAULT_WIDTH = 100
"""Columns when the caller names none (output to a file or a pipe)."""
MIN_WIDTH = 50
"""The narrowest output the layout is made for: a name, a turn's text and one grid."""
_NAME_WIDTH = 12
_LEFT_MAX = 52  # the turn-text column: wide enough for most turns on one line
_LEFT_MIN = 34
_STACK_INDENT = "    "  # the grids under the turn text, when they are too wide to sit beside it
_LABEL = 3  # the widest card label: "10♥"; a card of a second deck adds "#2"
_FAULT_LINE_KEEP = 72
_COMPACT_RULE = 72  # the hole headers of the compact mode, which has no grids to span

_SEVEN = Card(Rank.SEVEN, Suit.SPADES)  # the legend's example cards
_SEVEN_OF_DECK_2 = Card(Rank.SEVEN, Suit.SPADES, 2)
# Colours are rich styles, rendered in the 8 standard colours every terminal has.
_RED = Style(color="red")
_BOLD = Style(bold=True)
_DIM = Style(dim=True)
_COLOR_SYSTEM: Final = "standard"
_COLORS = ColorSystem[_COLOR_SYSTEM.upper()]
_ESC = "\x1b"  # only rich's own styles put one in a line: bot text is sanitized first

_END_TEXT = {
    HoleEnd.CLOSED: "closed by {ender}",
    HoleEnd.KNOCKED: "knocked by {ender}",
    HoleEnd.STOCK_EXHAUSTED: "stock exhausted",
    HoleEnd.TURN_LIMIT: "turn limit",
}


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


def rules_summary(r: Rules) -> list[list[str]]:
    """The rules in words, in three groups: the table, the play, the scoring."""
    decks = f"{r.decks} deck{'s' if r.decks != 1 else ''}"
    first = [
        f"{r.preset}",
        r.layout,
        decks,
        f"{r.holes} hole{'s' if r.holes != 1 else ''}",
        f"turn limit {r.turn_limit}",
    ]
    chooser = "fixed slots" if r.reveal_choice is RevealChoice.FIXED else "players choose"
    how = "peeked" if r.reveal is Reveal.PEEK else "flipped"
    reveal = f"{r.reveal_count} {how}, {chooser}" if r.reveal_count else "none"
    second = [
        f"reveal {reveal}",
        f"swaps face {'up' if r.swap_face_up else 'down'}",
        {"none": "no flip", "may": "may flip", "must": "must flip"}[r.flip_after_throw.value] + " after a throw",
    ]
    if r.knocking:
        penalty = "double" if r.knock_penalty is KnockPenalty.DOUBLE else f"+{r.knock_penalty}"
        second.append(f"knocking ({penalty})")
    if r.cancel is Cancel.LINE:
        lines = {
            Lines.COLUMNS: "columns",
            Lines.ROWS: "columns and rows",
            Lines.DIAGONALS: "columns, rows and diagonals",
        }
        cancel = f"whole {lines[r.lines]} cancel"
    else:
        scope = {PairScope.COLUMNS: "in columns", PairScope.ROWS: "in columns and rows", PairScope.GRID: "anywhere"}
        cancel = f"pairs cancel {scope[r.pair_scope]}"
    third = [cancel, f"twos {r.twos:+d}", f"J/Q {r.jack_value}/{r.queen_value}"]
    third.append("jokers off" if r.jokers is None else f"jokers {r.jokers:+d}")
    if r.block_bonus is not None:
        third.append(f"blocks {r.block_bonus}")
    third.append("card powers" if r.card_powers else "no card powers")
    return [first, second, third]


def hole_end_text(result: HoleResult, names: Sequence[str]) -> str:
    """How a hole ended, in words: `closed by alice`, `stock exhausted`."""
    ender = names[result.ender] if result.ender is not None else ""
    return _END_TEXT[result.end].format(ender=ender)


# -- text helpers ---------------------------------------------------------------------


def _width(text: str) -> int:
    """Columns `text` takes on a terminal (rich's cell widths), its colours left out."""
    if _ESC in text:
        from rich.text import Text

        text = Text.from_ansi(text).plain
    return cell_len(text)


def _chop(text: str, cols: int) -> list[str]:
    """`text` cut into pieces of at most `cols` columns; a colour open at a cut is closed and reopened."""
    styled = None
    if _ESC in text:
        from rich.text import Text

        styled = Text.from_ansi(text)
        text = styled.plain
    cuts: list[int] = []
    used = 0
    for i, ch in enumerate(text):
        w = cell_len(ch)
        if used + w > cols and used:
            cuts.append(i)
            used = 0
        used += w
    if styled is None:
        return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    return [_render(piece) for piece in styled.divide(cuts)]


def _render(text: Text) -> str:
    """A rich `Text` as the characters a terminal is sent: rich's own rendering, without wrapping."""
    console = _console()
    with console.capture() as captured:
        console.print(text, end="", soft_wrap=True)
    return captured.get()


@cache
def _console() -> Console:
    from rich.console import Console

    # Whether to colour is decided before (`color`): NO_COLOR or TERM are not read again here.
    return Console(color_system=_COLOR_SYSTEM, force_terminal=True, no_color=False, legacy_windows=False)


def _fill(head: str, parts: Sequence[str], sep: str, indent: int, cols: int) -> list[str]:
    """`head` then `parts` joined by `sep`, wrapped to `cols` columns with a hanging indent.

    A part too long for a line of its own is cut across lines.
    """
    lines = [head]
    for i, part in enumerate(parts):
        piece = part + (sep.rstrip() if i < len(parts) - 1 else "")
        gap = "" if lines[-1] == head else " " * (len(sep) - len(sep.rstrip()))
        if lines[-1] != head and _width(lines[-1]) + len(gap) + _width(piece) > cols:
            lines.append(" " * indent + piece)
        else:
            lines[-1] += gap + piece
        while _width(lines[-1]) > cols:
            first, *rest = _chop(lines[-1], cols)
            lines[-1] = first
            lines.append(" " * (indent if cols - indent >= 10 else 0) + "".join(rest))
    return lines


def _fit(line: str, cols: int) -> list[str]:
    """A line as it may be printed: cut across lines when it is wider than `cols`.

    The layout keeps its own lines within the width; this is the last guard for text of
    unforeseen length, so that no line ever wraps on the terminal.
    """
    if _width(line) <= cols:
        return [line]
    return [piece.rstrip() for piece in _chop(line, cols)]


def _pad(text: str, cols: int, right: bool = False) -> str:
    fill = " " * max(0, cols - _width(text))
    return fill + text if right else text + fill


@dataclass(frozen=True)
class _Glyphs:
    back: str
    arrow: str
    swap: str
    dot: str
    bar: str
    rule: str
    more: str
    cancelled: str
    block: str


_UNICODE = _Glyphs(back="░░", arrow="→", swap="↔", dot="·", bar="│", rule="━", more="…", cancelled="=", block="+")
_ASCII = _Glyphs(back="##", arrow="->", swap="<->", dot="-", bar="|", rule="=", more="~", cancelled="=", block="+")


@dataclass
class _Turn:
    """One turn (or one seat's start-of-hole reveals) as printed."""

    seat: int
    steps: list[DecisionStep]
    events: list[dict[str, Any]]
    reveal: bool
    closes: bool = False


class _Printer:
    def __init__(
        self,
        doc: LogLike | None,
        *,
        seat: int | None,
        color: bool,
        ascii_only: bool,
        width: int = DEFAULT_WIDTH,
        compact: bool = False,
        live: tuple[Rules, Sequence[str]] | None = None,
    ) -> None:
        """A printer of the log `doc`, or (None) of a match in play under the `live` rules and seat names."""
        if not (isinstance(width, int) and width >= MIN_WIDTH):
            raise ValueError(f"width {width} is too narrow: the match needs at least {MIN_WIDTH} columns")
        self.width = width
        self.compact = compact
        self.log: MatchLog | None = None
        self.history: list[Event] = []
        if doc is None:
            assert live is not None, "a printer without a log draws a match in play"
            self.rules, names = live
        else:
            try:
                self.log = as_match_log(doc)
                self.rules = rules_from_dict(self.log.rules)
                self.history = history_from_log(self.log)
            except (KeyError, TypeError, ValueError) as e:
                raise ValueError(f"the log cannot be printed: {e}") from None
            names = [p.name for p in self.log.players]
        log = self.log
        self.players = self.rules.players
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.players):
            raise ValueError(f"seat {seat} is out of range: this match has seats 0 to {self.players - 1}")
        self.seat = seat
        self.color = color
        self.ascii = ascii_only
        self.g = _ASCII if ascii_only else _UNICODE
        self.names = [self.text(name, _NAME_WIDTH) for name in names[: self.players]]
        self.names += [f"seat {i}" for i in range(len(self.names), self.players)]
        self.name_width = max(_width(n) for n in self.names)
        self.text_indent = 4 + self.name_width + 2  # where a turn's text starts: "  7 alice  ..."
        self.game = Game(self.rules)
        self.card_ids = {str(c): i for i, c in enumerate(self.game.cards)}
        self.faults: list[Fault] = list(log.faults) if log is not None else []
        # A fault is shown at the step of its request (request ids are unique in a match),
        # whatever hole it names; one without a known request at the end of its hole, or
        # in the header when it names none.
        self.request_hole: dict[int | None, int] = {
            step.request: h for h, step in (log.decisions() if log is not None else ()) if step.request is not None
        }
        # Called with the game as it stands and the lines printed for that moment; tests
        # use it to check that a seat's view shows nothing the seat could not see.
        self.tap: Callable[[Game, list[str]], None] | None = None
        # Cards of a second deck carry its number ("K♥#2"), so every cell of such a match is wider.
        self.label_width = _LABEL + (2 if self.rules.decks > 1 else 0)
        self.cell_width = self.label_width + 2  # one grid cell: " 10♥ ", "[10♥]", "  ░░ "
        self.grid_width = self.cell_width * self.rules.cols
        self.panel_width = self.players * self.grid_width + (self.players - 1)
        self.left_width = min(_LEFT_MAX, width - self.panel_width - 1)
        self.stacked = compact or self.left_width < _LEFT_MIN
        # Seats whose grids fit side by side; with more, they go in bands of seats, and each
        # turn shows only the grids it changed.
        self.band = self.players
        if self.stacked:
            room = width - len(_STACK_INDENT) + 1
            fit = max(1, room // (self.grid_width + 1))
            bands = -(-self.players // fit)
            self.band = -(-self.players // bands)  # bands of even size: 4 + 4, not 6 + 2
            self.panel_width = self.band * self.grid_width + (self.band - 1)
            self.left_width = width  # the turn text has whole lines to itself
        self.banded = self.band < self.players
        self._compact_notes: dict[int, dict[int | None, list[str]]] = {}

    # -- text ----------------------------------------------------------------------

    def text(self, value: Any, cols: int | None = None) -> str:
        """Text a bot or a config controls, safe for the terminal (and ASCII when asked).

        With `cols`, cut to that many columns, never inside the escape of one character.
        """
        raw = value if isinstance(value, str) else str(value)
        out = self._safe(raw)
        if cols is None or _width(out) <= cols:
            return out
        pieces = []
        used = 0
        for ch in raw:
            piece = self._safe(ch)
            if used + _width(piece) > cols - 1:
                break
            pieces.append(piece)
            used += _width(piece)
        return "".join(pieces) + self.g.more

    def _safe(self, text: str) -> str:
        out = sanitize(text)
        if self.ascii:
            out = out.encode("ascii", "backslashreplace").decode("ascii")
        return out

    def _short(self, text: str, cols: int) -> str:
        """Our own text (made safe already) cut to `cols` columns."""
        if _width(text) <= cols:
            return text
        while _width(text) > cols - 1:
            text = text[:-1]
        return text + self.g.more

    def style(self, text: str, style: Style) -> str:
        """`text` in `style` when colour is on (rich renders the escape sequences)."""
        return style.render(text, color_system=_COLORS) if self.color else text

    def label(self, card: Card) -> str:
        """A card's name as printed, without padding: `10♥`, `K♠`, `10H` in ASCII; `K♥#2` of deck 2."""
        deck = f"#{card.deck}" if card.deck > 1 else ""  # as in the log's card names
        if card.rank is Rank.JOKER:
            return "Jkr" + deck
        if self.ascii:
            return card.rank.label + (card.suit.value if card.suit else "") + deck
        return card.pretty + deck

    def card(self, card: Card) -> str:
        """A card in a sentence, in red when it is red and colour is on."""
        text = self.label(card)
        red = card.suit is not None and card.suit.is_red
        return self.style(text, _RED) if red else text

    def card_name(self, name: str | None) -> str:
        """A card written as in a log (`7S#2`), as printed; a back when not shown."""
        if name is None:
            return self.style(self.g.back, _DIM)
        return self.card(self.game.cards[self.card_ids[name]])

    def cell(self, card: Card | None, face_up: bool, mark: str = " ") -> str:
        """One grid cell, `self.cell_width` columns wide, the card's label right-aligned."""
        wide = self.label_width
        if card is None:
            return " " * (wide - 1) + self.style(self.g.back, _DIM) + " "
        label = self.label(card)
        body = self.card(card)
        if face_up:
            return " " * (wide + 1 - len(label)) + body + mark
        return " " * (wide - len(label)) + "[" + body + "]"

    def rule_line(self, title: str) -> str:
        head = f"{self.g.rule * 2} {title} "
        if self.compact:
            total = _COMPACT_RULE
        elif self.stacked:
            total = len(_STACK_INDENT) + self.panel_width
        else:
            total = self.left_width + 1 + self.panel_width
        total = min(total, self.width)
        return self.style(head + self.g.rule * max(3, total - _width(head)), _BOLD)

    # -- the whole match -----------------------------------------------------------------

    @property
    def the_log(self) -> MatchLog:
        """The log printed (a printer of a match in play has none)."""
        assert self.log is not None, "a live seat's screen prints no log"
        return self.log

    def render(self, *, hole: int | None, summary: bool) -> list[str]:
        holes = self.the_log.holes
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
        return [piece for line in out for piece in _fit(line, self.width)]

    def header(self) -> list[str]:
        log = self.the_log
        cols = self.width
        out = [self.style(line, _BOLD) for line in _fill("golfref match ", [self.text(log.match)], "", 4, cols)]
        status = self.text(log.status.value)
        out += _fill("id       ", [self.text(log.match_id), f"({status})"], " ", 9, cols)
        seed = log.seed
        out.append(f"seed     {seed if seed is not None else 'not recorded'}")
        for i, group in enumerate(self.rules_groups()):
            out += _fill("rules    " if i == 0 else " " * 9, group, ", ", 9, cols)
        out.append("")
        out += self.players_table()
        for f in self.faults:
            if self.fault_hole(f) is None:
                out += self.fault_lines(f, indent=2, with_name=True)
        error = log.error
        if error:
            out += _fill("error    ", self.text(error).split(" "), " ", 9, cols)
        out.append("")
        if self.seat is not None:
            seen = f"as seat {self.seat} ({self.names[self.seat]}) saw it"
        else:
            seen = "every card any player saw; unseen face-down cards stay hidden until the hole ends"
        out += _fill("view     ", seen.split(" "), " ", 9, cols)
        dot = self.g.dot
        legend = [
            f"{self.style(self.g.back, _DIM)} face down",
            f"[{self.card(_SEVEN)}] face down, known",
            f"{self.g.cancelled} cancelled",
            f"{self.g.block} in a block",
        ]
        if self.rules.decks > 1:
            legend.append(f"{self.card(_SEVEN_OF_DECK_2)} of deck 2")
        legend.append("seats, holes and slots count from 0")
        out += _fill("legend   ", legend, f" {dot} ", 9, cols)
        return out

    def rules_groups(self) -> list[list[str]]:
        """The rules in three groups: the table, the play, the scoring."""
        return rules_summary(self.rules)

    def players_table(self) -> list[str]:
        rows = [("seat", "player", "program", "status")]
        for i, p in enumerate(self.the_log.players[: self.players]):
            if p.builtin:
                program = f"built-in {self.text(p.builtin)}"
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
                status += f" at hole {at.hole}"
            rows.append((str(i), self.names[i], program, status))
        return self.table(rows, right=(), shrink=2)

    def table(self, rows: Sequence[Sequence[str]], right: Sequence[int], shrink: int | None = None) -> list[str]:
        """Columns two spaces apart, within the width.

        Too wide, column `shrink` is cut down (to no fewer than 10 columns) and then the last
        column wraps under itself.
        """
        # Not rich.table.Table: its cut cells end in "…", which --ascii must not print, and it
        # pads every line to the full width and shares out the room differently.
        widths = [max(_width(r[c]) for r in rows) for c in range(len(rows[0]))]
        over = sum(widths) + 2 * (len(widths) - 1) - self.width
        if over > 0 and shrink is not None:
            widths[shrink] = max(min(widths[shrink], 10), widths[shrink] - over)
        start = sum(widths[:-1]) + 2 * (len(widths) - 1)  # where the last column begins
        out = []
        for row in rows:
            cells = [_pad(self._short(cell, widths[c]), widths[c], right=c in right) for c, cell in enumerate(row)]
            line = "  ".join(cells[:-1] + [row[-1]]).rstrip() if len(row) > 1 else cells[0]
            if _width(line) > self.width:
                out += _fill("  ".join(cells[:-1]) + "  ", row[-1].split(" "), " ", start, self.width)
            else:
                out.append(line)
        return out

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
            out += self.block(self.wrap(_pad("deal", self.text_indent), [self.pile_text(game)]), [])
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
                text = f"stock empty: {count} cards of the discard pile reshuffled into it"
                out += self.block(self.wrap(" " * self.text_indent, [text]), [])
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
            head = _pad(f"{self.g.dot if turn.reveal else turn_no:>3} {self.names[turn.seat]}", self.text_indent)
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
            out.append(f"    hole not finished (match {self.text(self.the_log.status.value)})")
        return out if shown else []

    def play_turn(self, h: int, steps: Sequence[Step], i: int, events: Iterator[Any]) -> tuple[_Turn, int]:
        """Apply the steps of one turn (or of one seat's reveals) from step `i`; the turn and the next step."""
        game = self.game
        results_before = len(game.results)
        first = steps[i]
        assert isinstance(first, DecisionStep)
        turn = _Turn(seat=first.seat, steps=[], events=[], reveal=first.decision is Decision.REVEAL)
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
        for s, p in enumerate(self.the_log.players[: self.players]):
            at = p.disqualified_at
            if at is not None and self.request_hole.get(at.request) == h:
                words = f"{self.names[s]} is disqualified; the fallback plays its turns from here".split(" ")
                pad = " " * self.text_indent
                notes.setdefault(at.request, []).extend(_fill(pad + "! ", words, " ", len(pad) + 2, self.width))
        return notes

    def compact_notes(self, h: int) -> dict[int | None, list[str]]:
        """The compact mode's fault and disqualification phrases of hole `h`, by request."""
        if h not in self._compact_notes:
            # The kinds only: the messages are in the full view.
            notes: dict[int | None, list[str]] = {}
            for f in self.faults:
                if self.request_hole.get(f.request) == h:
                    notes.setdefault(f.request, []).append("! " + self.text(f.kind.value, 24))
            for p in self.the_log.players[: self.players]:
                at = p.disqualified_at
                if at is not None and self.request_hole.get(at.request) == h:
                    notes.setdefault(at.request, []).append("! disqualified")
            self._compact_notes[h] = notes
        return self._compact_notes[h]

    def fault_hole(self, fault: Fault) -> int | None:
        """The hole a fault is shown in: its request's, else the one it names (None: the header)."""
        hole = self.request_hole.get(fault.request, fault.hole)
        holes = len(self.the_log.holes)
        return hole if hole is not None and 0 <= hole < holes else None

    def names_row(self, seats: Iterable[int]) -> str:
        """The names of `seats` over their grids."""
        cells = []
        for s in seats:
            name = self.names[s]
            text = self._short(name, self.grid_width - 1)
            if s == self.seat:
                # The viewer's own grid; "(you)" when it fits, a star otherwise.
                you = name + " (you)"
                text = you if _width(you) <= self.grid_width - 1 else self._short(name, self.grid_width - 2) + "*"
                text = self.style(text, _BOLD)
            cells.append(_pad(" " + text, self.grid_width))
        return " ".join(cells).rstrip()

    def pile_text(self, game: Game) -> str:
        v = view(game, self.seat if self.seat is not None else 0)
        top = self.card(v.discard[-1]) if v.discard else "-"
        return f"discard {top}  stock {v.stock_size}"

    def block(self, left: list[str], right: list[str], tap: bool = True, game: Game | None = None) -> list[str]:
        """Turn text beside the grids (or above them when the grids are too wide)."""
        if self.stacked:
            lines = [line.rstrip() for line in left if line.strip()] + [(_STACK_INDENT + r).rstrip() for r in right]
        else:
            lines = []
            queue = list(left)
            rows = list(right)
            while queue and _width(queue[0]) > self.left_width:
                lines.append(queue.pop(0))  # too long to sit beside the grids
            for a, b in zip_longest(queue, rows, fillvalue=""):
                if _width(a) > self.left_width:
                    lines.append(a)
                    a = ""
                lines.append((_pad(a, self.left_width) + " " + b).rstrip() if b else a.rstrip())
        if tap and self.tap is not None:
            self.tap(game if game is not None else self.game, lines)
        return lines

    def wrap(self, head: str, phrases: list[str]) -> list[str]:
        """Phrases joined by commas, wrapped to the turn-text column, between phrases where possible."""
        room = self.left_width - _width(head)
        lines: list[str] = []
        current = ""

        def add(piece: str) -> None:
            nonlocal current
            if not current:
                current = piece
            elif _width(current) + 1 + _width(piece) <= room:
                current += " " + piece
            else:
                lines.append(current)
                current = piece

        for i, phrase in enumerate(phrases):
            piece = phrase + ("," if i < len(phrases) - 1 else "")
            if _width(piece) <= room and (not current or _width(current) + 1 + _width(piece) <= room):
                add(piece)
            elif _width(piece) <= room:
                lines.append(current)
                current = piece
            else:
                for word in piece.split(" "):
                    add(word)
        lines.append(current)
        indent = " " * _width(head)
        return [head + lines[0]] + [indent + line for line in lines[1:]]

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

    def arrange(self, rows: dict[int, list[str]]) -> list[str]:
        """Grids side by side, in bands of `self.band` seats (each band under its names) when they are many."""
        bar = self.style(self.g.bar, _DIM)
        seats = list(rows)
        out = []
        for start in range(0, len(seats), self.band):
            band = seats[start : start + self.band]
            if self.banded:
                out.append(self.names_row(band))
            out += [bar.join(rows[s][r] for s in band) for r in range(self.rules.rows)]
        return out

    def changed(self, turn: _Turn) -> list[int] | None:
        """The grids a turn's panel shows: all of them, or when they are too many, those it changed."""
        if not self.banded:
            return None
        seats = {turn.seat}
        for e in turn.events:
            if e["event"] == "power_swap":
                seats.update(s for s, _ in e["cards"])
        return sorted(seats)

    # -- turn text -------------------------------------------------------------------

    def who(self, seat: int, actor: int) -> str:
        return "own" if seat == actor else f"{self.names[seat]}'s"

    def turn_text(self, turn: _Turn) -> list[str]:
        """The phrases that tell one turn, from the events the viewer may see."""
        seat = turn.seat
        evs = turn.events
        arrow = self.g.arrow
        if turn.reveal:
            slots = [e for e in evs if e["event"] == "reveal"]
            verb = "flips" if self.rules.reveal is Reveal.FLIP else "peeks at"
            which = ", ".join(str(e["slot"]) for e in slots)
            text = f"{verb} slot{'s' if len(slots) != 1 else ''} {which}"
            if any(e["card"] is not None for e in slots):
                text += ": " + " ".join(self.card_name(e["card"]) for e in slots)
            return [text]
        phrases: list[str] = []
        draw = next((e for e in evs if e["event"] == "draw"), None)
        shown = None
        if draw is not None:
            shown = draw["card"]
            for e in evs:  # the card drawn, once a later event shows it
                if shown is None and e["event"] in ("swap", "throw", "power") and e.get("card") is not None:
                    shown = e["card"]
        source = draw["from"] if draw is not None else ""
        for e in evs:
            kind = e["event"]
            if kind == "knock":
                phrases.append("knocks")
            elif kind == "swap":
                down = "" if self.rules.swap_face_up else " face down"
                phrases.append(f"{source} {self.card_name(shown)} {arrow} slot {e['slot']}{down}")
                phrases.append(f"{self.card_name(e['discarded'])} out")
            elif kind == "throw":
                phrases.append(f"{source} {self.card_name(shown)} thrown")
            elif kind == "flip":
                phrases.append(f"flips slot {e['slot']}: {self.card_name(e['card'])}")
            elif kind == "power":
                phrases.append(f"{source} {self.card_name(shown)} power")
            elif kind == "power_peek":
                s, slot = e["target"]
                peek = f"peeks at {self.who(s, seat)} slot {slot}"
                phrases.append(peek + (f": {self.card_name(e['card'])}" if e["card"] is not None else ""))
            elif kind == "power_swap":
                (s1, i1), (s2, i2) = e["cards"]
                phrases.append(f"swaps {self.who(s1, seat)} {i1} {self.g.swap} {self.who(s2, seat)} {i2}")
        if any(s.action == "pass" for s in turn.steps):
            phrases.append("no flip")
        if draw is not None and not phrases:
            phrases.append(f"{source} {self.card_name(shown)}")  # a turn cut short by the end of the log
        if turn.closes:
            phrases.append("closes")
        phrases = phrases or ["(nothing)"]
        if any(s.by is Chooser.FALLBACK for s in turn.steps):
            phrases[-1] += " [fallback]"
        return phrases

    def fault_lines(self, fault: Fault, indent: int, with_name: bool = False) -> list[str]:
        seat = fault.seat
        who = f"{self.names[seat]}: " if with_name and 0 <= seat < self.players else ""
        kind = self.text(fault.kind.value)
        request = fault.request
        where = f" (request {request})" if request is not None else ""
        pad = " " * indent
        words = self.text(fault.message).split(" ")
        out = _fill(f"{pad}! {who}{kind}{where}: ", words, " ", indent + 2, self.width)
        line = fault.line
        if line is not None:
            keep = min(_FAULT_LINE_KEEP, self.width - indent - 8)
            out.append(f"{pad}  line: {self.text(line, keep)}")
        return out

    # -- hole end ---------------------------------------------------------------------

    def hole_end(self, result: HoleResult) -> list[str]:
        g = self.g
        how = hole_end_text(result, self.names)
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
            return " ".join(_pad(v + " ", self.grid_width, right=True) for v in values)

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
                out += _fill(f"{label}: ", pairs, ", ", _width(label) + 2, self.width)
            else:
                out.append((_pad(label, self.left_width) + " " + numbers(values)).rstrip())
        notes = []
        for s, gs in enumerate(result.grid_scores):
            what = [str(line) for line in gs.cancelled]
            what += [f"block at slot {b} ({self.rules.block_bonus})" for b in gs.blocks]
            if what:
                notes.append(f"{self.names[s]}: {', '.join(what)}")
        if notes:
            out += _fill("    cancelled: ", notes, "; ", 6, self.width)
        return out

    # -- summary and standings ------------------------------------------------------------

    def score_table(self, hole: int | None) -> list[str]:
        results = self.game.results
        rows: list[list[str]] = [["hole", *self.names, "end"]]
        for r in results:
            if hole is not None and r.hole != hole:
                continue
            ender = self.names[r.ender] if r.ender is not None else ""
            end = _END_TEXT[r.end].format(ender=ender)
            penalties = [f"+{p} {self.names[s]}" for s, p in enumerate(r.penalties) if p]
            if penalties:
                end += f" (knock penalty {', '.join(penalties)})"
            rows.append([str(r.hole), *(str(s) for s in r.scores), end])
        last = [r for r in results if hole is None or r.hole <= hole]
        if last:
            rows.append(["total", *(str(t) for t in last[-1].totals), ""])
        widths = [max(_width(row[c]) for row in rows) for c in range(len(rows[0]))]
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
            out += _fill(f"hole {row[0]}: ", row[-1].split(" "), " ", 4, self.width)
        return out

    def standings(self) -> list[str]:
        log = self.the_log
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
        return [self.style("standings" + note, _BOLD), *self.table(rows, right=(2,))]


# -- a seat's screen, live ------------------------------------------------------------------


class SeatScreen:
    """A seat's view drawn as `golfref replay --seat` draws it, from the protocol's messages only.

    For a person at the table (the human seat): every card it prints comes from one
    message the seat received (a request's view and events, or a hole_end), the same JSON
    a bot would get, so it can show nothing the seat could not see.
    """

    def __init__(
        self,
        rules: Rules,
        names: Sequence[str],
        seat: int,
        *,
        color: bool = False,
        ascii_only: bool = False,
        width: int = DEFAULT_WIDTH,
    ) -> None:
        self._p = _Printer(
            None, seat=seat, color=color, ascii_only=ascii_only, width=max(width, MIN_WIDTH), live=(rules, names)
        )
        self.seat = seat
        self.rules = rules
        self._cards = {c.name: c for c in self._p.game.cards}

    @property
    def names(self) -> list[str]:
        """The seats' names as printed (made safe for the terminal)."""
        return self._p.names

    def card(self, name: str | None) -> str:
        """A card written as in the protocol (`7S#2`), as printed; a back for null."""
        return self._p.card_name(name)

    def hole_title(self, hole: int, starter: int) -> str:
        """The rule line that opens a hole."""
        return self._p.rule_line(f"{hole_label(hole, self.rules.holes)} {self._p.g.dot} {self.names[starter]} starts")

    def events(self, events: Sequence[dict[str, Any]]) -> list[str]:
        """The lines that tell `events` (a request's or a hole_end's), one turn at a time."""
        p = self._p
        out: list[str] = []
        turn: _Turn | None = None

        def flush() -> None:
            if turn is not None:
                head = _pad(f"  {p.g.dot} {p.names[turn.seat]}", p.text_indent)
                out.extend(p.wrap(head, p.turn_text(turn)))

        for e in events:
            kind = e.get("event")
            if kind == "reshuffle":
                flush()
                turn = None
                text = f"stock empty: {e.get('cards')} cards of the discard pile reshuffled into it"
                out.extend(p.wrap(" " * p.text_indent, [text]))
                continue
            seat: int = e["seat"]  # every event but a reshuffle has its seat
            reveal = kind == "reveal"
            starts = turn is None or seat != turn.seat or kind in ("draw", "knock") or reveal != turn.reveal
            if starts:
                flush()
                turn = _Turn(seat=seat, steps=[], events=[], reveal=reveal)
            assert turn is not None
            turn.events.append(e)
        flush()
        return out

    def table(self, view: dict[str, Any]) -> list[str]:
        """The piles and every seat's grid as `view` (a request's) shows them."""
        p = self._p
        grids = [[self._cards[c] if c is not None else None for c in g] for g in view["grids"]]
        rows = {
            s: [
                "".join(p.cell(grids[s][r * p.rules.cols + c], view["face_up"][s][r * p.rules.cols + c])
                for c in range(p.rules.cols))
                for r in range(p.rules.rows)
            ]
            for s in range(p.players)
        }
        top = self.card(view["discard"][-1]) if view["discard"] else "-"
        left = ["", " " * p.text_indent + f"discard {top}  stock {view['stock_size']}"]
        out = [] if p.banded else p.block([""], [p.names_row(range(p.players))], tap=False)
        return out + p.block(left, p.arrange(rows), tap=False)

    def hole_end(self, message: dict[str, Any]) -> list[str]:
        """A hole_end notice: its last events, every card turned up, the scores."""
        p = self._p
        out = self.events(message.get("events", []))
        ender = message.get("ender")
        how = _END_TEXT[HoleEnd(message["end"])].format(ender=p.names[ender] if ender is not None else "")
        rows = {
            s: [
                "".join(p.cell(self._cards[g[r * p.rules.cols + c]], True) for c in range(p.rules.cols))
                for r in range(p.rules.rows)
            ]
            for s, g in enumerate(message["grids"])
        }
        left = [f"    end: {how}", "    every card turned up"]
        out += [] if p.banded else p.block([""], [p.names_row(range(p.players))], tap=False)
        out += p.block(left, p.arrange(rows), tap=False)
        for label, values in (("    hole score", message["scores"]), ("    total", message["totals"])):
            pairs = [f"{p.names[s]} {v}" for s, v in enumerate(values)]
            out += _fill(f"{label}: ", pairs, ", ", _width(label) + 2, p.width)
        return [piece for line in out for piece in _fit(line, p.width)]
