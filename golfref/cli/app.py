"""The `golfref` command line: a thin shell over the library. Nothing else imports it."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import os
import shutil
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

# The click that typer ships (typer >= 0.29 vendors it; pyproject.toml requires that): its
# usage errors carry the command's context, which names the command in the one-line error.
from typer._click.exceptions import NoArgsIsHelpError, UsageError

from .. import __version__
from ..files import LOG_MAX_BYTES, MIB
from ..game.cards import CardError, Rank, parse_grid
from ..game.rules import PRESETS, RulesError, resolve_rules
from ..game.scoring import score_grid
from ..show.terminal import hole_label, sanitize

# Start-up time: a plain `golfref --help` or `golfref score` must not pay for yaml, jsonschema,
# the referee or the replay validator, so each command imports what it needs itself
# (tests/test_cli_startup.py checks it).
if TYPE_CHECKING:
    from pathlib import Path

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from ..config.match import ConfigError, FailOn, MatchConfig, PlayerSpec
    from ..config.sandbox_spec import SandboxSpec
    from ..config.tournament import GateRule, TournamentConfig
    from ..game.engine import HoleResult
    from ..record.matchlog import MatchLog
    from ..record.signing import SignatureCheck, Signer
    from ..record.validate import Report
    from ..stats.records import MatchRecord
    from ..stats.sprt import SprtResult
    from ..tournament.executor import Executor
    from ..tournament.runner import StoredTournament

app = typer.Typer(
    name="golfref",
    help="Referee and match runner for bots that play the card game Golf.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # Plain help: typer's rich help costs about 50 ms of imports at every start, and shows a
    # `<bool>` value after flags that take none.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

SEED_ENV = "GOLFREF_SEED"
"""The environment variable that gives `--seed` where no command line may show it (docs/SANDBOX.md, "The seed")."""

# Exit codes, documented in the README and in `golfref run --help`.
EXIT_OK = 0
EXIT_FAULTED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_BOT_CHANGED = 4
EXIT_SIGNAL_BASE = 128  # stopped by signal N: 128 + N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)
EXIT_INTERRUPTED = EXIT_SIGNAL_BASE + signal.SIGINT

RUN_EXIT_CODES = {
    EXIT_OK: "the match finished; a fault the fault policy played through (status faulted: a timeout, an illegal "
    "move) is reported, and fails only with --strict",
    EXIT_FAULTED: "the match finished (log written), but a fault ended a bot's seat (status disqualified: it crashed "
    "or exited, failed to start, hit a resource limit, ran out of match time, or reached max_faults), unless "
    "--accept-faults (faults.fail_on: never); with --strict (fail_on: any), any fault",
    EXIT_USAGE: "bad usage or a bad config (a `golfref: error:` line per problem, naming file, line and key), "
    "before any bot starts",
    EXIT_INTERNAL: "an internal error, or the log or the output could not be written",
    EXIT_INTERRUPTED: "stopped by Ctrl-C (143 SIGTERM, 129 SIGHUP: 128 + the signal's number): every bot stopped, "
    "the incomplete log kept",
}


def _exit_codes_help(codes: dict[int, str]) -> str:
    """A command's exit codes as its --help epilog."""
    # "\b" keeps click from re-flowing the table into one paragraph.
    rows = "\n".join(f"  {code:>3}  {meaning}" for code, meaning in codes.items())
    return f"\b\nExit codes:\n{rows}"


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


def _version(value: bool) -> None:
    if value:
        out(f"golfref {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_version, help="Print the version and exit.")
    ] = False,
) -> None:
    pass


def parse_sets(items: list[str] | None) -> dict[str, Any]:
    """Read `--set KEY=VALUE` items; values are read as YAML scalars (`-2`, `on`, `2x3`)."""
    result: dict[str, Any] = {}
    if items:
        import yaml
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
QuickPresetOpt = Annotated[
    str, typer.Option("--preset", "-p", help=f"The rule preset of a quick tournament: {', '.join(PRESETS)}.")
]
def _seed_option(help: str) -> Any:
    """A command's `--seed`: a shuffle seed, as a config's `seed:` (0 to 2**63 - 1), also read from GOLFREF_SEED."""
    return typer.Option("--seed", min=0, max=2**63 - 1, envvar=SEED_ENV, help=help)


SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override one rule option (repeatable)."),
]


SCORE_EXIT_CODES = {
    EXIT_OK: "the grid's score was printed",
    EXIT_USAGE: "bad usage: a grid, preset or option that cannot be read",
}


@app.command(epilog=_exit_codes_help(SCORE_EXIT_CODES))
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
    from ..show.report import score_json, score_lines

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
    result = score_grid(ranks, rules)
    if as_json:
        out(json.dumps(score_json(cards, result, preset)))
        return
    for line in score_lines(cards, result, rules, explain):
        out(line)


RULES_EXIT_CODES = {
    EXIT_OK: "the rules were printed",
    EXIT_USAGE: "bad usage: an unknown preset or option, or a value it cannot take",
}


@app.command(epilog=_exit_codes_help(RULES_EXIT_CODES))
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


def fail_config(error: ConfigError) -> NoReturn:
    """Print each problem of a config as its own `golfref: error:` line, in file order, and exit 2."""
    for problem in error.errors:
        err(f"golfref: error: {_one_line(problem)}")
    raise typer.Exit(EXIT_USAGE)


def _config_or_fail(path: str) -> MatchConfig:
    from ..config.match import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as e:
        fail_config(e)


def _tournament_or_fail(path: str) -> TournamentConfig:
    from ..config.match import ConfigError
    from ..config.tournament import load_tournament

    try:
        return load_tournament(path)
    except ConfigError as e:
        fail_config(e)


