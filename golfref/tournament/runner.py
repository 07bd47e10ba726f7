"""Running a tournament: the schedule, resumed from the store, played by an executor, stopped by its rules.

`run_tournament` is the one entry point. It takes the tournament directory's lock,
checks the store belongs to this config, keeps every finished match whose log still
validates (recovering ones played but never stored, after a kill), plays the rest through
the executor, stores each result as it comes, and stops early when the SPRT is decided or
on a stop signal (finished matches kept, running ones interrupted).

Each external bot's build (`fingerprint.build`) is taken when the tournament starts and kept
in the store, and checked again before every match, wherever it runs: a bot whose files
changed (another bot rewrote its program, say, without the sandbox) stops the tournament with
`BotChanged`, finished matches kept, unless the config allows changes; then each match played
with a changed bot stores what changed, for the summary. A resume compares the bots with the
builds the tournament started with, so a change is noticed across runs too.

No build covers what golfref writes itself (the results folder, the report and JUnit files of
this run and of earlier ones, which the store keeps a note of, and the file this run's output
is redirected into), nor the files a player's `fingerprint.exclude` names: those are left out
of the build taken now and of the one the tournament started with alike.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..bots.fingerprint import DIRECTORY_CAP_FILES, Build, build, changed_files, changes, redirected_into
from ..config.tournament import GateRule, SprtRule, TournamentConfig, config_changes
from ..match.stopping import Stop, stop_on_signals
from ..record.matchlog import MatchLog
from ..record.stderr import stderr_tail
from ..stats.records import DISQUALIFIED, MatchRecord
from ..stats.sprt import Gate, GateResult, SprtConfig, SprtResult, evaluate_gate, sprt
from ..stats.stats import TournamentStats, complete_deal_sets, pair_block_differences
from .executor import Executor, LocalExecutor, MatchJob, MatchOutcome, record_from_log
from .schedule import MatchSpec, match_config, matches_per_deal_set, schedule
from .store import META_VALUE_MAX_BYTES, Store, StoredMatch, StoreError

__all__ = [
    "TournamentError",
    "BotChanged",
    "BotChange",
    "Progress",
    "TournamentResult",
    "StoredTournament",
    "FaultedMatch",
    "StderrTail",
    "PlayerFaults",
    "run_tournament",
    "load_stored",
    "sprt_decision",
    "sprt_result",
    "gate_result",
    "seat_details",
    "fault_summary",
    "shown_path",
    "check_secrets",
    "tournament_seed",
    "note_outputs",
]

LOCK_NAME = ".lock"
_LOCK_WAIT = 30.0  # s: the workers of a killed run may still be closing their matches


class TournamentError(Exception):
    """A tournament that cannot run here: a directory holding another config, a busy directory."""


class BotChanged(TournamentError):
    """A bot's files changed since the tournament started (and the config does not allow it): it stops."""


BUILDS_META = "bot_builds"
"""The store's meta key of each external bot's build when the tournament started (JSON: name -> build or null)."""


@dataclass(frozen=True)
class BotChange:
    """A bot whose files had changed when a stored match was played (`allow_bot_changes`)."""

    match_index: int
    player: str
    change: str
    """What changed, in a few words (`fingerprint.changes`)."""


@dataclass
class Progress:
    """How far the tournament is, for a progress display."""

    total: int
    done: int
    kept: int
    faults: int
    records: list[MatchRecord]
    started: float


@dataclass(frozen=True)
class TournamentResult:
    """How a run ended: every stored record, what was played now, and why it stopped."""

    records: tuple[MatchRecord, ...]
    scheduled: int
    played: int
    kept: int
    errors: tuple[str, ...]
    stopped_by: str | None
    """None (every match played), ``sprt`` (decided early) or the signal's name."""
    directory: Path
    seed: int
    """The tournament's seed: the config's, or the one drawn for it (`drawn`)."""
    drawn: bool = False
    """Whether `seed` was drawn at random because the config names none (and is kept in the store)."""
    notes: tuple[str, ...] = ()
    """What the run left out of a bot's fingerprint on its own (the file its output is redirected into), in words."""


