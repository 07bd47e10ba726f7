"""Log validation (golfref/record/validate.py) and `golfref replay`: sample logs, a tamper suite, the CLI.

Every kind of damage is tested twice: edited and left as it is (the digest no longer
matches: TAMPERED), and edited then sealed again with `compute_digest`, as a buggy or
malicious tool would (INVALID, with the message that names the hole, step and field).
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
from typer.testing import CliRunner

from golfref.cli.app import app, main
from golfref.cli.options import output_width, use_color
from golfref.game.rules import resolve_rules
from golfref.record import validate as replay_module
from golfref.record.log import CUT_SHORT, compute_digest
from golfref.record.validate import TAMPERED_MESSAGE, Status, Validation, validate, validate_file

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "logs"
SCHEMA = json.loads((ROOT / "schemas" / "log.schema.json").read_text(encoding="utf-8"))

runner = CliRunner()


def load(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((LOGS / f"{name}.json").read_text(encoding="utf-8"))
    return doc


# -- the sample logs ---------------------------------------------------------------------------

# name -> (status, holes_checked, a fragment of the message)
SAMPLES = {
    "example_1hole_2p_2x2": (Status.VALID, 1, "1 hole, 21 steps"),
    "standard_2p": (Status.VALID, 3, "3 holes"),
    "classic_4p_9holes": (Status.VALID, 9, "9 holes"),
    "knock_3p": (Status.VALID, 4, "4 holes"),
    "arena_2x2_powers": (Status.VALID, 3, "3 holes"),
    "arena_3x3_lines_blocks": (Status.VALID, 2, "2 holes"),
    "reshuffle_8p_1deck": (Status.VALID, 1, "1 hole"),
    "turn_limit": (Status.VALID, 2, "2 holes"),
    "faults_3p": (Status.VALID, 2, "placings [2, 1, 3]"),
    "disqualified_garbage": (Status.VALID, 2, "2 holes"),
    "interrupted": (
        Status.INCOMPLETE,
        1,
        "status interrupted: validates through hole 1 and its 22 steps (the hole was open)",
    ),
    "error": (Status.INCOMPLETE, 0, "status error: validates through hole 0 and its 8 steps (the hole was open)"),
    "running_journal": (Status.INCOMPLETE, 1, "status running: validates through hole 0 and its 37 steps"),
}


def test_every_sample_log_is_listed() -> None:
    assert {p.stem for p in LOGS.glob("*.json")} == set(SAMPLES)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_log_validates(name: str) -> None:
    status, holes, fragment = SAMPLES[name]
    report = validate_file(LOGS / f"{name}.json")
    assert (report.status, report.holes_checked) == (status, holes), report
    assert fragment in report.message
    assert report.doc is not None and report.doc["match_id"] == f"sample-{name}"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_log_matches_the_schema(name: str) -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(load(name))


def test_the_log_schema_is_a_valid_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_the_schemas_fixed_values_are_the_codes() -> None:
    """Every enum and constant of the log schema that mirrors the code is the code's, value for value."""
    from golfref.config.match import BUILTIN_PLAYERS, FaultMode
    from golfref.game.cards import deck_set
    from golfref.game.engine import Decision, HoleEnd
    from golfref.game.policies import POLICIES
    from golfref.game.rules import PRESETS, Cancel, FlipAfterThrow, KnockPenalty, Lines, PairScope, Reveal, RevealChoice
    from golfref.record.faults import FaultKind, SeatStatus
    from golfref.record.log import LOG_FORMAT, READ_VERSIONS, SCHEMA_VERSION

    top, defs = SCHEMA["properties"], SCHEMA["$defs"]
    rules = top["rules"]["properties"]

    def values(enum: Any) -> list[Any]:
        return [member.value for member in enum]

    mirrors: dict[str, tuple[Any, Any]] = {
        "format": (top["format"]["const"], LOG_FORMAT),
        "schema_version": (top["schema_version"]["enum"], list(READ_VERSIONS)),
        "schema_version (written)": (READ_VERSIONS[-1], SCHEMA_VERSION),
        "rules.preset": (rules["preset"]["enum"], list(PRESETS)),
        "rules.reveal": (rules["reveal"]["enum"], values(Reveal)),
        "rules.reveal_choice": (rules["reveal_choice"]["enum"], values(RevealChoice)),
        "rules.flip_after_throw": (rules["flip_after_throw"]["enum"], values(FlipAfterThrow)),
        "rules.lines": (rules["lines"]["enum"], values(Lines)),
        "rules.cancel": (rules["cancel"]["enum"], values(Cancel)),
        "rules.pair_scope": (rules["pair_scope"]["enum"], values(PairScope)),
        "rules.knock_penalty": (rules["knock_penalty"]["oneOf"][0]["const"], KnockPenalty.DOUBLE.value),
        "fault_policy.policy": (top["fault_policy"]["properties"]["policy"]["enum"], values(FaultMode)),
        "fault_policy.fallback": (top["fault_policy"]["properties"]["fallback"]["enum"], list(POLICIES)),
        "player.builtin": (defs["player"]["properties"]["builtin"]["enum"], list(BUILTIN_PLAYERS)),
        "player.status": (defs["player"]["properties"]["status"]["enum"], values(SeatStatus)),
        "step.decision": (defs["step"]["oneOf"][0]["properties"]["decision"]["enum"], values(Decision)),
        "result.end": (defs["result"]["properties"]["end"]["enum"], values(HoleEnd)),
        "fault.kind": (defs["fault"]["properties"]["kind"]["enum"], values(FaultKind)),
    }
    for where, (schema, code) in mirrors.items():
        assert schema == code, where
    # Rule options without an enum in the code: each value the schema lists is one the rules
    # take and write back as such.
    for option in ("twos", "court_values", "swap_face"):
        for value in rules[option]["enum"]:
            assert resolve_rules("standard", {option: value}).to_dict()[option] == value, (option, value)
    # The card pattern admits exactly the names of the largest card set.
    card = re.compile(defs["card"]["pattern"])
    names = {str(c) for c in deck_set(4, jokers=True)}
    chars = {ch for name in names for ch in name[:2]} | set("01BLZ")
    candidates = {a + b + suffix for a in chars for b in chars for suffix in ("", "#1", "#2", "#3", "#4", "#5")}
    assert {n for n in candidates if card.search(n)} == names


def test_samples_cover_what_they_are_for() -> None:
    def steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
        return [s for h in doc["holes"] for s in h["steps"]]

    presets = {load(n)["rules"]["preset"] for n in SAMPLES}
    assert presets == {"standard", "classic", "knock", "arena"}
    knock = load("knock_3p")
    assert knock["rules"]["knocking"] and any(h["result"]["end"] == "knocked" for h in knock["holes"])
    arena4 = load("arena_2x2_powers")
    assert arena4["rules"]["swap_face"] == "down" and arena4["rules"]["card_powers"]
    assert {"power", "target"} <= {s.get("action", "").split(":")[0] for s in steps(arena4)}
    arena9 = load("arena_3x3_lines_blocks")
    assert (arena9["rules"]["layout"], arena9["rules"]["lines"], arena9["rules"]["block_bonus"]) == (
        "3x3",
        "columns+rows+diagonals",
        -20,
    )
    assert any("reshuffle" in s for s in steps(load("reshuffle_8p_1deck")))
    assert all(h["result"]["end"] == "turn_limit" for h in load("turn_limit")["holes"])
    faults = load("faults_3p")
    assert [p["status"] for p in faults["players"]] == ["ok", "faulted", "disqualified"]
    assert any(s["by"] == "fallback" for s in steps(faults))
    assert load("disqualified_garbage")["players"][1]["status"] == "disqualified"
    interrupted = load("interrupted")
    assert interrupted["status"] == "interrupted" and interrupted["holes"][-1]["result"] is None
    running = load("running_journal")
    assert running["status"] == "running" and running["seed"] is None


