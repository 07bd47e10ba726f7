"""The command line's own surface: --version, -h, shell completion, help text, and what a
plain start imports (start-up time is measured by `make bench`, never asserted here)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import golfref
from golfref.cli.app import app
from golfref.cli.exits import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXITS

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

# What a plain `golfref --help` or `golfref score` must not import: each costs start-up time
# and only some commands need it.
HEAVY = (
    "yaml", "jsonschema", "orjson", "rich", "golfref.config.match", "golfref.match.referee", "golfref.bots.bot_process",
    "golfref.record.validate", "golfref.show.pretty", "golfref.record.log", "golfref.show.progress",
)  # fmt: skip


def python(code: str, *, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


def loaded_after(argv: list[str]) -> set[str]:
    """The modules loaded, in a fresh interpreter, after running `golfref ARGV`."""
    code = (
        "import json, sys\n"
        f"sys.argv = ['golfref', *{argv!r}]\n"
        "from golfref.cli.app import main\n"
        "try:\n    main()\n"
        "except SystemExit:\n    pass\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    result = python(code)
    return set(json.loads(result.stderr.splitlines()[-1]))


@pytest.mark.process
@pytest.mark.parametrize(
    "argv", [["--help"], ["run", "--help"], ["score", "7S KH / 7C 2S"], ["score", "--explain", "7S KH / 7C 2S"]]
)
def test_a_plain_start_imports_no_heavy_module(argv: list[str]) -> None:
    loaded = loaded_after(argv)
    assert "golfref.cli.app" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_version_is_the_package_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == EXIT_OK
    assert result.stdout == f"golfref {golfref.__version__}\n"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    # The version is written once, in golfref/__init__.py; the build reads it from there.
    assert not re.search(r"^version\s*=\s*\"", pyproject, flags=re.M)
    assert 'attr = "golfref.__version__"' in pyproject


@pytest.mark.parametrize("command", [[], ["run"], ["score"], ["rules"], ["check-config"], ["replay"]])
def test_h_is_help_everywhere(command: list[str]) -> None:
    short = runner.invoke(app, [*command, "-h"])
    long = runner.invoke(app, [*command, "--help"])
    assert short.exit_code == long.exit_code == EXIT_OK
    assert short.stdout == long.stdout
    assert "-h, --help" in short.stdout


@pytest.mark.parametrize("command", [["run"], ["score"], ["rules"], ["replay"]])
def test_flags_are_shown_without_a_value(command: list[str]) -> None:
    text = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "120"}).stdout
    assert "<bool>" not in text and "BOOLEAN" not in text
    assert re.search(r"--json\s+Print", text), text


def test_run_help_lists_every_exit_code() -> None:
    text = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "120"}).stdout
    assert "Exit codes:" in text
    run_codes = EXITS.codes("run")
    for code, meaning in run_codes.items():
        assert re.search(rf"^\s+{code}\s+{re.escape(meaning)}$", text, flags=re.M), (code, text)
    assert {EXIT_OK, EXIT_USAGE, EXIT_INTERRUPTED} <= set(run_codes)


def test_completion_options_are_offered() -> None:
    text = runner.invoke(app, ["--help"]).stdout
    assert "--install-completion" in text and "--show-completion" in text


@pytest.mark.process
@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_show_completion_prints_a_script_for_the_shell() -> None:
    # typer detects the shell from the parent processes: run it from bash.
    code = "import sys; sys.argv = ['golfref', '--show-completion']; from golfref.cli.app import main; main()"
    result = subprocess.run(
        ["bash", "-c", f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}; exit $?"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    assert "_GOLFREF_COMPLETE=complete_bash" in result.stdout
    assert "complete -o default -F _golfref_completion golfref" in result.stdout


@pytest.mark.process
@pytest.mark.parametrize(
    ("words", "cword", "expected"),
    [
        ("golfref ru", "1", {"run", "rules"}),
        ("golfref run --qu", "2", {"--quiet"}),
        ("golfref --ver", "1", {"--version"}),
    ],
)
def test_completion_completes_commands_and_options(words: str, cword: str, expected: set[str]) -> None:
    result = python(
        "import sys; sys.argv = ['golfref']\nfrom golfref.cli.app import main\nmain()",
        env={"_GOLFREF_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": cword},
    )
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.split()) == expected


@pytest.mark.process
def test_golfref_alone_prints_the_help_and_exits_2() -> None:
    # typer reports "no command" as a usage error whose message is the whole help: it is
    # printed as help, not squeezed into one `golfref: error:` line.
    result = python("import sys; sys.argv = ['golfref']\nfrom golfref.cli.app import main\nmain()")
    assert result.returncode == EXIT_USAGE
    assert result.stdout == ""
    assert result.stderr.startswith("Usage: ") and "golfref: error" not in result.stderr
    assert re.search(r"^\s+replay\s+Validate a game log", result.stderr, flags=re.M), result.stderr


@pytest.mark.process
def test_a_usage_error_is_one_line_naming_the_command() -> None:
    code = "import sys; sys.argv = ['golfref', 'run', 'x.yaml', '--zzzz']\nfrom golfref.cli.app import main\nmain()"
    result = python(code)
    assert result.returncode == EXIT_USAGE
    assert result.stderr.splitlines() == ["golfref: error: No such option: --zzzz (see golfref run --help)"]


@pytest.mark.process
@pytest.mark.parametrize(("argv", "status"), [(["--version"], EXIT_OK), (["run"], EXIT_USAGE)])
def test_the_program_leaves_with_its_output_its_status_and_its_atexit_functions(argv: list[str], status: int) -> None:
    # golfref.__main__ leaves without the interpreter's teardown: nothing it owes may be lost so.
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('atexit ran', file=sys.stderr))\n"
        f"sys.argv = ['golfref', *{argv!r}]\n"
        "from golfref.__main__ import main\n"
        "main()\n"
    )
    result = python(code)
    assert result.returncode == status, result.stderr
    assert result.stderr.endswith("atexit ran\n")
    if status == EXIT_OK:
        assert result.stdout == f"golfref {golfref.__version__}\n"
    else:
        assert "golfref: error: Missing argument 'config'" in result.stderr


@pytest.mark.process
def test_a_thread_still_running_gets_the_ordinary_exit() -> None:
    # The thread runs on until golfref's main() has left: only the ordinary exit then waits for it.
    code = (
        "import sys, threading\n"
        "left = threading.Event()\n"
        "def late():\n    left.wait()\n    print('the thread finished')\n"
        "threading.Thread(target=late).start()\n"
        "sys.argv = ['golfref', '--version']\n"
        "from golfref.__main__ import main\n"
        "try:\n    main()\nfinally:\n    left.set()\n"
    )
    result = python(code)
    assert result.returncode == EXIT_OK, result.stderr
    assert result.stdout.splitlines() == [f"golfref {golfref.__version__}", "the thread finished"]


@pytest.mark.process
def test_a_profiled_run_keeps_its_profile(tmp_path: Path) -> None:
    # cProfile writes its report once the program has returned: the quick exit must leave it the chance.
    report = tmp_path / "golfref.prof"
    result = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(report), "-m", "golfref", "--version"],
        capture_output=True, text=True, cwd=ROOT, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert result.returncode == EXIT_OK, result.stderr
    assert result.stdout == f"golfref {golfref.__version__}\n"
    assert report.stat().st_size > 0
