"""The schedule's rule for handing matches out (golfref/tournament/schedule.py: `Claim`, `bots_of`, `clash`,
`Release`): two matches that deal the same cards and share a bot are never in flight at once, and a match
that must wait never holds back one behind it that need not."""

from __future__ import annotations

import json
import random
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from golfref.bots.fingerprint import build
from golfref.config.match import PlayerSpec
from golfref.config.tournament import parse_tournament
from golfref.tournament.executor import MatchJob
from golfref.tournament.schedule import Claim, Release, bots_of, clash, match_config, schedule

from .conftest import BOTS

ECHO = [sys.executable, str(BOTS / "echo_bot.py")]


def _bot(name: str, argv: list[str] = ECHO) -> str:
    return f"{{name: {name}, command: {json.dumps(argv)}}}"


def _jobs(tmp: Path, players: list[str], extra: str = "", deal_sets: int = 2) -> list[MatchJob]:
    seats = "".join(f"  - {p}\n" for p in players)
    text = f"tournament: t\nplayers:\n{seats}deal_sets: {deal_sets}\nseed: 7\nsandbox: {{enabled: false}}\n{extra}"
    cfg = parse_tournament(text, base_dir=tmp)
    return [MatchJob(s.index, s.deal_set, match_config(cfg, s), tmp / s.log_name) for s in schedule(cfg)]


def _seatings(jobs: list[MatchJob], positions: list[int]) -> list[str]:
    """Each match as its deal set and seating, say `0:ab`."""
    return [f"{jobs[p].deal_set}:{''.join(x.name for x in jobs[p].config.players)}" for p in positions]


def _release(jobs: list[MatchJob], limit: int | None) -> Release:
    return Release([job.claim() for job in jobs], limit)


# -- who is the same bot ---------------------------------------------------------------------------


def test_a_bot_is_known_by_its_name_and_its_program_and_a_builtin_by_nothing() -> None:
    a = PlayerSpec("a", command=("python3", "bot.py"), cwd="/bots/a")
    a_again = PlayerSpec("a-again", command=("python3", "bot.py"), cwd="/bots/a")  # one program, two names
    other = PlayerSpec("other", command=("python3", "bot.py"), cwd="/bots/other")
    greedy = PlayerSpec("g", builtin="greedy")
    policy = PlayerSpec("p", python="mine:Policy", cwd="/bots/p")
    assert bots_of([greedy]) == frozenset()
    assert not bots_of([a]).isdisjoint(bots_of([a_again]))  # the same command in the same folder
    assert bots_of([a]).isdisjoint(bots_of([other]))  # another folder, and nothing says the files are the same
    # The same files (the build's key) are one program wherever they lie and whatever the command says.
    builds = {"a": ("f" * 64, "d" * 64), "other": ("f" * 64, "d" * 64)}
    assert not bots_of([a], builds).isdisjoint(bots_of([other], builds))
    assert bots_of([a], builds).isdisjoint(bots_of([other], {"other": ("f" * 64, "e" * 64)}))
    assert bots_of([policy]) and bots_of([policy]).isdisjoint(bots_of([a, greedy]))


def test_matches_clash_when_they_deal_the_same_cards_and_share_a_bot() -> None:
    ab, ac, cd = (frozenset(pair) for pair in ("ab", "ac", "cd"))
    assert clash(Claim(1, ab), Claim(1, ac))  # a in both
    assert not clash(Claim(1, ab), Claim(1, cd))  # no bot in common
    assert not clash(Claim(1, ab), Claim(2, ab))  # other cards: nothing to tell
    assert not clash(Claim(1, frozenset()), Claim(1, frozenset()))  # built-ins only


# -- the release on real schedules -------------------------------------------------------------------