@pytest.mark.process
def test_make_logs_recreates_every_sample_byte_for_byte(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_logs", LOGS / "make_logs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    made = sorted(p.name for p in tmp_path.glob("*.json"))
    assert made == sorted(f"{n}.json" for n in SAMPLES)
    for name in made:
        assert (tmp_path / name).read_bytes() == (LOGS / name).read_bytes(), name


def test_make_logs_uses_only_public_golfref_names() -> None:
    """The sample generator goes through the library's public API, as any tool would."""
    import ast

    tree = ast.parse((LOGS / "make_logs.py").read_text(encoding="utf-8"))
    private = [
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("golfref")
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert private == []


def test_a_log_as_written_by_write_log_validates(tmp_path: Path) -> None:
    # A log exactly as write_log lays it out (not re-encoded by this test).
    raw = (LOGS / "knock_3p.json").read_bytes()
    assert raw.endswith(b'"signature":null}\n') and b'"digest":"sha256:' in raw
    path = tmp_path / "copy.json"
    path.write_bytes(raw)
    assert validate_file(path).ok


def test_formatting_is_not_content(tmp_path: Path) -> None:
    # The digest covers the content, not the layout: pretty-printing a log keeps it valid.
    path = tmp_path / "pretty.json"
    path.write_text(json.dumps(load("standard_2p"), indent=2), encoding="utf-8")
    assert validate_file(path).ok


# -- duplicate keys: one file, two logs ---------------------------------------------------------


def first_key_wins(raw: bytes) -> Any:
    """The log as a reader that keeps the first of repeated keys sees it (orjson keeps the last)."""
    return json.loads(raw, object_pairs_hook=lambda pairs: dict(reversed(pairs)))


def with_inserted(raw: bytes, fields: bytes) -> bytes:
    """The file `raw` with `fields` (`"key":value,` ...) written first in its top-level object."""
    assert raw.startswith(b"{")
    return b"{" + fields + raw[1:]


def test_players_and_holes_inserted_before_the_real_ones_are_refused(tmp_path: Path) -> None:
    # The attack: a sealed log with a second "players" and "holes" in front of its own. orjson
    # (and golfref before) read the last ones, so the digest still matched, while a reader
    # that takes the first keys sees other players and other holes.
    raw = (LOGS / "standard_2p.json").read_bytes()
    doc = load("standard_2p")
    fake_players = copy.deepcopy(doc["players"])
    fake_players[0]["name"], fake_players[1]["name"] = fake_players[1]["name"], fake_players[0]["name"]
    inserted = b'"holes":' + orjson.dumps(doc["holes"][:1]) + b',"players":' + orjson.dumps(fake_players) + b","
    path = tmp_path / "two-logs.json"
    path.write_bytes(with_inserted(raw, inserted))
    assert orjson.loads(path.read_bytes()) == orjson.loads(raw)  # what golfref read: the real log
    assert first_key_wins(path.read_bytes())["players"] == fake_players  # what another reader reads
    report = validate_file(path)
    assert (report.status, report.message, report.doc) == (
        Status.INVALID,
        'duplicate key "holes" at the top level',
        None,
    )
    assert invoke("--check", str(path)).stdout == f'{path}: invalid: duplicate key "holes" at the top level\n'
    assert one_error_line(invoke(str(path)), 1) == f'golfref: error: {path}: duplicate key "holes" at the top level'


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda text: text.replace('"format": "golfref-log"', '"format": "golfref-log", "format": "x"', 1),
            'duplicate key "format" at the top level',
        ),
        (
            lambda text: re.sub(r'("steps": \[\s*\{\s*)', r'\1"seat": 7, ', text, count=1),
            'duplicate key "seat" in holes[0].steps[0]',
        ),
        (lambda text: text.replace('"name": ', '"name": "mallory", "name": ', 1), 'duplicate key "name" in players[0]'),
        (lambda text: text.replace('"preset": ', '"preset": null, "preset": ', 1), 'duplicate key "preset" in rules'),
    ],
    ids=["format", "step", "player", "rules"],
)
def test_a_duplicate_key_anywhere_is_named_with_where_it_is(
    tmp_path: Path, edit: Callable[[str], str], message: str
) -> None:
    text = json.dumps(load("standard_2p"), indent=2)  # reformatted, as jq would: not golfref's bytes
    edited = edit(text)
    assert edited != text
    path = tmp_path / "log.json"
    path.write_text(edited, encoding="utf-8")
    report = validate_file(path)
    assert (report.status, report.message) == (Status.INVALID, message)


def test_a_log_as_golfref_wrote_it_is_not_scanned_for_duplicates(monkeypatch: pytest.MonkeyPatch) -> None:
    # golfref's own bytes cannot hold a repeated key: the slow scan is only for other files.
    from golfref.record import log as log_module

    def scan(raw: bytes, where: str) -> None:
        raise AssertionError("scanned")

    monkeypatch.setattr(log_module, "_refuse_duplicate_keys", scan)
    for name in SAMPLES:
        log_module.read_log(LOGS / f"{name}.json")
    with pytest.raises(AssertionError, match="scanned"):
        log_module.parse_log(json.dumps(load("standard_2p"), indent=2).encode())


def test_a_log_too_deep_to_scan_is_refused(tmp_path: Path) -> None:
    # orjson reads up to 1024 levels; the standard parser (the duplicate scan) gives up sooner.
    depth = 1020
    path = tmp_path / "deep.json"
    path.write_bytes(b'{"format":"golfref-log","x":' + b"[" * depth + b"]" * depth + b"}")
    report = validate_file(path)
    assert (report.status, report.message) == (
        Status.INVALID,
        "cannot be checked for duplicate keys: nested too deeply",
    )


# -- the tamper suite ---------------------------------------------------------------------------


def first_step(doc: dict[str, Any], h: int, pred: Callable[[dict[str, Any]], bool]) -> int:
    return next(i for i, s in enumerate(doc["holes"][h]["steps"]) if pred(s))


def change_deal_card(doc: dict[str, Any]) -> None:
    deal = doc["holes"][0]["deal"]
    deal[5] = deal[10]  # deal[5] is lost, deal[10] is there twice


def duplicate_deal_card(doc: dict[str, Any]) -> None:
    deal = doc["holes"][0]["deal"]
    deal.insert(7, deal[3])


def drop_deal_card(doc: dict[str, Any]) -> None:
    del doc["holes"][0]["deal"][20]


def unknown_deal_card(doc: dict[str, Any]) -> None:
    doc["holes"][0]["deal"][0] = "7S#2"  # a card of a second deck, in a one-deck match


def change_reshuffle_card(doc: dict[str, Any]) -> None:
    hole = doc["holes"][0]
    t = first_step(doc, 0, lambda s: "reshuffle" in s)
    hole["steps"][t]["reshuffle"][0] = hole["deal"][0]  # a card that lies in seat 0's grid


def drop_reshuffle(doc: dict[str, Any]) -> None:
    t = first_step(doc, 0, lambda s: "reshuffle" in s)
    del doc["holes"][0]["steps"][t]


def add_reshuffle(doc: dict[str, Any]) -> None:
    doc["holes"][0]["steps"].insert(4, {"reshuffle": ["AS"]})


