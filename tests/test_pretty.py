"""The log pretty-printer (golfref/show/pretty.py): golden output, the seat view gate, ASCII, colour, escapes.

The logs are made here, deterministically: `random.Random(seed)` supplies every shuffle and
picks among the legal actions (the test's own chooser, so a change to the built-in policies
never moves these files), and `LogBuilder` records them exactly as the referee
does. Seat 1 plays as a "bot" with request ids, and one of its decisions is a recorded fault
answered by the fallback, so faults show up in the golden output too.

`tests/golden_pretty/<name>.txt` pins the full output of a few renderings. After an intended
change to the printer (or the engine), regenerate and review the diff before committing it:

    GOLDEN_UPDATE=1 .venv/bin/python -m pytest tests/test_pretty.py
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import random
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from rich.cells import cell_len

from golfref.config.match import parse_config
from golfref.game.engine import Action, ActionKind, Game, HoleEnd, HoleResult, Shuffle
from golfref.game.rules import resolve_rules, rules_from_dict
from golfref.game.scoring import score_grid
from golfref.game.view import known_to
from golfref.match.referee import run_match
from golfref.record.log import LogBuilder, compute_digest
from golfref.record.matchlog import history_from_log
from golfref.show import pretty, screen
from tests.conftest import ROOT, TESTS

GOLDEN = TESTS / "golden_pretty"
LOG_SCHEMA = jsonschema.Draft202012Validator(json.loads((ROOT / "schemas" / "log.schema.json").read_text("utf-8")))
BOT_SEAT = 1

# name: (preset, overrides, players, seed); the seeds were picked for what MUST_SHOW lists.
SCENARIOS: dict[str, tuple[str, dict[str, Any], int, int]] = {
    "standard_2p": ("standard", {"holes": 2}, 2, 72),
    "arena_2p_2x2": ("arena", {"layout": "2x2", "card_powers": True, "block_bonus": -20, "holes": 2}, 2, 114),
    "knock_3p": ("knock", {"holes": 2}, 3, 31),
    # Seven grids from one deck leave a stock of nine: reshuffles, and grids too many to sit
    # beside the turn text (each turn shows the grids it changed).
    "crowded_7p": ("classic", {"layout": "2x3", "decks": 1, "card_powers": True, "holes": 1}, 7, 1),
    # Two decks: two cards of each name, told apart by their deck ("K♥" and "K♥#2").
    "two_decks_3p": ("standard", {"decks": 2, "jokers": -2, "holes": 1}, 3, 4),
}

# What each scenario's log must contain, so a re-seed cannot lose it silently: actions and
# `end-...` for how a hole ended, `penalty` for a failed knock, `cancel` for a cancelled line.
MUST_SHOW: dict[str, set[str]] = {
    "standard_2p": {"stock", "discard", "swap", "throw", "flip", "end-closed", "cancel"},
    "arena_2p_2x2": {
        "reveal",
        "power",
        "target-K",
        "target-J",
        "target-Q",
        "swap-down",
        "knock",
        "end-knocked",
        "penalty",
    },
    "knock_3p": {"reveal", "knock", "end-knocked", "penalty", "cancel"},
    "crowded_7p": {"reshuffle", "target-K"},
    "two_decks_3p": {"twin", "cancel"},
}

# golden file: (scenario, render_match options)
GOLDEN_RENDERINGS: dict[str, tuple[str, dict[str, Any]]] = {
    "standard_2p": ("standard_2p", {}),
    "arena_2p_2x2": ("arena_2p_2x2", {}),
    "arena_2p_2x2_seat0": ("arena_2p_2x2", {"seat": 0}),
    "knock_3p_summary_ascii": ("knock_3p", {"summary": True, "ascii_only": True}),
    "standard_2p_compact": ("standard_2p", {"compact": True}),
    "knock_3p_60": ("knock_3p", {"width": 60, "hole": 1}),
    "two_decks_3p_80": ("two_decks_3p", {"width": 80}),
}


def choose(rng: random.Random, legal: tuple[Action, ...]) -> Action:
    """Uniform over the legal actions, except that powers are favoured and knocks rare, for eventful holes."""
    power = next((a for a in legal if a.kind is ActionKind.POWER), None)
    if power is not None and rng.random() < 0.8:
        return power
    if rng.random() < 0.85:
        legal = tuple(a for a in legal if a.kind is not ActionKind.KNOCK) or legal
    return rng.choice(legal)


def make_log(name: str) -> dict[str, Any]:
    """Play scenario `name` and return its log, as the referee would write it (fixed ids and times)."""
    preset, overrides, players, seed = SCENARIOS[name]
    rules = resolve_rules(preset, overrides, players)
    rng = random.Random(seed)
    game = Game(rules)
    builder = LogBuilder(
        match_id=f"{name}-golden",
        match=name,
        started_at="2025-01-01T12:00:00+00:00",
        seed=seed,
        rules=rules,
        card_names=[str(c) for c in game.cards],
        time_control={"startup_ms": 10000, "move_ms": 2000, "bank_ms": 0, "increment_ms": 0, "grace_ms": 100},
        fault_policy={"policy": "fallback", "fallback": "greedy", "max_faults": 3},
        players=[],
    )
    request = 0
    faulted = False
    while not game.over:
        if game.chance is not None:
            order = list(game.chance)
            rng.shuffle(order)
            builder.shuffle(game, order)
            continue
        seat = game.to_move
        assert seat is not None and game.decision is not None
        action = choose(rng, game.legal_actions())
        holes_before = len(game.results)
        if seat == BOT_SEAT:
            request += 1
            by = "bot"
            if not faulted and game.decision.value == "place":
                # The bot's first placing decision is an illegal answer; the fallback plays it.
                faulted, by = True, "fallback"
                builder.fault(
                    {
                        "seat": seat,
                        "kind": "illegal_action",
                        "message": "'swap:99' is not a legal choice",
                        "line": f'{{"type": "answer", "id": {request}, "action": "swap:99"}}',
                        "hole": game.hole,
                        "request": request,
                        "at_ms": 100,
                    }
                )
            builder.step(seat, game.decision.value, str(action), by, request, 1.5)
        else:
            builder.step(seat, game.decision.value, str(action), "builtin", None, None)
        game.apply(action)
        if len(game.results) > holes_before:
            builder.end_hole(game.results[-1])
    doc = builder.doc
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]
    doc["players"] = [
        {
            "seat": s,
            "name": names[s],
            **({"command": ["python3", "bot.py"], "cwd": None, "env": {}} if s == BOT_SEAT else {"builtin": "random"}),
            "reported_name": "bobbot" if s == BOT_SEAT else None,
            "reported_version": "2.1" if s == BOT_SEAT else None,
            "status": "faulted" if s == BOT_SEAT else "ok",
            "faults": 1 if s == BOT_SEAT else 0,
            "disqualified_at": None,
            "stderr": "" if s == BOT_SEAT else None,
        }
        for s in range(players)
    ]
    doc.update(
        status="finished",
        complete=True,
        finished_at="2025-01-01T12:00:01+00:00",
        totals=list(game.totals),
        placings=list(game.placings()),
    )
    doc["digest"] = compute_digest(doc)
    LOG_SCHEMA.validate(doc)
    read_back = json.loads(json.dumps(doc))  # tuples become lists, as in a file
    assert isinstance(read_back, dict)
    return read_back


_LOGS: dict[str, dict[str, Any]] = {}


def log_for(name: str) -> dict[str, Any]:
    """A fresh copy of scenario `name`'s log (made once per session)."""
    if name not in _LOGS:
        _LOGS[name] = make_log(name)
    return copy.deepcopy(_LOGS[name])


