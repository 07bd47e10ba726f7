"""Drawing a match on a terminal: the layout, the cards, the grids beside the turn text, a seat's live screen.

`Screen` holds what every text screen of a match shares: the width and how the grids fit in it
(side by side, stacked under the turn text, or in bands of seats), text a bot controls made safe,
cards and grid cells, tables, and turns told in the narrator's words (`game.narrate`) with their
cards coloured. The log printer (`pretty`) is a screen that replays a log; `SeatScreen` draws a
seat's view live, for the human seat, from the protocol's messages only.

Colours are rich styles and every width is rich's cell width; no text is ever read as rich
markup, so `[bold]` in a bot's name prints as written. With `ascii_only` every character drawn
is ASCII; without `color` no escape sequence at all is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import zip_longest
from typing import TYPE_CHECKING, Any, Final

from rich.cells import cell_len
from rich.color import ColorSystem
from rich.style import Style

from ..game.cards import Card, Rank
from ..game.engine import Game, HoleEnd
from ..game.narrate import Narrator, Phrase, Role, hole_label, reshuffle_text
from ..game.rules import Rules
from ..record.matchlog import Chooser, DecisionStep
from .terminal import sanitize

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

__all__ = [
    "BOLD", "COLORS", "DEFAULT_WIDTH", "DIM", "MIN_WIDTH", "RED", "Screen", "SeatScreen", "Turn",
    "check_width", "chop", "columns", "fill", "fit", "pad",
]  # fmt: skip

DEFAULT_WIDTH = 100
"""Columns when the caller names none (output to a file or a pipe)."""
MIN_WIDTH = 50
"""The narrowest output the layout is made for: a name, a turn's text and one grid."""
_NAME_WIDTH = 12
_LEFT_MAX = 52  # the turn-text column: wide enough for most turns on one line
_LEFT_MIN = 34
_STACK_INDENT = "    "  # the grids under the turn text, when they are too wide to sit beside it
_LABEL = 3  # the widest card label: "10♥"; a card of a second deck adds "#2"
_COMPACT_RULE = 72  # the hole headers of the compact mode, which has no grids to span

# Colours are rich styles, rendered in the 8 standard colours every terminal has.
RED = Style(color="red")
BOLD = Style(bold=True)
DIM = Style(dim=True)
_COLOR_SYSTEM: Final = "standard"
COLORS = ColorSystem[_COLOR_SYSTEM.upper()]
"""The colour system every style is rendered in."""
_ESC = "\x1b"  # only rich's own styles put one in a line: bot text is sanitized first

# -- text helpers ---------------------------------------------------------------------


def columns(text: str) -> int:
    """Columns `text` takes on a terminal (rich's cell widths), its colours left out."""
    if _ESC in text:
        from rich.text import Text

        text = Text.from_ansi(text).plain
    return cell_len(text)


def chop(text: str, cols: int) -> list[str]:
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


def fill(head: str, parts: Sequence[str], sep: str, indent: int, cols: int) -> list[str]:
    """`head` then `parts` joined by `sep`, wrapped to `cols` columns with a hanging indent.

    A part too long for a line of its own is cut across lines.
    """
    lines = [head]
    for i, part in enumerate(parts):
        piece = part + (sep.rstrip() if i < len(parts) - 1 else "")
        gap = "" if lines[-1] == head else " " * (len(sep) - len(sep.rstrip()))
        if lines[-1] != head and columns(lines[-1]) + len(gap) + columns(piece) > cols:
            lines.append(" " * indent + piece)
        else:
            lines[-1] += gap + piece
        while columns(lines[-1]) > cols:
            first, *rest = chop(lines[-1], cols)
            lines[-1] = first
            lines.append(" " * (indent if cols - indent >= 10 else 0) + "".join(rest))
    return lines


def fit(line: str, cols: int) -> list[str]:
    """A line as it may be printed: cut across lines when it is wider than `cols`.

    The layout keeps its own lines within the width; this is the last guard for text of
    unforeseen length, so that no line ever wraps on the terminal.
    """
    if columns(line) <= cols:
        return [line]
    return [piece.rstrip() for piece in chop(line, cols)]