def shown_path(path: Path) -> str:
    """A path for people: relative to the current directory when under it, else absolute; no `..` left in."""
    full = path.resolve()
    try:
        return str(full.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(full)


@dataclass(frozen=True)
class StoredTournament:
    """A tournament directory's results as its store holds them, for the tables, verdicts and reports."""

    directory: Path
    matches: tuple[StoredMatch, ...]
    """Every stored match of the tournament's deal sets (those of deal sets beyond a lowered
    `deal_sets` stay in the store, left out here), in schedule order."""
    per_deal_set: int | None
    """Matches that make a deal set whole (the store's schedule says); None: every match counts."""
    duplicate_deals: bool
    name: str | None
    bot_changes: tuple[BotChange, ...] = ()
    """The stored matches' bots whose files had changed since the tournament started, in match order."""
    challenger: str | None = None
    """A gauntlet's challenger (every table has it); None for a round robin or a store that does not say."""
    sprt_rule: SprtRule | None = None
    """The SPRT of the last run that played here (the store keeps it beside the config), or None."""
    gate_rule: GateRule | None = None
    """The gate of the last run that played here, or None."""

    @property
    def records(self) -> list[MatchRecord]:
        """Every stored match's record."""
        return [m.record for m in self.matches]

    def counted(self) -> list[MatchRecord]:
        """The records of complete deal sets: all that the tables, the gate and the SPRT count."""
        records = self.records
        return records if self.per_deal_set is None else complete_deal_sets(records, self.per_deal_set)


def load_stored(directory: Path) -> StoredTournament:
    """The results stored in `directory`, read only and defensively (`store`); StoreError when there are none,
    or they cannot be read, or the store is malformed."""
    with Store(directory, readonly=True) as store:
        return _read_stored(store, directory)


def _read_stored(store: Store, directory: Path) -> StoredTournament:
    """What `load_stored` reads, from an open store: the one reader, which a resume also passes a store through."""
    plan = store.schedule()
    matches = store.matches()  # those of the last run's deal sets only: the schedule's
    duplicate, name = store.meta("duplicate_deals"), store.meta("tournament")
    sprt_rule, gate_rule = _verdict_rules(store)
    found = store.bot_changes()
    shown = {m.record.match_index for m in matches}
    changed = tuple(BotChange(i, p, c) for i, pairs in sorted(found.items()) if i in shown for p, c in pairs)
    return StoredTournament(
        directory, tuple(matches), plan.per_deal_set, duplicate != "false", name, changed,
        challenger=plan.challenger, sprt_rule=sprt_rule, gate_rule=gate_rule,
    )  # fmt: skip


def _verdict_rules(store: Store) -> tuple[SprtRule | None, GateRule | None]:
    """The SPRT and the gate a store keeps (`VERDICT_RULES_META`), checked as a config's are; StoreError if damaged."""
    kept = store.meta_json(VERDICT_RULES_META)
    if not kept:
        return None, None
    try:
        sprt_rule = None if kept.get("sprt") is None else SprtRule(**kept["sprt"])
        gate_rule = None if kept.get("gate") is None else GateRule(**kept["gate"])
        if sprt_rule is not None:
            SprtConfig(d0=sprt_rule.d0, d1=sprt_rule.d1, alpha=sprt_rule.alpha, beta=sprt_rule.beta)
        if gate_rule is not None:
            Gate(gate_rule.player, gate_rule.baseline, gate_rule.margin, gate_rule.confidence)
    except (ValueError, TypeError, AttributeError) as e:
        raise StoreError(f"{store.directory}: its store's {VERDICT_RULES_META} cannot be read: {e}") from None
    return sprt_rule, gate_rule


VERDICT_RULES_META = "verdict_rules"
"""The store's meta key of the last run's SPRT and gate (JSON), which `golfref standings` shows; not part of the
config's canonical form (they change what is concluded, not the matches)."""


def _verdict_rules_json(config: TournamentConfig) -> str:
    def plain(rule: SprtRule | GateRule | None) -> dict[str, Any] | None:
        return None if rule is None else asdict(rule)

    return json.dumps({"sprt": plain(config.sprt), "gate": plain(config.gate)}, sort_keys=True)


def sprt_decision(config: TournamentConfig, records: Sequence[MatchRecord]) -> SprtResult | None:
    """The SPRT's result on the complete deal sets so far, or None when the config has no SPRT."""
    if config.sprt is None:
        return None
    return sprt_result(config.sprt, complete_deal_sets(records, matches_per_deal_set(config)))


def sprt_result(rule: SprtRule, complete: Sequence[MatchRecord]) -> SprtResult:
    """The SPRT of `rule` on the records of complete deal sets."""
    diffs = pair_block_differences(complete, rule.player, rule.baseline)
    return sprt(diffs, SprtConfig(d0=rule.d0, d1=rule.d1, alpha=rule.alpha, beta=rule.beta))


def gate_result(rule: GateRule | None, stats: TournamentStats) -> GateResult | None:
    """The gate's verdict on the statistics, or None when no gate is given."""
    if rule is None:
        return None
    return evaluate_gate(Gate(rule.player, rule.baseline, rule.margin, rule.confidence), stats)


def seat_details(path: Path, seats: Sequence[int], lines: int) -> tuple[dict[int, str], dict[int, str]]:
    """Per seat, from a match's log (which keeps them): its fault messages, and the last `lines` lines of
    its bot's stderr. An unreadable log, or a link in its place (never followed: golfref found the path), gives none."""
    from ..record.log import LogError, read_log
    from ..record.matchlog import read_match_log

    messages: dict[int, str] = {}
    tails: dict[int, str] = {}
    try:
        log = read_match_log(read_log(path, follow_links=False))
    except LogError:
        return messages, tails
    players = log.players
    for seat in seats:
        faults = log.seat_faults(seat)
        if faults:
            messages[seat] = "\n".join(f"{f.kind.value}: {f.message}" for f in faults)
        stderr = players[seat].stderr if seat < len(players) else None
        if stderr:
            tails[seat] = stderr_tail(stderr, lines)
    return messages, tails


_NO_START = ("start_failed", "exited")
"""The fault kinds after which a bot's stderr usually says why it is gone: the summary quotes it."""


@dataclass(frozen=True)
class FaultedMatch:
    """One match in which a player faulted: its index, its log, the faults of the player there."""

    index: int
    log_path: str
    kinds: tuple[str, ...]
    """The kind of each of the player's faults there, in order (all its seats of the match)."""
    forfeited: bool
    """Whether the player was disqualified there."""


@dataclass(frozen=True)
class StderrTail:
    """The end of a bot's stderr in the first match where it failed to start or exited."""

    index: int
    log_path: str
    kind: str
    tail: str


@dataclass(frozen=True)
class PlayerFaults:
    """One player's faults over a tournament: by kind, with the matches they happened in."""

    player: str
    played: int
    """Matches it played (once per match, however many seats it had there, as `matches` counts them)."""
    matches: tuple[FaultedMatch, ...]
    stderr: StderrTail | None

    @property
    def forfeits(self) -> int:
        """Matches it was disqualified in."""
        return sum(m.forfeited for m in self.matches)

    def counts(self) -> dict[str, int]:
        """Faults per kind, in order of first appearance."""
        out: dict[str, int] = {}
        for m in self.matches:
            for kind in m.kinds:
                out[kind] = out.get(kind, 0) + 1
        return out

    def matches_with(self, kind: str) -> list[FaultedMatch]:
        """The matches in which it had a fault of `kind`."""
        return [m for m in self.matches if kind in m.kinds]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "player": self.player,
            "matches": self.played,
            "forfeits": self.forfeits,
            "kinds": self.counts(),
            "faulted_matches": [
                {"match": m.index, "log": m.log_path, "kinds": list(m.kinds), "forfeited": m.forfeited}
                for m in self.matches
            ],
            "stderr": None
            if self.stderr is None
            else {"match": self.stderr.index, "log": self.stderr.log_path, "kind": self.stderr.kind,
                  "tail": self.stderr.tail},
        }  # fmt: skip