def shows(doc: dict[str, Any]) -> set[str]:
    """What a log contains, in MUST_SHOW's terms, read off a replay of it."""
    rules = rules_from_dict(doc["rules"])
    game = Game(rules)
    found: set[str] = set()
    for event in history_from_log(doc):
        if isinstance(event, Shuffle):
            if game.grids[0]:
                found.add("reshuffle")
            game.apply_shuffle(event.order)
            continue
        kind = event.action.kind
        found.add(kind.value)
        if kind is ActionKind.TARGET and game.power_rank is not None:
            found.add("target-" + game.power_rank.value)
        if kind is ActionKind.SWAP and not rules.swap_face_up and game.drawn_from_stock:
            found.add("swap-down")
        holes = len(game.results)
        game.apply(event.action)
        if len(game.results) > holes:
            result = game.results[-1]
            found.add("end-" + result.end.value)
            if any(result.penalties):
                found.add("penalty")
            if any(gs.cancelled for gs in result.grid_scores):
                found.add("cancel")
            # "twin": two cards of one name, of different decks, turned up at the hole's end.
            shown = [game.cards[c] for grid in result.grids for c in grid]
            if len({(c.rank, c.suit) for c in shown}) < len(shown):
                found.add("twin")
    return found


# -- golden output ----------------------------------------------------------------------


