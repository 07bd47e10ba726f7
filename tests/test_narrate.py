"""The one narrator (golfref/game/narrate.py): every event kind the engine emits has words, in both voices,
and a hole has one name, counted from 0, wherever a person reads it."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import pytest

from golfref.game import engine
from golfref.game.engine import Game, HoleEnd, Pile
from golfref.game.narrate import BRIEF, SENTENCE, Narrator, Phrase, Role, hole_label, reshuffle_text
from golfref.game.rules import resolve_rules
from golfref.game.view import events_for

RULES = resolve_rules("standard", {}, 2)
NAMES = ["alice", "bob"]


def event_types() -> list[type]:
    """Every event type the engine keeps in a hole's events (`engine.TableEvent`)."""
    return list(typing.get_args(engine.TableEvent))


def sample(cls: type) -> Any:
    """An event of type `cls`, its fields filled in by their types."""
    values = {int: 1, bool: False, Pile: Pile.STOCK}
    hints = typing.get_type_hints(cls)
    return cls(**{name: values[hints[name]] for name in cls._fields})  # type: ignore[attr-defined]


def wire(cls: type) -> dict[str, Any]:
    """The event as the gate writes it for seat 0 (`view.events_for`)."""
    game = Game(RULES)
    game.events.append(sample(cls))
    (event,) = events_for(game, 0)
    return event


def plain(phrase: Phrase) -> str:
    """A phrase spelled without a screen: cards by their wire names, `??` unseen, arrows in Unicode."""
    return "".join((text or "??") if role is Role.CARD else (text or "") for text, role in phrase)


def test_every_event_type_of_the_engine_is_in_its_events_union() -> None:
    """A new `...Event` class in engine.py belongs in `TableEvent`, where this file finds it."""
    declared = {
        obj for name, obj in vars(engine).items() if name.endswith("Event") and isinstance(obj, type) and obj.__doc__
    }
    assert declared == set(event_types())


def test_each_event_type_has_its_own_wire_name() -> None:
    """view.py writes every event kind under a name of its own (an unknown one would pass as a reshuffle)."""
    names = [wire(cls)["event"] for cls in event_types()]
    assert len(set(names)) == len(names), names


@pytest.mark.parametrize("cls", event_types(), ids=lambda c: c.__name__)
def test_every_event_kind_is_narrated_in_both_voices(cls: type) -> None:
    """A new event kind fails here until the narrator's two tables tell it."""
    event = wire(cls)
    kind = event["event"]
    assert kind in BRIEF, f"no brief words for {kind!r} (golfref/game/narrate.py BRIEF)"
    assert kind in SENTENCE, f"no sentence for {kind!r} (golfref/game/narrate.py SENTENCE)"
    narrator = Narrator(NAMES, RULES)
    # Told on its own and after a draw, as a turn and as a step: each is words that read the wire's keys.
    for events in ([event], [wire(engine.DrawEvent), event]):
        for phrase in narrator.turn(0, events, reveal=kind == "reveal"):
            assert plain(phrase).strip()
        assert plain(narrator.step(0, events, "x")).strip()


def test_the_tables_tell_no_kind_the_gate_does_not_write() -> None:
    """No words are kept for an event kind that no longer exists."""
    kinds = {wire(cls)["event"] for cls in event_types()}
    assert set(BRIEF) == kinds
    assert set(SENTENCE) == kinds


def brief(events: list[dict[str, Any]], **flags: bool) -> list[str]:
    return [plain(p) for p in Narrator(NAMES, RULES).turn(0, events, **flags)]


def test_the_brief_voice_tells_a_turn_from_what_the_viewer_saw() -> None:
    draw = {"event": "draw", "seat": 0, "from": "stock", "card": None}
    swap = {"event": "swap", "seat": 0, "slot": 3, "card": "7S", "discarded": "KH"}
    assert brief([draw, swap]) == ["stock 7S → slot 3", "KH out"]
    face_down = Narrator(NAMES, resolve_rules("standard", {"swap_face": "down"}, 2))
    assert [plain(p) for p in face_down.turn(0, [draw, swap])] == ["stock 7S → slot 3 face down", "KH out"]
    assert brief([draw], closes=True, fallback=True) == ["stock ??", "closes [fallback]"]
    assert brief([draw, {"event": "throw", "seat": 0, "card": "2C"}], passed=True) == ["stock 2C thrown", "no flip"]
    peek = {"event": "power_peek", "seat": 0, "target": [1, 2], "card": None}
    assert brief([peek]) == ["peeks at bob's slot 2"]
    swap_k = {"event": "power_swap", "seat": 0, "cards": [[0, 1], [1, 4]]}
    assert brief([swap_k]) == ["swaps own 1 ↔ bob's 4"]
    reveals = [{"event": "reveal", "seat": 0, "slot": s, "card": c} for s, c in ((0, "AS"), (2, None))]
    assert brief(reveals, reveal=True) == ["peeks at slots 0, 2: AS ??"]
    assert brief([]) == ["(nothing)"]


def test_the_sentence_voice_tells_a_step() -> None:
    narrator = Narrator(NAMES, RULES)
    draw = {"event": "draw", "seat": 1, "from": "discard", "card": "QD"}
    target = {"event": "power_target", "seat": 1, "target": [0, 5]}
    assert plain(narrator.step(1, [draw], "discard")) == "draws QD from the discard"
    said = plain(narrator.step(1, [target], "target:0:5", fallback=True))
    assert said == "chooses alice's slot 5 as the first card to swap (played by the fallback)"
    assert plain(narrator.step(1, [], "pass")) == "does not flip"
    assert plain(narrator.step(1, [], "stock")) == "stock"


def test_how_a_hole_ended_and_a_reshuffle() -> None:
    narrator = Narrator(NAMES, RULES)
    assert narrator.hole_end(HoleEnd.CLOSED, 1) == "closed by bob"
    assert narrator.hole_end(HoleEnd.STOCK_EXHAUSTED, None) == "stock exhausted"
    assert reshuffle_text(40) == "stock empty: 40 cards of the discard pile reshuffled into it"


# -- a hole's name -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hole", "holes", "label"),
    [(0, 9, "hole 0 of 0-8"), (3, 9, "hole 3 of 0-8"), (8, 9, "hole 8 of 0-8"), (1, 2, "hole 1 of 0-1"),
     (0, 1, "hole 0 (the only hole)")],
)  # fmt: skip
def test_a_hole_is_named_from_0_with_the_range_of_the_match(hole: int, holes: int, label: str) -> None:
    assert hole_label(hole, holes) == label


PACKAGE = Path(__file__).resolve().parent.parent / "golfref"
# A hole's number shown plus one (`hole {game.hole + 1} of {holes}`, `Hole ${f.hole + 1}`): a count from 1.
_FROM_ONE = re.compile(r"[Hh]ole \$?\{[^}]*\bhole\s*\+\s*1\b")


def test_no_text_a_person_reads_names_a_hole_counted_from_1() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}"
        for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.js")])
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _FROM_ONE.search(line)
    ]
    assert not found, found
    assert _FROM_ONE.search('lines.append(f"hole {game.hole + 1} of {self.rules.holes}")')
    assert _FROM_ONE.search("`Hole ${f.hole + 1}`")
