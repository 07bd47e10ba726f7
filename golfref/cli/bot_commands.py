"""The commands that try a bot outside a match: `check-bot` and `replay-bot`."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..game.rules import PRESETS
from ..show.terminal import sanitize
from .exits import EXIT_FAULTED, EXIT_INTERNAL, EXIT_USAGE, EXITS, fail
from .options import parse_sets
from .output import err, one_line, out

if TYPE_CHECKING:
    from ..config.match import MatchConfig, TimeControl
    from ..config.tournament import TournamentConfig
    from ..tools.botcheck import BotCommand


def check_bot(
    args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[CONFIG] -- CMD [ARGS]...",
            help="The bot's command (after --), or with --player a match or tournament config.",
        ),
    ] = None,
    player: Annotated[
        str | None, typer.Option("--player", metavar="NAME", help="Check the bot of this player of the config CONFIG.")
    ] = None,
    presets: Annotated[
        list[str] | None,
        typer.Option(
            "--preset",
            "-p",
            metavar="PRESET",
            help=f"A preset the bot plays (repeatable; default all: {', '.join(PRESETS)}; "
            "with CONFIG, the config's rules instead).",
        ),
    ] = None,
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            "-s",
            metavar="KEY=VALUE",
            help="Override one rule option on top of every preset checked, and of a config's rules (repeatable).",
        ),
    ] = None,
    layouts: Annotated[
        list[str] | None,
        typer.Option("--layout", metavar="RxC", help="A layout the bot plays (repeatable; default all, 1x1 to 4x4)."),
    ] = None,
    house: Annotated[
        bool,
        typer.Option(
            "--house",
            help="Also check the house options (docs/RULES.md#house-options) on top of each preset: what fails there "
            "is a house option the bot does not support, summed up on a line of its own (not with CONFIG).",
        ),
    ] = False,
    fuzz: Annotated[int, typer.Option("--fuzz", metavar="N", min=0, help="Also N random reachable positions.")] = 0,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**63 - 1, help="Seed of the games and the fuzz.")] = 0,
    move_ms: Annotated[
        int | None,
        typer.Option("--move-ms", min=1, help="The time per decision (default: the config's, else 2000)."),
    ] = None,
    junit: Annotated[
        str | None, typer.Option("--junit", metavar="FILE", help="Also write JUnit XML: a test per check.")
    ] = None,
) -> None:
    """Check that a bot handles every situation the rules can produce, before it plays a match.

    Positions come from games the engine plays with the built-in policies; the bot takes
    over a seat at each situation a check wants (every decision kind, every card power and
    its targets, knocks, turns owed after a close or knock, a reshuffle, 2 to 8 players,
    1x1 to 4x4 grids, several decks and jokers, a hole's and the match's end) and plays
    on. One line per check, then the decision times. With --house, the house options too,
    each house option not supported named on a line of its own. With CONFIG --player NAME,
    the config's rules are checked (its preset with every option it sets, its house options
    included, instead of the four presets), under its time control, with the player's
    command, working directory and env. A bot that gives no ready in time, or never answers
    its first request, fails one check and stops the run. See docs/BOT_TOOLS.md.
    """
    from ..show.check_bot_text import report_lines, result_lines, rules_line
    from ..tools.botcheck import ALL_LAYOUTS, BotWontStart, NothingToCheck
    from ..tools.botcheck import check_bot as run_checks

    bot = _bot_under_check(list(args or []), player, presets, sets, move_ms, house)
    chosen_layouts = _split_items("--layout", layouts, list(ALL_LAYOUTS)) or list(ALL_LAYOUTS)
    header = [line for line in [rules_line(bot.presets, bot.options)] if line is not None]

    def show(result: Any) -> None:
        while header:  # once the rules are known to apply somewhere
            out(header.pop())
        for line in result_lines(result):
            out(line)

    try:
        report = run_checks(
            bot.command, bot.presets, chosen_layouts, fuzz, seed, bot.time, on_result=show, options=bot.options,
            players=bot.players, house=house,
        )  # fmt: skip
    except (BotWontStart, NothingToCheck) as e:
        fail(str(e))
    for line in report_lines(report):
        out(line)
    if junit is not None:
        from ..show.check_bot_text import write_report_junit

        try:
            write_report_junit(junit, report, bot.command)
        except OSError as e:
            fail(f"--junit {junit}: cannot write: {e.strerror or e}", EXIT_INTERNAL)
    if not report.passed:
        EXITS.exit(EXIT_FAULTED)


@dataclasses.dataclass(frozen=True)
class _BotUnderCheck:
    """What `golfref check-bot` checks: the bot's command, the rules (presets, options, players) and the clock."""

    command: BotCommand
    presets: list[str]
    options: dict[str, Any]
    players: int
    time: TimeControl