def fault_summary(directory: Path, matches: Sequence[StoredMatch], lines: int) -> tuple[PlayerFaults, ...]:
    """Per player that faulted, in order of first appearance: its faults by match, and for one that failed to
    start or exited, the last `lines` lines of its stderr in the first such match (read from that log)."""
    played: dict[str, int] = {}
    faulted: dict[str, list[FaultedMatch]] = {}
    tails: dict[str, StderrTail] = {}
    for m in sorted(matches, key=lambda m: m.record.match_index):
        record = m.record
        path = directory / m.log_path
        for name in dict.fromkeys(record.seating):
            played[name] = played.get(name, 0) + 1
            mine = [s for s, n in enumerate(record.seating) if n == name]
            kinds = tuple(kind for s in mine for kind in record.fault_kinds[s])
            forfeited = any(record.statuses[s] == DISQUALIFIED for s in mine)
            if not kinds and not forfeited:
                continue
            faulted.setdefault(name, []).append(FaultedMatch(record.match_index, shown_path(path), kinds, forfeited))
            gone = [s for s in mine if any(k in _NO_START for k in record.fault_kinds[s])]
            if gone and name not in tails:
                _, found = seat_details(path, gone[:1], lines)
                if found:
                    kind = next(k for k in record.fault_kinds[gone[0]] if k in _NO_START)
                    tails[name] = StderrTail(record.match_index, shown_path(path), kind, found[gone[0]])
    return tuple(PlayerFaults(name, played[name], tuple(ms), tails.get(name)) for name, ms in faulted.items())


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """Hold the directory's lock; forked workers inherit it, so a killed run's last workers still hold it."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    directory.mkdir(mode=0o700, exist_ok=True)  # for the owner alone: the store keeps the seed, the logs the deals
    try:
        fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as e:
        raise TournamentError(f"{directory / LOCK_NAME}: cannot open the lock: {e.strerror or e}") from None
    try:
        deadline = time.monotonic() + _LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TournamentError(f"{directory}: another golfref tournament is running there") from None
                time.sleep(0.1)
        yield
    finally:
        os.close(fd)


OUTPUTS_META = "golfref_outputs"
"""The store's meta key of the files golfref wrote for this tournament beside its results folder (JSON: absolute
paths): report pages and JUnit files, which no bot's build covers on a later run either."""


