"""The `golfref` command line: a thin shell over the library. Nothing else imports it."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, NoReturn

import typer
import yaml

from .cards import CardError, Rank, parse_card
from .rules import PRESETS, RulesError, resolve_rules
from .scoring import score_grid

app = typer.Typer(
    name="golfref",
    help="Referee and match runner for bots that play the card game Golf.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

# Exit codes, documented in the README.
EXIT_OK = 0
EXIT_FAULTED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130


def out(text: str = "") -> None:
    """Print a result line on stdout."""
    sys.stdout.write(text + "\n")


def err(text: str) -> None:
    """Print a diagnostic line on stderr."""
    sys.stderr.write(text + "\n")


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print one `golfref: error: ...` line and exit with `code`."""
    err(f"golfref: error: {_one_line(message)}")
    raise typer.Exit(code)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def parse_sets(items: list[str] | None) -> dict[str, Any]:
    """Read `--set KEY=VALUE` items; values are read as YAML scalars (`-2`, `on`, `2x3`)."""
    result: dict[str, Any] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            fail(f"--set {item!r}: expected KEY=VALUE")
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            value = raw
        if isinstance(value, (dict, list)):
            value = raw
        result[key] = value
    return result


PresetOpt = Annotated[
    str, typer.Option("--preset", "-p", help=f"Rule preset: {', '.join(PRESETS)}.")
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override one rule option (repeatable)."),
]


@app.command()
def score(
    grid: Annotated[str, typer.Argument(help='Rows separated by "/", cards by spaces: "7S KH 5D / 7C 2S QD".')],
    preset: PresetOpt = "standard",
    sets: SetOpt = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show cancelled lines, blocks and each card's points.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Score one fully revealed grid; the grid's shape sets the layout."""
    rows_text = [r for r in grid.split("/")]
    rows: list[list[Rank]] = []
    labels: list[str] = []
    for i, row_text in enumerate(rows_text, 1):
        words = row_text.split()
        if not words:
            fail(f"grid row {i} is empty (rows are separated by '/', cards by spaces)")
        row = []
        for word in words:
            try:
                card = parse_card(word)
            except CardError as e:
                fail(f"grid row {i}: {e}")
            row.append(card.rank)
            labels.append(card.pretty if card.suit else card.rank.label)
        rows.append(row)
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        fail(f"grid rows have different lengths {[len(r) for r in rows]}: every row needs the same number of cards")
    n_rows, n_cols = len(rows), widths.pop()
    overrides = parse_sets(sets)
    layout = f"{n_rows}x{n_cols}"
    if "layout" in overrides:
        fail(f"--set layout: the grid's shape sets the layout ({layout}); drop the option")
    overrides["layout"] = layout
    try:
        rules = resolve_rules(preset, overrides)
    except RulesError as e:
        fail(str(e))
    ranks = [r for row in rows for r in row]
    if rules.jokers is None and Rank.JOKER in ranks:
        fail("the grid has a joker (X) but jokers are off under this preset; add --set jokers=-2")
    result = score_grid(ranks, rules)
    if as_json:
        out(
            json.dumps(
                {
                    "score": result.total,
                    "layout": layout,
                    "preset": preset,
                    "points": [list(result.points[r * n_cols : (r + 1) * n_cols]) for r in range(n_rows)],
                    "cancelled": [
                        {"kind": line.kind, "index": line.index, "slots": list(line.slots)}
                        for line in result.cancelled
                    ],
                    "blocks": list(result.blocks),
                }
            )
        )
        return
    out(str(result.total))
    if explain:
        for line in result.cancelled:
            cards = " ".join(labels[s] for s in line.slots)
            out(f"cancelled: {line} ({cards})")
        for top_left in result.blocks:
            square = (top_left, top_left + 1, top_left + n_cols, top_left + n_cols + 1)
            out(f"block: {' '.join(labels[s] for s in square)} scores {rules.block_bonus}")
        width = max(len(label) for label in labels)
        for r in range(n_rows):
            cells = [
                f"{labels[s]:>{width}} {result.points[s]:>3}"
                for s in range(r * n_cols, (r + 1) * n_cols)
            ]
            out("   ".join(cells))


@app.command()
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
        sys.stdout.write(yaml.safe_dump(data, sort_keys=False))


def main() -> None:
    """Console entry point: runs the app and turns stray errors into exit code 3."""
    try:
        app()
    except KeyboardInterrupt:
        err("golfref: interrupted")
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    main()
