"""README.md and docs/COMMANDS.md keep their promises: their console examples run, every command
they name exists, the README's front door stays short and names every command, the
two-command contract is what the Makefile and .ci/run do, and the table of exit statuses is
golfref.cli.exits' own."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from golfref.cli.app import app
from golfref.record.log import compute_digest, read_log
from golfref.record.validate import Status, validate
from tests.test_docs_rules import _console_examples

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
COMMANDS = (ROOT / "docs" / "COMMANDS.md").read_text(encoding="utf-8")
EXAMPLES = _console_examples(README) + _console_examples(COMMANDS)


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_console_example(example, examples: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(examples)  # the docs' commands run in a folder of examples, as a user's do
    result = CliRunner().invoke(app, shlex.split(example.command)[1:])
    assert [line.rstrip() for line in result.output.splitlines()] == list(example.expected)
    assert result.exit_code == 0


def test_every_documented_command_exists() -> None:
    documented = set(re.findall(r"`golfref ([a-z-]+)", README + COMMANDS))
    assert {"run", "check-config", "replay", "score", "rules"} <= documented
    for name in documented:
        result = CliRunner().invoke(app, [name, "--help"])
        assert result.exit_code == 0, f"golfref {name} --help failed: {result.output}"


def test_two_command_contract() -> None:
    assert "make demo" in README and "make test" in README
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^demo:", makefile, flags=re.M) and re.search(r"^test:", makefile, flags=re.M)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci


def test_the_digest_promise_is_what_validation_does() -> None:
    """docs/COMMANDS.md: the digest catches an edit that did not update it, and is no signature: a
    re-sealed edit of a field no rule derives passes as valid."""
    words = " ".join(COMMANDS.replace("*", "").split())
    assert "It is not a signature" in words and "Forging is not prevented" in words
    doc = read_log(ROOT / "tests" / "logs" / "standard_2p.json")
    assert validate(doc).status is Status.VALID
    doc["players"][0]["name"] = "someone else"
    assert validate(doc).status is Status.TAMPERED
    doc["digest"] = compute_digest(doc)
    assert validate(doc).status is Status.VALID


def test_the_exit_status_table_is_what_each_command_exits_with() -> None:
    """docs/COMMANDS.md's one table of every command's exit statuses is golfref.cli.exits' table, row for row."""
    from golfref.cli.exits import EVERY, EXITS

    section = COMMANDS.split("## Exit statuses", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (`golfref [a-z-]+`|every command) \| (\d+) \| (.*) \|$", section, flags=re.M)
    table: dict[str, dict[int, str]] = {}
    for who, code, meaning in rows:
        table.setdefault(who, {})[int(code)] = meaning.replace("\\|", "|")
    expected = {f"`golfref {name}`": EXITS.codes(name) for name in EXITS.commands()}
    expected["every command"] = EXITS.codes(EVERY)
    assert table == expected
    # ... and in the same order, row for row.
    shown = [(who, int(code), meaning.replace("\\|", "|")) for who, code, meaning in rows]
    who = {r.command: r.command if r.command == EVERY else f"`golfref {r.command}`" for r in EXITS.rows}
    assert shown == [(who[r.command], r.code, r.meaning) for r in EXITS.rows]
    documented = set(re.findall(r"^\| `golfref ([a-z-]+)", COMMANDS, flags=re.M))
    assert documented - {"--version"} <= set(EXITS.commands()), "a command in docs/COMMANDS.md has no exit codes"
    for name in EXITS.commands():  # each command's --help lists the same
        codes = EXITS.codes(name)
        help_text = CliRunner().invoke(app, [name, "--help"]).output
        for code in codes:
            assert re.search(rf"^ +{code}  \S", help_text, flags=re.M), (name, code)


def test_the_readme_is_a_front_door_that_names_every_command() -> None:
    from golfref.cli.app import COMMANDS as ALL

    assert len(README.splitlines()) <= 200
    for heading in ("## Install", "## Five minutes", "## Commands", "## Developing golfref"):
        assert heading in README
    table = README.split("## Commands", 1)[1].split("\n## ", 1)[0]
    assert set(re.findall(r"`golfref ([a-z-]+)", table)) == {name for name, _ in ALL}
    # Every doc it links to is there.
    for target in re.findall(r"\]\((docs/[A-Z_]+\.md)", README):
        assert (ROOT / target).is_file(), target