def _bot_under_check(
    given: list[str],
    player: str | None,
    presets: list[str] | None,
    sets: list[str] | None,
    move_ms: int | None,
    house: bool = False,
) -> _BotUnderCheck:
    """The bot of the command after `--`, or of the config's `--player NAME`, with the rules and clock to check."""
    from ..config.match import RUNNER, TimeControl
    from ..tools.botcheck import BotCommand

    tc = TimeControl()
    options: dict[str, Any] = {}
    players = 2
    chosen_presets = _split_items("--preset", presets, list(PRESETS)) or list(PRESETS)
    if player is not None:
        if len(given) != 1:
            fail("with --player give one config and no command: golfref check-bot CONFIG --player NAME")
        if presets:
            fail(f"--preset: with a config, its rules are checked ({given[0]}); change an option with --set")
        if house:
            fail(f"--house: with a config, its rules are checked as they are ({given[0]}), its house options included")
        cfg = _any_config_in_one_line(given[0])
        spec = next((p for p in cfg.players if p.name == player), None)
        if spec is None:
            fail(f"--player {player!r}: {given[0]} has no such player ({', '.join(p.name for p in cfg.players)})")
        argv = spec.command
        if spec.python is not None:
            # A python player is checked as the bot program `process: true` would run (docs/PYTHON_API.md).
            argv = (sys.executable, *RUNNER, spec.python)
        if argv is None:
            fail(f"--player {player!r}: a built-in player ({spec.builtin}), not a bot")
        command = BotCommand(argv, spec.cwd, dict(spec.env))
        tc = cfg.time
        chosen_presets = [cfg.rules.preset]
        options = dict(cfg.rule_options)
        players = cfg.rules.players
    elif not given:
        fail("give the bot's command after --: golfref check-bot -- python3 my_bot.py (or CONFIG --player NAME)")
    else:
        from pathlib import Path

        from ..config.match import missing_script

        script = missing_script(given, Path.cwd())  # as a config's check finds it, before any start
        if script is not None:
            fail(f"the bot's command: {script}")
        command = BotCommand(tuple(given))
    options.update(parse_sets(sets))
    if move_ms is not None:
        tc = dataclasses.replace(tc, move_ms=move_ms)
    return _BotUnderCheck(command, chosen_presets, options, players, tc)


def _split_items(option: str, items: list[str] | None, known: Sequence[str]) -> list[str] | None:
    """Repeated or comma-separated values of `option`, each one of `known` (a one-line error otherwise)."""
    if not items:
        return None
    values = [v.strip() for item in items for v in item.split(",") if v.strip()]
    for value in values:
        if value not in known:
            from ..game.rules import did_you_mean

            fail(f"{option} {value!r}: expected one of {', '.join(known)}{did_you_mean(value, known)}")
    return list(dict.fromkeys(values))


def _any_config_in_one_line(path: str) -> MatchConfig | TournamentConfig:
    """A match or tournament config; a bad one is one error line: its first problem and how many more."""
    from ..config.match import ConfigError, load_config
    from ..config.tournament import is_tournament_file, load_tournament

    try:
        return load_tournament(path) if is_tournament_file(path) else load_config(path)
    except ConfigError as e:
        first, more = e.errors[0], len(e.errors) - 1
        rest = f" (and {more} more: golfref check-config {path} lists them)" if more else ""
        fail(f"{first}{rest}")


