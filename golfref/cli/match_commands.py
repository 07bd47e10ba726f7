"""The commands that play one match or check its config: `run`, `play` and `check-config`."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import gc
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..show.terminal import sanitize
from .exits import EXIT_FAULTED, EXIT_INTERNAL, EXITS, fail, fail_config
from .inputs import (
    check_sandboxes,
    config_or_fail,
    in_process_warning,
    player_label,
    sandbox_warning,
    signer_or_fail,
    tournament_or_fail,
)
from .options import (
    AcceptFaultsOpt,
    PresetOpt,
    SetOpt,
    StrictOpt,
    check_fault_flags,
    chosen_fail_on,
    output_width,
    parse_sets,
    seed_option,
    use_color,
)
from .output import err, out

if TYPE_CHECKING:
    from ..config.match import MatchConfig
    from ..game.engine import HoleResult
    from ..show.progress import LiveProgress


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


SignOpt = Annotated[
    str | None,
    typer.Option("--sign", metavar="KEY", help="Sign the final log with this private key (golfref keygen)."),
]


SandboxOpt = Annotated[
    bool | None,
    typer.Option(
        "--sandbox/--no-sandbox",
        help="Isolate each bot (docs/SANDBOX.md); default: the config's sandbox.enabled, off unless it says so.",
    ),
]


PlayLogOpt = Annotated[
    str | None,
    typer.Option(
        "--log",
        help="Write the log here (relative to the current directory; default logs/{match_id}.json).",
    ),
]


CheckLogOpt = Annotated[
    str | None,
    typer.Option(
        "--log",
        help="Check this log path, as `golfref run --log` would take it, instead of the config's log.path.",
    ),
]


CheckForceOpt = Annotated[
    bool, typer.Option("--force", help="Accept a file at the log path that is not a golfref log, as run --force does.")
]


def check_config(
    config: Annotated[str, typer.Argument(help="The match or tournament config (YAML) to check.")],
    log: CheckLogOpt = None,
    force: CheckForceOpt = False,
) -> None:
    """Check a match or tournament config (and the files a match would write), without starting any bot."""
    from ..config.match import ConfigError
    from ..config.tournament import is_tournament_file
    from ..match.outputs import check_outputs, new_match_id, planned_log_path

    if log is not None and not log.strip():
        fail("--log: the path is empty")
    if is_tournament_file(config):
        if log is not None:
            fail("--log applies to a match config; a tournament's logs go into its results directory")
        t = tournament_or_fail(config)
        check_sandboxes(t.sandbox, t.players, t.results / "logs", t.source, (t.results,), player_label)
        from ..tournament.runner import TournamentError, check_secrets

        try:
            check_secrets(t)
        except TournamentError as e:
            fail(str(e))
        kinds = ", ".join(f"{p.name} ({p.kind})" for p in t.players)
        out(
            f"{config}: ok: tournament {t.name}: {t.format.value}, tables of {t.table}, {t.deal_sets} deal sets; "
            f"{t.rules.preset}, {t.rules.layout}, {t.rules.holes} holes; players: {kinds}"
        )
        return
    cfg = config_or_fail(config)
    now = dt.datetime.now(dt.UTC)
    match_id, slug = new_match_id(cfg.name, now)
    try:
        log_path = planned_log_path(cfg, log, match_id, slug, now)
        check_outputs(cfg, log_path, force=force)
    except ConfigError as e:
        fail_config(e)
    check_sandboxes(cfg.sandbox, cfg.players, log_path.parent, cfg.source)
    from ..bots.launch import match_seed_problem

    problem = match_seed_problem(cfg)
    if problem is not None:
        fail(problem)
    kinds = ", ".join(f"{p.name} ({p.kind})" for p in cfg.players)
    out(sanitize(f"{config}: ok: {cfg.rules.preset}, {cfg.rules.layout}, {cfg.rules.holes} holes; players: {kinds}"))


@contextlib.contextmanager
def _match_errors() -> Iterator[None]:
    """What `run_match` raises, as golfref's one-line errors and exit codes."""
    from ..config.match import ConfigError
    from ..files import UnsafeFile
    from ..match.referee import MatchInterrupted

    try:
        yield
    except MatchInterrupted as e:
        err(f"golfref: {e}")
        EXITS.signalled(e.signum)
    except ConfigError as e:
        fail_config(e)
    except UnsafeFile as e:
        fail(f"cannot write {e}", EXIT_INTERNAL)
    except OSError as e:
        fail(f"cannot write the log: {e}", EXIT_INTERNAL)


