"""docs/BOT_TOOLS.md keeps its promises: every console example runs and prints what the page shows.

The decision times of a check-bot run are measured, not fixed: their numbers are compared as
numbers of some value. The examples run through the console entry point, from a folder of
examples (`golfref examples`), as the page says.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_docs_rules import Example, _console_examples

from .conftest import ROOT

pytestmark = [pytest.mark.process]

TEXT = (ROOT / "docs" / "BOT_TOOLS.md").read_text(encoding="utf-8")
EXAMPLES = _console_examples(TEXT)
_NUMBER = re.compile(r"\d+(\.\d+)?")


def _shown(line: str) -> str:
    line = line.rstrip()
    return _NUMBER.sub("N", line) if line.startswith("decision times: ") else line


def test_the_page_has_examples_of_both_commands() -> None:
    commands = [shlex.split(e.command)[1] for e in EXAMPLES]
    assert commands.count("check-bot") >= 2 and commands.count("replay-bot") >= 3


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_console_example(example: Example, examples: Path) -> None:
    argv = shlex.split(example.command)
    assert argv[0] == "golfref"
    result = subprocess.run(
        [sys.executable, "-m", "golfref", *argv[1:]], capture_output=True, text=True, cwd=examples, timeout=300
    )
    assert [_shown(line) for line in result.stdout.splitlines()] == [_shown(line) for line in example.expected]
    failing = any(line.startswith(("FAIL", "diverged")) for line in example.expected)
    assert result.returncode == (1 if failing else 0), result.stderr
