"""A tournament's results as one value: its tables' statistics, the gate, the SPRT and the faults'
verdict, with whether they all passed (what `golfref tournament` and `golfref standings` show)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..config.match import FailOn
from ..config.tournament import GateRule, SprtRule
from ..record.stderr import TERMINAL_STDERR_LINES
from ..stats.outcomes import PairOutcomes, all_pair_outcomes
from ..stats.records import DISQUALIFIED, MatchRecord
from ..stats.sprt import GateResult, GateStep, SprtResult, gate_trace, sprt_trace
from ..stats.stats import TournamentStats, compute_stats, pair_block_differences
from .runner import PlayerFaults, StoredTournament, fault_summary, gate_result, shown_path


@dataclass(frozen=True)
class Verdicts:
    """What decides a tournament's exit status besides its errors and signals: the gate, the SPRT, the faults."""

    gate: GateRule | None
    sprt: SprtResult | None
    sprt_player: str | None
    fail_on: FailOn | None
    """None: the faults do not decide the exit status (`golfref standings`)."""
    sprt_rule: SprtRule | None = None
    """The SPRT's rule (its two players), for its trace; `sprt_player` None shows it without deciding the exit."""


@dataclass(frozen=True)
class TournamentResults:
    """A tournament's stored results with their verdicts.

    The tables, the gate and the SPRT count the complete deal sets only; the fault verdict and
    summary cover every stored match.
    """

    stored: StoredTournament
    shown: str
    """The tournament's directory as people are shown it."""
    counted: list[MatchRecord]
    """The records of complete deal sets."""
    stats: TournamentStats
    gate: GateResult | None
    sprt: SprtResult | None
    sprt_player: str | None
    fail_on: FailOn | None
    faults: tuple[PlayerFaults, ...]
    fault_failure: str | None
    """Why the faults fail the tournament, in one line; None when they do not."""
    stopped_by: str | None
    errors: tuple[str, ...]
    sprt_rule: SprtRule | None = None
    outcomes: tuple[PairOutcomes, ...] = ()
    """Per pair of `stats.pairs`, in its order: the match outcomes, paired outcomes and Elo-like effect size."""

    @property
    def sprt_steps(self) -> list[SprtResult]:
        """The SPRT's state after each complete deal set, in deal-set order (empty without an SPRT)."""
        if self.sprt is None or self.sprt_rule is None:
            return []
        diffs = pair_block_differences(self.counted, self.sprt_rule.player, self.sprt_rule.baseline)
        return sprt_trace(diffs, self.sprt.config)

    @property
    def gate_steps(self) -> list[GateStep]:
        """The gate's interval after each shared complete deal set, in deal-set order (empty without a gate)."""
        if self.gate is None:
            return []
        g = self.gate.gate
        return gate_trace(g, pair_block_differences(self.counted, g.player, g.baseline))

    @property
    def left_out(self) -> int:
        """The stored matches of incomplete deal sets, which the tables leave out."""
        return len(self.stored.records) - len(self.counted)

    @property
    def passed(self) -> bool:
        """Whether the gate, the SPRT and the faults all passed."""
        sprt_passed = self.sprt is None or self.sprt_player is None or self.sprt.passed
        return (self.gate is None or self.gate.passed) and sprt_passed and self.fault_failure is None


def tournament_results(
    stored: StoredTournament,
    verdicts: Verdicts,
    stopped_by: str | None = None,
    errors: tuple[str, ...] = (),
) -> TournamentResults:
    """The results of `stored` under `verdicts`, each faulted bot with the tail of its stderr a terminal shows."""
    counted = stored.counted()
    stats = compute_stats(counted)
    return TournamentResults(
        stored=stored,
        shown=shown_path(stored.directory),
        counted=counted,
        stats=stats,
        gate=gate_result(verdicts.gate, stats),
        sprt=verdicts.sprt,
        sprt_player=verdicts.sprt_player,
        fail_on=verdicts.fail_on,
        faults=fault_summary(stored.directory, stored.matches, TERMINAL_STDERR_LINES),
        fault_failure=fault_verdict(stored.records, verdicts.fail_on),
        stopped_by=stopped_by,
        errors=errors,
        sprt_rule=verdicts.sprt_rule,
        outcomes=all_pair_outcomes(counted, stats.confidence),
    )


def fault_verdict(records: Sequence[MatchRecord], fail_on: FailOn | None) -> str | None:
    """Why the faults fail the tournament under `fail_on`, in one line; None when they do not."""
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
    if not fail_on.fails(bool(ended), bool(faulted)):
        return None

    def who(counts: dict[str, int]) -> str:
        return ", ".join(f"{n} in {k} match{'' if k == 1 else 'es'}" for n, k in counts.items())

    if ended and fail_on is FailOn.ENDED:
        return (f"fail: a fault ended a bot's seat (disqualified): {who(ended)}; --accept-faults "
                "(faults.fail_on: never) exits 0 all the same")  # fmt: skip
    return f"fail: bots faulted (--strict, faults.fail_on: any): {who(faulted)}"
