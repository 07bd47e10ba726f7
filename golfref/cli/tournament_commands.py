"""The commands of tournaments: `tournament` plays or resumes one, `standings` shows its results."""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..game.rules import PRESETS
from ..show.terminal import sanitize
from .exits import (
    EXIT_BOT_CHANGED,
    EXIT_FAULTED,
    EXIT_INTERNAL,
    EXIT_USAGE,
    EXITS,
    fail,
    fail_config,
)
from .inputs import check_sandboxes, player_label, sandbox_warning, signer_or_fail, tournament_or_fail
from .options import AcceptFaultsOpt, StrictOpt, check_fault_flags, chosen_fail_on, parse_sets, seed_option
from .output import err, one_line, out

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ..config.match import FailOn
    from ..config.tournament import GateRule, TournamentConfig
    from ..tournament.executor import Executor
    from ..tournament.results import TournamentResults
    from ..tournament.runner import StoredTournament, TournamentResult


QuickPresetOpt = Annotated[
    str, typer.Option("--preset", "-p", help=f"The rule preset of a quick tournament: {', '.join(PRESETS)}.")
]


TournamentSignOpt = Annotated[
    str | None,
    typer.Option("--sign", metavar="KEY", help="Sign each match's final log with this private key (golfref keygen)."),
]


TournamentSandboxOpt = Annotated[
    bool | None,
    typer.Option(
        "--sandbox/--no-sandbox",
        help="Isolate each bot (docs/SANDBOX.md); default: the config's sandbox.enabled, on unless it says false.",
    ),
]



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


HtmlOpt = Annotated[
    str | None,
    typer.Option(
        "--html",
        metavar="OUT.html",
        help="Also write an HTML report (tables, intervals, traces, and each match's replay and seat pages in "
        "OUT-replays/).",
    ),
]


NoReplaysOpt = Annotated[
    bool, typer.Option("--no-replays", help="With --html: write the report alone, without the replay pages.")
]