def illegal_action(doc: dict[str, Any]) -> None:
    step = doc["holes"][0]["steps"][0]
    assert (step["decision"], step["action"]) == ("draw", "stock")
    step["action"] = "swap:2"


def malformed_action(doc: dict[str, Any]) -> None:
    doc["holes"][0]["steps"][1]["action"] = "swap:two"


def other_legal_action(doc: dict[str, Any]) -> None:
    # The last step of hole 1 swaps into slot 2; slot 5 is as legal, and the hole still
    # ends there, so only the result shows the change.
    step = doc["holes"][0]["steps"][-1]
    assert step["action"] == "swap:2"
    step["action"] = "swap:5"


def legal_draw_then_illegal_throw(doc: dict[str, Any]) -> None:
    steps = doc["holes"][0]["steps"]
    assert (steps[8]["action"], steps[9]["action"]) == ("stock", "throw")
    steps[8]["action"] = "discard"  # legal, but a card taken from the pile cannot be thrown


def change_score(doc: dict[str, Any]) -> None:
    doc["holes"][1]["result"]["scores"][0] += 1


def change_raw(doc: dict[str, Any]) -> None:
    doc["holes"][2]["result"]["raw"][1] -= 5


def change_hole_total(doc: dict[str, Any]) -> None:
    doc["holes"][1]["result"]["totals"][1] += 10


def change_grid(doc: dict[str, Any]) -> None:
    grid = doc["holes"][0]["result"]["grids"][0]
    grid[0], grid[1] = grid[1], grid[0]


def change_end(doc: dict[str, Any]) -> None:
    doc["holes"][0]["result"]["end"] = "turn_limit"
    doc["holes"][0]["result"]["ender"] = None


def change_total(doc: dict[str, Any]) -> None:
    doc["totals"][0] += 1


def change_placing(doc: dict[str, Any]) -> None:
    doc["placings"] = doc["placings"][::-1]


def delete_turn(doc: dict[str, Any]) -> None:
    steps = doc["holes"][0]["steps"]
    assert [s["seat"] for s in steps[2:4]] == [1, 1]
    del steps[2:4]  # seat 1's first turn (draw, swap)


def swap_turns(doc: dict[str, Any]) -> None:
    steps = doc["holes"][0]["steps"]
    assert [s["seat"] for s in steps[4:8]] == [0, 0, 1, 1]
    steps[4:8] = steps[6:8] + steps[4:6]


def delete_hole(doc: dict[str, Any]) -> None:
    del doc["holes"][1]


def delete_last_hole(doc: dict[str, Any]) -> None:
    del doc["holes"][-1]


def step_after_hole_end(doc: dict[str, Any]) -> None:
    doc["holes"][0]["steps"].append(dict(doc["holes"][1]["steps"][0]))


def change_rules(doc: dict[str, Any]) -> None:
    doc["rules"]["twos"] = 2  # hole 1's grids hold a two: its raw score changes


def unresolvable_rules(doc: dict[str, Any]) -> None:
    doc["rules"]["layout"] = "1x1"  # 2 cards revealed from a 1-card grid


def more_decks(doc: dict[str, Any]) -> None:
    doc["rules"]["decks"] = 2


def wrong_type(doc: dict[str, Any]) -> None:
    doc["holes"][0]["steps"][2]["seat"] = "1"


def unknown_field(doc: dict[str, Any]) -> None:
    doc["holes"][0]["steps"][2]["note"] = "hi"


def drop_field(doc: dict[str, Any]) -> None:
    del doc["holes"][1]["result"]["turns"]


def status_complete_mismatch(doc: dict[str, Any]) -> None:
    doc["complete"] = False


def open_finished_hole(doc: dict[str, Any]) -> None:
    doc["holes"][-1]["result"] = None


def fault_seat_out_of_range(doc: dict[str, Any]) -> None:
    doc["faults"][0]["seat"] = 5


def fault_request_of_another_seat(doc: dict[str, Any]) -> None:
    doc["faults"][0]["request"] = 1  # request 1 went to seat 0


def disqualified_not_last(doc: dict[str, Any]) -> None:
    doc["placings"] = [2, 1, 1]


def unqualify(doc: dict[str, Any]) -> None:
    doc["players"][2]["status"] = "faulted"
    doc["players"][2]["disqualified_at"] = None


def fault_count_changed(doc: dict[str, Any]) -> None:
    doc["players"][1]["faults"] = 3


def drop_fault(doc: dict[str, Any]) -> None:
    del doc["faults"][-1]


def starter_changed(doc: dict[str, Any]) -> None:
    doc["holes"][1]["starter"] = 0


def requests_out_of_order(doc: dict[str, Any]) -> None:
    steps = doc["holes"][0]["steps"]
    bot = [s for s in steps if s["request"] is not None]
    bot[3]["request"] = bot[1]["request"]


