"""The one narrator of what every player sees: the public events, how a hole ended, the rules.

The text printer, the human seat's screen, the HTML replay, `golfref run`'s lines and the
environment's render all take their words from here, the name of a hole (`hole_label`) included.
An event is told from its wire form (`view.events_for`: what the viewer may see of it), per kind
in two voices, one table each: `BRIEF`, the terse phrases of a turn that the terminal prints
(`stock 7♠ → slot 3 face down, K♥ out`), and `SENTENCE`, the sentences of the HTML replay
(`puts 7♠ into slot 3, K♥ goes to the discard`). A new event kind gets a line in each table, and
tests/test_narrate.py fails until it has.

The words carry no styling: a phrase is a tuple of `Piece`s, plain words and the parts a screen
draws its own way (a card, by its wire name or None when the viewer has not seen it, and the
arrows), so `show/` colours a card red, spells an arrow in ASCII or writes `a face-down card`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple

from .engine import HoleEnd, HoleResult
from .rules import Cancel, KnockPenalty, Lines, NegativePairs, PairScope, Reveal, RevealChoice, Rules

__all__ = ["BRIEF", "SENTENCE", "Narrator", "Phrase", "Piece", "Role", "hole_label", "reshuffle_text", "rules_summary"]

Event = dict[str, Any]
"""A public event as the wire writes it (`view.events_for`)."""


class Role(enum.Enum):
    """What a piece of a phrase is, so that each screen can draw it its own way."""

    WORDS = "words"
    """Plain words, shown as they are."""
    CARD = "card"
    """A card: the piece's text is its wire name (`7S#2`), or None when the viewer has not seen it."""
    ARROW = "arrow"
    """A drawn card going into a slot (`→`; `->` in ASCII)."""
    EXCHANGE = "exchange"
    """Two cards changing places (`↔`; `<->` in ASCII)."""


class Piece(NamedTuple):
    """One piece of a phrase: words, a card or an arrow."""

    text: str | None
    role: Role = Role.WORDS


Phrase = tuple[Piece, ...]
"""One phrase of a turn (`stock 7♠ → slot 3`), in pieces."""

_ARROW: Final = Piece("→", Role.ARROW)
_EXCHANGE: Final = Piece("↔", Role.EXCHANGE)


def hole_label(hole: int, holes: int) -> str:
    """`hole 3 of 0-8`: holes count from 0 everywhere (D2, the log), so the range names the last one too.

    The one phrasing of where a match is, for every renderer; `holes` is the match's number of holes.
    """
    if holes == 1:
        return f"hole {hole} (the only hole)"
    return f"hole {hole} of 0-{holes - 1}"


def _card(name: str | None) -> Piece:
    return Piece(name, Role.CARD)


def _words(text: str) -> Phrase:
    return (Piece(text),)


_END_TEXT: Final = {
    HoleEnd.CLOSED: "closed by {ender}",
    HoleEnd.KNOCKED: "knocked by {ender}",
    HoleEnd.STOCK_EXHAUSTED: "stock exhausted",
    HoleEnd.TURN_LIMIT: "turn limit",
}


class _Drawn(NamedTuple):
    """What the brief voice needs of the turn around an event: whose it is and the card drawn."""

    actor: int
    source: str
    """The pile the turn drew from (`stock`, `discard`); empty when it drew nothing."""
    card: str | None
    """The card drawn, once any event of the turn shows it to the viewer."""