def note_outputs(directory: Path, paths: Sequence[Path]) -> None:
    """Keep in `directory`'s store that golfref wrote `paths` (a report, its replays, a JUnit file) for it.

    A later run of the tournament leaves them out of every bot's build. A store golfref may not
    write to (a read-only copy of the results) keeps no note: those files then count as the bot's.
    """
    try:
        with Store(directory, create=False) as store:
            _note(store, paths)
    except (StoreError, OSError, sqlite3.Error):
        return


def _note(store: Store, paths: Sequence[Path]) -> tuple[Path, ...]:
    """Add `paths` to the store's note of golfref's outputs; every path noted, old and new."""
    kept = store.meta_json(OUTPUTS_META) or []
    if not isinstance(kept, list) or not all(isinstance(p, str) and p and "\x00" not in p for p in kept):
        raise StoreError(f"{store.path}: meta {OUTPUTS_META} is not a list of paths")
    known = [Path(p) for p in kept]
    noted = tuple(dict.fromkeys([*known, *(Path(os.path.abspath(p)) for p in paths)]))
    if len(noted) > len(known):
        store.set_meta({OUTPUTS_META: json.dumps([str(p) for p in noted])})
    return noted


def _builds_now(config: TournamentConfig, outputs: Sequence[Path]) -> dict[str, Build | None]:
    """Each external player's build now (None: its program is not there), golfref's `outputs` left out."""
    return {
        p.name: build(p.command, p.cwd, dict(p.env), outputs=outputs, exclude=p.fingerprint_exclude)
        for p in config.players
        if p.command is not None
    }