# (id, sample, edit, fragments of the message after re-sealing)
DAMAGE: list[tuple[str, str, Callable[[dict[str, Any]], None], tuple[str, ...]]] = [
    (
        "deal card changed",
        "standard_2p",
        change_deal_card,
        ("hole 0: field deal: not an order of the 52 cards:", "listed more than once", "missing"),
    ),
    (
        "deal card duplicated",
        "standard_2p",
        duplicate_deal_card,
        ("hole 0: field deal:", "53 cards, expected 52", "listed more than once"),
    ),
    ("deal card missing", "standard_2p", drop_deal_card, ("hole 0: field deal:", "51 cards, expected 52", "missing")),
    (
        "deal card from another deck",
        "standard_2p",
        unknown_deal_card,
        ("hole 0: field deal: '7S#2' is not one of this match's cards",),
    ),
    (
        "reshuffle card changed",
        "reshuffle_8p_1deck",
        change_reshuffle_card,
        (
            "hole 0, step 26 (reshuffle): field reshuffle: not an order of the",
            "(the discard pile minus its top card)",
            "not among them",
        ),
    ),
    (
        "reshuffle deleted",
        "reshuffle_8p_1deck",
        drop_reshuffle,
        ("hole 0, step 26 (seat", "the stock ran out: a reshuffle of", "cards is due here (D7), the log has an action"),
    ),
    (
        "reshuffle added",
        "standard_2p",
        add_reshuffle,
        ("hole 0, step 4 (reshuffle): a reshuffle, but the stock is not empty (seat 0 is to move, decision draw)",),
    ),
    (
        "action made illegal",
        "standard_2p",
        illegal_action,
        ("hole 0, step 0 (seat 0): field action: 'swap:2' is not legal here (legal: stock discard)",),
    ),
    (
        "action malformed",
        "standard_2p",
        malformed_action,
        ("hole 0, step 1 (seat 0): field action: malformed action 'swap:two'",),
    ),
    (
        "action changed to another legal one (seen in the result)",
        "standard_2p",
        other_legal_action,
        ("hole 0, result: field grids[1]: the steps give", "the log says"),
    ),
    (
        "action changed to another legal one (seen at the next step)",
        "standard_2p",
        legal_draw_then_illegal_throw,
        (
            "hole 0, step 9 (seat 0): field action: 'throw' is not legal here "
            "(legal: swap:0 swap:1 swap:2 swap:3 swap:4 swap:5)",
        ),
    ),
    (
        "hole score changed",
        "standard_2p",
        change_score,
        ("hole 1, result: field scores: the steps give [2, 39], the log says [3, 39]",),
    ),
    (
        "raw score changed",
        "standard_2p",
        change_raw,
        ("hole 2, result: field raw: the steps give [29, 45], the log says [29, 40]",),
    ),
    ("hole total changed", "standard_2p", change_hole_total, ("hole 1, result: field totals: the steps give",)),
    ("final grid changed", "standard_2p", change_grid, ('hole 0, result: field grids[0]: the steps give ["KD", "2D"',)),
    (
        "hole end changed",
        "standard_2p",
        change_end,
        ("hole 0, result: field end: the steps give 'closed', the log says 'turn_limit'",),
    ),
    (
        "match total changed",
        "standard_2p",
        change_total,
        ("field totals: the holes give [37, 117], the log says [38, 117]",),
    ),
    (
        "placing changed",
        "standard_2p",
        change_placing,
        ("field placings: the totals give [1, 2], the log says [2, 1]",),
    ),
    (
        "disqualified seat not placed last",
        "faults_3p",
        disqualified_not_last,
        ("field placings: the totals give [2, 1, 3] (disqualified, placed last: seat 2), the log says [2, 1, 1]",),
    ),
    ("turn deleted", "standard_2p", delete_turn, ("hole 0, step 2 (seat 0): seat 0 acted, but seat 1 is to move",)),
    ("two turns swapped", "standard_2p", swap_turns, ("hole 0, step 4 (seat 1): seat 1 acted, but seat 0 is to move",)),
    (
        "step after the hole ended",
        "standard_2p",
        step_after_hole_end,
        ("hole 0, step 25 (seat 1): the hole already ended (closed by seat 0) at step 24; nothing may follow",),
    ),
    ("hole deleted", "standard_2p", delete_hole, ("hole 1: field hole: expected 1 (holes count from 0), got 2",)),
    (
        "last hole deleted",
        "standard_2p",
        delete_last_hole,
        ("field holes: the log is complete, but it has 2 of the rules' 3 holes",),
    ),
    (
        "hole starter changed",
        "standard_2p",
        starter_changed,
        ("hole 1: field starter: seat 1 starts this hole (D2), the log says seat 0",),
    ),
    (
        "rules changed",
        "standard_2p",
        change_rules,
        ("hole 0, result: field raw: the steps give [10, 33], the log says [6, 33]",),
    ),
    ("rules that do not resolve", "standard_2p", unresolvable_rules, ("field rules: reveal_count",)),
    (
        "rules' decks changed",
        "standard_2p",
        more_decks,
        ("field cards: 52 cards, but the rules declare 104 (2 decks, no jokers)",),
    ),
    (
        "field of the wrong type",
        "standard_2p",
        wrong_type,
        ("hole 0, step 2: field seat: expected integer, got a string ('1')",),
    ),
    ("unknown field", "standard_2p", unknown_field, ("hole 0, step 2 (seat 1): field note: unknown field 'note'",)),
    ("field removed", "standard_2p", drop_field, ("hole 1, result: field turns: missing",)),
    (
        "complete flag changed",
        "standard_2p",
        status_complete_mismatch,
        ("field complete: false, but the status is 'finished'",),
    ),
    (
        "result removed from a finished hole",
        "standard_2p",
        open_finished_hole,
        ("hole 2: field result: null, but the hole ended at step 35",),
    ),
    (
        "fault of a seat that does not exist",
        "faults_3p",
        fault_seat_out_of_range,
        ("field faults[0].seat: seat 5, but the match has 3 players",),
    ),
    (
        "fault moved to another seat's request",
        "faults_3p",
        fault_request_of_another_seat,
        ("field faults[0].request: request 1 went to seat 0, not seat 1",),
    ),
    (
        "disqualification removed",
        "faults_3p",
        unqualify,
        (
            "field players[2].status: 'faulted', but with 1 recorded fault(s) the fault policy (fallback, at most 50) "
            "makes seat 2 'disqualified'",
        ),
    ),
    (
        "fault count changed",
        "faults_3p",
        fault_count_changed,
        ("field players[1].faults: 3, but the fault policy counts 22",),
    ),
    (
        "fault removed",
        "disqualified_garbage",
        drop_fault,
        (
            "field players[1].status: 'disqualified', but with 2 recorded fault(s) "
            "the fault policy (fallback, at most 3) makes seat 1 'faulted'",
        ),
    ),
    (
        "request ids out of order",
        "faults_3p",
        requests_out_of_order,
        (
            "hole 0, step 3 (seat 1, request 2): field request: 2, but the previous request was 3 "
            "(requests are numbered 1, 2, 3... as sent)",
        ),
    ),
]


