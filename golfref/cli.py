"""The `golfref` command line: a thin shell over the library. Nothing else imports it."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import sys
from collections.abc import Mapping
from typing import Annotated, Any, NoReturn

import typer
import yaml

from .cards import CardError, Rank, parse_card
from .config import ConfigError, MatchConfig, load_config
from .engine import HoleResult
from .outputs import check_outputs, new_match_id, planned_log_path
from .referee import MatchInterrupted, MatchResult, run_match
from .replay import Report, Status, validate_file
from .rules import PRESETS, RulesError, resolve_rules
from .scoring import score_grid
from .terminal import sanitize

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


PresetOpt = Annotated[str, typer.Option("--preset", "-p", help=f"Rule preset: {', '.join(PRESETS)}.")]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override one rule option (repeatable)."),
]


@app.command()
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
                        {"kind": line.kind, "index": line.index, "slots": list(line.slots)} for line in result.cancelled
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
            cells = [f"{labels[s]:>{width}} {result.points[s]:>3}" for s in range(r * n_cols, (r + 1) * n_cols)]
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


def fail_config(error: ConfigError) -> NoReturn:
    """Print each problem of a config as its own `golfref: error:` line, in file order, and exit 2."""
    for problem in error.errors:
        err(f"golfref: error: {_one_line(problem)}")
    raise typer.Exit(EXIT_USAGE)


def _config_or_fail(path: str) -> MatchConfig:
    try:
        return load_config(path)
    except ConfigError as e:
        fail_config(e)


LogOpt = Annotated[
    str | None,
    typer.Option(
        "--log",
        help="Write the log here (relative to the current directory) instead of the config's log.path.",
    ),
]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Replace a file at the log path even if it is not a golfref log.")
]


@app.command("check-config")
def check_config(
    config: Annotated[str, typer.Argument(help="The match config (YAML) to check.")],
    log: LogOpt = None,
    force: ForceOpt = False,
) -> None:
    """Check a match config, and the files a match would write, without starting any bot."""
    if log is not None and not log.strip():
        fail("--log: the path is empty")
    cfg = _config_or_fail(config)
    now = dt.datetime.now(dt.UTC)
    match_id, slug = new_match_id(cfg.name, now)
    try:
        check_outputs(cfg, planned_log_path(cfg, log, match_id, slug, now), force=force)
    except ConfigError as e:
        fail_config(e)
    kinds = ", ".join(f"{p.name} ({'builtin ' + p.builtin if p.builtin else 'bot'})" for p in cfg.players)
    out(f"{config}: ok: {cfg.rules.preset}, {cfg.rules.layout}, {cfg.rules.holes} holes; players: {kinds}")


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@app.command()
def run(
    config: Annotated[str, typer.Argument(help="The match config (YAML).")],
    log: LogOpt = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", min=0, max=2**63 - 1, help="Seed for the shuffles (overrides the config)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a machine-readable summary on stdout.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when any bot faulted.")] = False,
    force: ForceOpt = False,
) -> None:
    """Play a match between bots and print the standings."""
    if log is not None and not log.strip():
        fail("--log: the path is empty")
    cfg = _config_or_fail(config)

    def progress(result: HoleResult, names: tuple[str, ...]) -> None:
        scores = ", ".join(f"{n} {s}" for n, s in zip(names, result.scores, strict=True))
        err(f"hole {result.hole + 1}/{cfg.rules.holes}: {scores} ({result.end.value})")

    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        result = run_match(cfg, seed=seed, log_path=log, on_hole=None if quiet else progress, force=force)
    except MatchInterrupted as e:
        err(f"golfref: interrupted; the incomplete log is {e.log_path}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except ConfigError as e:
        fail_config(e)
    except OSError as e:
        fail(f"cannot write the log: {e}", EXIT_INTERNAL)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if as_json:
        out(json.dumps(summary_json(result), ensure_ascii=False))
    else:
        for line in standings_lines(result):
            out(line)
    if strict and result.faults:
        raise typer.Exit(EXIT_FAULTED)


def _parse_number(option: str, text: str | None, what: str) -> int | None:
    """An option's whole number, or a one-line usage error (typer's own would be a box of text)."""
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        fail(f"{option} {text!r}: expected {what}")


def _check_line(path: str, report: Report) -> str:
    if report.status is Status.VALID:
        return f"{path}: valid"
    return f"{path}: {report.status.value}: {report.message}"


def use_color(stream: Any, environ: Mapping[str, str], no_color: bool) -> bool:
    """Colour only on a terminal, and never with --no-color or a non-empty NO_COLOR (no-color.org)."""
    if no_color or environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def replay_exit_code(reports: list[Report]) -> int:
    """`golfref replay --check` exits 0 only when every log is valid."""
    return EXIT_OK if all(r.status is Status.VALID for r in reports) else EXIT_FAULTED


@app.command()
def replay(
    logs: Annotated[list[str], typer.Argument(metavar="LOG", help="The log to show; with --check, one or more logs.")],
    check: Annotated[
        bool, typer.Option("--check", help="Only validate: one line per log; exit 0 only when every log is valid.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the validation reports as one JSON array (implies --check).")
    ] = False,
    hole: Annotated[str | None, typer.Option("--hole", metavar="N", help="Show hole N only (counted from 1).")] = None,
    seat: Annotated[
        str | None, typer.Option("--seat", metavar="S", help="Show the match as seat S saw it (seats count from 0).")
    ] = None,
    summary: Annotated[bool, typer.Option("--summary", help="Show only the hole scores and the standings.")] = False,
    no_color: Annotated[
        bool, typer.Option("--no-color", help="No colour (default: colour on a terminal unless NO_COLOR is set).")
    ] = False,
    ascii_only: Annotated[
        bool, typer.Option("--ascii", help="Print ASCII only (no suit symbols or box drawing).")
    ] = False,
) -> None:
    """Validate a game log, then show the match turn by turn.

    A log is checked first: its digest (changed after it was written?),
    its schema, and a re-play of the whole match through the engine.
    A tampered or invalid log is reported and not shown; an incomplete
    one (an interrupted match) is shown after a warning.
    """
    given_check = check
    if as_json:
        check = True
    if check:
        for name, given in (("--hole", hole), ("--seat", seat), ("--summary", summary or None)):
            if given is not None:
                mode = "--json" if as_json and not given_check else "--check"
                fail(f"{name} applies when showing a match, not with {mode}")
        reports = [validate_file(path) for path in logs]
        if as_json:
            items = [{"path": path, **report.to_json()} for path, report in zip(logs, reports, strict=True)]
            out(json.dumps(items, ensure_ascii=False))
        else:
            for path, report in zip(logs, reports, strict=True):
                out(sanitize(_one_line(_check_line(path, report))))
        raise typer.Exit(replay_exit_code(reports))

    if len(logs) != 1:
        fail(f"give one LOG to show ({len(logs)} given); several logs only with --check")
    path = logs[0]
    hole_number = _parse_number("--hole", hole, "a hole number, counted from 1")
    seat_number = _parse_number("--seat", seat, "a seat number, counted from 0")
    report = validate_file(path)
    if report.doc is None:  # unreadable: missing, not JSON, truncated...
        fail(sanitize(f"{path}: {report.message}"), EXIT_FAULTED)
    if report.status in (Status.INVALID, Status.TAMPERED):
        fail(sanitize(f"{path}: {report.status.value}: {report.message}"), EXIT_FAULTED)
    doc = report.doc
    holes = len(doc["holes"])
    players = len(doc["players"])
    if hole_number is not None and not 1 <= hole_number <= holes:
        if not holes:
            fail(f"--hole {hole_number}: the log has no hole yet")
        fail(f"--hole {hole_number}: the log has {holes} hole{'s' if holes != 1 else ''} (1 to {holes})")
    if seat_number is not None and not 0 <= seat_number < players:
        fail(f"--seat {seat_number}: the match has {players} seats (0 to {players - 1})")
    if report.status is Status.INCOMPLETE:
        err(sanitize(_one_line(f"golfref: warning: {path}: incomplete: {report.message}")))
    try:
        from .pretty import render_match
    except ImportError as e:
        fail(f"cannot show the match: the pretty-printer is not available ({e})", EXIT_INTERNAL)
    color = use_color(sys.stdout, os.environ, no_color)
    try:
        lines = render_match(
            doc,
            hole=None if hole_number is None else hole_number - 1,
            seat=seat_number,
            summary=summary,
            color=color,
            ascii_only=ascii_only,
        )
    except ValueError as e:
        fail(f"cannot show {path}: {e}", EXIT_INTERNAL)
    for line in lines:
        out(line)


def summary_json(result: MatchResult) -> dict[str, Any]:
    """The machine-readable summary `golfref run --json` prints."""
    return {
        "match_id": result.log["match_id"],
        "log": str(result.log_path),
        "seed": result.log["seed"],
        "players": [
            {
                "seat": i,
                "name": name,
                "status": result.statuses[i].value,
                "faults": sum(1 for f in result.faults if f.seat == i),
                "holes": [h[i] for h in result.hole_scores],
                "total": result.totals[i],
                "place": result.placings[i],
            }
            for i, name in enumerate(result.names)
        ],
        "faults": [f.to_json() for f in result.faults],
    }


def standings_lines(result: MatchResult) -> list[str]:
    """The standings table `golfref run` prints, best place first."""
    names = [sanitize(n) for n in result.names]
    holes = len(result.hole_scores)
    width = max(6, *(len(n) for n in names))
    head = (
        f"{'place':<5}  {'player':<{width}}  "
        + " ".join(f"{h + 1:>4}" for h in range(holes))
        + f"  {'total':>5}  status"
    )
    lines = [head]
    order = sorted(range(len(names)), key=lambda s: (result.placings[s], s))
    for s in order:
        cells = " ".join(f"{h[s]:>4}" for h in result.hole_scores)
        status = result.statuses[s].value
        count = sum(1 for f in result.faults if f.seat == s)
        if count:
            status += f" ({count} fault{'s' if count != 1 else ''})"
        lines.append(f"{result.placings[s]:<5}  {names[s]:<{width}}  {cells}  {result.totals[s]:>5}  {status}")
    for f in result.faults:
        where = f"hole {f.hole + 1}" if f.hole is not None else "match"
        req = f", request {f.request}" if f.request is not None else ""
        lines.append(f"fault: {names[f.seat]}: {f.kind.value} ({where}{req}): {sanitize(f.message)}")
    lines.append(f"log: {result.log_path}")
    return lines


def main() -> None:
    """Console entry point: one-line errors, and the exit codes the README documents."""
    try:
        code = app(standalone_mode=False)
    except typer.TyperException as e:
        # typer's own rendering of a usage error is a box of several lines; here it is one.
        message = e.format_message() if hasattr(e, "format_message") else str(e)
        if not message.strip():  # `golfref` alone: the help was the answer
            sys.exit(EXIT_USAGE)
        ctx = getattr(e, "ctx", None)
        name = getattr(ctx, "command_path", None)
        hint = f" (see {name} --help)" if name else ""
        err(f"golfref: error: {_one_line(message)}{hint}")
        exit_code = getattr(e, "exit_code", EXIT_USAGE)
        sys.exit(exit_code if isinstance(exit_code, int) and exit_code > 1 else EXIT_USAGE)
    except (KeyboardInterrupt, typer.Abort):
        err("golfref: interrupted")
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        # The reader went away (`golfref replay LOG | head`): nothing left to say to it.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_INTERNAL)
    except OSError as e:
        err(f"golfref: error: cannot write the output: {e.strerror or e}")
        sys.exit(EXIT_INTERNAL)
    except Exception as e:  # a bug in golfref itself: one line, not a traceback
        err(f"golfref: internal error: {type(e).__name__}: {_one_line(str(e))}")
        sys.exit(EXIT_INTERNAL)
    sys.exit(code if isinstance(code, int) else EXIT_OK)


if __name__ == "__main__":
    main()