def _redirected(now: dict[str, Build | None]) -> dict[str, list[Path]]:
    """Per player, the files of its folder that this run's stdout or stderr is redirected into."""
    found: dict[str, list[Path]] = {}
    for name, b in now.items():
        if b is not None and b.root is not None:
            paths = [Path(b.root, rel) for rel in redirected_into(b)]
            if paths:
                found[name] = paths
    return found


def _reference(
    store: Store, now: dict[str, Build | None], config: TournamentConfig, outputs: Sequence[Path]
) -> dict[str, Build | None]:
    """The builds the tournament plays its matches with: those it started with, once a match is stored.

    What is left out now (`outputs`, each player's `fingerprint.exclude`) is left out of them too.
    """
    started = store.meta_json(BUILDS_META, _builds_max_bytes(len(now)))
    if started is not None and store.holds_matches():
        if not isinstance(started, dict):
            raise StoreError(f"{store.path}: meta {BUILDS_META} is not a build per bot")
        exclude = {p.name: p.fingerprint_exclude for p in config.players}
        reference = {}
        for name, found in now.items():
            if name not in started:
                reference[name] = found
                continue
            was = None if started[name] is None else _stored_build(store, name, started[name])
            root = None if found is None else found.root
            reference[name] = None if was is None else was.without(exclude.get(name, ()), outputs, root)
        return reference
    store.set_meta({BUILDS_META: json.dumps({n: None if b is None else b.to_json() for n, b in now.items()})})
    return now


def _builds_max_bytes(bots: int) -> int:
    """The longest `BUILDS_META` a store may keep for `bots` bots: each build lists up to
    `DIRECTORY_CAP_FILES` files, each with its path, size and hash."""
    return META_VALUE_MAX_BYTES + bots * DIRECTORY_CAP_FILES * (_PATH_MAX + 100)


_PATH_MAX = 4096  # Linux's: the longest path a build can list


def _stored_build(store: Store, name: str, data: Any) -> Build:
    """A bot's build as the store kept it; StoreError when it is not one `Build.to_json` wrote."""
    try:
        return Build.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise StoreError(f"{store.path}: meta {BUILDS_META} holds no build for bot {json.dumps(name)}") from None


@dataclass(frozen=True)
class _Change:
    """How one bot's files differ from the build the tournament started with."""

    player: str
    what: str
    """In a few words (`fingerprint.changes`)."""
    files: tuple[str, ...] = ()
    """The files of its folder that changed, were added or were removed (relative paths)."""


def _change(name: str, was: Build | None, now: Build | None) -> _Change | None:
    what = None if was is None else changes(was, now)
    if what is None:
        return None
    files = () if was is None or now is None else tuple(f for names in changed_files(was, now).values() for f in names)
    return _Change(name, what, files)


def _differences(reference: dict[str, Build | None], now: dict[str, Build | None]) -> list[_Change]:
    """How each bot whose build now differs from the reference's changed."""
    found = (_change(name, was, now.get(name)) for name, was in reference.items())
    return [c for c in found if c is not None]


_ALLOW = "allow changes with --allow-bot-changes (allow_bot_changes: true)"
_NAMED_FILES = 3