def damaged(name: str, edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = load(name)
    edit(doc)
    return doc


def write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_bytes(orjson.dumps(doc))
    return path


@pytest.mark.parametrize(("name", "edit"), [(d[1], d[2]) for d in DAMAGE], ids=[d[0] for d in DAMAGE])
def test_damage_left_unsealed_is_tampered(tmp_path: Path, name: str, edit: Callable[[dict[str, Any]], None]) -> None:
    doc = damaged(name, edit)
    report = validate_file(write(tmp_path / "log.json", doc))
    assert report.status is Status.TAMPERED, report
    assert report.message == TAMPERED_MESSAGE


@pytest.mark.parametrize(("name", "edit", "fragments"), [d[1:] for d in DAMAGE], ids=[d[0] for d in DAMAGE])
def test_damage_sealed_again_is_invalid_and_located(
    tmp_path: Path, name: str, edit: Callable[[dict[str, Any]], None], fragments: tuple[str, ...]
) -> None:
    doc = damaged(name, edit)
    doc["digest"] = compute_digest(doc)
    report = validate_file(write(tmp_path / "log.json", doc))
    assert report.status is Status.INVALID, report
    for fragment in fragments:
        assert fragment in report.message, (fragment, report.message)


def test_every_damage_has_its_own_message() -> None:
    messages = []
    for _, name, edit, _ in DAMAGE:
        doc = damaged(name, edit)
        doc["digest"] = compute_digest(doc)
        messages.append(validate(doc).message)
    assert len(set(messages)) == len(messages)


def test_messages_are_one_line() -> None:
    for _, name, edit, _ in DAMAGE:
        doc = damaged(name, edit)
        doc["digest"] = compute_digest(doc)
        assert "\n" not in validate(doc).message


def test_holes_checked_counts_the_holes_before_the_damage() -> None:
    doc = damaged("standard_2p", change_raw)  # hole 2
    doc["digest"] = compute_digest(doc)
    assert validate(doc).holes_checked == 2


def test_digest_edited_is_tampered(tmp_path: Path) -> None:
    doc = load("standard_2p")
    last = doc["digest"][-1]
    doc["digest"] = doc["digest"][:-1] + ("0" if last != "0" else "1")
    report = validate_file(write(tmp_path / "log.json", doc))
    assert (report.status, report.message) == (Status.TAMPERED, TAMPERED_MESSAGE)


def test_digest_of_another_form_is_tampered() -> None:
    doc = load("standard_2p")
    doc["digest"] = "md5:abc"
    assert validate(doc).status is Status.TAMPERED


def test_digest_removed_is_invalid() -> None:
    doc = load("standard_2p")
    del doc["digest"]
    report = validate(doc)
    assert (report.status, report.message) == (Status.INVALID, "field digest: missing")


def test_digest_of_the_wrong_type_is_invalid() -> None:
    doc = load("standard_2p")
    doc["digest"] = 12
    report = validate(doc)
    assert report.status is Status.INVALID and report.message.startswith("field digest: expected string")


def test_a_byte_edited_in_the_file_is_tampered(tmp_path: Path) -> None:
    raw = (LOGS / "standard_2p.json").read_bytes()
    edited = raw.replace(b'"totals":[37,117]', b'"totals":[37,116]', 1)
    assert edited != raw
    path = tmp_path / "log.json"
    path.write_bytes(edited)
    assert validate_file(path).status is Status.TAMPERED


def test_an_edit_that_breaks_the_schema_of_a_sealed_log_is_tampered() -> None:
    doc = load("standard_2p")
    doc["holes"][0]["steps"][0]["seat"] = "zero"
    assert validate(doc).status is Status.TAMPERED


@pytest.mark.parametrize("keep", [1, 10, 1000, -3, -2])
def test_truncated_file_is_invalid(tmp_path: Path, keep: int) -> None:
    raw = (LOGS / "standard_2p.json").read_bytes()
    path = tmp_path / "log.json"
    path.write_bytes(raw[:keep])
    report = validate_file(path)
    assert report.status is Status.INVALID and report.doc is None
    assert report.message.startswith(f"truncated: the JSON ends unfinished at byte {len(raw[:keep])} "), report.message
    assert report.message.endswith(CUT_SHORT)


def _cut_log(tmp_path: Path, cut: str) -> tuple[Path, bytes]:
    """A log file cut short: its last 100 or 2 bytes removed, cut in the middle, after non-ASCII text or inside it."""
    raw = (LOGS / "standard_2p.json").read_bytes()
    if cut == "non-ascii":
        doc = orjson.loads(raw)
        doc["players"][0]["name"] = "Zoë ♠ ünï"
        raw = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)
        # After ü, n and ï the offsets of bytes and characters differ; one byte fewer cuts ï in two.
        kept = raw[: raw.index("ünï".encode()) + 5]
    elif cut == "inside a character":
        kept = _cut_log(tmp_path, "non-ascii")[1][:-1]
    else:
        kept = raw[: {"100": -100, "2": -2, "middle": len(raw) // 2}[cut]]
    path = tmp_path / "cut.json"
    path.write_bytes(kept)
    return path, kept


@pytest.mark.parametrize("cut", ["100", "2", "middle", "non-ascii", "inside a character"])
@pytest.mark.parametrize("command", [["replay"], ["replay", "--check"], ["audit"]], ids=" ".join)
def test_a_log_cut_short_names_the_file_the_byte_where_it_ends_and_what_to_do(
    tmp_path: Path, cut: str, command: list[str]
) -> None:
    path, kept = _cut_log(tmp_path, cut)
    done = runner.invoke(app, [*command, str(path)])
    assert done.exit_code == 1 and "Traceback" not in done.output, done.output
    column = len(kept.decode("utf-8", errors="ignore")) + 1
    expected = f"truncated: the JSON ends unfinished at byte {len(kept)} (line 1, column {column}), the end of the file"
    (line,) = [line for line in done.output.splitlines() if "truncated" in line]
    assert f"{path}: " in line and f"{expected}: {CUT_SHORT}" in line, line
    assert "cut short" in CUT_SHORT and "golfref replay reads" in CUT_SHORT
    assert f"the end of the file: {CUT_SHORT}" in (ROOT / "docs" / "LOG_FORMAT.md").read_text(encoding="utf-8")
    if cut in ("non-ascii", "inside a character"):
        assert column < len(kept) + 1


def test_json_broken_inside_is_named_at_its_byte(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    path.write_bytes('{"é": "♠♠", "b": x}'.encode())
    report = validate_file(path)
    # 'x' is character 17 and byte 22: the offset a byte-level tool (dd, head -c, a hex editor) finds it at.
    assert report.message == "not JSON: unexpected character, expected a JSON value at byte 22 (line 1, column 18)"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"  \n", "empty file"),
        (b'{"a": 1} x', "not JSON:"),
        (b"\xff\xfe{}", "not UTF-8 (byte 0)"),
        (b'{"a": NaN}', "not JSON:"),
    ],
)
def test_unreadable_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "log.json"
    path.write_bytes(content)
    report = validate_file(path)
    assert report.status is Status.INVALID and report.message.startswith(message), report.message


def test_missing_file_and_directory(tmp_path: Path) -> None:
    assert validate_file(tmp_path / "nope.json").message == "no such file"
    assert validate_file(tmp_path).message == "is a directory, not a log"


def test_not_a_golfref_log_and_future_versions() -> None:
    doc = load("standard_2p")
    doc["format"] = "other"
    doc["digest"] = compute_digest(doc)
    report = validate(doc)
    expected = (Status.NOT_A_LOG, "not a golfref log: its format is 'other', not 'golfref-log'")
    assert (report.status, report.message) == expected
    doc = load("standard_2p")
    doc["schema_version"] = 4
    doc["digest"] = compute_digest(doc)
    expected_message = "field schema_version: version 4 is not supported (this golfref reads versions 1, 2 and 3)"
    assert validate(doc).message == expected_message


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[1, 2]", "not a golfref log: a log is a JSON object, got an array"),
        (b'{"a": 1}', 'not a golfref log: a JSON object without the "format": "golfref-log" field'),
        (b'{"format": "x"}', "not a golfref log: its format is 'x', not 'golfref-log'"),
    ],
)
def test_json_of_another_kind_is_not_a_log(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "other.json"
    path.write_bytes(content)
    report = validate_file(path)
    assert (report.status, report.message, report.doc) == (Status.NOT_A_LOG, message, None)
    assert one_error_line(invoke(str(path)), 2) == f"golfref: error: {path}: {message}"
    assert invoke("--check", str(path)).stdout == f"{path}: {message}\n"


def test_validate_takes_only_objects() -> None:
    report = validate([])  # type: ignore[arg-type]
    expected = (Status.NOT_A_LOG, "not a golfref log: a log is a JSON object, got an array")
    assert (report.status, report.message) == expected


# -- incomplete logs ----------------------------------------------------------------------------


def test_interrupted_log_keeps_its_finished_holes_checked() -> None:
    report = validate_file(LOGS / "interrupted.json")
    assert report.status is Status.INCOMPLETE
    assert report.holes_checked == 1
    assert len(report.doc["holes"]) == 2  # type: ignore[index]


def test_damage_in_the_open_hole_of_an_interrupted_log_is_found() -> None:
    doc = load("interrupted")
    doc["holes"][-1]["steps"][-1]["action"] = "knock"
    doc["digest"] = compute_digest(doc)
    report = validate(doc)
    assert report.status is Status.INVALID
    assert report.message.startswith("hole 1, step 21 (seat 1): field action: 'knock' is not legal here")
    assert report.holes_checked == 1


def test_a_running_log_has_no_seed_and_no_open_hole() -> None:
    doc = load("running_journal")
    doc["seed"] = 13
    doc["digest"] = compute_digest(doc)
    assert validate(doc).message == "field seed: a running log keeps its seed off the disk (null) until the match ends"
    doc = load("running_journal")
    doc["holes"].append({"hole": 1, "starter": 1, "deal": doc["holes"][0]["deal"], "steps": [], "result": None})
    doc["digest"] = compute_digest(doc)
    assert "a log with status 'running' has no open hole" in validate(doc).message


def test_an_interrupted_log_cut_back_to_its_deal_is_incomplete() -> None:
    doc = load("interrupted")
    doc["holes"][-1]["steps"] = []
    doc["digest"] = compute_digest(doc)
    report = validate(doc)
    assert (report.status, report.message) == (
        Status.INCOMPLETE,
        "status interrupted: validates through hole 1 and its 0 steps (the hole was open)",
    )


def test_only_the_last_hole_may_be_open() -> None:
    doc = load("interrupted")
    doc["holes"][0]["result"] = None
    doc["digest"] = compute_digest(doc)
    report = validate(doc)
    assert report.message == "hole 0: field result: null, but the hole ended at step 28"


def test_an_incomplete_log_has_totals_only_when_every_hole_was_played() -> None:
    doc = load("interrupted")
    doc["totals"] = [1, 2]
    doc["digest"] = compute_digest(doc)
    assert validate(doc).message == "field holes: the log has totals or placings, but it has 2 of the rules' 3 holes"
    doc = load("running_journal")
    doc["placings"] = [1, 2]
    doc["digest"] = compute_digest(doc)
    assert validate(doc).message == "field placings: a running log has no placings yet"


def test_an_interrupted_log_whose_last_hole_ended_without_its_result() -> None:
    # Ctrl-C between a hole's last step and the recording of its result.
    doc = load("standard_2p")
    doc["holes"][-1]["result"] = None
    doc.update(status="interrupted", complete=False, totals=None, placings=None, error="interrupted")
    doc["digest"] = compute_digest(doc)
    report = validate(doc)
    assert (report.status, report.holes_checked) == (Status.INCOMPLETE, 2)
    assert report.message == (
        "status interrupted: validates through hole 2 and its 36 steps (it ended there, but its result was not written)"
    )


def test_actions_are_written_as_golfref_writes_them() -> None:
    for written in (" stock", "stock\n", "STOCK"):
        doc = load("standard_2p")
        doc["holes"][0]["steps"][0]["action"] = written
        doc["digest"] = compute_digest(doc)
        assert validate(doc).status is Status.INVALID
    doc = load("standard_2p")
    doc["holes"][0]["steps"][1]["action"] = "swap:00"
    doc["digest"] = compute_digest(doc)
    assert validate(doc).message == (
        "hole 0, step 1 (seat 0): field action: malformed action 'swap:00' (written 'swap:0')"
    )


def test_a_log_built_by_hand_with_log_builder(tmp_path: Path) -> None:
    # Built with the referee's own pieces, without the referee: a log with no hole yet.
    from golfref.game.engine import Game
    from golfref.game.rules import resolve_rules
    from golfref.record.log import LogBuilder, write_log

    rules = resolve_rules("standard", {"holes": 2}, 2)
    builder = LogBuilder(
        match_id="by-hand",
        match="by-hand",
        started_at="2026-01-01T00:00:00+00:00",
        seed=1,
        rules=rules,
        card_names=[str(c) for c in Game(rules).cards],
        time_control={"startup_ms": 1, "move_ms": 1, "bank_ms": 0, "increment_ms": 0, "grace_ms": 0},
        fault_policy={"policy": "fallback", "fallback": "greedy", "max_faults": 3},
        players=[
            {
                "name": n,
                "builtin": "random",
                "seat": i,
                "reported_name": None,
                "reported_version": None,
                "status": "ok",
                "faults": 0,
                "disqualified_at": None,
                "stderr": None,
            }
            for i, n in enumerate(("a", "b"))
        ],
    )
    doc = builder.snapshot(include_open_hole=False)
    doc.update(status="interrupted", error="stopped")
    write_log(tmp_path / "log.json", doc)
    report = validate_file(tmp_path / "log.json")
    assert (report.status, report.message, report.holes_checked) == (
        Status.INCOMPLETE,
        "status interrupted: no hole recorded yet",
        0,
    )


# -- the compiled schema check agrees with jsonschema ----------------------------------------------
#
# The fast check is compiled from schemas/log.schema.json (golfref/record/schema_check.py), so there
# is no second copy of the log's shape to keep in step; tests/test_schema_check.py pins each
# keyword against jsonschema. This test runs the compiled check on damaged logs.


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, prefix + (i,))
    return out