def test_two_entrants_play_their_seatings_of_a_deal_set_one_after_the_other(tmp_path: Path) -> None:
    jobs = _jobs(tmp_path, [_bot("a"), _bot("b", [sys.executable, str(BOTS / "slow_bot.py"), "0"])], deal_sets=3)
    release = _release(jobs, limit=2)
    first = release.take()
    assert _seatings(jobs, first) == ["0:ab", "1:ab"]  # the next deal set's, not the mirrored seating
    assert release.take() == []  # no room
    release.finished(first[1])
    assert _seatings(jobs, release.take()) == ["1:ba"]  # the deal set's other seating, now free
    release.finished(first[0])
    assert _seatings(jobs, release.take()) == ["0:ba"]  # deal set 0 comes before 2 in the schedule
    assert release.waiting == 2


def test_in_a_round_robin_of_three_every_two_matches_of_a_deal_set_share_an_entrant(tmp_path: Path) -> None:
    # A-B and A-C share A, A-B and B-C share B: a deal set's six matches go one at a time, however many workers.
    echo = [sys.executable, str(BOTS / "echo_bot.py")]
    slow = [sys.executable, str(BOTS / "slow_bot.py"), "0"]
    stdout = [sys.executable, str(BOTS / "stdout_bot.py"), "debug"]
    jobs = _jobs(tmp_path, [_bot("a", echo), _bot("b", slow), _bot("c", stdout)], deal_sets=2)
    release = _release(jobs, limit=None)
    assert _seatings(jobs, release.take()) == ["0:ab", "1:ab"]
    for job in jobs[1:6]:  # every other match of deal set 0 shares a or b with the one in flight
        assert clash(job.claim(), jobs[0].claim())


def test_a_round_robin_of_four_plays_the_matches_of_a_deal_set_that_share_no_entrant_side_by_side(
    tmp_path: Path,
) -> None:
    argv = {n: [sys.executable, str(BOTS / f), *rest] for n, f, rest in
            [("a", "echo_bot.py", []), ("b", "slow_bot.py", ["0"]), ("c", "stdout_bot.py", ["debug"]),
             ("d", "bad_bot.py", ["crlf"])]}  # fmt: skip
    jobs = _jobs(tmp_path, [_bot(n, v) for n, v in argv.items()], deal_sets=1)
    release = _release(jobs, limit=2)
    taken = release.take()
    assert _seatings(jobs, taken) == ["0:ab", "0:cd"]  # A-B and C-D share nothing
    release.finished(taken[0])
    assert _seatings(jobs, release.take()) == ["0:ba"]  # the first free of C-D, in schedule order


def test_one_program_entered_twice_is_one_bot(tmp_path: Path) -> None:
    # a and b run the same program: a-g and b-g (the built-in g between them) clash as a-b and b-a do.
    jobs = _jobs(tmp_path, [_bot("a"), _bot("b"), "{name: g, builtin: greedy}"], deal_sets=1)
    release = _release(jobs, limit=None)
    assert _seatings(jobs, release.take()) == ["0:ab"]
    assert all(clash(j.claim(), jobs[0].claim()) for j in jobs[1:])