def pad(text: str, cols: int, right: bool = False) -> str:
    """`text` padded with spaces to `cols` columns (on the left when `right`)."""
    fill = " " * max(0, cols - columns(text))
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
class Turn:
    """One turn (or one seat's start-of-hole reveals) as printed."""

    seat: int
    steps: list[DecisionStep]
    events: list[dict[str, Any]]
    reveal: bool
    closes: bool = False


def check_width(width: object) -> None:
    """Raise ValueError unless `width` is a whole number of columns the layout fits in (`MIN_WIDTH` or more)."""
    if not (isinstance(width, int) and width >= MIN_WIDTH):
        raise ValueError(f"width {width} is too narrow: the match needs at least {MIN_WIDTH} columns")


class Screen:
    """One match on a terminal, `width` columns wide, as seat `seat` sees it (None: what the players knew).

    `names` are the seats' names as the match has them (a missing one is `seat N`); the screen
    keeps them made safe and cut to a name's width. `compact` draws one line per turn and no grids.
    """

    def __init__(
        self,
        rules: Rules,
        names: Sequence[object],
        *,
        seat: int | None,
        color: bool,
        ascii_only: bool,
        width: int = DEFAULT_WIDTH,
        compact: bool = False,
    ) -> None:
        check_width(width)
        self.width = width
        self.compact = compact
        self.rules = rules
        self.players = rules.players
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.players):
            raise ValueError(f"seat {seat} is out of range: this match has seats 0 to {self.players - 1}")
        self.seat = seat
        self.color = color
        self.ascii = ascii_only
        self.g = _ASCII if ascii_only else _UNICODE
        named = [self.text(name, _NAME_WIDTH) for name in list(names)[: self.players]]
        self.names = named + [f"seat {i}" for i in range(len(named), self.players)]
        self.narrator = Narrator(self.names, rules)
        self.name_width = max(columns(n) for n in self.names)
        self.text_indent = 4 + self.name_width + 2  # where a turn's text starts: "  7 alice  ..."
        self.game = Game(rules)
        self.card_ids = {str(c): i for i, c in enumerate(self.game.cards)}
        # Called with the game as it stands and the lines printed for that moment; tests
        # use it to check that a seat's view shows nothing the seat could not see.
        self.tap: Callable[[Game, list[str]], None] | None = None
        # Cards of a second deck carry its number ("K♥#2"), so every cell of such a match is wider.
        self.label_width = _LABEL + (2 if rules.decks > 1 else 0)
        self.cell_width = self.label_width + 2  # one grid cell: " 10♥ ", "[10♥]", "  ░░ "
        self.grid_width = self.cell_width * rules.cols
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

    # -- text ----------------------------------------------------------------------------------

    def text(self, value: Any, cols: int | None = None) -> str:
        """Text a bot or a config controls, safe for the terminal (and ASCII when asked).

        With `cols`, cut to that many columns, never inside the escape of one character.
        """
        raw = value if isinstance(value, str) else str(value)
        out = self._safe(raw)
        if cols is None or columns(out) <= cols:
            return out
        pieces = []
        used = 0
        for ch in raw:
            piece = self._safe(ch)
            if used + columns(piece) > cols - 1:
                break
            pieces.append(piece)
            used += columns(piece)
        return "".join(pieces) + self.g.more

    def _safe(self, text: str) -> str:
        out = sanitize(text)
        if self.ascii:
            out = out.encode("ascii", "backslashreplace").decode("ascii")
        return out

    def _short(self, text: str, cols: int) -> str:
        """Our own text (made safe already) cut to `cols` columns."""
        if columns(text) <= cols:
            return text
        while columns(text) > cols - 1:
            text = text[:-1]
        return text + self.g.more

    def style(self, text: str, style: Style) -> str:
        """`text` in `style` when colour is on (rich renders the escape sequences)."""
        return style.render(text, color_system=COLORS) if self.color else text

    # -- cards ---------------------------------------------------------------------------------

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
        return self.style(text, RED) if red else text

    def card_name(self, name: str | None) -> str:
        """A card written as in a log (`7S#2`), as printed; a back when not shown."""
        if name is None:
            return self.style(self.g.back, DIM)
        return self.card(self.game.cards[self.card_ids[name]])

    def cell(self, card: Card | None, face_up: bool, mark: str = " ") -> str:
        """One grid cell, `self.cell_width` columns wide, the card's label right-aligned."""
        wide = self.label_width
        if card is None:
            return " " * (wide - 1) + self.style(self.g.back, DIM) + " "
        label = self.label(card)
        body = self.card(card)
        if face_up:
            return " " * (wide + 1 - len(label)) + body + mark
        return " " * (wide - len(label)) + "[" + body + "]"

    # -- layout --------------------------------------------------------------------------------

    def rule_line(self, title: str) -> str:
        """A bold rule across the screen with `title` in it: `━━ hole 0 of 0-8 · alice starts ━━━━`."""
        head = f"{self.g.rule * 2} {title} "
        if self.compact:
            total = _COMPACT_RULE
        elif self.stacked:
            total = len(_STACK_INDENT) + self.panel_width
        else:
            total = self.left_width + 1 + self.panel_width
        total = min(total, self.width)
        return self.style(head + self.g.rule * max(3, total - columns(head)), BOLD)

    def names_row(self, seats: Iterable[int]) -> str:
        """The names of `seats` over their grids."""
        cells = []
        for s in seats:
            name = self.names[s]
            text = self._short(name, self.grid_width - 1)
            if s == self.seat:
                # The viewer's own grid; "(you)" when it fits, a star otherwise.
                you = name + " (you)"
                text = you if columns(you) <= self.grid_width - 1 else self._short(name, self.grid_width - 2) + "*"
                text = self.style(text, BOLD)
            cells.append(pad(" " + text, self.grid_width))
        return " ".join(cells).rstrip()

    def table(self, rows: Sequence[Sequence[str]], right: Sequence[int], shrink: int | None = None) -> list[str]:
        """Columns two spaces apart, within the width.

        Too wide, column `shrink` is cut down (to no fewer than 10 columns) and then the last
        column wraps under itself.
        """
        # Not rich.table.Table: its cut cells end in "…", which --ascii must not print, and it
        # pads every line to the full width and shares out the room differently.
        widths = [max(columns(r[c]) for r in rows) for c in range(len(rows[0]))]
        over = sum(widths) + 2 * (len(widths) - 1) - self.width
        if over > 0 and shrink is not None:
            widths[shrink] = max(min(widths[shrink], 10), widths[shrink] - over)
        start = sum(widths[:-1]) + 2 * (len(widths) - 1)  # where the last column begins
        out = []
        for row in rows:
            cells = [pad(self._short(cell, widths[c]), widths[c], right=c in right) for c, cell in enumerate(row)]
            line = "  ".join(cells[:-1] + [row[-1]]).rstrip() if len(row) > 1 else cells[0]
            if columns(line) > self.width:
                out += fill("  ".join(cells[:-1]) + "  ", row[-1].split(" "), " ", start, self.width)
            else:
                out.append(line)
        return out

    def block(self, left: list[str], right: list[str], tap: bool = True, game: Game | None = None) -> list[str]:
        """Turn text beside the grids (or above them when the grids are too wide)."""
        if self.stacked:
            lines = [line.rstrip() for line in left if line.strip()] + [(_STACK_INDENT + r).rstrip() for r in right]
        else:
            lines = []
            queue = list(left)
            rows = list(right)
            while queue and columns(queue[0]) > self.left_width:
                lines.append(queue.pop(0))  # too long to sit beside the grids
            for a, b in zip_longest(queue, rows, fillvalue=""):
                if columns(a) > self.left_width:
                    lines.append(a)
                    a = ""
                lines.append((pad(a, self.left_width) + " " + b).rstrip() if b else a.rstrip())
        if tap and self.tap is not None:
            self.tap(game if game is not None else self.game, lines)
        return lines

    def wrap(self, head: str, phrases: list[str]) -> list[str]:
        """Phrases joined by commas, wrapped to the turn-text column, between phrases where possible."""
        room = self.left_width - columns(head)
        lines: list[str] = []
        current = ""

        def add(piece: str) -> None:
            nonlocal current
            if not current:
                current = piece
            elif columns(current) + 1 + columns(piece) <= room:
                current += " " + piece
            else:
                lines.append(current)
                current = piece

        for i, phrase in enumerate(phrases):
            piece = phrase + ("," if i < len(phrases) - 1 else "")
            if columns(piece) <= room and (not current or columns(current) + 1 + columns(piece) <= room):
                add(piece)
            elif columns(piece) <= room:
                lines.append(current)
                current = piece
            else:
                for word in piece.split(" "):
                    add(word)
        lines.append(current)
        indent = " " * columns(head)
        return [head + lines[0]] + [indent + line for line in lines[1:]]

    def arrange(self, rows: dict[int, list[str]]) -> list[str]:
        """Grids side by side, in bands of `self.band` seats (each band under its names) when they are many."""
        bar = self.style(self.g.bar, DIM)
        seats = list(rows)
        out = []
        for start in range(0, len(seats), self.band):
            band = seats[start : start + self.band]
            if self.banded:
                out.append(self.names_row(band))
            out += [bar.join(rows[s][r] for s in band) for r in range(self.rules.rows)]
        return out

    def changed(self, turn: Turn) -> list[int] | None:
        """The grids a turn's panel shows: all of them, or when they are too many, those it changed."""
        if not self.banded:
            return None
        seats = {turn.seat}
        for e in turn.events:
            if e["event"] == "power_swap":
                seats.update(s for s, _ in e["cards"])
        return sorted(seats)

    # -- turns, in the narrator's words --------------------------------------------------------

    def turn_text(self, turn: Turn) -> list[str]:
        """The phrases that tell one turn, from the events the viewer may see (the narrator's words)."""
        phrases = self.narrator.turn(
            turn.seat,
            turn.events,
            reveal=turn.reveal,
            passed=any(s.action == "pass" for s in turn.steps),
            closes=turn.closes,
            fallback=any(s.by is Chooser.FALLBACK for s in turn.steps),
        )
        return [self.say(phrase) for phrase in phrases]

    def say(self, phrase: Phrase) -> str:
        """A phrase of the narrator as printed: its cards coloured, its arrows in the glyphs (ASCII when asked)."""
        out = []
        for text, role in phrase:
            if role is Role.CARD:
                out.append(self.card_name(text))
            elif role is Role.ARROW:
                out.append(self.g.arrow)
            elif role is Role.EXCHANGE:
                out.append(self.g.swap)
            else:
                out.append(text or "")
        return "".join(out)


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
        self._p = Screen(rules, names, seat=seat, color=color, ascii_only=ascii_only, width=max(width, MIN_WIDTH))
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
        turn: Turn | None = None

        def flush() -> None:
            if turn is not None:
                head = pad(f"  {p.g.dot} {p.names[turn.seat]}", p.text_indent)
                out.extend(p.wrap(head, p.turn_text(turn)))

        for e in events:
            kind = e.get("event")
            if kind == "reshuffle":
                flush()
                turn = None
                out.extend(p.wrap(" " * p.text_indent, [reshuffle_text(e["cards"])]))
                continue
            seat: int = e["seat"]  # every event but a reshuffle has its seat
            reveal = kind == "reveal"
            starts = turn is None or seat != turn.seat or kind in ("draw", "knock") or reveal != turn.reveal
            if starts:
                flush()
                turn = Turn(seat=seat, steps=[], events=[], reveal=reveal)
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
        how = p.narrator.hole_end(HoleEnd(message["end"]), ender)
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
            out += fill(f"{label}: ", pairs, ", ", columns(label) + 2, p.width)
        return [piece for line in out for piece in fit(line, p.width)]