_ODD_VALUES: list[Any] = [
    None,
    "x",
    "",
    -1,
    0,
    1,
    2,
    1.5,
    1.0,
    True,
    [],
    {},
    [[]],
    "7S",
    "sha256:" + "0" * 64,
    99,
    "\n",
    "stock",
]


def test_the_compiled_check_agrees_with_the_schema_on_damaged_logs() -> None:
    """Accepts what jsonschema accepts (but 1.0 for an integer); validation always answers with a report."""
    validator = jsonschema.Draft202012Validator(SCHEMA)
    check = replay_module._well_formed()
    base = load("disqualified_garbage")  # a bot (command, env), built-in seats and faults
    paths = [p for p in _paths(base) if p]
    rng = random.Random(2024)
    verdicts = set()
    for _ in range(40):
        doc = copy.deepcopy(base)
        path = rng.choice(paths)
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        how = rng.randrange(3)
        if how == 0 and isinstance(parent, dict):
            del parent[path[-1]]
        elif how == 1 and isinstance(parent, dict):
            parent["extra_" + str(path[-1])] = rng.choice(_ODD_VALUES)
        else:
            parent[path[-1]] = rng.choice(_ODD_VALUES)
        fast, full = check(doc), validator.is_valid(doc)
        verdicts.add(fast)
        # A float where golfref writes a whole number (1.0) is left to _float_problem.
        assert fast == (full and replay_module._float_problem(doc) is None), path
        # Whatever the damage, validation answers with a report, never an exception: left
        # unsealed it is TAMPERED; sealed again it is at most as good as before.
        changed = compute_digest(doc) != base["digest"]
        assert validate(doc).status is (Status.TAMPERED if changed else Status.VALID)
        doc["digest"] = compute_digest(doc)
        assert isinstance(validate(doc), Validation)
    assert verdicts == {True, False}  # some edits are well-formed (a name changed, a card swapped)
    assert check(base)


# -- the CLI -----------------------------------------------------------------------------------------


def invoke(*args: str) -> Any:  # a click Result
    return runner.invoke(app, ["replay", *args])


def one_error_line(result: Any, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.output)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("golfref: error: ")
    assert "Traceback" not in result.output
    return str(lines[0])


TRUNCATED_300 = (
    f"truncated: the JSON ends unfinished at byte 300 (line 1, column 301), the end of the file: {CUT_SHORT}"
)
"""The error of a log cut after its first 300 bytes (`mixed`'s fifth file)."""


@pytest.fixture()
def mixed(tmp_path: Path) -> list[str]:
    """A valid, an incomplete, a tampered, an invalid, a truncated and a missing log."""
    tampered = damaged("standard_2p", change_total)
    invalid = damaged("standard_2p", change_total)
    invalid["digest"] = compute_digest(invalid)
    truncated = tmp_path / "truncated.json"
    truncated.write_bytes((LOGS / "standard_2p.json").read_bytes()[:300])
    return [
        str(LOGS / "standard_2p.json"),
        str(LOGS / "interrupted.json"),
        str(write(tmp_path / "tampered.json", tampered)),
        str(write(tmp_path / "invalid.json", invalid)),
        str(truncated),
        str(tmp_path / "missing.json"),
    ]


def test_check_prints_one_line_per_log(mixed: list[str]) -> None:
    result = invoke("--check", *mixed)
    assert result.exit_code == 2  # a missing file is bad input, as in every command that reads logs
    assert result.stdout.splitlines() == [
        f"{mixed[0]}: valid",
        f"{mixed[1]}: incomplete: status interrupted: validates through hole 1 and its 22 steps (the hole was open)",
        f"{mixed[2]}: tampered: {TAMPERED_MESSAGE}",
        f"{mixed[3]}: invalid: field totals: the holes give [37, 117], the log says [38, 117]",
        f"{mixed[4]}: invalid: {TRUNCATED_300}",
        f"{mixed[5]}: no such file",
    ]
    assert result.stderr == ""


