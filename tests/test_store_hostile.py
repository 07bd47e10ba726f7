"""Hostile results stores (issue 38, item 3): each attack is a real store, made from a real tournament's with
sqlite3, and `golfref standings` (text, --json, --html: the report), the resume and `golfref tournament` must
each refuse it with one line naming the store and what is wrong, exit 2, no traceback, and no hang: the
reader bounds its own work, so no timeout stops it here.

Every command runs in this process (typer's CliRunner; the resume through `run_tournament` with the scripted
executor): no bot and no golfref process starts.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from golfref.cli.app import app
from golfref.config.tournament import load_tournament, max_deal_sets
from golfref.tournament.runner import load_stored, run_tournament
from golfref.tournament.store import MATCH_VALUE_MAX_BYTES, META_VALUE_MAX_BYTES, STORE_NAME, StoreError

from .test_tournament_integrity import ScriptedExecutor

CONFIG = """\
tournament: hostile-store
rules: {preset: knock, layout: 2x2, holes: 2}
players:
  - {name: greedy, builtin: greedy}
  - {name: random, builtin: random}
deal_sets: 2
seed: 11
results: out
"""
PER_DEAL_SET = 2  # two players, their two rotations
MATCHES = 4
ROWS = 3_000_000

runner = CliRunner()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tournament of two built-ins (4 matches, with their logs), played here by the scripted executor."""
    folder = tmp_path_factory.mktemp("played")
    (folder / "t.yaml").write_text(CONFIG, encoding="utf-8")
    result = run_tournament(load_tournament(folder / "t.yaml"), executor=ScriptedExecutor())
    assert len(result.records) == MATCHES and not result.errors
    return folder


def _copy(played: Path, where: Path) -> Path:
    """A copy of the played tournament (config, store, logs) in `where`; its results folder."""
    shutil.copytree(played, where)
    return where / "out"


def _sql(*statements: str, params: tuple[object, ...] = ()) -> Callable[[Path], None]:
    """An attack that runs `statements` on the store (the last with `params`)."""

    def attack(results: Path) -> None:
        db = sqlite3.connect(results / STORE_NAME, isolation_level=None)
        try:
            for statement in statements[:-1]:
                db.execute(statement)
            db.execute(statements[-1], params)
        finally:
            db.close()

    return attack


def _set(column: str, value: object, index: int = 0) -> Callable[[Path], None]:
    return _sql(f"UPDATE matches SET {column} = ? WHERE match_index = {index}", params=(value,))


def _elsewhere_log(results: Path) -> Path:
    """A real golfref log outside the results directory (another tournament's, say): a report must never show it."""
    elsewhere = results.parent / "elsewhere"
    elsewhere.mkdir()
    secret = elsewhere / "secret.json"
    shutil.copy(results / "logs" / "m00000-d0.json", secret)
    return secret


def _absolute_log(results: Path) -> None:
    _set("log_path", str(_elsewhere_log(results)))(results)


def _climbing_log(results: Path) -> None:
    _elsewhere_log(results)
    _set("log_path", "../elsewhere/secret.json")(results)


def _linked_log(results: Path) -> None:
    os.symlink(_elsewhere_log(results), results / "logs" / "link.json")
    _set("log_path", "logs/link.json")(results)


def _linked_folder(results: Path) -> None:
    os.symlink(_elsewhere_log(results).parent, results / "escape")
    _set("log_path", "escape/secret.json")(results)


def _many_views(results: Path) -> None:
    """100,000 views written straight into the schema: SQLite parses each at the first read."""
    db = sqlite3.connect(results / STORE_NAME, isolation_level=None)
    try:
        db.execute("PRAGMA writable_schema=ON")
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO sqlite_master VALUES ('view', ?, ?, 0, ?)",
            ((f"v{i}", f"v{i}", f"CREATE VIEW v{i} AS SELECT key FROM meta") for i in range(100_000)),
        )
        db.execute("COMMIT")
    finally:
        db.close()