def golden_path(name: str) -> Path:
    return GOLDEN / f"{name}.txt"


def rendering(name: str) -> str:
    scenario, options = GOLDEN_RENDERINGS[name]
    return "\n".join(pretty.render_match(log_for(scenario), **options)) + "\n"


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario_shows_what_it_is_for(name: str) -> None:
    missing = MUST_SHOW[name] - shows(log_for(name))
    assert not missing, f"scenario {name} no longer shows {sorted(missing)}: pick another seed"


@pytest.mark.parametrize("name", list(GOLDEN_RENDERINGS))
def test_golden(name: str) -> None:
    path = golden_path(name)
    actual = rendering(name)
    if os.environ.get("GOLDEN_UPDATE"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing; create it with GOLDEN_UPDATE=1"
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "golden", "now", n=2, lineterm="")
        shown = "\n".join(list(diff)[:80])
        pytest.fail(f"{path.name} changed:\n{shown}\nIf intended: GOLDEN_UPDATE=1 pytest tests/test_pretty.py")


# -- the seat view shows only what the seat saw ---------------------------------------------

CARD = re.compile(r"(?:10|[AJQK2-9])[♠♥♦♣](?:#\d)?")
SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def printed_cards(lines: list[str]) -> set[str]:
    """Cards named in printed lines, as printed: `rank+symbol`, and `#k` for a card of deck k >= 2."""
    return {m.group(0) for line in lines for m in CARD.finditer(line)}


def seen_by(game: Game, seat: int) -> set[str]:
    """Every card `seat` may know now, by the engine's own bookkeeping (`up`, `known`, the drawn card)."""
    bit = 1 << seat
    ids = [c for c in range(len(game.cards)) if game.up[c] or game.known[c] & bit]
    if game.drawn >= 0 and known_to(game, game.drawn, seat):
        ids.append(game.drawn)
    return {game.cards[c].pretty + (f"#{game.cards[c].deck}" if game.cards[c].deck > 1 else "") for c in ids}


def leaks(doc: dict[str, Any], seat: int, render_as: int | None) -> list[str]:
    """Lines printed (as `render_as` sees the match) naming a card `seat` could not know at that moment."""
    printer = pretty._Printer(doc, seat=render_as, color=False, ascii_only=False)
    found: list[str] = []
    blocks = 0

    def check(game: Game, lines: list[str]) -> None:
        nonlocal blocks
        blocks += 1
        extra = printed_cards(lines) - seen_by(game, seat)
        if extra:
            found.append(f"{sorted(extra)} in: " + " / ".join(lines))

    printer.tap = check
    printer.render(hole=None, summary=False)
    assert blocks > 10
    return found


@pytest.mark.parametrize(
    ("name", "seat"), [(name, seat) for name, (_, _, players, _) in SCENARIOS.items() for seat in range(players)]
)
def test_seat_view_prints_only_what_the_seat_could_see(name: str, seat: int) -> None:
    found = leaks(log_for(name), seat, render_as=seat)
    assert not found, f"seat {seat} view of {name} shows unseen cards:\n" + "\n".join(found[:5])


@pytest.mark.parametrize("name", ["arena_2p_2x2", "standard_2p"])
def test_the_leak_check_catches_the_full_view(name: str) -> None:
    # The full view shows what any seat saw; checked against one seat's knowledge it must
    # be caught, or the check above proves nothing.
    assert leaks(log_for(name), 0, render_as=None)


def test_seat_view_hides_another_seats_private_cards() -> None:
    doc = log_for("arena_2p_2x2")
    full = "\n".join(pretty.render_match(doc))
    mine = "\n".join(pretty.render_match(doc, seat=0))
    # Seat 1's start-of-hole peek and its face-down stock swaps show for everyone ...
    assert "peeks at slots 2, 1: " in full
    assert "stock ░░ → slot" not in full
    # ... but not for seat 0, whose own peeks stay visible to it.
    assert re.search(r"· bob    peeks at slots 2, 1 ", mine)
    assert "stock ░░ → slot 3 face down" in mine
    assert re.search(r"· alice  peeks at slots 0, 1: \S+ \S+", mine)


# -- ASCII, colour, escapes -------------------------------------------------------------------

MODES: list[dict[str, Any]] = [{}, {"seat": 1}, {"summary": True}, {"hole": 0}]