def test_check_exits_0_only_when_all_are_valid() -> None:
    valid = [str(LOGS / f"{n}.json") for n, (s, _, _) in SAMPLES.items() if s is Status.VALID]
    assert invoke("--check", *valid).exit_code == 0
    assert invoke("--check", *valid, str(LOGS / "interrupted.json")).exit_code == 1


def test_check_json(mixed: list[str]) -> None:
    result = invoke("--check", "--json", *mixed)
    assert result.exit_code == 2
    items = json.loads(result.stdout)
    assert [(i["path"], i["status"]) for i in items] == list(
        zip(mixed, ["valid", "incomplete", "tampered", "invalid", "invalid", "not a log"], strict=True)
    )
    assert invoke("--check", "--json", *mixed[:5]).exit_code == 1  # every file a log: the verdict
    assert all(set(i) == {"path", "status", "message", "holes_checked"} for i in items)
    assert items[1]["holes_checked"] == 1 and items[0]["holes_checked"] == 3
    assert json.loads(invoke("--json", mixed[0]).stdout)[0]["status"] == "valid"  # --json implies --check


def test_check_rejects_display_options() -> None:
    line = one_error_line(invoke("--check", "--hole", "1", str(LOGS / "standard_2p.json")), 2)
    assert "--hole applies when showing a match" in line


def test_showing_a_tampered_or_invalid_log_prints_only_the_error(mixed: list[str]) -> None:
    assert one_error_line(invoke(mixed[2]), 1) == f"golfref: error: {mixed[2]}: tampered: {TAMPERED_MESSAGE}"
    assert one_error_line(invoke(mixed[3]), 1) == (
        f"golfref: error: {mixed[3]}: invalid: field totals: the holes give [37, 117], the log says [38, 117]"
    )


@pytest.mark.parametrize(
    ("index", "problem", "code"), [(4, TRUNCATED_300, 1), (5, "no such file", 2)]
)
def test_showing_an_unreadable_file(mixed: list[str], index: int, problem: str, code: int) -> None:
    assert one_error_line(invoke(mixed[index]), code) == f"golfref: error: {mixed[index]}: {problem}"


def test_not_json_file(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("hello", encoding="utf-8")
    line = one_error_line(invoke(str(path)), 1)
    assert line.startswith(f"golfref: error: {path}: not JSON")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--hole", "3"], "--hole 3: the log has 3 holes (0 to 2)"),
        (["--seat", "2"], "--seat 2: the match has 2 seats (0 to 1)"),
        (["--width", "30"], "--width 30: too narrow; the match needs at least 50 columns"),
        (["--width", "wide"], "--width 'wide': expected a number of columns"),
    ],
)
def test_bad_hole_and_seat(args: list[str], needle: str) -> None:
    line = one_error_line(invoke(str(LOGS / "standard_2p.json"), *args), 2)
    assert needle in line


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--hole", "-1"], "Invalid value for '--hole': Input should be greater than or equal to 0"),
        (["--hole", "two"], "Invalid value for '--hole': Input should be a valid integer"),
        (["--seat", "-1"], "Invalid value for '--seat': Input should be greater than or equal to 0"),
        (["--seat", "x"], "Invalid value for '--seat': Input should be a valid integer"),
    ],
)
def test_hole_and_seat_are_typed_options(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """typer reads --hole and --seat as whole numbers from 0; main() makes its error one line."""
    monkeypatch.setattr("sys.argv", ["golfref", "replay", str(LOGS / "standard_2p.json"), *args])
    # main() puts its own Ctrl-C handler in place, for the process it expects to be: not this one.
    monkeypatch.setattr(signal, "signal", lambda sig, handler: signal.getsignal(sig))
    with pytest.raises(SystemExit) as stop:
        main()
    captured = capsys.readouterr()
    assert stop.value.code == 2 and captured.out == ""
    (line,) = captured.err.splitlines()
    # The hint names the program as click finds it ("python -m pytest.golfref" under pytest).
    assert line.startswith(f"golfref: error: {needle}") and line.endswith("golfref replay --help)"), line


def test_several_logs_without_check() -> None:
    line = one_error_line(invoke(str(LOGS / "standard_2p.json"), str(LOGS / "knock_3p.json")), 2)
    assert "several logs only with --check" in line


def _render_available() -> bool:
    try:
        from golfref.show.pretty import render_match  # noqa: F401
    except ImportError:
        return False
    return True


needs_pretty = pytest.mark.skipif(not _render_available(), reason="golfref.show.pretty is not there yet")


@needs_pretty
def test_show_prints_the_match_without_colour_off_a_terminal() -> None:
    result = invoke(str(LOGS / "standard_2p.json"))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout.strip()
    assert "\x1b[" not in result.stdout


@needs_pretty
def test_show_passes_the_options_on(monkeypatch: pytest.MonkeyPatch) -> None:
    import golfref.show.pretty

    calls: list[dict[str, Any]] = []

    def fake(doc: dict[str, Any], **kwargs: Any) -> list[str]:
        calls.append(kwargs)
        return ["line 1", "line 2"]

    monkeypatch.delenv("COLUMNS", raising=False)  # not a terminal, no COLUMNS: the default width
    monkeypatch.setattr(golfref.show.pretty, "render_match", fake)
    result = invoke(str(LOGS / "standard_2p.json"), "--hole", "2", "--seat", "1", "--summary", "--ascii", "--no-color")
    assert result.exit_code == 0 and result.stdout == "line 1\nline 2\n"
    assert calls == [
        {"hole": 2, "seat": 1, "summary": True, "compact": False, "color": False, "ascii_only": True, "width": 100}
    ]


@needs_pretty
def test_show_an_incomplete_log_warns_first() -> None:
    result = invoke(str(LOGS / "interrupted.json"), "--ascii")
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        f"golfref: warning: {LOGS / 'interrupted.json'}: incomplete: "
        "status interrupted: validates through hole 1 and its 22 steps (the hole was open)"
    ]
    assert result.stdout.strip() and result.stdout.isascii()


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_colour_is_on_only_on_a_terminal_without_no_color() -> None:
    assert use_color(_Stream(True), {}, no_color=False)
    assert not use_color(_Stream(False), {}, no_color=False)
    assert not use_color(_Stream(True), {"NO_COLOR": "1"}, no_color=False)
    assert not use_color(_Stream(True), {}, no_color=True)
    assert use_color(_Stream(True), {"NO_COLOR": ""}, no_color=False)  # no-color.org: set and not empty


def test_control_characters_in_messages_are_escaped(tmp_path: Path) -> None:
    doc = load("standard_2p")
    doc["holes"][0]["steps"][0]["action"] = "\x1b[31mstock"
    doc["digest"] = compute_digest(doc)
    path = write(tmp_path / "log.json", doc)
    result = invoke("--check", str(path))
    assert "\x1b" not in result.stdout and "\\x1b" in result.stdout
    line = one_error_line(invoke(str(path)), 1)
    assert "\x1b" not in line


def test_report_is_a_frozen_value() -> None:
    report = validate_file(LOGS / "standard_2p.json")
    assert isinstance(report, Validation)
    with pytest.raises(AttributeError):
        report.status = Status.INVALID  # type: ignore[misc]
    assert report.to_json() == {"status": "valid", "message": report.message, "holes_checked": 3}
    assert re.fullmatch(r"3 holes, 92 steps, totals \[37, 117\], placings \[1, 2\]", report.message)


# -- docs/LOG_FORMAT.md ------------------------------------------------------------------------------

DOC = (ROOT / "docs" / "LOG_FORMAT.md").read_text(encoding="utf-8")
ELIDED = "\u2026elided"


def _fenced(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC, flags=re.S)


