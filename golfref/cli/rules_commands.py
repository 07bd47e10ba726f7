"""The commands about the rules alone, without a match: `score` and `rules`."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from ..game.cards import CardError, Rank, parse_grid
from ..game.rules import RulesError, resolve_rules
from ..game.scoring import score_grid
from .exits import fail
from .options import PresetOpt, SetOpt, parse_sets
from .output import out


def score(
    grid: Annotated[str, typer.Argument(help='Rows separated by "/", cards by spaces: "7S KH 5D / 7C 2S QD".')],
    preset: PresetOpt = "standard",
    sets: SetOpt = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show cancelled lines, blocks and each card's points.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Score one fully revealed grid; the grid's shape sets the layout."""
    from ..show.summary import score_json, score_lines

    try:
        cards = parse_grid(grid)
    except CardError as e:
        fail(str(e))
    overrides = parse_sets(sets)
    layout = f"{len(cards)}x{len(cards[0])}"
    if "layout" in overrides:
        fail(f"--set layout: the grid's shape sets the layout ({layout}); drop the option")
    overrides["layout"] = layout
    try:
        rules = resolve_rules(preset, overrides)
    except RulesError as e:
        fail(str(e))
    ranks = [card.rank for row in cards for card in row]
    if rules.jokers is None and Rank.JOKER in ranks:
        fail("the grid has a joker (X) but jokers are off under this preset; add --set jokers=-2")
    suits = [card.suit for row in cards for card in row]
    if rules.suit_values and None in suits:
        fail("suit_values gives some cards a value by suit: write every card of the grid with its suit (JH, 7S)")
    result = score_grid(ranks, rules, suits)
    if as_json:
        out(json.dumps(score_json(cards, result, preset)))
        return
    for line in score_lines(cards, result, rules, explain):
        out(line)


def rules(
    preset: PresetOpt = "standard",
    sets: SetOpt = None,
    players: Annotated[int, typer.Option("--players", "-n", help="Player count (defaults depend on it).")] = 2,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of YAML.")] = False,
) -> None:
    """Print the resolved rule set; the option names are those a match config uses."""
    try:
        resolved = resolve_rules(preset, parse_sets(sets), players)
    except RulesError as e:
        fail(str(e))
    data = resolved.to_dict()
    if as_json:
        out(json.dumps(data, indent=2))
    else:
        import yaml

        sys.stdout.write(yaml.safe_dump(data, sort_keys=False))