@pytest.mark.parametrize("name", list(SCENARIOS))
@pytest.mark.parametrize("color", [False, True])
def test_ascii_only_prints_nothing_but_ascii(name: str, color: bool) -> None:
    doc = log_for(name)
    doc["players"][0]["name"] = "zoë 名前"  # a config may hold any printable name
    for options in MODES:
        lines = pretty.render_match(doc, ascii_only=True, color=color, **options)
        bad = [line for line in lines if not line.isascii()]
        assert not bad, f"{options}: {bad[:3]}"
        if not color:
            assert not any("\x1b" in line for line in lines)
    text = "\n".join(pretty.render_match(doc, ascii_only=True))
    assert "##" in text and "zo\\xeb ~" in text  # cut to 12 columns, never inside an escape
    assert re.search(r"\b(10|[AJQK2-9])[SHDC]\b", text)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_no_escape_sequences_without_colour(name: str) -> None:
    for options in MODES:
        lines = pretty.render_match(log_for(name), **options)
        assert not any("\x1b" in line for line in lines), options


def test_colour_shows_red_suits_in_red_and_black_ones_plain() -> None:
    text = "\n".join(pretty.render_match(log_for("standard_2p"), color=True))
    assert re.search(r"\x1b\[31m(10|[AJQK2-9])♥\x1b\[0m", text)
    assert re.search(r"\x1b\[31m(10|[AJQK2-9])♦\x1b\[0m", text)
    assert not re.search(r"\x1b\[31m(10|[AJQK2-9])[♠♣]", text)
    # Colour changes nothing but the escape sequences.
    plain = "\n".join(pretty.render_match(log_for("standard_2p")))
    assert re.sub(r"\x1b\[[0-9;]*m", "", text) == plain


def test_colour_in_ascii_mode_marks_red_letters() -> None:
    text = "\n".join(pretty.render_match(log_for("standard_2p"), color=True, ascii_only=True))
    assert re.search(r"\x1b\[31m(10|[AJQK2-9])H\x1b\[0m", text)


HOSTILE = "\x1b[31mred\x1b]0;title\x07"


def test_text_a_bot_controls_is_sanitized() -> None:
    doc = log_for("arena_2p_2x2")
    doc["players"][1]["reported_name"] = "evil" + HOSTILE
    doc["players"][1]["reported_version"] = HOSTILE
    doc["players"][0]["name"] = "al" + HOSTILE
    doc["match"] = HOSTILE
    doc["error"] = HOSTILE
    fault = doc["faults"][0]
    fault["message"] = "bad " + HOSTILE
    fault["line"] = '{"action": "' + HOSTILE + '"}'
    doc["faults"].append({**fault, "kind": "unasked_output", "request": None})  # printed at the hole's end
    doc["faults"].append({**fault, "kind": "start_failed", "hole": None, "request": None})  # in the header
    for options in MODES + [{"seat": 0, "color": True}, {"color": True}]:
        lines = pretty.render_match(doc, **options)
        text = "\n".join(lines)
        assert "\x07" not in text and "\x1b]" not in text
        # The only escape sequences left are the printer's own colours.
        assert re.sub(r"\x1b\[(?:0|1|2|31)m", "", text).count("\x1b") == 0, options
        if not options.get("color"):
            assert "\x1b" not in text
    text = "\n".join(pretty.render_match(doc))
    assert "evil\\x1b[31mred\\x1b]0;" in text
    assert "bad \\x1b[31mred" in text
    assert 'line: {"action": "\\x1b[31mred' in text
    assert text.count("unasked_output") == 1 and text.count("start_failed") == 1


def test_rich_markup_in_bot_text_prints_literally() -> None:
    """Colour goes through rich styles, never rich markup: a name like `[bold red]` is text."""
    doc = log_for("arena_2p_2x2")
    doc["players"][0]["name"] = "[red]al[/]"
    doc["players"][1]["reported_name"] = "[link=http://x]ev[/link]"
    doc["faults"][0]["message"] = "bad [red]x[/red] :smile:"
    for options in [{}, {"color": True}, {"color": True, "seat": 0}, {"color": True, "compact": True}]:
        text = "\n".join(pretty.render_match(doc, **options))
        plain = re.sub(r"\x1b\[(?:0|1|2|31)m", "", text)
        assert "[red]al[/]" in plain and "[link=http://x]ev[/link]" in plain, options
        assert "bad [red]x[/red] :smile:" in plain or options.get("compact"), options
        assert "\x1b]8" not in text  # no hyperlink escape