def replay_bot(
    args: Annotated[
        list[str],
        typer.Argument(
            metavar="LOG [-- CMD [ARGS]...]",
            help="The log, then the bot's command (default: the seat's own, as logged).",
        ),
    ],
    seat: Annotated[int, typer.Option("--seat", metavar="S", min=0, help="The seat whose messages the bot is sent.")],
    stop_at: Annotated[
        int | None,
        typer.Option(
            "--stop-at",
            metavar="REQUEST",
            min=1,
            help="Stop before this request: show the bot's pid, "
            "wait for Enter (on a terminal), send it, wait for the answer without a limit.",
        ),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", metavar="SECONDS", min=0.1, help="Longest wait for each answer.")
    ] = 10.0,
) -> None:
    """Play a bot the exact messages one seat received in a logged match, and compare its answers.

    The messages come from the seat's transcript next to the log, or are rebuilt from the log
    through the engine's one view gate; nothing the seat could not see is ever sent. The first
    answer that differs from the log's is reported with the request that caused it.
    See docs/BOT_TOOLS.md.
    """
    from ..record.stderr import stderr_lines
    from ..tools.rerun import RejectedLog, RerunError, load_script, rerun_seat

    path, command = args[0], args[1:]
    try:
        script = load_script(path, seat)
    except RerunError as e:
        fail(sanitize(str(e)), EXIT_FAULTED if isinstance(e, RejectedLog) else EXIT_USAGE)
    if stop_at is not None and stop_at not in script.requests:
        shown = script.requests
        span = f"{shown[0]} to {shown[-1]}" if shown else "none"
        fail(f"--stop-at {stop_at}: seat {seat} was not sent request {stop_at} (its requests: {span})")
    cwd = None if command else script.cwd
    env = {} if command else script.env
    argv = command or list(script.command)
    err(f"golfref: replaying {len(script.requests)} requests to seat {seat} ({script.source}): {' '.join(argv)}")

    result = rerun_seat(script, argv, seat, cwd, env, timeout, stop_at, _pause, _answered(stop_at))
    if result.divergence is not None:
        d = result.divergence
        out(sanitize(one_line(d.line())))
        out(f"  sent: {sanitize(d.message.line)}")
        for line in stderr_lines(d.stderr):
            out(f"  stderr: {sanitize(line)}")
        for line in d.logged_stderr:
            out(f"  stderr in the match: {sanitize(line)}")
        EXITS.exit(EXIT_FAULTED)
    if result.stopped_at is not None:
        out(f"request {result.stopped_at}: the bot did what the log says ({result.matched} requests matched)")
    else:
        out(f"{path}: seat {seat}: every answer matches the log ({result.matched} requests)")


def _pause(driver: Any, message: Any) -> None:
    """`--stop-at`: say which process to attach a debugger to, show the request, and send it on Enter."""
    pid = driver.pid
    err(f"golfref: stopped before request {message.request} (hole {message.hole}); the bot is process {pid} "
        f"(its own process group and session): attach a debugger now, e.g. gdb -p {pid}, lldb -p {pid}, "
        f"py-spy dump --pid {pid}")  # fmt: skip
    out(message.line)
    if sys.stdin.isatty():
        err("golfref: press Enter to send the request (Ctrl-C stops the bot and exits)")
        sys.stdin.readline()
    err(f"golfref: request {message.request} sent; waiting for the answer without a time limit (Ctrl-C stops)")


def _answered(stop_at: int | None) -> Callable[[Any, Any], None]:
    """What is said of each answer: the answer to the request `--stop-at` stopped before."""

    def answered(message: Any, reply: Any) -> None:
        if message.request == stop_at:
            said = reply.line if reply.line is not None else reply.message
            err(f"golfref: the bot answered: {sanitize(one_line(said))}")

    return answered