def test_a_copy_of_a_program_in_another_folder_is_the_same_bot_by_its_build(tmp_path: Path) -> None:
    for folder, bot in (("one", "echo_bot.py"), ("two", "echo_bot.py"), ("other", "slow_bot.py")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bot.py").write_bytes((BOTS / bot).read_bytes())
    names = ("one", "two", "other")
    players = [f"{{name: {f}, command: [{json.dumps(sys.executable)}, bot.py], cwd: {f}}}" for f in names]
    jobs = _jobs(tmp_path, [*players, "{name: g, builtin: greedy}"], deal_sets=1)
    # Each bot's build as the runner takes it when the tournament starts (MatchJob.builds).
    pool = {p.name: p for job in jobs for p in job.config.players if p.command is not None}
    found = {name: build(p.command, p.cwd) for name, p in pool.items() if p.command is not None}
    builds = tuple((name, b.key()) for name, b in found.items() if b is not None)
    assert {name for name, _ in builds} == set(names)
    with_g = {n: next(j for j in jobs if [p.name for p in j.config.players] == [n, "g"]) for n in names}
    assert not clash(with_g["one"].claim(), with_g["two"].claim())  # without builds: told by name and command only
    one, two, other = (replace(with_g[n], builds=builds).claim() for n in names)
    assert clash(one, two)  # the same files in two folders
    assert not clash(one, other)  # other files in a folder like theirs


def test_built_ins_and_own_deals_are_never_held_back(tmp_path: Path) -> None:
    builtins = ["{name: a, builtin: greedy}", "{name: b, builtin: random}"]
    jobs = _jobs(tmp_path, builtins, deal_sets=2)
    assert _release(jobs, limit=None).take() == list(range(len(jobs)))
    own = _jobs(tmp_path, [_bot("a"), _bot("b", [sys.executable, str(BOTS / "slow_bot.py"), "0"])],
                "duplicate_deals: false\n", deal_sets=2)  # fmt: skip
    assert _release(own, limit=None).take() == list(range(len(own)))  # no two matches deal the same cards


def test_a_gauntlets_challenger_holds_its_deal_set_and_the_next_one_is_taken(tmp_path: Path) -> None:
    players = [_bot("ch"), "{name: x, builtin: greedy}", "{name: y, builtin: random}"]
    jobs = _jobs(tmp_path, players, "format: {type: gauntlet, challenger: ch}\n", deal_sets=2)
    release = _release(jobs, limit=3)
    assert _seatings(jobs, release.take()) == ["0:chx", "1:chx"]  # room for 3, but every match holds ch


def test_a_dropped_release_hands_nothing_more_out(tmp_path: Path) -> None:
    jobs = _jobs(tmp_path, [_bot("a"), _bot("b", [sys.executable, str(BOTS / "slow_bot.py"), "0"])], deal_sets=2)
    release = _release(jobs, limit=1)
    (first,) = release.take()
    release.drop()
    release.finished(first)
    assert release.take() == [] and release.waiting == 0 and release.in_flight == frozenset()


def test_a_release_needs_room_for_one_match() -> None:
    with pytest.raises(ValueError, match="at least one match in flight, not 0"):
        Release([Claim(1, frozenset("a"))], limit=0)


# -- the rule's invariants, on random claims -----------------------------------------------------------

_claims = st.lists(
    st.builds(Claim, st.integers(0, 3), st.frozensets(st.sampled_from("abcde"), max_size=3)), min_size=1, max_size=24
)


@given(_claims, st.one_of(st.none(), st.integers(1, 4)), st.randoms(use_true_random=False))
def test_the_release_never_flies_two_that_clash_and_never_keeps_a_free_match_waiting(
    claims: list[Claim], limit: int | None, rng: random.Random
) -> None:
    release = Release(claims, limit)
    handed: list[int] = []
    flying: set[int] = set()
    waiting = set(range(len(claims)))
    while waiting or flying:
        taken = release.take()
        assert taken == sorted(taken)
        flying.update(taken)
        waiting.difference_update(taken)
        handed.extend(taken)
        assert release.in_flight == frozenset(flying)
        assert release.waiting == len(waiting)
        assert limit is None or len(flying) <= limit
        assert not any(clash(claims[p], claims[q]) for p in flying for q in flying if p < q)
        # Every match still waiting clashes with one in flight, or there is no room; and none free was passed
        # over for a later one.
        free = [p for p in sorted(waiting) if not any(clash(claims[p], claims[q]) for q in flying)]
        assert not free or (limit is not None and len(flying) == limit)
        assert not free or not taken or free[0] > max(taken)
        assert flying, "nothing in flight while matches wait: the release is stuck"
        done = rng.choice(sorted(flying))
        flying.remove(done)
        release.finished(done)
    assert sorted(handed) == list(range(len(claims)))  # each match handed out once