def test_colour_is_closed_and_reopened_where_a_line_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")  # the caller decided on colour already
    monkeypatch.setenv("TERM", "dumb")
    screen._console.cache_clear()
    red = screen.RED.render("abcdef", color_system=screen.COLORS)
    assert screen.chop("xy" + red + "z", 4) == ["xy\x1b[31mab\x1b[0m", "\x1b[31mcdef\x1b[0m", "z"]
    assert screen.chop("ab中cd", 3) == ["ab", "中c", "d"]


@pytest.mark.parametrize("name", ["a\u034fb", "नमस्ते", "中文名字", "e\u0301toile"])
def test_widths_are_rich_cell_widths(name: str) -> None:
    """The layout measures text as rich does (zero-width joiners, Indic vowel signs, wide CJK)."""
    doc = log_for("standard_2p")
    doc["players"][0]["name"] = name
    lines = pretty.render_match(doc, width=80)
    assert max(cell_len(line) for line in lines) <= 80
    # The players table: the program column starts at the same column on every row.
    head = next(i for i, line in enumerate(lines) if line.startswith("seat  player"))
    rows = lines[head : head + 3]
    starts = {cell_len(line[: line.index(("program", "built-in", "bobbot")[i])]) for i, line in enumerate(rows)}
    assert len(starts) == 1, rows


# -- what the output says ---------------------------------------------------------------------


def test_summary_prints_header_scores_and_standings_only() -> None:
    doc = log_for("knock_3p")
    lines = pretty.render_match(doc, summary=True)
    text = "\n".join(lines)
    assert "deal" not in text and "━━ hole" not in text
    table = lines[next(i for i, line in enumerate(lines) if line.split()[:1] == ["hole"]) :]
    assert table[0].split() == ["hole", "alice", "bob", "carol", "end"]
    rows = {line.split()[0]: line.split() for line in table[1 : table.index("")]}
    for hole in doc["holes"]:
        assert rows[str(hole["hole"])][1:4] == [str(s) for s in hole["result"]["scores"]]
    assert rows["total"][1:] == [str(t) for t in doc["totals"]]
    assert "standings" in text
    place_lines = lines[lines.index("standings") + 2 :]
    assert [int(line.split()[0]) for line in place_lines] == sorted(doc["placings"])


def test_hole_selection_prints_one_hole() -> None:
    doc = log_for("standard_2p")
    text = "\n".join(pretty.render_match(doc, hole=1))
    assert "hole 1 of 0-1" in text and "hole 0 of 0-1" not in text
    assert "standings" not in text
    totals = doc["holes"][1]["result"]["totals"]
    assert re.search(r"total\s+" + r"\s+".join(str(t) for t in totals) + "$", text, re.M)


@pytest.mark.parametrize("hole", [-1, 2, 99])
def test_hole_out_of_range_is_a_clear_error(hole: int) -> None:
    with pytest.raises(ValueError, match=rf"hole {hole} is out of range: the log has holes 0 to 1"):
        pretty.render_match(log_for("standard_2p"), hole=hole)


@pytest.mark.parametrize("seat", [-1, 2])
def test_seat_out_of_range_is_a_clear_error(seat: int) -> None:
    with pytest.raises(ValueError, match=rf"seat {seat} is out of range: this match has seats 0 to 1"):
        pretty.render_match(log_for("standard_2p"), seat=seat)


def test_hole_end_marks_cancelled_lines_penalties_and_totals() -> None:
    doc = log_for("knock_3p")
    text = "\n".join(pretty.render_match(doc))
    assert re.search(r"\S=", text)  # a cancelled card is marked
    assert re.search(r"cancelled: \w+: column \d", text)
    assert re.search(r"knock penalty\s+(\s+\+10|\s+)+$", text, re.M)
    assert "end: knocked by" in text


def test_blocks_and_cancelled_lines_are_marked_at_the_hole_end() -> None:
    # No scenario deals a block, so score two made-up grids the way the printer does.
    printer = pretty._Printer(log_for("arena_2p_2x2"), seat=None, color=False, ascii_only=False)
    cards = printer.game.cards
    ids = {str(c): i for i, c in enumerate(cards)}
    grids = (tuple(ids[n] for n in ("7S", "7H", "7D", "7C")), tuple(ids[n] for n in ("QS", "3H", "QD", "4C")))
    scores = tuple(score_grid([cards[c].rank for c in g], printer.rules) for g in grids)
    assert scores[0].blocks == (0,) and scores[1].cancelled
    result = HoleResult(0, 0, HoleEnd.KNOCKED, 0, grids, scores, (10, 0), (-10, 3), (-10, 3), (3, 3))
    text = "\n".join(printer.hole_end(result))
    assert re.search(r"7♠\+ +7♥\+│ +Q♠= +3♥$", text, re.M)
    assert re.search(r"7♦\+ +7♣\+│ +Q♦= +4♣$", text, re.M)
    assert "cancelled: alice: column 0, column 1, block at slot 0 (-20); bob: column 0" in text
    assert re.search(r"knock penalty +\+10$", text, re.M)