class Narrator:
    """The words for one match's public events, with the seats' names as the screen shows them."""

    def __init__(self, names: Sequence[str], rules: Rules) -> None:
        self.names = names
        self.rules = rules

    def whose(self, seat: int, actor: int) -> str:
        """A grid named from the acting seat's side: `own`, or `alice's`."""
        return "own" if seat == actor else f"{self.names[seat]}'s"

    def turn(
        self,
        actor: int,
        events: Sequence[Event],
        *,
        reveal: bool = False,
        passed: bool = False,
        closes: bool = False,
        fallback: bool = False,
    ) -> list[Phrase]:
        """The brief phrases that tell one turn (or, with `reveal`, one seat's start-of-hole reveals).

        `passed`: the turn flipped nothing when it might have; `closes`: it closed the hole;
        `fallback`: the fallback played (part of) it.
        """
        if reveal:
            return [self._reveals(events)]
        draw = next((e for e in events if e["event"] == "draw"), None)
        shown = None
        if draw is not None:
            shown = draw["card"]
            for e in events:  # the card drawn, once a later event shows it
                if shown is None and e["event"] in ("swap", "throw", "power") and e.get("card") is not None:
                    shown = e["card"]
        drawn = _Drawn(actor, draw["from"] if draw is not None else "", shown)
        phrases = [phrase for e in events for phrase in BRIEF[e["event"]](self, drawn, e)]
        if passed:
            phrases.append(_words("no flip"))
        if draw is not None and not phrases:
            phrases.append(_drawn(drawn))  # a turn cut short by the end of the log
        if closes:
            phrases.append(_words("closes"))
        phrases = phrases or [_words("(nothing)")]
        if fallback:
            phrases[-1] += (Piece(" [fallback]"),)
        return phrases

    def _reveals(self, events: Sequence[Event]) -> Phrase:
        slots = [e for e in events if e["event"] == "reveal"]
        verb = "flips" if self.rules.reveal is Reveal.FLIP else "peeks at"
        which = ", ".join(str(e["slot"]) for e in slots)
        out: list[Piece] = [Piece(f"{verb} slot{'s' if len(slots) != 1 else ''} {which}")]
        if any(e["card"] is not None for e in slots):
            out.append(Piece(": "))
            for i, e in enumerate(slots):
                out += [Piece(" "), _card(e["card"])] if i else [_card(e["card"])]
        return tuple(out)

    def step(self, actor: int, events: Sequence[Event], action: str, *, fallback: bool = False) -> Phrase:
        """The sentence that tells one step of the log: `action`, and its events; `fallback`: the fallback played it."""
        phrases = [phrase for e in events for phrase in SENTENCE[e["event"]](self, actor, e)]
        if action == "pass":
            phrases.append(_words("does not flip"))
        out: list[Piece] = []
        for i, phrase in enumerate(phrases):
            out += [Piece(", "), *phrase] if i else phrase
        if not out:
            out.append(Piece(action))
        if fallback:
            out.append(Piece(" (played by the fallback)"))
        return tuple(out)

    def hole_end(self, end: HoleEnd, ender: int | None) -> str:
        """How a hole ended, in words: `closed by alice`, `stock exhausted`."""
        return _END_TEXT[end].format(ender=self.names[ender] if ender is not None else "")

    def result(self, result: HoleResult) -> str:
        """How a scored hole ended, in words (`hole_end` of its end and ender)."""
        return self.hole_end(result.end, result.ender)

    def score_notes(self, result: HoleResult) -> list[str]:
        """What cancelled and which blocks scored in each grid: `alice: column 1, block at slot 0 (-20)`."""
        notes = []
        for s, gs in enumerate(result.grid_scores):
            what = [str(line) for line in gs.cancelled]
            what += [f"block at slot {b} ({self.rules.block_bonus})" for b in gs.blocks]
            if gs.bonus:
                what.append(f"column bonus {gs.bonus:+d}")
            if what:
                notes.append(f"{self.names[s]}: {', '.join(what)}")
        return notes


def reshuffle_text(cards: int) -> str:
    """A reshuffle, which is told on a line of its own between turns."""
    return f"stock empty: {cards} cards of the discard pile reshuffled into it"


# -- the brief voice: the phrases of a turn, by event kind -------------------------------------
# A turn's draw is told with what became of the card drawn (`stock 7♠ thrown`), a reveal with the
# seat's other reveals (`Narrator._reveals`) and a king's first target with its swap.


def _drawn(t: _Drawn) -> Phrase:
    return (Piece(f"{t.source} "), _card(t.card))


def _brief_swap(n: Narrator, t: _Drawn, e: Event) -> list[Phrase]:
    down = "" if n.rules.swap_face_up else " face down"
    return [(*_drawn(t), Piece(" "), _ARROW, Piece(f" slot {e['slot']}{down}")), (_card(e["discarded"]), Piece(" out"))]


def _brief_peek(n: Narrator, t: _Drawn, e: Event) -> list[Phrase]:
    s, slot = e["target"]
    peek = Piece(f"peeks at {n.whose(s, t.actor)} slot {slot}")
    return [(peek, Piece(": "), _card(e["card"])) if e["card"] is not None else (peek,)]


def _brief_power_swap(n: Narrator, t: _Drawn, e: Event) -> list[Phrase]:
    (s1, i1), (s2, i2) = e["cards"]
    return [(Piece(f"swaps {n.whose(s1, t.actor)} {i1} "), _EXCHANGE, Piece(f" {n.whose(s2, t.actor)} {i2}"))]


Brief = Callable[[Narrator, _Drawn, Event], list[Phrase]]

BRIEF: Final[dict[str, Brief]] = {
    "reveal": lambda n, t, e: [],
    "draw": lambda n, t, e: [],
    "knock": lambda n, t, e: [_words("knocks")],
    "swap": _brief_swap,
    "throw": lambda n, t, e: [(*_drawn(t), Piece(" thrown"))],
    "flip": lambda n, t, e: [(Piece(f"flips slot {e['slot']}: "), _card(e["card"]))],
    "power": lambda n, t, e: [(*_drawn(t), Piece(" power"))],
    "power_target": lambda n, t, e: [],
    "power_peek": _brief_peek,
    "power_swap": _brief_power_swap,
    "reshuffle": lambda n, t, e: [],
}
"""The brief phrases of each event kind within a turn (`Narrator.turn`), by its wire name."""