def _ways_out(found: Sequence[_Change], restore: str) -> str:
    """The ways past a refusal: restore the files; leave out those that are not the bot's; allow changes."""
    said = [restore]
    keys = []
    for change in found:
        if change.files:
            shown = change.files[:_NAMED_FILES]
            more = len(change.files) - len(shown)
            rest = f" (and a pattern for the {more} more)" if more else ""
            keys.append(f"fingerprint: {{exclude: {json.dumps(list(shown))}}}{rest} in bot {change.player}'s entry")
    if keys:
        said.append(
            f"or, where they are not the bot's (files it does not read, such as output you keep there), leave them "
            f"out of its fingerprint with {'; '.join(keys)} (docs/TOURNAMENTS.md)"
        )
    said.append(f"or {_ALLOW}")
    return ", ".join(said)


def _own_output_words(name: str, paths: Sequence[Path]) -> str:
    """The note that a file in a bot's folder is where this run's output goes, and so no file of the bot."""
    names = ", ".join(shown_path(p) for p in paths)
    own = "is this run's own redirected output" if len(paths) == 1 else "are this run's own redirected outputs"
    return f"{names} {own}, left out of bot {name}'s fingerprint"


def _log_changes(log: MatchLog, reference: dict[str, Build | None]) -> list[tuple[str, str]]:
    """(player, what changed) for each bot whose fingerprint in a match's log is not the reference's build."""
    found: dict[str, str] = {}
    for player in log.players:
        fp, was = player.fingerprint, reference.get(player.name)
        if fp and was is not None and (fp["sha256"], fp["directory"]["sha256"]) != was.key():
            found[player.name] = "its log's fingerprint is not that of the build the tournament started with"
    return list(found.items())


def _kept(
    config: TournamentConfig, store: Store, specs: tuple[MatchSpec, ...], reference: dict[str, Build | None]
) -> dict[int, MatchRecord]:
    """The finished matches to keep: stored ones whose logs validate, and logs of finished matches never stored."""
    from ..record.log import LogError, read_log
    from ..record.matchlog import read_match_log
    from ..record.validate import Status, validate_file

    stored = {m.record.match_index: m for m in store.matches()}  # checked against the schedule, as a reader does
    kept: dict[int, MatchRecord] = {}
    drop = []
    for spec in specs:
        path = config.results / spec.log_name
        if not path.is_file():
            if spec.index in stored:
                drop.append(spec.index)
            continue
        report = validate_file(str(path))
        if report.status is not Status.VALID:
            if spec.index in stored:
                drop.append(spec.index)
            continue
        try:
            log = read_match_log(read_log(path))
        except LogError:
            continue
        if log.seed != spec.seed or tuple(p.name for p in log.players) != spec.seating:
            if spec.index in stored:
                drop.append(spec.index)
            continue
        known = stored.get(spec.index)
        if known is not None and known.digest == log.digest:
            kept[spec.index] = known.record
            continue
        record = record_from_log(log, spec.index, spec.deal_set)  # played, but never stored (a kill)
        assert log.digest is not None  # a valid log is sealed
        store.put(record, spec.log_name, log.digest, _log_changes(log, reference))
        kept[spec.index] = record
    store.delete(drop)
    return kept


def _sprt_done(config: TournamentConfig, records: list[MatchRecord]) -> bool:
    result = sprt_decision(config, records)
    return result is not None and bool(result.finished)