def test_reshuffles_are_told() -> None:
    doc = log_for("crowded_7p")
    text = "\n".join(pretty.render_match(doc))
    count = sum(1 for h in doc["holes"] for s in h["steps"] if "reshuffle" in s)
    assert count and text.count("stock empty: ") == count
    # Five 3x3 grids do not fit beside the turn text: they go under it, within 100 columns.
    assert max(screen.columns(line) for line in text.splitlines()) <= 100


def test_fallback_and_faults_are_shown_at_their_turn() -> None:
    doc = log_for("standard_2p")
    lines = pretty.render_match(doc)
    at = next(i for i, line in enumerate(lines) if "[fallback]" in line)
    after = "\n".join(lines[at : at + 6])
    assert "! illegal_action (request 2): 'swap:99' is not a legal choice" in after
    assert 'line: {"type": "answer", "id": 2, "action": "swap:99"}' in after


def test_a_disqualification_names_its_hole_as_the_hole_headers_do() -> None:
    doc = log_for("standard_2p")
    doc["players"][BOT_SEAT].update(status="disqualified", disqualified_at={"hole": 1, "request": 5})
    text = "\n".join(pretty.render_match(doc))
    assert re.search(r"^1\s+bob\s+bobbot 2\.1\s+disqualified \(1 fault\) at hole 1 of 0-1$", text, re.M), text
    assert "━━ hole 1 of 0-1 · " in text


def test_unfinished_log_prints_what_was_played() -> None:
    doc = log_for("standard_2p")
    hole = doc["holes"][1]
    hole["steps"] = hole["steps"][:7]
    hole["result"] = None
    doc.update(status="interrupted", complete=False, totals=None, placings=None, error="interrupted by the user")
    text = "\n".join(pretty.render_match(doc))
    assert "hole not finished (match interrupted)" in text
    assert "(the log ends mid-turn)" in text
    assert "standings after 1 of 2 holes (match interrupted)" in text
    first = doc["holes"][0]["result"]["totals"]
    assert re.search(rf"^1\s+\S+\s+{min(first)}\s", text, re.M)


def test_a_referee_log_prints(tmp_path: Path) -> None:
    config = parse_config(
        "match: tiny\nrules: {preset: knock, layout: 2x2, holes: 2}\n"
        "players:\n  - {name: a, builtin: greedy}\n  - {name: b, builtin: random}\n  - {name: c, builtin: greedy}\n"
    )
    result = run_match(config, seed=4, log_path=str(tmp_path / "log.json"))
    doc = json.loads((tmp_path / "log.json").read_text("utf-8"))
    lines = pretty.render_match(doc)
    text = "\n".join(lines)
    assert text.count("━━ hole") == 2 and "standings" in text
    for s, name in enumerate(result.names):
        assert re.search(rf"^{result.placings[s]}\s+{name}\s+{result.totals[s]}\s", text, re.M)


@pytest.mark.parametrize("named_hole", [0, 1, None])
def test_a_fault_shows_at_its_request_whatever_hole_it_names(named_hole: int | None) -> None:
    # A fault noticed after its hole ended may name the next hole, or none; its request
    # still places it.
    doc = log_for("standard_2p")
    doc["faults"][0]["hole"] = named_hole
    lines = pretty.render_match(doc)
    at = next(i for i, line in enumerate(lines) if "[fallback]" in line)
    assert "! illegal_action (request 2)" in "\n".join(lines[at : at + 4])
    assert sum("illegal_action" in line for line in lines) == 1


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_lines_fit_in_100_columns(name: str) -> None:
    for options in MODES:
        lines = pretty.render_match(log_for(name), **options)
        wide = [line for line in lines if screen.columns(line) > 100]
        assert not wide, f"{options}: {wide[:2]}"


SAMPLE_LOGS = sorted((Path(__file__).parent / "logs").glob("*.json"))


