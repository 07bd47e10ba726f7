"""The seed is a secret wherever a bot runs as another user than the referee (issue 21, item 2).

Each attack is a real hostile bot (tests/bots/hostile/seed_bot.py) in a real `golfref run` or
`golfref tournament`: it reads the command line of every golfref process (`/proc/PID/cmdline`,
readable by every user) and every file those name (the config), takes the first seed it finds
and predicts the first hole's deal with the referee's own shuffle. The test compares the
prediction with the deal the log records.

"Another user" here is the bot's own leased user of a root referee without bubblewrap: the
referee runs with a PATH that finds no `bwrap` (bubblewrap would hide the referee's processes
and files, which test_sandbox_attacks.py covers). With the sandbox off the bot runs as the
referee's own user, from which nothing is secret: there the attack works, as documented.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import BOTS, ROOT, default_signals, private_to_root

HOSTILE = BOTS / "hostile"
SEED_BOT = HOSTILE / "seed_bot.py"
CARDS = ROOT / "golfref" / "game" / "cards.py"  # any source file of the checkout
BOT_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else os.path.realpath(sys.executable)
# Distinctive (found only where it leaked) and drawn afresh by each run: another suite or worker
# playing its own leaky match beside this one never shows the spy this run's seed.
SEED = secrets.randbits(62) | 1 << 62
WAIT = 120.0
REPORT = "ATTACK-REPORT "

pytestmark = pytest.mark.process

own_user = pytest.mark.skipif(
    os.geteuid() != 0 or private_to_root(SEED_BOT, CARDS, BOT_PYTHON) is not None,
    reason="needs root (a bot gets a user of its own only then) and a checkout other users may read",
)


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user may enter (a bot's own user must reach its working directory)."""
    folder = Path(tempfile.mkdtemp(prefix="golfref-seed-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def seed_bot(folder: Path) -> list[str]:
    """The spy's command: its report file, and the checkout whose golfref.game.cards it imports."""
    return [BOT_PYTHON, str(SEED_BOT), str(folder / "attack.json"), str(ROOT)]


def golfref(
    folder: Path, *args: str, bubblewrap: bool = False, seed_env: int | None = None
) -> subprocess.CompletedProcess[str]:
    """Run golfref in `folder` to its end; without `bubblewrap`, on a PATH that finds no bwrap; `seed_env`: its
    GOLFREF_SEED."""
    env = dict(os.environ)
    if not bubblewrap:
        empty = folder / "no-bwrap"
        empty.mkdir(exist_ok=True)
        env["PATH"] = str(empty)  # every bot is named by its full path
    env.pop("GOLFREF_SEED", None)
    if seed_env is not None:
        env["GOLFREF_SEED"] = str(seed_env)
    proc = subprocess.Popen(
        [sys.executable, "-m", "golfref", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=folder, env=env, start_new_session=True, preexec_fn=default_signals(),
    )  # fmt: skip
    try:
        out, errors = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # its own group: the referee and nothing else of ours
            proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, errors)


def match_config(folder: Path, sandbox: bool, seed: int | None = None, mode: int = 0o600) -> Path:
    """A 1-hole match of the spy (seat 0) against the greedy built-in, written with `mode`."""
    data: dict[str, Any] = {
        "match": "spy",
        "rules": {"preset": "standard", "layout": "2x2", "holes": 1},
        "players": [{"name": "spy", "command": seed_bot(folder)}, {"name": "house", "builtin": "greedy"}],
        "time": {"startup_ms": 60_000, "move_ms": 60_000},
        "log": {"path": str(folder / "log.json")},
        "sandbox": {"enabled": sandbox},
    }
    if seed is not None:
        data["seed"] = seed
    path = folder / "match.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    path.chmod(mode)
    return path


def reports(log: dict[str, Any], seat: int = 0) -> list[dict[str, Any]]:
    """The spy's attack reports, from its stderr as the log keeps it."""
    text = log["players"][seat]["stderr"] or ""
    return [json.loads(line[len(REPORT) :]) for line in text.splitlines() if line.startswith(REPORT)]


def predicted(report: dict[str, Any], log: dict[str, Any]) -> list[str]:
    """The spy's prediction that is the first hole's deal as the log records it ([] when none is)."""
    deal = log["holes"][0]["deal"]
    return deal if deal in report["predicted_deals"] else []


def stock(log: dict[str, Any], hole: int = 0) -> list[str]:
    """The first hole's stock as dealt (top first), from the log's deal."""
    players, slots = len(log["players"]), 4
    return log["holes"][hole]["deal"][players * slots + 1 :]


# -- the attack works where nothing is secret: a bot of the referee's own user -------------


@pytest.mark.skipif(private_to_root(SEED_BOT, CARDS) is not None, reason="private checkout")
def test_a_bot_of_the_referees_own_user_reads_the_configs_seed_and_predicts_every_card(shared: Path) -> None:
    """The spy works: with the sandbox off it runs as the referee's user and predicts the whole stock."""
    config = match_config(shared, sandbox=False, seed=SEED, mode=0o644)
    done = golfref(shared, "run", str(config), "--quiet")
    assert done.returncode == 0, done.stderr
    log = json.loads((shared / "log.json").read_text(encoding="utf-8"))
    (report,) = reports(log)
    assert SEED in report["config_seeds"]
    assert predicted(report, log)
    assert len(stock(log)) == 52 - 9 and predicted(report, log)[9:] == stock(log)  # every stock card


# -- a bot of its own user finds the seed nowhere ------------------------------------------


@own_user
def test_run_seed_is_not_on_the_referees_command_line(shared: Path) -> None:
    """`golfref run --seed N`: a bot of its own user reads every golfref command line and finds no seed."""
    config = match_config(shared, sandbox=True)
    done = golfref(shared, "run", str(config), "--seed", str(SEED), "--quiet")
    assert done.returncode == 0, done.stderr
    log = json.loads((shared / "log.json").read_text(encoding="utf-8"))
    assert log["seed"] == SEED and log["players"][0]["sandbox"]["user"] not in (None, 0)
    (report,) = reports(log)
    assert report["cmdlines"] >= 1  # it did see the referee's command line
    assert SEED not in report["cmdline_seeds"] and not predicted(report, log)


@own_user
def test_run_seed_given_as_seed_equals_is_not_on_the_command_line_either(shared: Path) -> None:
    config = match_config(shared, sandbox=True)
    done = golfref(shared, "run", str(config), f"--seed={SEED}", "--quiet")
    assert done.returncode == 0, done.stderr
    log = json.loads((shared / "log.json").read_text(encoding="utf-8"))
    assert log["seed"] == SEED
    (report,) = reports(log)
    assert SEED not in report["cmdline_seeds"] and not predicted(report, log)


@own_user
def test_run_seed_from_the_environment_is_on_no_command_line(shared: Path) -> None:
    config = match_config(shared, sandbox=True, seed=1, mode=0o644)  # GOLFREF_SEED wins over the config, as --seed
    done = golfref(shared, "run", str(config), "--quiet", seed_env=SEED)
    assert done.returncode == 0, done.stderr
    log = json.loads((shared / "log.json").read_text(encoding="utf-8"))
    assert log["seed"] == SEED
    (report,) = reports(log)
    assert SEED not in report["cmdline_seeds"] and not predicted(report, log)


@own_user
def test_a_seed_in_a_config_other_users_may_read_is_refused_before_any_bot_starts(shared: Path) -> None:
    config = match_config(shared, sandbox=True, seed=SEED, mode=0o644)
    done = golfref(shared, "run", str(config), "--quiet")
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("golfref: error:")]
    assert len(errors) == 1 and "Traceback" not in done.stderr
    assert str(config) in errors[0] and "chmod o-r" in errors[0] and "--seed" in errors[0]
    assert not (shared / "log.json").exists() and not (shared / "attack.json").exists()
    checked = golfref(shared, "check-config", str(config))
    assert checked.returncode == 2 and errors[0] in checked.stderr


@own_user
def test_a_seed_in_a_private_config_stays_secret(shared: Path) -> None:
    config = match_config(shared, sandbox=True, seed=SEED, mode=0o600)
    done = golfref(shared, "run", str(config), "--quiet")
    assert done.returncode == 0, done.stderr
    log = json.loads((shared / "log.json").read_text(encoding="utf-8"))
    assert log["seed"] == SEED
    (report,) = reports(log)
    assert SEED not in report["config_seeds"] + report["cmdline_seeds"] and not predicted(report, log)


@own_user
def test_a_seed_the_command_line_overrides_is_not_the_secret(shared: Path) -> None:
    """A readable config whose seed `--seed` replaces: the seed in play is not in the file, so it plays."""
    config = match_config(shared, sandbox=True, seed=1, mode=0o644)
    done = golfref(shared, "run", str(config), "--seed", str(SEED), "--quiet")
    assert done.returncode == 0, done.stderr
    log = json.loads((shared / "log.json").read_text(encoding="utf-8"))
    (report,) = reports(log)
    assert log["seed"] == SEED and not predicted(report, log)


def quick(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """A quick tournament of the spy against greedy: 1 deal set (2 matches), 1 hole each."""
    bot = " ".join(seed_bot(folder))
    return golfref(
        folder, "tournament", "--bot", f"spy={bot}", "--builtin", "house=greedy", "--deal-sets", "1",
        "--set", "holes=1", "--set", "layout=2x2", "--results", str(folder / "results"), "--quiet", *extra,
    )  # fmt: skip


def tournament_logs(results: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((results / "logs").glob("*.json"))]


@own_user
def test_tournament_seed_is_on_no_command_line_of_the_tournament_or_its_workers(shared: Path) -> None:
    done = quick(shared, "--seed", str(SEED), "--workers", "2")
    assert done.returncode == 0, done.stderr
    logs = tournament_logs(shared / "results")
    assert len(logs) == 2
    for log in logs:
        seat = [p["name"] for p in log["players"]].index("spy")
        (report,) = reports(log, seat)
        assert report["cmdlines"] >= 2  # the tournament and a worker at least
        assert SEED not in report["cmdline_seeds"] and not predicted(report, log)


@own_user
def test_tournament_seed_is_on_no_command_line_of_a_clusters_workers_or_match_processes(shared: Path) -> None:
    pytest.importorskip("distributed")
    done = quick(shared, "--seed", str(SEED), "--cluster", "local:1")
    assert done.returncode == 0, done.stderr
    logs = tournament_logs(shared / "results")
    assert len(logs) == 2
    for log in logs:
        seat = [p["name"] for p in log["players"]].index("spy")
        (report,) = reports(log, seat)
        assert report["cmdlines"] >= 3  # the tournament, a Dask worker, its match process at least
        assert SEED not in report["cmdline_seeds"] and not predicted(report, log)


@own_user
def test_a_tournament_seed_in_a_config_other_users_may_read_is_refused(shared: Path) -> None:
    data = {
        "tournament": "spy",
        "rules": {"preset": "standard", "layout": "2x2", "holes": 1},
        "players": [{"name": "spy", "command": seed_bot(shared)}, {"name": "house", "builtin": "greedy"}],
        "deal_sets": 1,
        "seed": SEED,
        "results": str(shared / "results"),
    }
    config = shared / "t.yaml"
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    config.chmod(0o644)
    done = golfref(shared, "tournament", str(config), "--quiet")
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("golfref: error:")]
    assert len(errors) == 1 and "chmod o-r" in errors[0] and str(config) in errors[0]
    assert not (shared / "results" / "logs").exists()
    config.chmod(0o600)
    done = golfref(shared, "tournament", str(config), "--quiet")
    assert done.returncode == 0, done.stderr
    for log in tournament_logs(shared / "results"):
        seat = [p["name"] for p in log["players"]].index("spy")
        (report,) = reports(log, seat)
        assert not predicted(report, log)


@own_user
def test_a_results_directory_other_users_may_enter_is_refused(shared: Path) -> None:
    """Its store keeps the seed, and each finished log its deal set's, which the other seatings still play."""
    results = shared / "results"
    results.mkdir(mode=0o755)
    results.chmod(0o755)
    done = quick(shared, "--seed", str(SEED))
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("golfref: error:")]
    assert len(errors) == 1 and f"chmod 700 {results}" in errors[0] and "(mode 0755)" in errors[0]
    assert not (results / "logs").exists() and not (shared / "attack.json").exists()