# -- the sentence voice: the words of a step, by event kind ------------------------------------


def _sentence_reveal(n: Narrator, actor: int, e: Event) -> list[Phrase]:
    verb = "flips" if n.rules.reveal is Reveal.FLIP else "peeks at"
    head = Piece(f"{verb} slot {e['slot']}")
    return [(head, Piece(": "), _card(e["card"])) if e["card"] else (head,)]


def _sentence_target(n: Narrator, actor: int, e: Event) -> list[Phrase]:
    s, slot = e["target"]
    return [_words(f"chooses {n.whose(s, actor)} slot {slot} as the first card to swap")]


def _sentence_peek(n: Narrator, actor: int, e: Event) -> list[Phrase]:
    s, slot = e["target"]
    peek = Piece(f"peeks at {n.whose(s, actor)} slot {slot}")
    return [(peek, Piece(": "), _card(e["card"])) if e["card"] is not None else (peek,)]


def _sentence_power_swap(n: Narrator, actor: int, e: Event) -> list[Phrase]:
    (s1, i1), (s2, i2) = e["cards"]
    return [_words(f"swaps {n.whose(s1, actor)} slot {i1} with {n.whose(s2, actor)} slot {i2}")]


Sentence = Callable[[Narrator, int, Event], list[Phrase]]

SENTENCE: Final[dict[str, Sentence]] = {
    "reveal": _sentence_reveal,
    "draw": lambda n, a, e: [(Piece("draws "), _card(e["card"]), Piece(f" from the {e['from']}"))],
    "knock": lambda n, a, e: [_words("knocks")],
    "swap": lambda n, a, e: [
        (
            Piece("puts "),
            _card(e["card"]),
            Piece(f" into slot {e['slot']}, "),
            _card(e["discarded"]),
            Piece(" goes to the discard"),
        )
    ],
    "throw": lambda n, a, e: [(Piece("throws "), _card(e["card"]), Piece(" away"))],
    "flip": lambda n, a, e: [(Piece(f"flips slot {e['slot']}: "), _card(e["card"]))],
    "power": lambda n, a, e: [(Piece("throws "), _card(e["card"]), Piece(" away to use its power"))],
    "power_target": _sentence_target,
    "power_peek": _sentence_peek,
    "power_swap": _sentence_power_swap,
    "reshuffle": lambda n, a, e: [],
}
"""The sentences of each event kind within a step (`Narrator.step`), by its wire name; a reshuffle
is a step of its own (`reshuffle_text`)."""


def rules_summary(r: Rules) -> list[list[str]]:
    """The rules in words, in three groups (the table, the play, the scoring), and a fourth of the house options set."""
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
        {"none": "no flip", "may": "may flip", "must": "must flip", "endgame": "may flip near the end"}[
            r.flip_after_throw.value
        ] + " after a throw",
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
    house = house_summary(r)
    return [first, second, third, house] if house else [first, second, third]


def house_summary(r: Rules) -> list[str]:
    """The house options that are set, in words (empty when none is)."""
    out = [f"{rank.label} {v:+d}" for rank, v in r.card_values]
    out += [f"{rank.label}{suit.symbol} {v:+d}" for rank, suit, v in r.suit_values]
    if r.joker_count is not None:
        out.append(f"{r.joker_count} joker{'s' if r.joker_count > 1 else ''} in the shoe")
    if r.joker_pair is not None:
        out.append(f"a pair of jokers {r.joker_pair:+d}")
    if r.negative_pairs is NegativePairs.KEEP:
        out.append("negative pairs keep their value")
    if r.two_column_bonus is not None:
        out.append(f"a rank cancelled in two columns {r.two_column_bonus:+d}")
    if r.jack_columns_bonus is not None:
        out.append(f"jacks cancelled in two columns {r.jack_columns_bonus:+d}")
    if r.exact_score is not None:
        out.append(f"a hole score of exactly {r.exact_score[0]} becomes {r.exact_score[1]}")
    if r.closer_penalty is not None:
        out.append(f"who ends the hole first {r.closer_penalty:+d} unless lowest")
    if r.closer_bonus is not None:
        out.append(f"who ends the hole first {r.closer_bonus:+d}")
    if r.low_score_bonus is not None:
        out.append(f"lowest score {r.low_score_bonus:+d}")
    if r.tie_penalty is not None:
        out.append(f"tied scores {r.tie_penalty:+d}")
    if r.flip_instead_of_draw:
        out.append("a turn may flip a card instead of drawing")
    if r.flip_out is not None:
        out.append(f"with 1 to {r.flip_out} cards face down, flip them all to go out")
    return out
