"""The exit policy (golfref/cli/exits.py): one table owns every status, each command's --help is a view
of it, and every exit of the command line goes through it."""

from __future__ import annotations

import ast
import signal
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from golfref.cli.app import COMMANDS, app
from golfref.cli.exits import EVERY, EXIT_FAULTED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXITS, TABLE, ExitPolicy, Row

CLI = Path(__file__).resolve().parent.parent / "golfref" / "cli"
runner = CliRunner()


def test_every_command_has_its_statuses_in_the_one_table() -> None:
    registered = {command.name for command in app.registered_commands}
    assert registered == {name for name, _ in COMMANDS}
    assert set(EXITS.commands()) == registered
    assert set(EXITS.codes(EVERY)) == {3, EXIT_INTERRUPTED}
    for name in EXITS.commands():
        assert EXIT_USAGE in EXITS.codes(name), name  # every command can be given bad usage


def test_a_table_row_is_said_once() -> None:
    pairs = [(row.command, row.code) for row in TABLE]
    assert len(pairs) == len(set(pairs))


@pytest.mark.parametrize("name", EXITS.commands())
def test_each_help_lists_its_view_of_the_table(name: str) -> None:
    text = runner.invoke(app, [name, "--help"], env={"COLUMNS": "400"}).stdout
    listed = text.split("Exit codes:\n", 1)[1].splitlines()
    assert [line.split(None, 1)[0] for line in listed if line.strip()] == [str(c) for c in EXITS.codes(name)]


def test_a_view_is_made_from_the_rows() -> None:
    policy = ExitPolicy([Row("x", EXIT_OK, "fine"), Row("y", EXIT_FAULTED, "bad"), Row("x", EXIT_USAGE, "usage")])
    assert policy.commands() == ("x", "y")
    assert policy.codes("x") == {EXIT_OK: "fine", EXIT_USAGE: "usage"}
    assert policy.epilog("y") == "\b\nExit codes:\n    1  bad"
    with pytest.raises(KeyError):
        policy.codes("z")


def test_only_a_status_of_the_table_or_a_signal_leaves() -> None:
    for code in (EXIT_OK, EXIT_FAULTED, EXIT_USAGE, 3, 4, 128 + signal.SIGTERM, 128 + signal.SIGHUP):
        with pytest.raises(typer.Exit) as raised:
            EXITS.exit(code)
        assert raised.value.exit_code == code
    for code in (5, 42, 127, 128, -1):
        with pytest.raises(ValueError, match=f"exit status {code} "):
            EXITS.exit(code)
    with pytest.raises(typer.Exit) as raised:
        EXITS.signalled(signal.SIGTERM)
    assert raised.value.exit_code == 143
    with pytest.raises(SystemExit) as left:
        EXITS.leave(EXIT_USAGE)
    assert left.value.code == EXIT_USAGE


def _calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = ast.unparse(func)
            found.append((name, node))
    return found


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_every_exit_goes_through_the_policy(path: Path) -> None:
    """No `typer.Exit`, `sys.exit` or `SystemExit` outside exits.py, and no status given as a bare number."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for name, call in _calls(tree):
        if path.name != "exits.py":
            assert name.split(".")[-1] not in ("Exit", "exit", "SystemExit") or name == "EXITS.exit", (
                f"{path.name}:{call.lineno}: {name}(...) exits around golfref.cli.exits"
            )
        if name.split(".")[-1] in ("exit", "leave", "fail", "signalled") and name != "sys.exit":
            statuses = call.args[1:] if name.endswith("fail") else call.args
            for arg in statuses:
                assert not (isinstance(arg, ast.Constant) and isinstance(arg.value, int)), (
                    f"{path.name}:{call.lineno}: {name}({arg.value}): name the status (golfref.cli.exits)"
                )


MAX_COMMAND_LINES = 40
"""A command parses, calls the library and renders through golfref.show: more than this says it does the work."""


def _body_lines(function: ast.FunctionDef) -> int:
    body = function.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):  # the docstring is --help's text
        body = body[1:]
    return body[-1].end_lineno - body[0].lineno + 1 if body else 0  # type: ignore[operator]


def test_no_command_body_is_over_40_lines() -> None:
    """Every function registered as a command (app.py's COMMANDS) has a body of at most 40 lines."""
    commands = {(function.__module__, function.__name__) for _, function in COMMANDS}
    seen = set()
    for path in sorted(CLI.glob("*.py")):
        module = f"golfref.cli.{path.stem}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and (module, node.name) in commands:
                seen.add((module, node.name))
                assert _body_lines(node) <= MAX_COMMAND_LINES, (
                    f"{path.name}: {node.name} has a body of {_body_lines(node)} lines"
                )
    assert seen == commands