_FOREVER = "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n)"
_EMPTY_ROW = "'[]', '[]', '[]', '[]', '[]', '[]', '[]', '[]', '[]', 0, 'logs/x.json', 'd'"
_REBUILT = (
    "match_index, deal_set, seating, hole_scores, totals, placings, statuses, faults, decision_ms, "
    "fallback_holes, fault_kinds, forfeit_score, log_path"
)


@dataclass(frozen=True)
class Attack:
    """A hostile store: how it is made from a real one, and what its one line says after the store's path."""

    make: Callable[[Path], None]
    said: str


ATTACKS: dict[str, Attack] = {
    "matches as a recursive view": Attack(
        _sql(
            "DROP TABLE matches",
            f"CREATE VIEW matches AS {_FOREVER} SELECT i AS match_index, i / 2 AS deal_set, {_EMPTY_ROW} FROM n",
        ),  # fmt: skip
        "not a golfref results store: matches is a view, not a table",
    ),
    "meta as a recursive view": Attack(
        _sql("DROP TABLE meta", f"CREATE VIEW meta AS {_FOREVER} SELECT 'key' || i AS key, 'v' AS value FROM n"),
        "not a golfref results store: meta is a view, not a table",
    ),
    "a trigger": Attack(
        _sql(
            f"CREATE TRIGGER forever AFTER INSERT ON meta BEGIN SELECT count(*) FROM ({_FOREVER} SELECT i FROM n); END"
        ),  # fmt: skip
        'not a golfref results store: it holds a trigger ("forever" on "meta")',
    ),
    "a schema of 100,000 views": Attack(
        _many_views, "its schema is too large to read (more work than 5 rows of it need)"
    ),
    "an extra table": Attack(
        _sql("CREATE TABLE notes (x)"),
        'not a golfref results store: it holds a table "notes" that golfref does not write',
    ),
    "deeply nested JSON": Attack(
        _set("hole_scores", "[" * 100_000 + "]" * 100_000), "match 0's hole_scores is JSON nested too deep"
    ),
    "a 5,000-digit number": Attack(
        _set("totals", "[" + "9" * 5000 + ", 0]"), "match 0's totals holds a number of 5000 digits"
    ),
    "NaN": Attack(_set("decision_ms", "[[NaN], []]"), "match 0's decision_ms holds NaN, which is no number"),
    "a seat count that does not match the seating": Attack(
        _set("totals", "[10, 12, 14]"), "match 0's totals has 3 seats, its seating 2"
    ),
    "a seating of three": Attack(
        _set("seating", '["greedy", "random", "greedy"]', 1),
        "match 1's seating is not the one its place in the schedule seats",
    ),
    "a deal set out of place": Attack(
        _set("deal_set", 1), "match 0's deal set is not 0, the deal set of its place in the schedule"
    ),
    "a status golfref does not know": Attack(
        _set("statuses", '["ok", "won"]'), "match 0's statuses holds a seat's value that is not a seat status"
    ),
    "a fallback hole past the match": Attack(
        _set("fallback_holes", "[[2], []]"),
        "match 0's fallback_holes holds a seat's value that is not holes of the match",
    ),
    "a forfeit score that is text": Attack(
        _set("forfeit_score", "lots"), "match 0's forfeit_score is not a whole number"
    ),
    "a huge text value": Attack(
        _set("decision_ms", "x" * (MATCH_VALUE_MAX_BYTES + 1)),
        f"table matches holds a value over {MATCH_VALUE_MAX_BYTES} bytes",
    ),
    "a huge meta value": Attack(
        _sql("UPDATE meta SET value = ? WHERE key = 'tournament'", params=("x" * (META_VALUE_MAX_BYTES + 1),)),
        f"meta tournament holds a value over {META_VALUE_MAX_BYTES} bytes",
    ),
    "a missing column": Attack(
        _sql(
            f"CREATE TABLE rebuilt AS SELECT {_REBUILT} FROM matches",
            "DROP TABLE matches",
            "ALTER TABLE rebuilt RENAME TO matches",
        ),  # fmt: skip
        "not a golfref results store: table matches lacks the column digest",
    ),
    "an extra column": Attack(
        _sql("ALTER TABLE matches ADD COLUMN extra TEXT"),
        'not a golfref results store: table matches has a column "extra" that golfref does not write',
    ),
    "a generated column": Attack(
        _sql("ALTER TABLE matches ADD COLUMN huge TEXT AS (printf('%.*c', 1000000000, 'x')) VIRTUAL"),
        'not a golfref results store: table matches has a column "huge" that golfref does not write',
    ),
    "a definition of its own": Attack(
        _sql(
            f"CREATE TABLE rebuilt AS SELECT {_REBUILT}, digest FROM matches",
            "DROP TABLE matches",
            "ALTER TABLE rebuilt RENAME TO matches",
        ),  # fmt: skip
        "not a golfref results store: table matches is not defined as golfref defines it (types, keys or constraints)",
    ),
    "a match beyond the schedule": Attack(
        _sql(f"INSERT INTO matches VALUES ({max_deal_sets() * PER_DEAL_SET}, 0, {_EMPTY_ROW})"),
        f"table matches holds match {max_deal_sets() * PER_DEAL_SET}, beyond the {max_deal_sets() * PER_DEAL_SET} its "
        f"schedule can hold ({max_deal_sets()} deal sets of {PER_DEAL_SET})",
    ),
    "a flood of bot changes": Attack(
        _sql(
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999) "
            "INSERT INTO bot_changes SELECT i % 4, 'greedy', 'changed' FROM n"
        ),  # fmt: skip
        f"table bot_changes holds more rows than its matches have seats ({MATCHES * 2})",
    ),
    "a schedule of another size": Attack(
        _sql("UPDATE meta SET value = '3' WHERE key = 'deal_set_matches'"),
        "meta deal_set_matches is 3; its config seats 2",
    ),
    "a count of deal sets 5,000 digits long": Attack(
        _sql("UPDATE meta SET value = ? WHERE key = 'deal_sets'", params=("9" * 5000,)),
        "meta deal_sets is not a whole number",
    ),
    "a config of many players": Attack(
        _sql(
            "UPDATE meta SET value = json_set(value, '$.players', json(?), '$.table', 6) WHERE key = 'config'",
            params=("[" + ", ".join(f'{{"name": "p{i}"}}' for i in range(400)) + "]",),
        ),  # fmt: skip
        "meta config seats more than 1000000 matches a deal set",
    ),
    "an absolute log path": Attack(_absolute_log, "is absolute: a store's logs lie inside its results directory"),
    "a log path climbing out with ..": Attack(
        _climbing_log, "match 0's log path \"../elsewhere/secret.json\" climbs out with '..': a store's logs lie inside"
    ),
    "a log path through a link": Attack(
        _linked_log, "match 0's log path \"logs/link.json\" leads out through a link: a store's logs lie inside its"
    ),
    "a log path through a linked folder": Attack(
        _linked_folder, 'match 0\'s log path "escape/secret.json" leads out through a link'
    ),
}