def _same_apart_from_ellipses(shown: Any, full: Any, where: str) -> None:
    if isinstance(shown, dict):
        assert isinstance(full, dict) and shown.keys() == full.keys(), where
        for key in shown:
            _same_apart_from_ellipses(shown[key], full[key], f"{where}.{key}")
    elif isinstance(shown, list) and ELIDED in shown:
        cut = shown.index(ELIDED)
        head, tail = shown[:cut], shown[cut + 1 :]
        assert len(head) + len(tail) < len(full), where
        for i, item in enumerate(head):
            _same_apart_from_ellipses(item, full[i], f"{where}[{i}]")
        for i, item in enumerate(tail):
            _same_apart_from_ellipses(item, full[len(full) - len(tail) + i], f"{where}[-{len(tail) - i}]")
    elif isinstance(shown, list):
        assert isinstance(full, list) and len(shown) == len(full), where
        for i, (a, b) in enumerate(zip(shown, full, strict=True)):
            _same_apart_from_ellipses(a, b, f"{where}[{i}]")
    else:
        assert shown == full and type(shown) is type(full), (where, shown, full)


def test_doc_example_is_the_sample_log_abbreviated() -> None:
    (block,) = _fenced("json")
    text = re.sub(r"(?<=[\[,\s])\.\.\.(?=[\s,\]])", lambda _: json.dumps(ELIDED, ensure_ascii=False), block)
    shown = json.loads(text)
    full = load("example_1hole_2p_2x2")
    _same_apart_from_ellipses(shown, full, "log")
    assert validate(full).ok


def test_doc_digest_snippet_works(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (snippet,) = _fenced("python")
    assert len(snippet.strip().splitlines()) == 5
    good = tmp_path / "good.json"
    good.write_bytes((LOGS / "example_1hole_2p_2x2.json").read_bytes())
    bad = write(tmp_path / "bad.json", damaged("example_1hole_2p_2x2", change_total))
    for path, verdict in ((good, "intact"), (bad, "changed after it was written")):
        exec(snippet.replace('"match.json"', repr(str(path))), {})
        assert capsys.readouterr().out.strip() == verdict


def test_doc_names_every_field_of_the_schema() -> None:
    defs = SCHEMA["$defs"]
    names = set(SCHEMA["properties"]) | set(SCHEMA["properties"]["rules"]["properties"])
    names |= set(SCHEMA["properties"]["time_control"]["properties"]) | set(
        SCHEMA["properties"]["fault_policy"]["properties"]
    )
    for part in ("player", "result", "hole", "fault", "protections"):
        names |= set(defs[part]["properties"])
    names |= set(defs["step"]["oneOf"][0]["properties"]) | {"reshuffle"}
    names |= set(defs["fault"]["properties"]["kind"]["enum"]) | set(defs["result"]["properties"]["end"]["enum"])
    missing = sorted(n for n in names if f"`{n}`" not in DOC)
    assert not missing, missing


def test_doc_deal_convention_matches_the_engine() -> None:
    from golfref.game.engine import Game
    from golfref.game.rules import rules_from_dict
    from golfref.record.matchlog import history_from_log

    doc = load("example_1hole_2p_2x2")
    game = Game(rules_from_dict(doc["rules"]))
    game.apply_shuffle(history_from_log(doc)[0].order)  # type: ignore[union-attr]
    names = doc["cards"]

    def grid(seat: int) -> str:
        cards = [names[c] for c in game.grids[seat]]
        return f"{cards[0]} {cards[1]} / {cards[2]} {cards[3]}"

    stated = (
        f"seat 0 holds `{grid(0)}`, seat 1\nholds `{grid(1)}`, `{names[game.discard[-1]]}` starts the discard pile "
        f"and `{names[game.stock[-1]]}` is the first card drawn from\nthe stock"
    )
    assert stated in DOC


@pytest.mark.process
@pytest.mark.parametrize("mode", ["never-ready", "garbage-ready"])
def test_a_bot_disqualified_before_play_leaves_a_valid_log(tmp_path: Path, mode: str) -> None:
    """The referee disqualifies a bot that never said ready under either policy; replay agrees."""
    import shlex
    import sys

    from golfref.config.match import parse_config
    from golfref.match.referee import run_match

    sleeper = f"{shlex.quote(sys.executable)} -c 'import time; time.sleep(60)'"
    command = "/bin/cat" if mode == "garbage-ready" else sleeper
    text = f"""
rules: {{preset: standard, layout: 2x2, holes: 1}}
players:
  - {{name: silent, command: {json.dumps(command)}}}
  - {{name: house, builtin: greedy}}
time: {{startup_ms: 300}}
faults: {{policy: fallback, max_faults: 3}}
log: {{path: {json.dumps(str(tmp_path / "log.json"))}}}
"""
    result = run_match(parse_config(text, source="t.yaml", base_dir=tmp_path))
    assert result.log["players"][0]["status"] == "disqualified"
    report = validate_file(tmp_path / "log.json")
    assert report.status is Status.VALID, report.message


@needs_pretty
@pytest.mark.parametrize("args", [["--width", "60"], ["--width", "60", "--compact"], ["--compact", "--seat", "1"]])
def test_show_keeps_within_the_width(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")  # the same width, asked for without --width
    for path in sorted(LOGS.glob("*.json")):
        result = invoke(str(path), *args)
        assert result.exit_code == 0, result.output
        assert max(len(line) for line in result.stdout.splitlines()) <= 60, path.name


@needs_pretty
def test_show_compact_prints_a_line_per_turn() -> None:
    full = invoke(str(LOGS / "classic_4p_9holes.json"), "--no-color")
    compact = invoke(str(LOGS / "classic_4p_9holes.json"), "--compact", "--no-color")
    assert compact.exit_code == 0 and full.exit_code == 0
    assert len(compact.stdout.splitlines()) * 2 < len(full.stdout.splitlines())
    assert compact.stdout.count("hole score: ") == 9 and "standings" in compact.stdout


@needs_pretty
def test_hole_0_is_the_logs_hole_0() -> None:
    doc = json.loads((LOGS / "standard_2p.json").read_text(encoding="utf-8"))
    for h in range(3):
        result = invoke(str(LOGS / "standard_2p.json"), "--hole", str(h), "--no-color")
        assert result.exit_code == 0, result.output
        assert f"━━ hole {h} of 0-2 · " in result.stdout
        totals = doc["holes"][h]["result"]["totals"]
        assert re.search(r"total\s+" + r"\s+".join(map(str, totals)) + "$", result.stdout, re.M)
    # The validator's text and its --json report name the same hole, as the log numbers it.
    damaged_log = copy.deepcopy(doc)
    damaged_log["holes"][1]["result"]["scores"][0] += 1
    damaged_log["digest"] = compute_digest(damaged_log)
    report = validate(damaged_log)
    assert report.status is Status.INVALID and report.message.startswith("hole 1, result: ")
    assert damaged_log["holes"][1]["hole"] == 1


class _Tty:
    def isatty(self) -> bool:
        return True


def test_output_width_follows_the_option_then_columns_then_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=(80, 24): os.terminal_size((72, 24)))
    assert output_width(_Tty(), {"COLUMNS": "90"}, 64, 100, 50) == 64
    assert output_width(_Tty(), {"COLUMNS": "90"}, None, 100, 50) == 90
    assert output_width(_Tty(), {}, None, 100, 50) == 72
    assert output_width(_Stream(False), {}, None, 100, 50) == 100  # a pipe or a file
    assert output_width(_Tty(), {"COLUMNS": "20"}, None, 100, 50) == 50  # too narrow: wrapped, still shown