def run(
    config: Annotated[str, typer.Argument(help="The match config (YAML).")],
    log: LogOpt = None,
    seed: Annotated[
        int | None,
        seed_option("Seed for the shuffles (overrides the config; default: the config's, else a secret one)."),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress lines (and no live line on a terminal).")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a machine-readable summary on stdout.")] = False,
    strict: StrictOpt = False,
    accept_faults: AcceptFaultsOpt = False,
    force: ForceOpt = False,
    sign: SignOpt = None,
    sandbox: SandboxOpt = None,
) -> None:
    """Play a match between bots and print the standings.

    On a terminal, a live line on stderr shows the hole and turn in play, the totals, the
    time elapsed and an estimate of what is left (not with --quiet or --json).
    """
    from pathlib import Path

    from ..match.referee import run_match
    from ..record.faults import SeatStatus
    from ..show.human_seat import HumanSeat
    from ..show.summary import fault_lines, standings_lines, summary_json

    if log is not None and not log.strip():
        fail("--log: the path is empty")
    check_fault_flags(strict, accept_faults)
    signer = signer_or_fail(sign)
    cfg = config_or_fail(config)
    cfg = dataclasses.replace(cfg, sandbox=cfg.sandbox.switched(sandbox))
    fail_on = chosen_fail_on(cfg.fail_on, strict, accept_faults)
    sandbox_warning(cfg.sandbox)
    in_process_warning(cfg.sandbox, cfg.players)
    live = _live_line(cfg, quiet, as_json)
    with _playing(live):
        result = run_match(
            cfg,
            seed=seed,
            log_path=log,
            on_hole=None if quiet else _hole_lines(cfg, live),
            on_turn=None if live is None else live.on_turn,
            force=force,
            sign=signer,
            hide=() if sign is None else (Path(sign),),  # no sandboxed bot may read the key
            human=lambda i, names: HumanSeat(cfg.rules, names, i, stdin=sys.stdin, stdout=sys.stdout),
        )
    if as_json:
        out(json.dumps(summary_json(result), ensure_ascii=False))
    else:
        for line in standings_lines(result):
            out(line)
        if not quiet:
            for line in fault_lines(result):
                err(line)
    ended = any(s is SeatStatus.DISQUALIFIED for s in result.statuses)
    if fail_on.fails(ended, bool(result.faults)):
        EXITS.exit(EXIT_FAULTED)


@contextlib.contextmanager
def _playing(live: LiveProgress | None) -> Iterator[None]:
    """Around a match on the command line: its errors as one-line errors and exit codes, and its live line.

    Start-up's objects (modules, the command line, the schemas) live as long as the process: frozen
    out of the collector's sight, the collections a long match triggers no longer walk them
    (bench/wholerun.py measured a 21-hole match's one full collection at 24 ms).
    """
    gc.freeze()
    with _match_errors(), live if live is not None else contextlib.nullcontext():
        yield


def _live_line(cfg: MatchConfig, quiet: bool, as_json: bool) -> LiveProgress | None:
    """The live line of a match on a terminal (none with --quiet or --json, or while a person plays)."""
    people = any(p.builtin == "human" for p in cfg.players)  # the live line would draw over their screen
    if quiet or as_json or not sys.stderr.isatty() or people:
        return None
    from ..show.progress import LiveProgress

    return LiveProgress([p.name for p in cfg.players], cfg.rules.holes)


def _hole_lines(cfg: MatchConfig, live: LiveProgress | None) -> Callable[[HoleResult, tuple[str, ...]], None]:
    """What is shown at the end of each hole: a line of its scores on stderr (and the live line's update)."""
    from ..game.narrate import hole_label

    def progress(result: HoleResult, names: tuple[str, ...]) -> None:
        if live is not None:
            live.on_hole(result)
        scores = ", ".join(f"{n} {s}" for n, s in zip(names, result.scores, strict=True))
        err(f"{hole_label(result.hole, cfg.rules.holes)}: {scores} ({result.end.value})")

    return progress


def play(
    against: Annotated[
        str, typer.Option("--against", metavar="CMD", help="The bot to play: its command, as a config's command.")
    ],
    preset: PresetOpt = "standard",
    sets: SetOpt = None,
    seed: Annotated[
        int | None,
        seed_option("Seed for the shuffles (default: a secret one)."),
    ] = None,
    seat: Annotated[int, typer.Option("--seat", min=0, max=1, help="Your seat: 0 (you start) or 1.")] = 0,
    log: PlayLogOpt = None,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours (also: NO_COLOR set).")] = False,
) -> None:
    """Play a bot yourself, in the terminal: a match of you (a `builtin: human` seat) against CMD.

    Your seat's view is drawn as `golfref replay --seat` draws it, from what your seat may
    see only; choose by number. You are never timed out (the bot's clock runs as usual).
    Ctrl-C or the end of input (Ctrl-D) stops the match; its log is kept as interrupted.
    """
    from pathlib import Path

    import yaml

    from ..config.match import HUMAN, ConfigError, parse_config
    from ..match.referee import run_match
    from ..show.human_seat import HumanSeat
    from ..show.pretty import MIN_WIDTH
    from ..show.summary import standings_lines

    if log is not None and not log.strip():
        fail("--log: the path is empty")
    players: list[dict[str, Any]] = [{"name": "bot", "command": against}]
    players.insert(seat, {"name": "human", "builtin": HUMAN})
    overrides = parse_sets(sets)
    data = {"match": "play", "rules": {"preset": preset, **overrides}, "players": players}
    # Problems are said of the options that caused them: the YAML below is ours, not the user's.
    labels: dict[tuple[Any, ...], str] = {
        ("rules",): "--preset/--set",
        ("rules", "preset"): "--preset",
        ("players",): "--against",
        **{("rules", key): f"--set {key}" for key in overrides},
    }
    try:
        cfg = parse_config(
            yaml.safe_dump(data, sort_keys=False), source="golfref play", base_dir=Path.cwd(), labels=labels
        )
    except ConfigError as e:
        fail_config(e)
    color = use_color(sys.stdout, os.environ, no_color)
    width = output_width(sys.stdout, os.environ, None, 100, MIN_WIDTH)

    def terminal_seat(index: int, names: tuple[str, ...]) -> HumanSeat:
        return HumanSeat(cfg.rules, names, index, stdin=sys.stdin, stdout=sys.stdout, color=color, width=width)

    with _match_errors():
        result = run_match(cfg, seed=seed, log_path=log, human=terminal_seat)
    for line in standings_lines(result):
        out(line)
