"""The commands of tournaments: `tournament` plays or resumes one, `standings` shows its results."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import signal
import sys
from collections.abc import Sequence
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
    from pathlib import Path

    from ..config.match import FailOn
    from ..config.tournament import GateRule, TournamentConfig
    from ..stats.records import MatchRecord
    from ..stats.sprt import SprtResult
    from ..tournament.executor import Executor
    from ..tournament.runner import StoredTournament


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
    check_fault_flags(strict, accept_faults)
    if (config is None) == (not bots and not builtins):
        fail("give a tournament config, or the players of a quick one with --bot NAME=COMMAND "
             "and --builtin NAME=POLICY (not both)")  # fmt: skip
    if config is not None:
        if sets:
            fail(f"--set goes with a quick tournament (--bot, --builtin): change {config}'s rules: instead")
        cfg = tournament_or_fail(config)
    else:
        cfg = _quick_tournament(bots or [], builtins or [], preset, deal_sets, seed, None, sets)
    if results is not None:
        if not results.strip():
            fail("--results: the path is empty")
        cfg = replace(cfg, results=Path(results))
    if gate is not None:
        cfg = replace(cfg, gate=_gate_or_fail(gate, [p.name for p in cfg.players]))
    fail_on = chosen_fail_on(cfg.fail_on, strict, accept_faults)
    cfg = replace(cfg, sandbox=cfg.sandbox.switched(sandbox), fail_on=fail_on)
    if allow_bot_changes:
        cfg = replace(cfg, allow_bot_changes=True)
    sandbox_warning(cfg.sandbox, cfg.players, tournament=True)
    signer_or_fail(sign)  # a bad key is refused before any match
    if cluster is None:  # a bot that could not be sandboxed is refused before any match (workers check their own)
        hide = (cfg.results,) if sign is None else (cfg.results, Path(sign))
        check_sandboxes(cfg.sandbox, cfg.players, cfg.results / "logs", cfg.source, hide, player_label)
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
        EXITS.signalled(signal.Signals[outcome.stopped_by])
    if outcome.errors:
        EXITS.exit(EXIT_INTERNAL)
    if not passed:
        EXITS.exit(EXIT_FAULTED)


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
    if not EXITS.faults_fail(fail_on, bool(ended), bool(faulted)):
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
    from ..show.report import STDERR_TAIL, bot_change_lines, tournament_fault_lines
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
    faults = fault_summary(stored.directory, stored.matches, STDERR_TAIL)
    fault_failure = _fault_verdict(records, verdicts.fail_on)
    for problem in errors:
        err(f"golfref: error: {one_line(problem)}")
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
    from ..show.junit import Case, write_junit
    from ..stats.stats import compute_stats
    from ..tournament.runner import gate_result, junit_extras

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
        EXITS.exit(EXIT_FAULTED)


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
        err(sanitize(one_line(f"golfref: warning: no replay for {line}")))
    folder = replays_folder(Path(target))
    err(sanitize(f"golfref: wrote {target} and {written.replays} of {written.matches} replays in {folder}"))