@pytest.fixture(scope="module")
def flooded(played: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The tournament with 3 million more rows in matches (one per index past its schedule's last)."""
    folder = tmp_path_factory.mktemp("flooded")
    results = _copy(played, folder / "t")
    _sql(f"WITH RECURSIVE n(i) AS (SELECT {MATCHES} UNION ALL SELECT i + 1 FROM n WHERE i < {MATCHES + ROWS - 1}) "
         f"INSERT INTO matches SELECT i, i / {PER_DEAL_SET}, {_EMPTY_ROW} FROM n")(results)  # fmt: skip
    yield results
    shutil.rmtree(folder)  # some 130 MB: not left for pytest's kept temporary folders


FLOOD_SAID = (
    f"table matches holds match {MATCHES + ROWS - 1}, beyond the {max_deal_sets() * PER_DEAL_SET} its schedule can "
    f"hold ({max_deal_sets()} deal sets of {PER_DEAL_SET})"
)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _stamp(path: Path) -> tuple[int, int, int]:
    """What a write to a large file would change: its size, its content's and its metadata's times."""
    found = path.stat()
    return found.st_size, found.st_mtime_ns, found.st_ctime_ns


def _refused(results: Path, said: str, options: list[str], report: Path | None = None) -> None:
    """`golfref standings` with `options` gives one error line naming the store and `said`, exit 2, nothing else."""
    result = runner.invoke(app, ["standings", str(results), *options])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"golfref: error: {results / STORE_NAME}: "), lines[0]
    assert said in lines[0], lines[0]
    assert "Traceback" not in result.output and result.stdout == ""
    if report is not None:
        assert not report.exists() and not report.with_name(report.stem + "-replays").exists()


@pytest.mark.parametrize("mode", ["text", "json", "html"])
@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_hostile_store_is_one_line_and_exit_2_in_every_output(
    played: Path, tmp_path: Path, name: str, mode: str
) -> None:
    results = _copy(played, tmp_path / "t")
    ATTACKS[name].make(results)
    report = tmp_path / "report.html"
    options = {"text": [], "json": ["--json"], "html": ["--html", str(report)]}[mode]
    _refused(results, ATTACKS[name].said, options, report if mode == "html" else None)


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_hostile_store_is_refused_by_a_resume_before_any_match(played: Path, tmp_path: Path, name: str) -> None:
    results = _copy(played, tmp_path / "t")
    ATTACKS[name].make(results)
    config = load_tournament(tmp_path / "t" / "t.yaml")
    # Built-ins would play here, in this process: a store the resume read wrongly would show as a match played.
    with pytest.raises(StoreError) as refused:
        run_tournament(config, executor=ScriptedExecutor())
    line = str(refused.value)
    assert "\n" not in line and line.startswith(f"{results / STORE_NAME}: ") and ATTACKS[name].said in line, line


@pytest.mark.parametrize("name", ["a trigger", "a seat count that does not match the seating", "an absolute log path"])
def test_golfref_tournament_refuses_a_hostile_store_in_one_line(played: Path, tmp_path: Path, name: str) -> None:
    results = _copy(played, tmp_path / "t")
    ATTACKS[name].make(results)
    # Were the store misread, local workers would start: make check would fail this test for it.
    result = runner.invoke(app, ["tournament", str(tmp_path / "t" / "t.yaml"), "-q", "--no-sandbox"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"golfref: error: {results / STORE_NAME}: "), lines
    assert ATTACKS[name].said in lines[0]


@pytest.mark.parametrize("mode", ["text", "json", "html"])
def test_three_million_rows_are_refused_without_reading_them(flooded: Path, tmp_path: Path, mode: str) -> None:
    before = _stamp(flooded / STORE_NAME)
    report = tmp_path / "report.html"
    options = {"text": [], "json": ["--json"], "html": ["--html", str(report)]}[mode]
    _refused(flooded, FLOOD_SAID, options, report if mode == "html" else None)
    assert _stamp(flooded / STORE_NAME) == before


def test_three_million_rows_are_refused_by_the_resume_which_writes_nothing_first(flooded: Path) -> None:
    before = _stamp(flooded / STORE_NAME)
    with pytest.raises(StoreError) as refused:
        run_tournament(load_tournament(flooded.parent / "t.yaml"), executor=ScriptedExecutor())
    assert str(refused.value) == f"{flooded / STORE_NAME}: {FLOOD_SAID}"
    assert _stamp(flooded / STORE_NAME) == before


# -- what a reader never does -----------------------------------------------------------------------


def test_a_store_only_read_is_left_as_it_was_with_nothing_beside_it(played: Path, tmp_path: Path) -> None:
    results = _copy(played, tmp_path / "t")
    before = _digest(results / STORE_NAME)
    for options in ([], ["--json"]):
        result = runner.invoke(app, ["standings", str(results), *options])
        assert result.exit_code == 0, result.output
    assert _digest(results / STORE_NAME) == before
    assert sorted(p.name for p in results.iterdir() if p.name.startswith(STORE_NAME)) == [STORE_NAME]


def test_a_killed_writers_wal_is_read_and_the_store_not_written(played: Path, tmp_path: Path) -> None:
    # A tournament killed with a match committed in its WAL only: the copy taken while its writer is open.
    live = _copy(played, tmp_path / "live")
    writer = sqlite3.connect(live / STORE_NAME, isolation_level=None)
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("DELETE FROM matches WHERE match_index = 3")
        killed = tmp_path / "killed" / "out"
        shutil.copytree(live, killed)
    finally:
        writer.close()
    assert (killed / f"{STORE_NAME}-wal").stat().st_size > 0
    before = _digest(killed / STORE_NAME)
    assert [m.record.match_index for m in load_stored(killed).matches] == [0, 1, 2]
    assert _digest(killed / STORE_NAME) == before


def test_a_hot_journal_beside_a_store_is_refused_and_left_alone(played: Path, tmp_path: Path) -> None:
    # A store in rollback mode whose writer died mid-transaction: a hot journal lies beside it.
    source = _copy(played, tmp_path / "source")
    db = sqlite3.connect(source / STORE_NAME, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=DELETE")
        db.execute("PRAGMA cache_size=1")  # the transaction's pages spill into the file, the journal keeps the old
        db.execute("BEGIN")
        db.execute("UPDATE matches SET digest = digest || zeroblob(100000)")
        dead = tmp_path / "dead" / "out"
        shutil.copytree(source, dead)
    finally:
        db.close()
    journal = dead / f"{STORE_NAME}-journal"
    assert journal.stat().st_size > 0
    files = {p.name: _digest(p) for p in dead.iterdir() if p.is_file()}
    _refused(dead, "its writer died mid-transaction, leaving a journal or WAL beside it", [])
    assert {p.name: _digest(p) for p in dead.iterdir() if p.is_file()} == files


def test_a_store_whose_reader_is_bounded_still_reads_a_real_tournament(played: Path, tmp_path: Path) -> None:
    results = _copy(played, tmp_path / "t")
    stored = load_stored(results)
    assert [m.record.match_index for m in stored.matches] == list(range(MATCHES))
    assert [m.log_path for m in stored.matches] == [f"logs/m{i:05}-d{i // PER_DEAL_SET}.json" for i in range(MATCHES)]
    assert stored.per_deal_set == PER_DEAL_SET
    report = tmp_path / "report.html"
    result = runner.invoke(app, ["standings", str(results), "--html", str(report)])
    assert result.exit_code == 0, result.output
    assert report.exists()


def test_a_large_store_within_its_schedule_is_read_whole(played: Path, tmp_path: Path) -> None:
    # 10,000 matches of 5,000 deal sets, each a real match's row moved to its place: the reader's bounds are
    # on what the schedule holds, not on a size that a real tournament could outgrow.
    results = _copy(played, tmp_path / "t")
    deal_sets = 5000
    db = sqlite3.connect(results / STORE_NAME)
    try:
        db.execute("UPDATE meta SET value = ? WHERE key = 'deal_sets'", (str(deal_sets),))
        real = db.execute("SELECT * FROM matches ORDER BY match_index").fetchall()
        moved = []
        for index in range(MATCHES, deal_sets * PER_DEAL_SET):
            row = list(real[index % PER_DEAL_SET])  # the same place in its deal set: the same seating
            row[0], row[1] = index, index // PER_DEAL_SET
            row[12] = f"logs/m{index:05}-d{index // PER_DEAL_SET}.json"
            moved.append(row)
        db.executemany(f"INSERT INTO matches VALUES ({', '.join('?' * len(real[0]))})", moved)
        db.commit()
    finally:
        db.close()
    stored = load_stored(results)
    assert [m.record.match_index for m in stored.matches] == list(range(deal_sets * PER_DEAL_SET))


def test_an_empty_store_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / STORE_NAME).touch()
    _refused(tmp_path, "not a golfref results store: it is empty", [])