@pytest.mark.skipif(private_to_root(SEED_BOT, CARDS) is not None, reason="private checkout")
def test_check_bot_seed_is_not_on_its_command_line_either(tmp_path: Path) -> None:
    """Every command's --seed is masked: check-bot's picks the games its bot is checked in."""
    out = tmp_path / "attack.json"
    done = golfref(tmp_path, "check-bot", "--preset", "standard", "--layout", "1x1", "--seed", str(SEED), "--",
                   BOT_PYTHON, str(SEED_BOT), str(out), str(ROOT), bubblewrap=True)  # fmt: skip
    assert out.is_file(), done.stdout + done.stderr  # the spy ran (and read every golfref command line)
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["cmdlines"] >= 1 and SEED not in report["cmdline_seeds"]


# -- a tournament without a seed draws a secret one -----------------------------------------


def _meta(results: Path) -> dict[str, str]:
    db = sqlite3.connect(results / "results.sqlite")
    try:
        return dict(db.execute("SELECT key, value FROM meta").fetchall())
    finally:
        db.close()


def test_a_tournament_without_a_seed_draws_one_keeps_it_for_the_resume_and_reports_it(tmp_path: Path) -> None:
    from golfref.tournament.schedule import deal_set_seed

    results = tmp_path / "results"
    args = ["tournament", "--builtin", "a=greedy", "--builtin", "b=random", "--deal-sets", "1",
            "--set", "holes=1", "--results", str(results)]  # fmt: skip
    first = golfref(tmp_path, *args, bubblewrap=True)
    assert first.returncode == 0, first.stderr
    seed = int(_meta(results)["seed"])
    assert seed not in (0, 1) and 0 <= seed < 2**63
    assert f"seed {seed}" in first.stderr  # reported, so that the run can be made again
    logs = tournament_logs(results)
    assert {log["seed"] for log in logs} == {deal_set_seed(seed, 0)}
    # More deal sets: the same tournament, resumed with the seed it drew.
    args[args.index("--deal-sets") + 1] = "2"
    second = golfref(tmp_path, *args, bubblewrap=True)
    assert second.returncode == 0, second.stderr
    assert int(_meta(results)["seed"]) == seed and f"seed {seed}" in second.stderr
    assert {log["seed"] for log in tournament_logs(results)} == {deal_set_seed(seed, 0), deal_set_seed(seed, 1)}
    # Nobody else may read the store that keeps it, nor the logs that hold each deal set's seed.
    assert stat.S_IMODE(results.stat().st_mode) & 0o077 == 0
    # Another results directory draws another seed.
    other = golfref(tmp_path, *args[:-1], str(tmp_path / "other"), bubblewrap=True)
    assert other.returncode == 0, other.stderr
    assert int(_meta(tmp_path / "other")["seed"]) != seed