def run_tournament(
    config: TournamentConfig,
    *,
    workers: int | None = None,
    executor: Executor | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    sign_key: Path | None = None,
    outputs: Sequence[Path] = (),
) -> TournamentResult:
    """Play (or resume) a tournament in `config.results`; raises TournamentError or StoreError before any match.

    `sign_key`: a private key file (`golfref keygen`) that signs each log played now. `outputs`: the
    files golfref writes for this run beside the results folder (its report, their replays, a JUnit
    file): no bot's build covers them, now or in a later run (the store notes them).
    """
    directory = config.results
    check_secrets(config)
    with _locked(directory), Store(directory) as store:
        digest = config.digest()
        known = store.meta("config_digest")
        if known is not None and known != digest:
            raise TournamentError(f"{directory} holds a tournament with another config: {_changes(store, config)} "
                                  "(its matches would not match); give a new results directory (--results DIR)")
        if known is not None:  # a resume: the store is read whole, as a reader reads it, before this run writes
            _read_stored(store, directory)
        seed = tournament_seed(config, store)
        specs = schedule(config, seed)
        store.set_meta({
            "seed": str(seed),
            "config_digest": digest,
            "config": config.canonical_json(),
            "tournament": config.name,
            "scheduled": str(len(specs)),
            "deal_sets": str(config.deal_sets),
            "deal_set_matches": str(matches_per_deal_set(config)),
            "duplicate_deals": "true" if config.duplicate_deals else "false",
            VERDICT_RULES_META: _verdict_rules_json(config),
        })  # fmt: skip
        left_out = (directory, *_note(store, outputs))
        now = _builds_now(config, left_out)
        redirected = _redirected(now)
        if redirected:
            left_out += tuple(p for paths in redirected.values() for p in paths)
            now = _builds_now(config, left_out)
        notes = tuple(_own_output_words(name, paths) for name, paths in redirected.items())
        reference = _reference(store, now, config, left_out)
        differing = _differences(reference, now)
        if differing and not config.allow_bot_changes:
            said = "; ".join(f"bot {c.player} changed since the tournament started: {c.what}" for c in differing)
            also = "".join(f" ({note})" for note in notes)
            restore = f"restore its files to resume the tournament in {directory}"
            raise BotChanged(f"{said}{also}; {_ways_out(differing, restore)}")
        kept = _kept(config, store, specs, reference)
        records = [kept[i] for i in sorted(kept)]
        builds = tuple((name, b.key()) for name, b in reference.items() if b is not None)
        jobs = [
            MatchJob(s.index, s.deal_set, match_config(config, s), directory / s.log_name, sign_key, config.name,
                     outputs=left_out, builds=builds, allow_bot_changes=config.allow_bot_changes)  # fmt: skip
            for s in specs
            if s.index not in kept
        ]
        progress = Progress(len(specs), len(kept), len(kept), sum(sum(r.faults) for r in records), records, 0.0)
        progress.started = time.monotonic()
        errors: list[str] = []
        stopped_by: str | None = None
        played = 0
        if jobs and _sprt_done(config, records):
            stopped_by, jobs = "sprt", []
        runner = executor or LocalExecutor(workers or os.cpu_count() or 1)
        with stop_on_signals() as stopped:
            try:
                if on_progress is not None:
                    on_progress(progress)
                for outcome in runner.run(jobs) if jobs else iter(()):
                    played += _take(outcome, store, progress, errors, reference)
                    if outcome.changed and outcome.record is None:  # not played: the tournament stops
                        runner.stop()
                        for other in runner.outcomes():  # matches that finish while the others stop are kept
                            played += _take(other, store, progress, errors, reference)
                        raise BotChanged(_stop_text(outcome, reference, len(progress.records), directory))
                    stopped.check()  # a signal whose Stop was lost (its handler ran in the pool's fork hooks)
                    if on_progress is not None:
                        on_progress(progress)
                    if stopped_by is None and _sprt_done(config, progress.records):
                        stopped_by = "sprt"
                        runner.stop()
            except Stop as e:
                stopped.cleaning = True
                stopped_by = signal.Signals(e.signum).name
                runner.stop()
                # Matches that finish while the others stop are kept too.
                for outcome in runner.outcomes():
                    played += _take(outcome, store, progress, errors, reference)
            finally:
                runner.close()
            if stopped.signum is not None and stopped_by is None:
                stopped_by = signal.Signals(stopped.signum).name
        records = sorted(progress.records, key=lambda r: r.match_index)
    return TournamentResult(
        tuple(records), len(specs), played, len(kept), tuple(errors), stopped_by, directory, seed, config.seed is None,
        notes,
    )  # fmt: skip