MaxLogOpt = Annotated[
    int,
    typer.Option(
        "--max-log-mb",
        metavar="MB",
        min=1,
        max=1 << 20,
        help=f"Read a log (and each transcript) of at most MB MiB (default {LOG_MAX_BYTES // MIB}); a bigger one is"
        " refused unread.",
    ),
]
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
TournamentSignOpt = Annotated[
    str | None,
    typer.Option("--sign", metavar="KEY", help="Sign each match's final log with this private key (golfref keygen)."),
]
SandboxOpt = Annotated[
    bool | None,
    typer.Option(
        "--sandbox/--no-sandbox",
        help="Isolate each bot (docs/SANDBOX.md); default: the config's sandbox.enabled, off unless it says so.",
    ),
]
TournamentSandboxOpt = Annotated[
    bool | None,
    typer.Option(
        "--sandbox/--no-sandbox",
        help="Isolate each bot (docs/SANDBOX.md); default: the config's sandbox.enabled, on unless it says false.",
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


NOTHING_SECRET = "nothing this user may read is secret from them: the config and its seed, keys, earlier logs"
"""What a bot of the referee's own user can read (docs/SANDBOX.md, "The seed")."""


def _sandbox_warning(spec: SandboxSpec, players: Sequence[PlayerSpec] = (), tournament: bool = False) -> None:
    """Say in one line when the sandbox is on but bubblewrap cannot be used (the log records what was applied),
    and, for a `tournament` with a bot among `players`, when its bots run as the referee's own user."""
    from ..bots.sandbox import Exposure, bubblewrap_problem, exposure

    if spec.enabled and not spec.required:  # required: the match refuses to start and says why
        problem = bubblewrap_problem()
        if problem is None:
            return
        if exposure(spec) is Exposure.OTHER_USER:
            err(f"golfref: warning: sandbox: {problem}; bots run with a user of their own (as root) and "
                "resource limits only, as each log records")  # fmt: skip
        else:
            err(f"golfref: warning: sandbox: {problem}; bots run as your own user with resource limits only, "
                f"and {NOTHING_SECRET}")  # fmt: skip
        return
    # Built-ins play in the referee's own process: only a bot's program could read anything.
    if tournament and not spec.enabled and any(p.command is not None for p in players):
        err(f"golfref: warning: sandbox: off, so the bots run as your own user, and {NOTHING_SECRET} "
            "(docs/SANDBOX.md)")  # fmt: skip


CHECK_CONFIG_EXIT_CODES = {
    EXIT_OK: "the config is good: a match or tournament would start with it",
    EXIT_USAGE: "the config has problems (a `golfref: error:` line each), or its log path would be refused",
}


@app.command("check-config", epilog=_exit_codes_help(CHECK_CONFIG_EXIT_CODES))
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
        t = _tournament_or_fail(config)
        _check_sandboxes(t.sandbox, t.players, t.results / "logs", t.source, (t.results,), _player_label)
        from ..tournament.runner import TournamentError, check_secrets

        try:
            check_secrets(t)
        except TournamentError as e:
            fail(str(e))
        kinds = ", ".join(f"{p.name} ({'builtin ' + p.builtin if p.builtin else 'bot'})" for p in t.players)
        out(
            f"{config}: ok: tournament {t.name}: {t.format.value}, tables of {t.table}, {t.deal_sets} deal sets; "
            f"{t.rules.preset}, {t.rules.layout}, {t.rules.holes} holes; players: {kinds}"
        )
        return
    cfg = _config_or_fail(config)
    now = dt.datetime.now(dt.UTC)
    match_id, slug = new_match_id(cfg.name, now)
    try:
        log_path = planned_log_path(cfg, log, match_id, slug, now)
        check_outputs(cfg, log_path, force=force)
    except ConfigError as e:
        fail_config(e)
    _check_sandboxes(cfg.sandbox, cfg.players, log_path.parent, cfg.source)
    from ..bots.launch import match_seed_problem

    problem = match_seed_problem(cfg)
    if problem is not None:
        fail(problem)
    kinds = ", ".join(f"{p.name} ({'builtin ' + p.builtin if p.builtin else 'bot'})" for p in cfg.players)
    out(sanitize(f"{config}: ok: {cfg.rules.preset}, {cfg.rules.layout}, {cfg.rules.holes} holes; players: {kinds}"))


def _player_label(_seat: int, player: PlayerSpec) -> str:
    """A tournament's player as its sandbox errors name it (a match's are named by seat)."""
    return f"player {player.name}"


def _check_sandboxes(
    spec: SandboxSpec,
    players: Sequence[PlayerSpec],
    log_folder: Path,
    source: str,
    hide: Sequence[Path] = (),
    label: Callable[[int, PlayerSpec], str] | None = None,
) -> None:
    """Set up (and give back) each bot's sandbox as a run would, to report what would stop it."""
    from ..bots.launch import build_sandboxes
    from ..config.match import ConfigError

    try:
        boxes = build_sandboxes(spec, players, log_folder, source, hide, prepare=False, label=label)
    except ConfigError as e:
        fail_config(e)
    for box in boxes:
        if box is not None:
            box.close()


KEYGEN_EXIT_CODES = {
    EXIT_OK: "the key pair was written",
    EXIT_USAGE: "a key file is there already (none is replaced), or the folder is missing or not writable",
}


@app.command(epilog=_exit_codes_help(KEYGEN_EXIT_CODES))
def keygen(
    out_path: Annotated[
        str, typer.Argument(metavar="OUT", help="Where to write the private key; the public key goes to OUT.pub.")
    ],
) -> None:
    """Write an Ed25519 key pair for signing logs (golfref run --sign OUT).

    OUT gets the private key (PEM, PKCS#8, unencrypted, mode 0600: keep it secret); OUT.pub
    the public key (PEM), to give to whoever checks the logs (golfref replay --check --trust
    OUT.pub). An existing file is never replaced.
    """
    from ..record.signing import KeyFileError
    from ..record.signing import keygen as make_keys

    if not out_path.strip():
        fail("keygen: the path is empty")
    try:
        private, public, kid = make_keys(out_path)
    except KeyFileError as e:
        fail(f"keygen: {e}")
    out(f"wrote {private} (private key, keep it secret) and {public} (public key); key {kid}")


StrictOpt = Annotated[
    bool, typer.Option("--strict", help="Exit 1 when any bot faulted, even where the fault policy played on "
                       "(faults.fail_on: any).")  # fmt: skip
]
AcceptFaultsOpt = Annotated[
    bool,
    typer.Option(
        "--accept-faults",
        help="Exit 0 even when a bot's seat was ended by a fault (faults.fail_on: never); faults are still reported.",
    ),
]


def _check_fault_flags(strict: bool, accept_faults: bool) -> None:
    """`--strict` and `--accept-faults` ask opposite things: both at once is a usage error."""
    if strict and accept_faults:
        fail("--strict and --accept-faults: choose one (--strict exits 1 on any fault, --accept-faults on none)")


def _fail_on(configured: FailOn, strict: bool, accept_faults: bool) -> FailOn:
    """Which faults fail the run: `--strict` (any) or `--accept-faults` (never) over the config's faults.fail_on
    (`_check_fault_flags` has refused both at once)."""
    from ..config.match import FailOn

    if strict:
        return FailOn.ANY
    if accept_faults:
        return FailOn.NEVER
    return configured


def faults_fail(fail_on: FailOn, ended: bool, faulted: bool) -> bool:
    """Whether faults make a run exit 1: a seat ended by one (`ended`), or with fail_on any, any fault at all."""
    from ..config.match import FailOn

    if fail_on is FailOn.NEVER:
        return False
    return ended or (fail_on is FailOn.ANY and faulted)


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
        raise typer.Exit(EXIT_SIGNAL_BASE + e.signum) from None
    except ConfigError as e:
        fail_config(e)
    except UnsafeFile as e:
        fail(f"cannot write {e}", EXIT_INTERNAL)
    except OSError as e:
        fail(f"cannot write the log: {e}", EXIT_INTERNAL)


@app.command(epilog=_exit_codes_help(RUN_EXIT_CODES))
def run(
    config: Annotated[str, typer.Argument(help="The match config (YAML).")],
    log: LogOpt = None,
    seed: Annotated[
        int | None,
        _seed_option("Seed for the shuffles (overrides the config; default: the config's, else a secret one)."),
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
    from ..show.report import fault_report, standings_lines, summary_json

    if log is not None and not log.strip():
        fail("--log: the path is empty")
    _check_fault_flags(strict, accept_faults)
    signer = _signer_or_fail(sign)
    cfg = _config_or_fail(config)
    cfg = dataclasses.replace(cfg, sandbox=cfg.sandbox.switched(sandbox))
    fail_on = _fail_on(cfg.fail_on, strict, accept_faults)
    _sandbox_warning(cfg.sandbox)
    live = None
    people = any(p.builtin == "human" for p in cfg.players)  # the live line would draw over their screen
    if not quiet and not as_json and sys.stderr.isatty() and not people:
        from ..show.progress import LiveProgress

        live = LiveProgress([p.name for p in cfg.players], cfg.rules.holes)

    def progress(result: HoleResult, names: tuple[str, ...]) -> None:
        if live is not None:
            live.on_hole(result)
        scores = ", ".join(f"{n} {s}" for n, s in zip(names, result.scores, strict=True))
        err(f"{hole_label(result.hole, cfg.rules.holes)}: {scores} ({result.end.value})")

    with _match_errors(), live if live is not None else contextlib.nullcontext():
        result = run_match(
            cfg,
            seed=seed,
            log_path=log,
            on_hole=None if quiet else progress,
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
            for line in fault_report(result):
                err(line)
    ended = any(s is SeatStatus.DISQUALIFIED for s in result.statuses)
    if faults_fail(fail_on, ended, bool(result.faults)):
        raise typer.Exit(EXIT_FAULTED)


PLAY_EXIT_CODES = {
    EXIT_OK: "the match finished (the standings show any fault of the bot's)",
    EXIT_USAGE: "bad usage: a preset, option or bot command that cannot be used",
    EXIT_INTERNAL: "an internal error, or the log could not be written",
    EXIT_INTERRUPTED: "stopped by Ctrl-C or the end of input (143 SIGTERM, 129 SIGHUP): the bot stopped, "
    "the incomplete log kept",
}


@app.command(epilog=_exit_codes_help(PLAY_EXIT_CODES))
def play(
    against: Annotated[
        str, typer.Option("--against", metavar="CMD", help="The bot to play: its command, as a config's command.")
    ],
    preset: PresetOpt = "standard",
    sets: SetOpt = None,
    seed: Annotated[
        int | None,
        _seed_option("Seed for the shuffles (default: a secret one)."),
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
    from ..show.report import standings_lines

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


def _signer_or_fail(sign: str | None) -> Signer | None:
    """The signer of `--sign KEY`, or a one-line error naming what is wrong with the key."""
    if sign is None:
        return None
    from ..record.signing import KeyFileError, Signer

    try:
        return Signer.from_file(sign)
    except KeyFileError as e:
        fail(f"--sign {e}")


def _parse_number(option: str, text: str | None, what: str) -> int | None:
    """An option's whole number, or a one-line usage error (typer's own would be a box of text)."""
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        fail(f"{option} {text!r}: expected {what}")


def _check_line(path: str, report: Report, signature: SignatureCheck | None) -> str:
    from ..record.validate import Status

    if report.status is Status.VALID:
        line = f"{path}: valid"
    elif report.status is Status.NOT_A_LOG:  # its message says so: "no such file", "not a golfref log: ..."
        line = f"{path}: {report.message}"
    else:
        line = f"{path}: {report.status.value}: {report.message}"
    return line if signature is None else f"{line}; {signature.message}"


def _signature(path: str, report: Report, trusted: Ed25519PublicKey | None, asked: bool) -> SignatureCheck | None:
    """The signature verdict shown for the log at `path`: always when `asked` (--trust), else only for a signed log."""
    from ..record.matchlog import has_signature

    if report.doc is None or (not asked and not has_signature(report.doc)):
        return None
    from ..record.signing import check_signature

    return check_signature(report.doc, trusted, found_as=os.path.basename(path))


def use_color(stream: Any, environ: Mapping[str, str], no_color: bool) -> bool:
    """Colour only on a terminal, and never with --no-color or a non-empty NO_COLOR (no-color.org)."""
    if no_color or environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def output_width(stream: Any, environ: Mapping[str, str], given: int | None, default: int, least: int) -> int:
    """The columns to print in: `--width`, else COLUMNS, else the terminal's, else `default`.

    A terminal (or COLUMNS) narrower than `least` still gets `least`: the lines wrap
    there, as they must, rather than the match not being shown.
    """
    if given is not None:
        return given
    columns = environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(least, int(columns))
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        return max(least, shutil.get_terminal_size((default, 24)).columns)
    return default


def replay_exit_code(
    reports: list[Report], signatures: list[SignatureCheck | None] | None = None, trusting: bool = False
) -> int:
    """`golfref replay --check` exits 0 only when every log is valid and none is forged; with
    --trust (`trusting`), only when every one is also signed by the trusted key under its own name."""
    from ..record.signing import signature_passes
    from ..record.validate import Status

    signed_ok = all(signature_passes(s, trusting) for s in signatures or [])
    if any(r.status is Status.NOT_A_LOG for r in reports):
        return EXIT_USAGE  # a missing file or another kind of file, as in every command that reads logs
    return EXIT_OK if all(r.status is Status.VALID for r in reports) and signed_ok else EXIT_FAULTED


REPLAY_EXIT_CODES = {
    EXIT_OK: "the log is valid and was shown (an incomplete one after a warning); with --check, every log is valid "
    "and none forged (with --trust, every one signed by the trusted key under the name it was signed as)",
    EXIT_FAULTED: "the log is invalid or tampered (and not shown); with --check, a log is invalid, tampered, "
    "incomplete or forged (with --trust, or not signed by the trusted key, or a copy under another name)",
    EXIT_USAGE: "bad usage, or a LOG that is no golfref log: no such file, a folder, JSON of another kind",
    EXIT_INTERNAL: "an internal error, or the output could not be written",
}


@app.command(epilog=_exit_codes_help(REPLAY_EXIT_CODES))
def replay(
    logs: Annotated[list[str], typer.Argument(metavar="LOG", help="The log to show; with --check, one or more logs.")],
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Only validate: one line per log; exit 0 only when every log is valid and none forged."
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the validation reports as one JSON array (implies --check).")
    ] = False,
    hole: Annotated[
        int | None, typer.Option("--hole", metavar="N", min=0, help="Show hole N only (holes count from 0).")
    ] = None,
    seat: Annotated[
        int | None,
        typer.Option("--seat", metavar="S", min=0, help="Show the match as seat S saw it (seats count from 0)."),
    ] = None,
    summary: Annotated[bool, typer.Option("--summary", help="Show only the hole scores and the standings.")] = False,
    compact: Annotated[
        bool, typer.Option("--compact", help="One line per turn, without the grids (for long matches).")
    ] = False,
    width: Annotated[
        str | None,
        typer.Option(
            "--width", metavar="N", help="Lines of at most N columns (default: the terminal's width, else 100)."
        ),
    ] = None,
    no_color: Annotated[
        bool, typer.Option("--no-color", help="No colour (default: colour on a terminal unless NO_COLOR is set).")
    ] = False,
    ascii_only: Annotated[
        bool, typer.Option("--ascii", help="Print ASCII only (no suit symbols or box drawing).")
    ] = False,
    trust: Annotated[
        str | None,
        typer.Option(
            "--trust",
            metavar="PUBKEY",
            help="With --check: say whether each log is signed by this public key (KEY.pub), and which match"
            " the signature names; exit 0 only when every one is, under the file name it was signed as.",
        ),
    ] = None,
    html: Annotated[
        str | None,
        typer.Option(
            "--html",
            metavar="OUT.html",
            help="Write the match as one self-contained HTML page to step through"
            " (with --seat: that seat's view only).",
        ),
    ] = None,
    max_log_mb: MaxLogOpt = LOG_MAX_BYTES // MIB,
) -> None:
    """Validate a game log, then show the match turn by turn.

    A log is checked first: its digest (changed after it was written?),
    its schema, and a re-play of the whole match through the engine.
    A tampered or invalid log is reported and not shown; an incomplete
    one (an interrupted match) is shown after a warning.
    """
    from ..record.validate import Status, validate_file

    given_check = check
    if as_json:
        check = True
    if check:
        showing = (
            ("--hole", hole),
            ("--seat", seat),
            ("--summary", summary or None),
            ("--compact", compact or None),
            ("--html", html),
        )
        for name, given in (*showing, ("--width", width)):
            if given is not None:
                mode = "--json" if as_json and not given_check else "--check"
                fail(f"{name} applies when showing a match, not with {mode}")
        trusted = None
        if trust is not None:
            from ..record.signing import KeyFileError, load_public_key

            try:
                trusted = load_public_key(trust)
            except KeyFileError as e:
                fail(f"--trust {e}")
        reports = [validate_file(path, max_log_mb * MIB) for path in logs]
        signatures = [
            _signature(path, report, trusted, trust is not None) for path, report in zip(logs, reports, strict=True)
        ]
        if as_json:
            items = []
            for path, report, sig in zip(logs, reports, signatures, strict=True):
                item = {"path": path, **report.to_json()}
                if sig is not None or trust is not None:
                    item["signature"] = None if sig is None else sig.to_json()
                items.append(item)
            out(json.dumps(items, ensure_ascii=False))
        else:
            for path, report, sig in zip(logs, reports, signatures, strict=True):
                out(sanitize(_one_line(_check_line(path, report, sig))))
        raise typer.Exit(replay_exit_code(reports, signatures, trusting=trust is not None))
    if trust is not None:
        fail("--trust applies with --check (or --json), not when showing a match")

    if len(logs) != 1:
        fail(f"give one LOG to show ({len(logs)} given); several logs only with --check")
    path = logs[0]
    width_number = _parse_number("--width", width, "a number of columns")
    report = validate_file(path, max_log_mb * MIB)
    if report.status is Status.NOT_A_LOG:
        fail(sanitize(f"{path}: {report.message}"))
    if report.doc is None:  # damaged: not JSON, truncated...
        fail(sanitize(f"{path}: {report.message}"), EXIT_FAULTED)
    if report.status in (Status.INVALID, Status.TAMPERED):
        fail(sanitize(f"{path}: {report.status.value}: {report.message}"), EXIT_FAULTED)
    from ..record.matchlog import read_match_log

    doc = read_match_log(report.doc)
    holes = len(doc.holes)
    players = len(doc.players)
    if hole is not None and not 0 <= hole < holes:
        if not holes:
            fail(f"--hole {hole}: the log has no hole yet")
        fail(f"--hole {hole}: the log has {holes} hole{'s' if holes != 1 else ''} (0 to {holes - 1})")
    if seat is not None and not 0 <= seat < players:
        fail(f"--seat {seat}: the match has {players} seats (0 to {players - 1})")
    if report.status is Status.INCOMPLETE:
        err(sanitize(_one_line(f"golfref: warning: {path}: incomplete: {report.message}")))
    if html is not None:
        _write_replay_html(doc, path, html, seat, hole=hole, summary=summary, compact=compact, width=width)
        return
    try:
        from ..show.pretty import DEFAULT_WIDTH, MIN_WIDTH, render_match
    except ImportError as e:
        fail(f"cannot show the match: the pretty-printer is not available ({e})", EXIT_INTERNAL)
    if width_number is not None and width_number < MIN_WIDTH:
        fail(f"--width {width_number}: too narrow; the match needs at least {MIN_WIDTH} columns")
    color = use_color(sys.stdout, os.environ, no_color)
    try:
        lines = render_match(
            doc,
            hole=hole,
            seat=seat,
            summary=summary,
            compact=compact,
            color=color,
            ascii_only=ascii_only,
            width=output_width(sys.stdout, os.environ, width_number, DEFAULT_WIDTH, MIN_WIDTH),
        )
    except ValueError as e:
        fail(f"cannot show {path}: {e}", EXIT_INTERNAL)
    for line in lines:
        out(line)


def _write_replay_html(doc: MatchLog, path: str, target: str, seat: int | None, **terminal_only: Any) -> None:
    """`golfref replay LOG --html OUT`: the page of a log that validated."""
    for name, given in terminal_only.items():
        if given not in (None, False):
            fail(f"--{name} applies when showing a match on the terminal, not with --html")
    from ..show.html_replay import replay_html

    try:
        page = replay_html(doc, seat)
    except ValueError as e:
        fail(f"cannot show {path}: {e}", EXIT_INTERNAL)
    _write_text(target, page, "--html")
    seen = f"seat {seat} saw it" if seat is not None else "the players saw it"
    out(sanitize(f"{target}: the match as {seen}"))


def _write_text(target: str, text: str, option: str) -> None:
    """Write a whole output file, or fail with one line naming the option and the reason."""
    from ..files import write_text

    try:
        write_text(target, text)
    except OSError as e:
        fail(f"{option} {target}: cannot write: {e.strerror or e}", EXIT_INTERNAL)


AUDIT_EXIT_CODES = {
    EXIT_OK: "every log is clean: no leak, no warning, no forged signature (with --trust, every one signed by "
    "the trusted key under the name it was signed as)",
    EXIT_FAULTED: "a leak or a warning in some log, a log that is tampered or invalid, or a forged signature "
    "(with --trust, or one not by the trusted key, or a copy under another name)",
    EXIT_USAGE: "bad usage or input that cannot be audited: no such file, not a golfref log, no transcripts",
}


@app.command(epilog=_exit_codes_help(AUDIT_EXIT_CODES))
def audit(
    logs: Annotated[list[str], typer.Argument(metavar="LOG", help="A log with transcripts next to it; one or more.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as one JSON array.")] = False,
    trust: Annotated[
        str | None,
        typer.Option(
            "--trust",
            metavar="PUBKEY",
            help="Say whether each log is signed by this public key (KEY.pub), as replay --check --trust does;"
            " exit 0 only when every one is, under the file name it was signed as.",
        ),
    ] = None,
    max_log_mb: MaxLogOpt = LOG_MAX_BYTES // MIB,
) -> None:
    """Check that no bot was shown what it could not know yet, from a log and its transcripts.

    The log is validated as replay --check does; then the match is re-derived through the
    engine and every message in each seat's transcript is compared with what that seat
    could know then. One line per finding (leaks; warnings for mismatches, timing
    anomalies and fault clusters), the signature and the match it names (for a signed log,
    or every log with --trust), and a summary line per log. See docs/AUDIT.md.
    """
    from ..record.signing import signature_passes
    from ..tools.audit import AuditError, audit_file

    trusted = None
    if trust is not None:
        from ..record.signing import KeyFileError, load_public_key

        try:
            trusted = load_public_key(trust)
        except KeyFileError as e:
            fail(f"--trust {e}")
    code = EXIT_OK
    items: list[dict[str, Any]] = []
    for path in logs:
        try:
            result = audit_file(path, trusted, max_log_mb * MIB)
        except AuditError as e:
            err(f"golfref: error: {sanitize(_one_line(str(e)))}")
            items.append({"path": path, "status": "error", "error": str(e)})
            code = max(code, EXIT_USAGE)
            continue
        if not result.clean or not signature_passes(result.signature, trust is not None):
            code = max(code, EXIT_FAULTED)
        if as_json:
            items.append(result.to_json())
            continue
        for finding in result.findings:
            out(sanitize(_one_line(f"{path}: {finding.line()}")))
        if result.signature is not None:
            out(sanitize(_one_line(f"{path}: signature: {result.signature.message}")))
        out(sanitize(_one_line(f"{path}: {result.summary()}")))
    if as_json:
        out(json.dumps(items, ensure_ascii=False))
    raise typer.Exit(code)


CHECK_BOT_EXIT_CODES = {
    EXIT_OK: "every check passed (a skipped check is not a failure)",
    EXIT_FAULTED: "a check failed (a run that stops early has one)",
    EXIT_USAGE: "bad usage: no command or one that cannot start, a bad config, an unknown player, preset or layout, "
    "--set options that apply to no check",
}


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


@app.command("check-bot", epilog=_exit_codes_help(CHECK_BOT_EXIT_CODES))
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
    on. One line per check, then the decision times. With CONFIG --player NAME, the
    config's rules are checked (its preset with every option it sets, instead of the four
    presets), under its time control, with the player's command, working directory and
    env. A bot that gives no ready in time, or never answers its first request, fails one
    check and stops the run. See docs/BOT_TOOLS.md.
    """
    from ..config.match import TimeControl
    from ..tools.botcheck import ALL_LAYOUTS, BotCommand, BotWontStart, NothingToCheck, Outcome
    from ..tools.botcheck import check_bot as run_checks

    given = list(args or [])
    tc = TimeControl()
    options: dict[str, Any] = {}
    players = 2
    chosen_presets = _split_items("--preset", presets, list(PRESETS)) or list(PRESETS)
    if player is not None:
        if len(given) != 1:
            fail("with --player give one config and no command: golfref check-bot CONFIG --player NAME")
        if presets:
            fail(f"--preset: with a config, its rules are checked ({given[0]}); change an option with --set")
        cfg = _any_config_in_one_line(given[0])
        spec = next((p for p in cfg.players if p.name == player), None)
        if spec is None:
            fail(f"--player {player!r}: {given[0]} has no such player ({', '.join(p.name for p in cfg.players)})")
        if spec.command is None:
            fail(f"--player {player!r}: a built-in player ({spec.builtin}), not a bot")
        command = BotCommand(spec.command, spec.cwd, dict(spec.env))
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
    chosen_layouts = _split_items("--layout", layouts, list(ALL_LAYOUTS)) or list(ALL_LAYOUTS)

    header = []
    if options:
        shown = ", ".join(f"{k}: {v if isinstance(v, str) else json.dumps(v)}" for k, v in options.items())
        header.append(f"rules: {', '.join(chosen_presets)}, with {shown}")

    def show(result: Any) -> None:
        while header:  # once the rules are known to apply somewhere
            out(sanitize(header.pop()))
        out(sanitize(result.line()))
        for line in result.details():
            out(f"      {sanitize(line)}")

    try:
        report = run_checks(
            command, chosen_presets, chosen_layouts, fuzz, seed, tc, on_result=show, options=options, players=players
        )
    except (BotWontStart, NothingToCheck) as e:
        fail(str(e))
    stopped = report.stopped_line()
    if stopped is not None:
        out(stopped)
    out(report.times_line())
    out(report.summary())
    if junit is not None:
        from ..show.junit import Case, write_cases

        cases = [
            Case(
                r.name,
                r.seconds,
                failure=r.message if r.outcome is Outcome.FAIL else None,
                details="\n".join([r.message, *r.details()]),
                skipped=r.message if r.outcome is Outcome.SKIP else None,
            )
            for r in report.results
        ]
        try:
            name = f"golfref check-bot {' '.join(command.argv)}"
            write_cases(junit, cases, name, "golfref.check_bot", seconds=report.seconds)
        except OSError as e:
            fail(f"--junit {junit}: cannot write: {e.strerror or e}", EXIT_INTERNAL)
    if not report.passed:
        raise typer.Exit(EXIT_FAULTED)


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


REPLAY_BOT_EXIT_CODES = {
    EXIT_OK: "the bot did what the log says at every request replayed",
    EXIT_FAULTED: "the bot diverged from the log (the first divergence is printed), or the log is tampered or invalid",
    EXIT_USAGE: "bad usage, no such file, not a golfref log, or a seat or transcript that cannot be replayed",
    EXIT_INTERRUPTED: "stopped by Ctrl-C (the bot is stopped too)",
}


@app.command("replay-bot", epilog=_exit_codes_help(REPLAY_BOT_EXIT_CODES))
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
        typer.Option("--stop-at", metavar="REQUEST", min=1, help="Stop before this request: show the bot's pid, "
                     "wait for Enter (on a terminal), send it, wait for the answer without a limit."),
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
    from ..tools.botreplay import RejectedLog, ReplayError, load_script
    from ..tools.botreplay import replay_bot as run_replay

    path, command = args[0], args[1:]
    try:
        script = load_script(path, seat)
    except ReplayError as e:
        fail(sanitize(str(e)), EXIT_FAULTED if isinstance(e, RejectedLog) else EXIT_USAGE)
    if stop_at is not None and stop_at not in script.requests:
        shown = script.requests
        span = f"{shown[0]} to {shown[-1]}" if shown else "none"
        fail(f"--stop-at {stop_at}: seat {seat} was not sent request {stop_at} (its requests: {span})")
    cwd = None if command else script.cwd
    env = {} if command else script.env
    argv = command or list(script.command)
    err(f"golfref: replaying {len(script.requests)} requests to seat {seat} ({script.source}): {' '.join(argv)}")

    def pause(driver: Any, message: Any) -> None:
        pid = driver.pid
        err(f"golfref: stopped before request {message.request} (hole {message.hole}); the bot is process {pid} "
            f"(its own process group and session): attach a debugger now, e.g. gdb -p {pid}, lldb -p {pid}, "
            f"py-spy dump --pid {pid}")  # fmt: skip
        out(message.line)
        if sys.stdin.isatty():
            err("golfref: press Enter to send the request (Ctrl-C stops the bot and exits)")
            sys.stdin.readline()
        err(f"golfref: request {message.request} sent; waiting for the answer without a time limit (Ctrl-C stops)")

    def answered(message: Any, reply: Any) -> None:
        if message.request == stop_at:
            said = reply.line if reply.line is not None else reply.message
            err(f"golfref: the bot answered: {sanitize(_one_line(said))}")

    result = run_replay(script, argv, seat, cwd, env, timeout, stop_at, pause, answered)
    if result.divergence is not None:
        d = result.divergence
        out(sanitize(_one_line(d.line())))
        out(f"  sent: {sanitize(d.message.line)}")
        for line in d.stderr.splitlines():
            out(f"  stderr: {sanitize(line)}")
        raise typer.Exit(EXIT_FAULTED)
    if result.stopped_at is not None:
        out(f"request {result.stopped_at}: the bot did what the log says ({result.matched} requests matched)")
    else:
        out(f"{path}: seat {seat}: every answer matches the log ({result.matched} requests)")


TOURNAMENT_EXIT_CODES = {
    EXIT_OK: "every match played (or the SPRT decided early), no bot's seat ended by a fault (or --accept-faults), "
    "and the gate and the SPRT, if any, passed",
    EXIT_FAULTED: "a bot's seat was ended by a fault in some match (with --strict: any fault), unless --accept-faults; "
    "or the gate or the SPRT did not pass (failed, not enough data, or undecided)",
    EXIT_USAGE: "bad usage, a bad config, or a results directory holding another tournament (or an older store)",
    EXIT_INTERNAL: "an internal error, a match could not be played (its log could not be written), "
    "or the cluster's scheduler was lost",
    EXIT_BOT_CHANGED: "stopped because a bot's files changed since the tournament started (one line naming the bot "
    "and what changed), unless --allow-bot-changes: finished matches kept; restore the files and run again to resume",
    EXIT_INTERRUPTED: "interrupted by Ctrl-C (143 SIGTERM, 129 SIGHUP): finished matches kept; run again to resume",
}


def _quick_tournament(
    bots: list[str],
    builtins: list[str],
    preset: str,
    deal_sets: int,
    seed: int | None,
    results: str | None,
    sets: list[str] | None = None,
) -> TournamentConfig:
    """The config of `golfref tournament --bot NAME=CMD ...`, checked as a YAML one would be (`sets`: its --set)."""
    import yaml

    from ..config.match import ConfigError
    from ..config.tournament import parse_tournament

    players: list[dict[str, str]] = []
    # Problems are said of the options that caused them: the YAML below is ours, not the user's.
    labels: dict[tuple[Any, ...], str] = {
        ("rules",): "--preset",
        ("deal_sets",): "--deal-sets",
        ("seed",): "--seed",
        ("results",): "--results",
    }
    for option, items, key in (("--bot", bots, "command"), ("--builtin", builtins, "builtin")):
        for item in items:
            name, sep, value = item.partition("=")
            if not sep or not name.strip() or not value.strip():
                fail(f"{option} {item!r}: expected NAME={'COMMAND' if key == 'command' else 'POLICY'}")
            labels[("players", len(players))] = f"{option} {name.strip()}"
            players.append({"name": name.strip(), key: value.strip()})
    if len(players) < 2:
        fail("a tournament needs at least two players: give --bot NAME=COMMAND (and --builtin NAME=POLICY)")
    overrides = parse_sets(sets)
    labels.update({("rules", key): f"--set {key}" for key in overrides})
    data: dict[str, Any] = {
        "tournament": "quick",
        "rules": {"preset": preset, **overrides},
        "players": players,
        "deal_sets": deal_sets,
    }
    if seed is not None:
        data["seed"] = seed
    if results is not None:
        data["results"] = results
    try:
        cfg = parse_tournament(yaml.safe_dump(data, sort_keys=False), source="golfref tournament", labels=labels)
    except ConfigError as e:
        fail_config(e)
    if results is None:  # one directory per distinct quick tournament, so running it again resumes it
        from dataclasses import replace
        from pathlib import Path

        cfg = replace(cfg, results=Path("tournaments") / f"quick-{cfg.digest().split(':')[1][:12]}")
    return cfg


CSV_TABLES = ("standings", "pairwise")
"""The tables `--csv TABLE` prints: one per invocation, so each output is one CSV table with one header."""

GateOpt = Annotated[
    str | None,
    typer.Option(
        "--gate",
        metavar="'PLAYER <= BASELINE [+ MARGIN] [@ CONF%]'",
        help="Exit 1 unless PLAYER's points per hole are proven at most BASELINE's + MARGIN (default 0) "
        "at CONF% confidence (default 95); replaces the config's gate.",
    ),
]
StandingsGateOpt = Annotated[
    str | None,
    typer.Option(
        "--gate",
        metavar="'PLAYER <= BASELINE [+ MARGIN] [@ CONF%]'",
        help="Exit 1 unless PLAYER's points per hole are proven at most BASELINE's + MARGIN (default 0) "
        "at CONF% confidence (default 95).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the results as one JSON object.")]
CsvOpt = Annotated[
    str | None, typer.Option("--csv", metavar="TABLE", help="Print one table as CSV: standings or pairwise.")
]
JunitOpt = Annotated[
    str | None, typer.Option("--junit", metavar="FILE", help="Write JUnit XML (a test per match and the gate).")
]


@app.command(epilog=_exit_codes_help(TOURNAMENT_EXIT_CODES))
def tournament(
    config: Annotated[str | None, typer.Argument(help="The tournament config (YAML); or use --bot/--builtin.")] = None,
    bots: Annotated[
        list[str] | None, typer.Option("--bot", metavar="NAME=COMMAND", help="A bot of a quick tournament.")
    ] = None,
    builtins: Annotated[
        list[str] | None,
        typer.Option("--builtin", metavar="NAME=POLICY", help="A built-in player (random, greedy) of a quick one."),
    ] = None,
    preset: QuickPresetOpt = "standard",
    sets: Annotated[
        list[str] | None,
        typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override one rule option of a quick one (repeatable)."),
    ] = None,
    deal_sets: Annotated[int, typer.Option("--deal-sets", min=1, help="Deal sets of a quick tournament.")] = 10,
    seed: Annotated[
        int | None,
        _seed_option("Seed of a quick tournament (default: a secret one, drawn and kept in its directory)."),
    ] = None,
    results: Annotated[
        str | None, typer.Option("--results", metavar="DIR", help="The tournament directory (overrides the config).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", "-j", min=1, help="Matches at once (default: the number of cores).")
    ] = None,
    gate: GateOpt = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress display, and no fault summary on stderr.")
    ] = False,
    strict: StrictOpt = False,
    accept_faults: AcceptFaultsOpt = False,
    allow_bot_changes: Annotated[
        bool,
        typer.Option(
            "--allow-bot-changes",
            help="Play on when a bot's files change during the tournament, reporting the matches played with the "
            "changed files (allow_bot_changes: true); without it the change stops the tournament (exit 4).",
        ),
    ] = False,
    as_json: JsonOpt = False,
    as_csv: CsvOpt = None,
    junit: JunitOpt = None,
    sign: TournamentSignOpt = None,
    sandbox: TournamentSandboxOpt = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            metavar="ADDRESS",
            help="Play the matches on a Dask cluster: its scheduler (tcp://HOST:8786), or local:N for N worker "
            "processes here (docs/CLUSTER.md).",
        ),
    ] = None,
    cluster_upload: Annotated[
        str | None,
        typer.Option(
            "--cluster-upload",
            metavar="DIR",
            help="Upload this folder of bots to each worker once; bots under it run from the worker's copy.",
        ),
    ] = None,
    cluster_per_worker: Annotated[
        int | None,
        typer.Option(
            "--cluster-per-worker",
            min=1,
            help="Matches at once on each worker (default: its cores, or its threads if fewer).",
        ),
    ] = None,
) -> None:
    """Play a tournament (or resume it): many matches in parallel, duplicate deals, standings and a gate.

    Running the same tournament again resumes it: finished matches whose logs still
    validate are kept. On a terminal, a progress bar with live standings is drawn on stderr.
    """
    from dataclasses import replace
    from pathlib import Path

    from ..tournament.runner import BotChanged, TournamentError, run_tournament, sprt_decision
    from ..tournament.store import StoreError

    _check_output_options(as_json, as_csv)
    _check_fault_flags(strict, accept_faults)
    if (config is None) == (not bots and not builtins):
        fail("give a tournament config, or the players of a quick one with --bot NAME=COMMAND "
             "and --builtin NAME=POLICY (not both)")  # fmt: skip
    if config is not None:
        if sets:
            fail(f"--set goes with a quick tournament (--bot, --builtin): change {config}'s rules: instead")
        cfg = _tournament_or_fail(config)
    else:
        cfg = _quick_tournament(bots or [], builtins or [], preset, deal_sets, seed, None, sets)
    if results is not None:
        if not results.strip():
            fail("--results: the path is empty")
        cfg = replace(cfg, results=Path(results))
    if gate is not None:
        cfg = replace(cfg, gate=_gate_or_fail(gate, [p.name for p in cfg.players]))
    cfg = replace(cfg, sandbox=cfg.sandbox.switched(sandbox), fail_on=_fail_on(cfg.fail_on, strict, accept_faults))
    if allow_bot_changes:
        cfg = replace(cfg, allow_bot_changes=True)
    _sandbox_warning(cfg.sandbox, cfg.players, tournament=True)
    _signer_or_fail(sign)  # a bad key is refused before any match
    if cluster is None:  # a bot that could not be sandboxed is refused before any match (workers check their own)
        hide = (cfg.results,) if sign is None else (cfg.results, Path(sign))
        _check_sandboxes(cfg.sandbox, cfg.players, cfg.results / "logs", cfg.source, hide, _player_label)
    executor: Executor | None = None
    cluster_errors: tuple[type[Exception], ...] = ()  # caught only with --cluster: without it, dask is not imported
    lost: tuple[type[Exception], ...] = ()
    if cluster is not None:
        if workers is not None:
            fail("--workers and --cluster: choose one (a cluster's workers are its own: --cluster-per-worker)")
        executor, cluster_errors, lost = _cluster_executor(cluster, cluster_upload, cluster_per_worker)
    elif cluster_upload is not None or cluster_per_worker is not None:
        fail("--cluster-upload and --cluster-per-worker go with --cluster ADDRESS")
    view = None
    if not quiet and not as_json and as_csv is None and sys.stderr.isatty():
        from ..show.live_tournament import LiveTournament

        view = LiveTournament([p.name for p in cfg.players])
    try:
        with view if view is not None else contextlib.nullcontext():
            outcome = run_tournament(
                cfg,
                workers=workers,
                executor=executor,
                on_progress=None if view is None else view.update,
                sign_key=None if sign is None else Path(sign).resolve(),
            )
    except BotChanged as e:
        fail(str(e), EXIT_BOT_CHANGED)
    except (TournamentError, StoreError) as e:
        fail(str(e))
    except cluster_errors as e:
        fail(str(e), EXIT_INTERNAL if isinstance(e, lost) else EXIT_USAGE)
    stored = _stored_or_fail(cfg.results)
    sprt = sprt_decision(cfg, stored.records)
    verdicts = _Verdicts(cfg.gate, sprt, None if cfg.sprt is None else cfg.sprt.player, cfg.fail_on)
    passed = _print_results(stored, as_json, as_csv, verdicts, outcome.stopped_by, outcome.errors, quiet)
    if outcome.drawn and not quiet:  # said at the end: a bot must not learn it while the tournament runs
        from ..tournament.runner import shown_path

        err(f"golfref: seed {outcome.seed}, drawn at random (the config names none) and kept in "
            f"{shown_path(cfg.results)}, which resumes with it; seed: {outcome.seed} in a config plays these deals "
            "again")  # fmt: skip
    if junit is not None:
        _write_junit(junit, stored, verdicts)
    if outcome.stopped_by not in (None, "sprt"):
        err(
            f"golfref: interrupted by {outcome.stopped_by}; {outcome.played} matches played now, "
            f"{len(outcome.records)} of {outcome.scheduled} stored; run it again to resume"
        )
        raise typer.Exit(EXIT_SIGNAL_BASE + signal.Signals[outcome.stopped_by])
    if outcome.errors:
        raise typer.Exit(EXIT_INTERNAL)
    if not passed:
        raise typer.Exit(EXIT_FAULTED)


def _cluster_executor(
    address: str, upload: str | None, per_worker: int | None
) -> tuple[Executor, tuple[type[Exception], ...], tuple[type[Exception], ...]]:
    """The Dask executor of `--cluster`, the errors it raises, and which of them is a lost scheduler.

    A one-line error when the extra is missing or the address is not one.
    """
    from pathlib import Path

    try:
        from ..tournament.cluster import ClusterError, ClusterLost, DaskExecutor, parse_cluster, quiet_dask_logs
    except ImportError as e:
        if (e.name or "").split(".")[0] not in ("dask", "distributed"):
            raise
        fail(f"--cluster needs dask and distributed, the optional extra 'cluster': pip install 'golfref[cluster]' "
             f"({e.name} is missing)")  # fmt: skip
    quiet_dask_logs()  # the one-line errors say what went wrong; Dask's own log lines would bury them
    try:
        scheduler, local = parse_cluster(address)
        executor = DaskExecutor(
            scheduler,
            local_workers=local,
            per_worker=per_worker,
            upload=None if upload is None else Path(upload),
        )
    except ClusterError as e:
        fail(str(e))
    return executor, (ClusterError,), (ClusterLost,)


def _check_output_options(as_json: bool, as_csv: str | None) -> None:
    if as_json and as_csv is not None:
        fail("--json and --csv: choose one")
    if as_csv is not None and as_csv not in CSV_TABLES:
        fail(f"--csv {as_csv!r}: the tables are {' and '.join(CSV_TABLES)}")


def _gate_or_fail(text: str, players: list[str]) -> GateRule:
    """The `--gate` option as a rule naming two of `players`."""
    from ..config.tournament import parse_gate

    try:
        rule = parse_gate(text)
    except ValueError as e:
        fail(f"--gate {e}")
    for name in (rule.player, rule.baseline):
        if name not in players:
            fail(f"--gate {text!r}: {name!r} is not one of the players ({', '.join(players)})")
    return rule


@dataclasses.dataclass(frozen=True)
class _Verdicts:
    """What decides a tournament's exit status besides its errors and signals: the gate, the SPRT, the faults."""

    gate: GateRule | None
    sprt: SprtResult | None
    sprt_player: str | None
    fail_on: FailOn | None
    """None: the faults do not decide the exit status (`golfref standings`)."""


def _fault_verdict(records: Sequence[MatchRecord], fail_on: FailOn | None) -> str | None:
    """Why the faults fail the tournament under `fail_on`, in one line; None when they do not."""
    from ..config.match import FailOn
    from ..stats.records import DISQUALIFIED

    if fail_on is None:
        return None
    ended: dict[str, int] = {}
    faulted: dict[str, int] = {}
    for r in records:
        for name in dict.fromkeys(r.seating):
            seats = [s for s, n in enumerate(r.seating) if n == name]
            if any(r.statuses[s] == DISQUALIFIED for s in seats):
                ended[name] = ended.get(name, 0) + 1
            if any(r.faults[s] or r.fault_kinds[s] for s in seats):
                faulted[name] = faulted.get(name, 0) + 1
    if not faults_fail(fail_on, bool(ended), bool(faulted)):
        return None

    def who(counts: dict[str, int]) -> str:
        return ", ".join(f"{n} in {k} match{'' if k == 1 else 'es'}" for n, k in counts.items())

    if ended and fail_on is FailOn.ENDED:
        return (f"fail: a fault ended a bot's seat (disqualified): {who(ended)}; --accept-faults "
                "(faults.fail_on: never) exits 0 all the same")  # fmt: skip
    return f"fail: bots faulted (--strict, faults.fail_on: any): {who(faulted)}"


def _print_results(
    stored: StoredTournament,
    as_json: bool,
    as_csv: str | None,
    verdicts: _Verdicts,
    stopped_by: str | None,
    errors: tuple[str, ...],
    quiet: bool = False,
) -> bool:
    """Print the results in the chosen form; whether the gate, the SPRT and the faults all passed.

    The tables, the gate and the SPRT count the complete deal sets only; the fault verdict and
    summary cover every stored match.
    """
    from ..record.stderr import TERMINAL_STDERR_LINES
    from ..show.report import bot_change_lines, tournament_fault_lines
    from ..stats import tables as stats_tables
    from ..stats.stats import compute_stats, pooled_sd_ratio
    from ..tournament.runner import fault_summary, gate_result, shown_path

    shown = shown_path(stored.directory)
    records = stored.records
    counted = stored.counted()
    left_out = len(records) - len(counted)
    stats = compute_stats(counted)
    gate = gate_result(verdicts.gate, stats)
    sprt = verdicts.sprt
    faults = fault_summary(stored.directory, stored.matches, TERMINAL_STDERR_LINES)
    fault_failure = _fault_verdict(records, verdicts.fail_on)
    for problem in errors:
        err(f"golfref: error: {_one_line(problem)}")
    if as_json:
        pooled = pooled_sd_ratio(stats.pairs)
        data: dict[str, Any] = {
            "directory": shown,
            "matches": len(counted),
            "stored": len(records),
            "left_out": left_out,
            "stopped_by": stopped_by,
            "errors": list(errors),
            "stats": stats.to_json(),
            "duplicate_deals": {
                "enabled": stored.duplicate_deals,
                "pooled_sd_ratio": None if pooled is None else pooled[0],
                "pairs": 0 if pooled is None else pooled[1],
                "variance_reduction": None if pooled is None else 1.0 - pooled[0] ** 2,
            },
            "sprt": None if sprt is None else sprt.to_json(),
            "gate": None if gate is None else gate.to_json(),
            "faults": {
                "fail_on": None if verdicts.fail_on is None else verdicts.fail_on.value,
                "verdict": None if verdicts.fail_on is None else ("fail" if fault_failure else "pass"),
                "message": fault_failure,
                "players": [f.to_json() for f in faults],
            },
            "bot_changes": [
                {"match": c.match_index, "player": c.player, "change": c.change} for c in stored.bot_changes
            ],
        }
        out(json.dumps(data, ensure_ascii=False))
    elif as_csv is not None:
        import csv

        table = stats_tables.standings_csv_rows if as_csv == "standings" else stats_tables.pairwise_csv_rows
        csv.writer(sys.stdout, lineterminator="\n").writerows(table(stats))
    else:
        left = f" ({left_out} matches of incomplete deal sets left out)" if left_out else ""
        if not records:
            out(f"{sanitize(shown)}: no finished match yet")
        elif not counted:
            out(f"{sanitize(shown)}: no complete deal set yet{left}")
        else:
            out(f"{sanitize(shown)}: {stats.matches} matches, {stats.deal_sets} deal sets{left}; scores are points "
                "per hole, lower is better")  # fmt: skip
            sections = (
                (stats_tables.STANDINGS_TITLE, stats_tables.standings_lines(stats)),
                ("pairwise: A - B per hole, negative favours A; LOS(A): the chance A is the better",
                 stats_tables.pairwise_lines(stats)),
                ("seats: score per hole by seat, and against the table's mean", stats_tables.seat_lines(stats)),
            )  # fmt: skip
            for title, lines in sections:
                out()
                out(title)
                for line in lines:
                    out(sanitize(line))
            out()
            out(stats_tables.duplicate_deals_line(stats, stored.duplicate_deals))
    # The verdicts are the exit code's reason: on stdout with the tables, on stderr beside JSON or CSV.
    say = out if not as_json and as_csv is None else (lambda line: err(f"golfref: {line}"))
    if sprt is not None:
        if stopped_by == "sprt":
            say(f"stopped early: {sprt.describe()}")
        elif not as_json and as_csv is None:
            say(sprt.describe())
        if verdicts.sprt_player is not None and stopped_by in (None, "sprt"):
            say(f"sprt: {sprt.verdict_line(verdicts.sprt_player)}")
    if gate is not None:
        say(f"gate: {gate.message}")
    if fault_failure is not None:
        say(f"faults: {fault_failure}")
    if faults and not quiet and not as_json:
        for line in tournament_fault_lines(faults):
            err(sanitize(line))
    if not quiet and not as_json:
        for line in bot_change_lines(stored.bot_changes):
            err(sanitize(line))
    sprt_passed = sprt is None or verdicts.sprt_player is None or sprt.passed
    return (gate is None or gate.passed) and sprt_passed and fault_failure is None


def _stored_or_fail(directory: Path) -> StoredTournament:
    """The results stored in `directory`, or a one-line error."""
    from ..tournament.runner import load_stored
    from ..tournament.store import StoreError

    try:
        return load_stored(directory)
    except StoreError as e:
        fail(str(e))


def _write_junit(path: str, stored: StoredTournament, verdicts: _Verdicts) -> None:
    """Write the JUnit XML of the stored matches (with each faulted bot's stderr tail from its log), the gate and
    the SPRT; the gate's and the SPRT's cases count the complete deal sets, as the tables do."""
    from ..show.junit import Case, junit_extras, write_junit
    from ..stats.stats import compute_stats
    from ..tournament.runner import gate_result

    gate = gate_result(verdicts.gate, compute_stats(stored.counted()))
    more = []
    if verdicts.sprt is not None and verdicts.sprt_player is not None:
        line = verdicts.sprt.verdict_line(verdicts.sprt_player)
        failed = None if verdicts.sprt.passed else line
        more.append(Case(f"sprt: {verdicts.sprt.describe()}", failure=failed, details=line, kind="sprt"))
    try:
        write_junit(path, stored.records, junit_extras(stored.directory, stored.matches), gate, more=more)
    except OSError as e:
        fail(f"--junit {path}: cannot write: {e.strerror or e}", EXIT_INTERNAL)


STANDINGS_EXIT_CODES = {
    EXIT_OK: "the results were printed (and, with --gate, the gate passed)",
    EXIT_FAULTED: "with --gate: the gate failed, or had not enough data to pass",
    EXIT_USAGE: "bad usage, or a folder that holds no tournament results",
    EXIT_INTERNAL: "an internal error, or an output file could not be written",
}


@app.command(epilog=_exit_codes_help(STANDINGS_EXIT_CODES))
def standings(
    directory: Annotated[str, typer.Argument(help="A tournament directory (finished or interrupted).")],
    gate: StandingsGateOpt = None,
    as_json: JsonOpt = False,
    as_csv: CsvOpt = None,
    junit: JunitOpt = None,
    html: Annotated[
        str | None,
        typer.Option(
            "--html",
            metavar="OUT.html",
            help="Also write an HTML report (tables, charts, a replay page per match in OUT-replays/).",
        ),
    ] = None,
) -> None:
    """Print the standings, pairwise and seat tables of a tournament from its results store.

    The tables and the gate count complete deal sets only, as at the end of the tournament.
    Exit 0, or with --gate, 1 when the gate fails or has not enough data to pass.
    """
    from pathlib import Path

    _check_output_options(as_json, as_csv)
    stored = _stored_or_fail(Path(directory))
    players = list(dict.fromkeys(name for r in stored.records for name in r.seating))
    rule = None if gate is None else _gate_or_fail(gate, players)
    verdicts = _Verdicts(rule, None, None, None)
    passed = _print_results(stored, as_json, as_csv, verdicts, None, ())
    if junit is not None:
        _write_junit(junit, stored, verdicts)
    if html is not None:
        _write_report_html(Path(directory), html)
    if not passed:
        raise typer.Exit(EXIT_FAULTED)


def _write_report_html(directory: Path, target: str) -> None:
    """`golfref standings DIR --html OUT`: the report and its replay pages; a warning for each match left out."""
    from pathlib import Path

    from ..show.html_report import replays_folder, write_report
    from ..tournament.store import StoreError

    try:
        written = write_report(directory, Path(target))
    except StoreError as e:
        fail(str(e))
    except OSError as e:
        fail(f"--html {target}: cannot write: {e.strerror or e}", EXIT_INTERNAL)
    for line in written.problems:
        err(sanitize(_one_line(f"golfref: warning: no replay for {line}")))
    folder = replays_folder(Path(target))
    err(sanitize(f"golfref: wrote {target} and {written.replays} of {written.matches} replays in {folder}"))


EVERY_COMMAND_EXIT_CODES = {
    EXIT_INTERNAL: "an internal error in golfref (one `golfref: internal error:` line, no traceback), or its output "
    "could not be written",
    EXIT_INTERRUPTED: "stopped by Ctrl-C (143 SIGTERM, 129 SIGHUP: 128 + the signal's number)",
}
"""The exit codes any command may give, beside its own (a command's own entry says more where it has one)."""

COMMAND_EXIT_CODES: dict[str, dict[int, str]] = {
    "run": RUN_EXIT_CODES,
    "play": PLAY_EXIT_CODES,
    "check-config": CHECK_CONFIG_EXIT_CODES,
    "tournament": TOURNAMENT_EXIT_CODES,
    "standings": STANDINGS_EXIT_CODES,
    "replay": REPLAY_EXIT_CODES,
    "audit": AUDIT_EXIT_CODES,
    "check-bot": CHECK_BOT_EXIT_CODES,
    "replay-bot": REPLAY_BOT_EXIT_CODES,
    "keygen": KEYGEN_EXIT_CODES,
    "score": SCORE_EXIT_CODES,
    "rules": RULES_EXIT_CODES,
}
"""Every command's own exit codes, as its --help lists them and the README's table of exit statuses."""


class _Interrupted(BaseException):
    """Ctrl-C outside a match: typer would turn a KeyboardInterrupt into a silent exit 130."""


def _on_interrupt(signum: int, frame: object) -> None:
    raise _Interrupted


def main() -> None:
    """Console entry point: one-line errors, and the exit codes the README documents."""
    try:
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # ignored in a background job: leave it so
            signal.signal(signal.SIGINT, _on_interrupt)  # run_match puts its own in place while a match runs
        code = app(standalone_mode=False)
    except NoArgsIsHelpError as e:  # `golfref` alone: the help is the answer, as a usage error
        e.show()
        sys.exit(EXIT_USAGE)
    except UsageError as e:
        # typer's own rendering of a usage error is a box of several lines; here it is one.
        hint = f" (see {e.ctx.command_path} --help)" if e.ctx is not None else ""
        err(f"golfref: error: {_one_line(e.format_message())}{hint}")
        sys.exit(e.exit_code)
    except typer.TyperException as e:  # any other error typer reports (a file it could not open...)
        err(f"golfref: error: {_one_line(e.format_message())}")
        sys.exit(max(e.exit_code, EXIT_USAGE))
    except (_Interrupted, KeyboardInterrupt, typer.Abort):
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