def test_run_without_a_seed_draws_one(tmp_path: Path) -> None:
    data = {
        "match": "drawn",
        "rules": {"preset": "standard", "layout": "2x2", "holes": 1},
        "players": [{"name": "a", "builtin": "greedy"}, {"name": "b", "builtin": "random"}],
    }
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    seeds = set()
    for n in range(2):
        done = golfref(tmp_path, "run", "m.yaml", "--quiet", "--log", f"log-{n}.json", bubblewrap=True)
        assert done.returncode == 0, done.stderr
        seeds.add(json.loads((tmp_path / f"log-{n}.json").read_text(encoding="utf-8"))["seed"])
    assert len(seeds) == 2 and 0 not in seeds


# -- the command line, the environment, the warnings -----------------------------------------


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        ([b"golfref", b"run", b"m.yaml", b"--seed", b"1234"], [b"golfref", b"run", b"m.yaml", b"--seed", b"****"]),
        ([b"golfref", b"--seed=77", b"x"], [b"golfref", b"--seed=**", b"x"]),
        ([b"golfref", b"--seeds", b"5", b"--seed"], [b"golfref", b"--seeds", b"5", b"--seed"]),
    ],
)
def test_masked_hides_each_seed_value_and_nothing_else(args: list[bytes], shown: list[bytes]) -> None:
    from golfref.cli.cmdline import masked

    assert masked(b"\0".join(args) + b"\0") == b"\0".join(shown) + b"\0"