@pytest.mark.parametrize("path", SAMPLE_LOGS, ids=[p.stem for p in SAMPLE_LOGS])
def test_every_sample_log_prints_in_every_mode(path: Path) -> None:
    """Logs of every preset, knocks, powers, face-down swaps, reshuffles, turn limits, faults."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    full = pretty.render_match(doc)
    assert full and any("standings" in line for line in full)
    assert pretty.render_match(doc, summary=True)
    for seat in range(len(doc["players"])):
        lines = pretty.render_match(doc, seat=seat, ascii_only=True)
        assert all(line.isascii() for line in lines)


# -- the terminal's width, the compact mode, the deck marker, the numbering ------------------------

WIDTH_MODES: list[dict[str, Any]] = [
    {},
    {"seat": 0},
    {"summary": True},
    {"hole": 0},
    {"compact": True},
    {"compact": True, "seat": 1},
    {"ascii_only": True, "color": True},
]


def overlong(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Lines the layout made wider than asked, which the printer's last guard then had to cut."""
    found: list[str] = []
    guard = pretty.fit

    def fit(line: str, cols: int) -> list[str]:
        if screen.columns(line) > cols:
            found.append(line)
        return guard(line, cols)

    monkeypatch.setattr(pretty, "fit", fit)
    return found


@pytest.mark.parametrize("width", [60, 80])
@pytest.mark.parametrize("path", SAMPLE_LOGS, ids=[p.stem for p in SAMPLE_LOGS])
def test_every_sample_log_fits_the_width_in_every_mode(path: Path, width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    cut = overlong(monkeypatch)
    for options in WIDTH_MODES:
        lines = pretty.render_match(doc, width=width, **options)
        wide = [line for line in lines if screen.columns(line) > width]
        assert not wide, f"{options}: {wide[:2]}"
    # The layout itself keeps within the width; cutting a line is only a last resort.
    assert not cut, cut[:2]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenarios_fit_the_narrowest_width(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cut = overlong(monkeypatch)
    for options in WIDTH_MODES:
        lines = pretty.render_match(log_for(name), width=pretty.MIN_WIDTH, **options)
        assert max(screen.columns(line) for line in lines) <= pretty.MIN_WIDTH, options
    assert not cut, cut[:2]


def test_grids_go_side_by_side_only_as_far_as_they_fit() -> None:
    doc = json.loads((TESTS / "logs" / "reshuffle_8p_1deck.json").read_text(encoding="utf-8"))
    names = [p["name"] for p in doc["players"]]
    for width, per_row in [(100, 5), (80, 4), (60, 3)]:
        lines = pretty.render_match(doc, width=width)
        deal = lines.index("deal")
        # Under the deal, the seats' names head bands of grids, as many seats to a band as fit.
        bands = [line.split() for line in lines[deal - 1 : deal + 20] if line.split() and line.split()[0] in names]
        assert max(len(band) for band in bands) <= per_row
        assert sum(len(band) for band in bands[: -(-len(names) // per_row)]) == len(names)


def test_text_of_any_length_is_kept_within_the_width() -> None:
    doc = log_for("arena_2p_2x2")
    doc["match"] = "m" * 150
    doc["error"] = "x" * 300
    doc["players"][1]["reported_name"] = "r" * 80
    doc["players"][1]["reported_version"] = "2." + "really." * 20  # a status is one of three words: an enum
    doc["faults"][0]["message"] = "y" * 400
    doc["faults"][0]["line"] = "z" * 400
    for width in (50, 60, 80):
        for options in WIDTH_MODES:
            lines = pretty.render_match(doc, width=width, **options)
            assert max(screen.columns(line) for line in lines) <= width, options
    text = "\n".join(pretty.render_match(doc, width=60))
    assert text.count("y") >= 400  # the fault's message is wrapped, not cut


def test_a_width_below_the_minimum_is_refused() -> None:
    with pytest.raises(
        ValueError, match=f"width 30 is too narrow: the match needs at least {pretty.MIN_WIDTH} columns"
    ):
        pretty.render_match(log_for("standard_2p"), width=30)


def test_compact_mode_prints_one_line_per_turn() -> None:
    doc = log_for("knock_3p")
    lines = pretty.render_match(doc, compact=True)
    text = "\n".join(lines)
    play = "\n".join(lines[next(i for i, line in enumerate(lines) if line.startswith("━━ hole")) :])
    assert "│" not in play and "░░" not in play  # no grids
    assert text.count("━━ hole") == len(doc["holes"])
    names = ["alice", "bob", "carol"]
    for hole in doc["holes"]:
        result = hole["result"]
        assert "hole score: " + ", ".join(f"{n} {s}" for n, s in zip(names, result["scores"], strict=True)) in text
        assert "total: " + ", ".join(f"{n} {t}" for n, t in zip(names, result["totals"], strict=True)) in text
    # Every turn (and each seat's start-of-hole reveal) on a line of its own, numbered from 1 in each hole.
    turn_lines = [line for line in lines if re.match(r"^ {1,2}(\d+|·) (alice|bob|carol) ", line)]
    turns = sum(sum(h["result"]["turns"]) for h in doc["holes"])
    reveals = sum(3 for _ in doc["holes"])
    assert len(turn_lines) == turns + reveals
    assert "knocks" in text and "end: knocked by" in text and "standings" in text


def test_compact_mode_names_the_faults_of_a_turn() -> None:
    lines = pretty.render_match(log_for("standard_2p"), compact=True)
    line = next(line for line in lines if "[fallback]" in line)
    assert line.startswith("  2 bob ") and line.endswith("[fallback], ! illegal_action")
    assert "'swap:99'" not in "\n".join(lines)  # the message is the full view's


def test_compact_mode_shows_a_seat_only_what_it_saw() -> None:
    doc = log_for("arena_2p_2x2")
    found: list[str] = []
    for seat in (0, 1):
        printer = pretty._Printer(doc, seat=seat, color=False, ascii_only=False, compact=True)

        def check(game: Game, lines: list[str], seat: int = seat) -> None:
            extra = printed_cards(lines) - seen_by(game, seat)
            if extra:
                found.append(f"seat {seat}: " + " / ".join(lines))

        printer.tap = check
        printer.render(hole=None, summary=False)
    assert not found, found[:3]
    # The same check catches the full view's compact lines, or it would prove nothing.
    printer = pretty._Printer(doc, seat=None, color=False, ascii_only=False, compact=True)
    printer.tap = lambda game, lines: found.extend(sorted(printed_cards(lines) - seen_by(game, 0)))
    printer.render(hole=None, summary=False)
    assert found


@pytest.mark.parametrize("ascii_only", [False, True])
def test_cards_of_a_second_deck_keep_their_deck(ascii_only: bool) -> None:
    doc = log_for("two_decks_3p")
    names = {str(c): c for c in Game(rules_from_dict(doc["rules"])).cards}
    final = [name for grid in doc["holes"][0]["result"]["grids"] for name in grid]
    twin = next(n for n in final if "#2" in n and n.split("#")[0] in final)  # both decks' copies turned up
    printer = pretty._Printer(doc, seat=None, color=False, ascii_only=ascii_only)
    one, two = printer.label(names[twin.split("#")[0]]), printer.label(names[twin])
    assert two == one + "#2"
    for options in ({}, {"compact": True}):
        text = "\n".join(pretty.render_match(doc, ascii_only=ascii_only, **options))
        assert re.search(rf"(?<![\w#]){re.escape(one)}(?![#\w])", text) and re.search(rf"{re.escape(two)}\b", text)
    lines = pretty.render_match(doc, ascii_only=ascii_only)
    at = next(i for i, line in enumerate(lines) if line.startswith("deal"))
    legend = "7S#2 of deck 2" if ascii_only else "7♠#2 of deck 2"
    assert legend in "\n".join(lines[:at])  # the legend says what the mark means


def test_single_deck_cards_have_no_deck_mark() -> None:
    text = "\n".join(
        pretty.render_match(log_for("standard_2p")) + pretty.render_match(log_for("standard_2p"), compact=True)
    )
    assert "#1" not in text and "#2" not in text and "of deck 2" not in text


def test_holes_are_numbered_from_0_as_in_the_log() -> None:
    doc = log_for("standard_2p")
    for h, hole in enumerate(doc["holes"]):
        assert hole["hole"] == h
        text = "\n".join(pretty.render_match(doc, hole=h))
        assert f"━━ hole {h} of 0-1 · " in text
        assert re.search(r"total\s+" + r"\s+".join(map(str, hole["result"]["totals"])) + "$", text, re.M)
    summary = pretty.render_match(doc, summary=True)
    start = next(i for i, line in enumerate(summary) if line.split()[:1] == ["hole"])
    table = summary[start : summary.index("", start)]
    rows = [line.split() for line in table if line.split()[:1] in (["0"], ["1"])]
    assert [row[0] for row in rows] == ["0", "1"]
    assert [row[1:3] for row in rows] == [[str(s) for s in h["result"]["scores"]] for h in doc["holes"]]