_SEED_BITS = 63
"""A match seed's bits (a config's `seed:` is at most 2**63 - 1 too)."""


def tournament_seed(config: TournamentConfig, store: Store) -> int:
    """The seed of the tournament's deals: the config's, else the one its store keeps, else a fresh secret one.

    A drawn seed comes from the operating system's randomness (`secrets`), so no one can
    predict a deal of a tournament whose config names no seed; the store keeps it (in a
    results directory no bot may read, `check_secrets`), so a resume plays the same deals.
    """
    if config.seed is not None:
        return config.seed
    kept = store.meta_int("seed", 0, (1 << _SEED_BITS) - 1)
    return kept if kept is not None else secrets.randbits(_SEED_BITS)


def check_secrets(config: TournamentConfig) -> None:
    """TournamentError, before any match, for a file that would show a bot the seed: a readable config holding
    it, or a results directory that bots may enter (its store keeps the seed, and each log its deal set's)."""
    from ..bots.sandbox import Access, readable_by_bots, seed_file_problem

    if config.seed is not None:
        instead = "leave it out: a secret seed is then drawn and kept in the results directory"
        problem = seed_file_problem(config.sandbox, config.players, config.source, "the tournament's seed", instead)
        if problem is not None:
            raise TournamentError(problem)
    why = readable_by_bots(config.sandbox, config.results, Access.ENTER)
    if why is not None and any(p.command is not None for p in config.players):  # built-ins play in the referee
        raise TournamentError(
            f"{config.results}: the results directory, whose store holds the tournament's seed and whose logs each "
            f"hold their deal set's: {why}; chmod 700 {config.results}"
        )


def _changes(store: Store, config: TournamentConfig) -> str:
    """What differs from the config the store was made for, named by key (its canonical form is kept in meta)."""
    store.schedule()  # the stored config as a reader holds it: a mapping with a list of players, each named
    changes = config_changes(store.meta_json("config"), config.canonical())
    if not changes:
        return "the keys that decide the matches differ"
    return f"{', '.join(changes)} {'differs' if len(changes) == 1 else 'differ'}"


def _outcome_changes(outcome: MatchOutcome, reference: dict[str, Build | None]) -> list[_Change]:
    """How each bot the outcome says had changed differs from the reference."""
    found = []
    for name, now in outcome.changed:
        found.append(_change(name, reference.get(name), now) or _Change(name, "its files changed"))
    return found


def _said(outcome: MatchOutcome, reference: dict[str, Build | None]) -> list[tuple[str, str]]:
    """(player, what changed) for each bot the outcome says had changed."""
    return [(c.player, c.what) for c in _outcome_changes(outcome, reference)]


def _stop_text(outcome: MatchOutcome, reference: dict[str, Build | None], stored: int, directory: Path) -> str:
    """The one line that a bot's change stops the tournament with."""
    found = _outcome_changes(outcome, reference)
    said = "; ".join(f"bot {c.player} changed during the tournament: {c.what}" for c in found)
    kept = "1 finished match is" if stored == 1 else f"{stored} finished matches are"
    restore = "restore its files and run the same command again to resume"
    return f"{said} (before match {outcome.index}); {kept} kept in {directory}: {_ways_out(found, restore)}"


def _take(
    outcome: MatchOutcome, store: Store, progress: Progress, errors: list[str], reference: dict[str, Build | None]
) -> int:
    """Store one outcome (with what changed of its bots, when changes are allowed); 1 when it was a finished match."""
    if outcome.record is None or outcome.digest is None:
        if not outcome.interrupted:
            errors.append(f"match {outcome.index}: {outcome.error}")
        return 0
    log_path = str(outcome.log_path.relative_to(store.path.parent))
    store.put(outcome.record, log_path, outcome.digest, _said(outcome, reference))
    progress.records.append(outcome.record)
    progress.done += 1
    progress.faults += sum(outcome.record.faults)
    return 1