def test_a_seed_that_cannot_be_hidden_is_said_in_one_line_naming_the_way_around_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from golfref.cli.cmdline import warn_if_shown

    warn_if_shown("PermissionError: denied")
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("golfref: warning: --seed stays readable") and "GOLFREF_SEED=N" in line


def test_a_bad_seed_in_the_environment_is_a_one_line_usage_error(tmp_path: Path) -> None:
    done = golfref(tmp_path, "tournament", "--builtin", "a=greedy", "--builtin", "b=random", seed_env=-1)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("golfref: error:") and "GOLFREF_SEED" in line


def _warnings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("golfref: warning:")]


def test_a_tournament_whose_bots_run_as_the_referees_user_warns_in_one_line(tmp_path: Path) -> None:
    bot = f"{sys.executable} {BOTS / 'echo_bot.py'}"
    args = ["tournament", "--bot", f"echo={bot}", "--builtin", "g=greedy", "--deal-sets", "1", "--set", "holes=1",
            "--seed", "3", "--quiet", "--no-sandbox", "--accept-faults"]  # fmt: skip
    done = golfref(tmp_path, *args, bubblewrap=True)
    assert done.returncode == 0, done.stderr
    (warning,) = _warnings(done.stderr)
    assert "bots run as your own user" in warning and "nothing this user may read is secret" in warning
    assert "seed" in warning and "keys" in warning and "earlier logs" in warning
    # Built-ins play in the referee: nothing to warn about.
    builtins = golfref(tmp_path, "tournament", "--builtin", "a=greedy", "--builtin", "b=random", "--deal-sets", "1",
                       "--set", "holes=1", "--seed", "3", "--quiet", "--no-sandbox", bubblewrap=True)  # fmt: skip
    assert builtins.returncode == 0 and _warnings(builtins.stderr) == []


def test_golfref_run_with_the_sandbox_off_does_not_warn(tmp_path: Path) -> None:
    """`golfref run` is where authors try their own bots, with the sandbox off by default: no warning."""
    data = {
        "match": "own",
        "rules": {"preset": "standard", "layout": "2x2", "holes": 1},
        "players": [{"name": "echo", "command": [sys.executable, str(BOTS / "echo_bot.py")]},
                    {"name": "g", "builtin": "greedy"}],
        "log": {"path": "log.json"},
        "time": {"startup_ms": 60_000, "move_ms": 60_000},
    }  # fmt: skip
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    done = golfref(tmp_path, "run", "m.yaml", "--quiet", "--accept-faults", bubblewrap=True)
    assert done.returncode == 0, done.stderr
    assert _warnings(done.stderr) == []