def tournament(
    config: Annotated[str | None, typer.Argument(help="The tournament config (YAML); or use --bot/--builtin.")] = None,
    bots: Annotated[
        list[str] | None, typer.Option("--bot", metavar="NAME=COMMAND", help="A bot of a quick tournament.")
    ] = None,
    builtins: Annotated[
        list[str] | None,
        typer.Option(
            "--builtin", metavar="NAME=POLICY", help="A built-in player (random, greedy, good, expert) of a quick one."
        ),
    ] = None,
    preset: QuickPresetOpt = "standard",
    sets: Annotated[
        list[str] | None,
        typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override one rule option of a quick one (repeatable)."),
    ] = None,
    deal_sets: Annotated[int, typer.Option("--deal-sets", min=1, help="Deal sets of a quick tournament.")] = 10,
    seed: Annotated[
        int | None,
        seed_option("Seed of a quick tournament (default: a secret one, drawn and kept in its directory)."),
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
    html: HtmlOpt = None,
    no_replays: NoReplaysOpt = False,
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

    from ..tournament.results import Verdicts, tournament_results
    from ..tournament.runner import shown_path, sprt_decision

    _check_output_options(as_json, as_csv, html, no_replays)
    check_fault_flags(strict, accept_faults)
    cfg = _tournament_config(config, bots, builtins, preset, sets, deal_sets, seed)
    cfg = _with_options(cfg, results, gate, chosen_fail_on(cfg.fail_on, strict, accept_faults), sandbox)
    if allow_bot_changes:
        cfg = replace(cfg, allow_bot_changes=True)
    _check_before_any_match(cfg, sign, cluster)
    executor = _executor(cluster, workers, cluster_upload, cluster_per_worker)
    live = not quiet and not as_json and as_csv is None and sys.stderr.isatty()
    outcome = _play(cfg, workers, executor, sign, live, _own_outputs(html, junit))
    stored = _stored_or_fail(cfg.results)
    sprt_player = None if cfg.sprt is None else cfg.sprt.player
    verdicts = Verdicts(cfg.gate, sprt_decision(cfg, stored.records), sprt_player, cfg.fail_on, cfg.sprt)
    shown = tournament_results(stored, verdicts, outcome.stopped_by, outcome.errors)
    _print_results(shown, as_json, as_csv, quiet)
    if outcome.drawn and not quiet:  # said at the end: a bot must not learn it while the tournament runs
        err(f"golfref: seed {outcome.seed}, drawn at random (the config names none) and kept in "
            f"{shown_path(cfg.results)}, which resumes with it; seed: {outcome.seed} in a config plays these deals "
            "again")  # fmt: skip
    if junit is not None:
        _write_junit(junit, shown)
    if html is not None:
        _write_report_html(shown, html, not no_replays)
    if outcome.stopped_by not in (None, "sprt"):
        err(
            f"golfref: interrupted by {outcome.stopped_by}; {outcome.played} matches played now, "
            f"{len(outcome.records)} of {outcome.scheduled} stored; run it again to resume"
        )
        EXITS.signalled(signal.Signals[outcome.stopped_by])
    if outcome.errors:
        EXITS.exit(EXIT_INTERNAL)
    if not shown.passed:
        EXITS.exit(EXIT_FAULTED)


def _tournament_config(
    config: str | None,
    bots: list[str] | None,
    builtins: list[str] | None,
    preset: str,
    sets: list[str] | None,
    deal_sets: int,
    seed: int | None,
) -> TournamentConfig:
    """The tournament of a config file, or of a quick one's --bot and --builtin players (only one of them)."""
    if (config is None) == (not bots and not builtins):
        fail("give a tournament config, or the players of a quick one with --bot NAME=COMMAND "
             "and --builtin NAME=POLICY (not both)")  # fmt: skip
    if config is None:
        return _quick_tournament(bots or [], builtins or [], preset, deal_sets, seed, None, sets)
    if sets:
        fail(f"--set goes with a quick tournament (--bot, --builtin): change {config}'s rules: instead")
    return tournament_or_fail(config)


def _with_options(
    cfg: TournamentConfig, results: str | None, gate: str | None, fail_on: FailOn, sandbox: bool | None
) -> TournamentConfig:
    """`cfg` with what the options change: `--results`, `--gate`, the faults that fail it, `--[no-]sandbox`."""
    from dataclasses import replace
    from pathlib import Path

    if results is not None:
        if not results.strip():
            fail("--results: the path is empty")
        cfg = replace(cfg, results=Path(results))
    if gate is not None:
        cfg = replace(cfg, gate=_gate_or_fail(gate, [p.name for p in cfg.players]))
    return replace(cfg, sandbox=cfg.sandbox.switched(sandbox), fail_on=fail_on)


def _check_before_any_match(cfg: TournamentConfig, sign: str | None, cluster: str | None) -> None:
    """Refuse, before any match, a bad signing key and (here, not on a cluster) a bot that could not be sandboxed."""
    from pathlib import Path

    sandbox_warning(cfg.sandbox, cfg.players, tournament=True)
    signer_or_fail(sign)  # a bad key is refused before any match
    if cluster is None:  # a cluster's workers check their own
        hide = (cfg.results,) if sign is None else (cfg.results, Path(sign))
        check_sandboxes(cfg.sandbox, cfg.players, cfg.results / "logs", cfg.source, hide, player_label)


@dataclasses.dataclass(frozen=True)
class _Cluster:
    """The Dask executor of `--cluster`, the errors it raises, and which of them is a lost scheduler."""

    executor: Executor
    errors: tuple[type[Exception], ...]
    lost: tuple[type[Exception], ...]


def _executor(
    cluster: str | None, workers: int | None, upload: str | None, per_worker: int | None
) -> _Cluster | None:
    """The cluster of `--cluster` (None: the matches play here, `--workers` at once)."""
    if cluster is None:
        if upload is not None or per_worker is not None:
            fail("--cluster-upload and --cluster-per-worker go with --cluster ADDRESS")
        return None
    if workers is not None:
        fail("--workers and --cluster: choose one (a cluster's workers are its own: --cluster-per-worker)")
    return _Cluster(*_cluster_executor(cluster, upload, per_worker))


def _own_outputs(html: str | None, junit: str | None) -> list[Path]:
    """The files this command writes beside the results folder: no bot's fingerprint covers them."""
    from pathlib import Path

    from ..show.html_report import replays_folder

    reports = [] if html is None else [Path(html), replays_folder(Path(html))]
    return [*reports, *([] if junit is None else [Path(junit)])]


def _play(
    cfg: TournamentConfig,
    workers: int | None,
    cluster: _Cluster | None,
    sign: str | None,
    live: bool,
    outputs: Sequence[Path] = (),
) -> TournamentResult:
    """Run the tournament (with the live display on a terminal), its errors as golfref's one-line errors."""
    from pathlib import Path

    from ..tournament.runner import BotChanged, TournamentError, run_tournament
    from ..tournament.store import StoreError

    view = None
    if live:
        from ..show.live_tournament import LiveTournament

        view = LiveTournament([p.name for p in cfg.players])
    # Caught only with --cluster: without it, dask is not imported.
    cluster_errors = () if cluster is None else cluster.errors
    try:
        with view if view is not None else contextlib.nullcontext():
            result = run_tournament(
                cfg,
                workers=workers,
                executor=None if cluster is None else cluster.executor,
                on_progress=None if view is None else view.update,
                sign_key=None if sign is None else Path(sign).resolve(),
                outputs=outputs,
            )
        for note in result.notes:
            err(sanitize(f"golfref: {note}"))
        return result
    except BotChanged as e:
        fail(str(e), EXIT_BOT_CHANGED)
    except (TournamentError, StoreError) as e:
        fail(str(e))
    except cluster_errors as e:
        fail(str(e), EXIT_INTERNAL if cluster is not None and isinstance(e, cluster.lost) else EXIT_USAGE)


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


def _check_output_options(as_json: bool, as_csv: str | None, html: str | None, no_replays: bool) -> None:
    """`--json` or `--csv TABLE`, one of them, and a table there is; `--no-replays` only with `--html`."""
    from ..show.tournament_text import CSV_TABLES

    if as_json and as_csv is not None:
        fail("--json and --csv: choose one")
    if as_csv is not None and as_csv not in CSV_TABLES:
        fail(f"--csv {as_csv!r}: the tables are {' and '.join(CSV_TABLES)}")
    if no_replays and html is None:
        fail("--no-replays goes with --html OUT.html: without a report no replay page is written anyway")
    if html is not None and not html.strip():
        fail("--html: the path is empty")


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


def _print_results(results: TournamentResults, as_json: bool, as_csv: str | None, quiet: bool = False) -> None:
    """Print the results in the chosen form, then the verdicts and (unless quiet, or with JSON) the bots' faults."""
    from ..show.tournament_text import diagnostic_lines, results_csv, results_json, results_lines, verdict_lines

    for problem in results.errors:
        err(f"golfref: error: {one_line(problem)}")
    tables = not as_json and as_csv is None
    if as_json:
        out(results_json(results))
    elif as_csv is not None:
        sys.stdout.write(results_csv(results, as_csv))
    else:
        for line in results_lines(results):
            out(line)
    # The verdicts are the exit code's reason: on stdout with the tables, on stderr beside JSON or CSV.
    for line in verdict_lines(results, tables):
        out(line) if tables else err(f"golfref: {line}")
    if not quiet and not as_json:
        for line in diagnostic_lines(results):
            err(line)


def _stored_or_fail(directory: Path) -> StoredTournament:
    """The results stored in `directory`, or a one-line error."""
    from ..tournament.runner import load_stored
    from ..tournament.store import StoreError

    try:
        return load_stored(directory)
    except StoreError as e:
        fail(str(e))


def _write_junit(path: str, results: TournamentResults) -> None:
    """`--junit FILE`: the JUnit XML of the results, or a one-line error."""
    from pathlib import Path

    from ..show.tournament_text import write_results_junit
    from ..tournament.runner import note_outputs

    try:
        write_results_junit(path, results)
    except OSError as e:
        fail(f"--junit {path}: cannot write: {e.strerror or e}", EXIT_INTERNAL)
    note_outputs(results.stored.directory, [Path(path)])


def standings(
    directory: Annotated[str, typer.Argument(help="A tournament directory (finished or interrupted).")],
    gate: StandingsGateOpt = None,
    as_json: JsonOpt = False,
    as_csv: CsvOpt = None,
    junit: JunitOpt = None,
    html: HtmlOpt = None,
    no_replays: NoReplaysOpt = False,
) -> None:
    """Print the standings, pairwise and seat tables of a tournament from its results store.

    The tables and the gate count complete deal sets only, as at the end of the tournament.
    Exit 0, or with --gate, 1 when the gate fails or has not enough data to pass.
    """
    from pathlib import Path

    from ..tournament.results import Verdicts, tournament_results
    from ..tournament.runner import sprt_result

    _check_output_options(as_json, as_csv, html, no_replays)
    stored = _stored_or_fail(Path(directory))
    players = list(dict.fromkeys(name for r in stored.records for name in r.seating))
    rule = None if gate is None else _gate_or_fail(gate, players)
    # The SPRT and the gate of the tournament's last run (its store keeps them) are shown, not obeyed: only
    # --gate decides standings' exit status, never the faults or the SPRT.
    kept = stored.sprt_rule
    test = None if kept is None else sprt_result(kept, stored.counted())
    results = tournament_results(stored, Verdicts(rule or stored.gate_rule, test, None, None, kept))
    _print_results(results, as_json, as_csv)
    if junit is not None:  # a CI system reads its cases as verdicts: the stored gate's is not one here
        _write_junit(junit, results if rule is not None else dataclasses.replace(results, gate=None))
    if html is not None:
        _write_report_html(results, html, not no_replays)
    if rule is not None and not results.passed:
        EXITS.exit(EXIT_FAULTED)


def _write_report_html(results: TournamentResults, target: str, replays: bool) -> None:
    """`--html OUT`: the report and (with `replays`) its replay pages; a warning for each match without one."""
    from pathlib import Path

    from ..show.html_report import replays_folder, write_report
    from ..tournament.runner import note_outputs

    try:
        written = write_report(results, Path(target), replays)
    except OSError as e:
        fail(f"--html {target}: cannot write: {e.strerror or e}", EXIT_INTERNAL)
    note_outputs(results.stored.directory, [Path(target), replays_folder(Path(target))])
    for line in written.problems:
        err(sanitize(one_line(f"golfref: warning: no replay for {line}")))
    if not replays:
        err(sanitize(f"golfref: wrote {target} (no replay pages: --no-replays)"))
        return
    folder = replays_folder(Path(target))
    err(sanitize(f"golfref: wrote {target} and {written.replays} of {written.matches} replays, each with its seats' "
                 f"pages, in {folder}"))  # fmt: skip