def export_bot(
    target: Annotated[
        str,
        typer.Argument(
            metavar="MODULE:OBJECT",
            help="The policy: an object with choose(view, legal), or such a function, importable from here.",
        ),
    ],
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="The bot folder to write (new, or empty).")],
    name: Annotated[
        str | None, typer.Option("--name", metavar="NAME", help="The name in the bot's ready (default: OBJECT).")
    ] = None,
    version: Annotated[str, typer.Option("--version", metavar="V", help="The version in its ready.")] = "1",
    include: Annotated[
        list[Path] | None,
        typer.Option("--include", metavar="FILE", help="A file the policy reads (weights...), copied beside it."),
    ] = None,
) -> None:
    """Write a Python policy out as a bot folder that runs sandboxed: its code, the kit, and bot.py.

    The bot sees over the protocol exactly what the policy sees in process (golfref.kit.golfbot's
    View). Check it with `golfref check-bot -- python3 DIR/bot.py`. See docs/PYTHON_API.md.
    """
    from ..tools.export import ExportError
    from ..tools.export import export_bot as write

    try:
        bot = write(target, folder, name=name, version=version, include=include or ())
    except ExportError as e:
        fail(sanitize(str(e)))
    out(f"{bot.folder}: {len(bot.files)} files: {', '.join(bot.files)}")
    if bot.needs:
        out(f"note: the policy imports {', '.join(bot.needs)}, which the bot's python3 must have (docs/SANDBOX.md)")
    out(f"check it: golfref check-bot -- python3 {bot.folder / bot.command[1]}")
    out(f"a player: {{name: {bot.name}, command: {' '.join(bot.command)}, cwd: {bot.folder}}}")


def init(
    folder: Annotated[
        Path | None,
        typer.Argument(metavar="DIR", help="The project folder to write (new, or empty).", show_default=False),
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option("--lang", "-l", metavar="LANG", help="The bot's language: a kit of --list."),
    ] = None,
    against: Annotated[
        str, typer.Option("--against", metavar="BUILTIN", help="The built-in player of match.yaml and the tournament.")
    ] = "greedy",
    list_kits: Annotated[
        bool, typer.Option("--list", help="List the languages, what each needs installed, and whether it is.")
    ] = False,
) -> None:
    """Write a ready bot project in DIR from a starter kit: the bot (built), a match, a gated tournament, CI.

    DIR/bot is the kit's library and example bot, which plays legally and beats `random`;
    match.yaml plays it against a built-in, tournament.yaml over duplicate deals with a
    gate against `random`, ci.sh and .github/workflows/golfref.yml run the check and the
    gate in CI. DIR/README.md says what to run and what to edit. See docs/WRITING_A_BOT.md.
    """
    from ..tools.kits import KITS, KitError, kit
    from ..tools.project import ProjectError, init_project

    if list_kits:
        for which in KITS:
            absent = which.missing()
            state = "ready" if not absent else f"missing {', '.join(t.program for t in absent)}"
            also = f" (or {', '.join(which.aliases)})" if which.aliases else ""
            out(f"{which.name + also:<28} {which.title:<22} needs {which.needs_text()}: {state}")
        return
    if folder is None or lang is None:
        fail("init: give DIR and --lang LANG (golfref init --list names the languages)")
    try:
        which = kit(lang)
    except KitError as e:
        fail(f"init: --lang {sanitize(str(e))}")
    try:
        project = init_project(folder, which, against)
    except KitError as e:
        first, _, said = str(e).partition("\n")
        if said:
            err(sanitize(said))  # the compiler's own words, above the one error line
        fail(f"init: {sanitize(first)}; the project's files are in {folder}: fix the build there and run it again")
    except ProjectError as e:
        fail(f"init: {sanitize(str(e))}")
    what = f"a {project.kit.title} bot project ({len(project.files)} files)"
    out(f"{folder}: {what}; its bot is the player {project.player}")
    out(f"next: cd {folder} && golfref run match.yaml   (README.md there says more)")


def examples(
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="The folder to write (new, or empty).")],
) -> None:
    """Write the sample configs, bots and logs that the commands in golfref's docs use into DIR.

    Run those commands from DIR: `golfref run quickstart.yaml`, `golfref replay
    sample_logs/standard_2p.json`, and so on.
    """
    from ..tools.project import ProjectError, write_examples

    try:
        written = write_examples(folder)
    except ProjectError as e:
        fail(f"examples: {sanitize(str(e))}")
    out(f"{folder}: {len(written)} files; run the docs' commands from there (cd {folder})")
