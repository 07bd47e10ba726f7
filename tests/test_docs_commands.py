"""Every `golfref` command in docs/*.md runs as written from a folder of examples (`golfref examples`).

`doc_commands()` finds each one in the pages' fenced blocks: a `$ golfref ...` line of a console
or text block, a `golfref ...` line of an sh or text block, a `run: golfref ...` step of a YAML
block (a CI job). Each says where it runs (the folder of examples, or a folder of it that the
page's console has a reader `cd` into), the exit statuses its page implies (from what the page
shows after it: a `golfref: error:` line, a failed check, `$ echo $?`), or why it is not run.
`prepare()` makes, in a folder of examples, what a page has its reader make before a command:
the files its blocks show (a block whose first line is `# PATH`) and the few its prose asks for.

Neither knows how a command is run, so that a test of an installed wheel can run the very same
commands with `golfref` on PATH. The tests here run each page's commands in order, in process
through typer's CliRunner, in a folder of examples of the page's own.
"""

from __future__ import annotations

import glob
import re
import shlex
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import ROOT, system_first_path, write_examples

pytestmark = [pytest.mark.process]

DOCS = ROOT / "docs"
WHERE = (
    "The commands below run in a folder of examples: `golfref examples golf-examples && cd golf-examples` "
    "(in a checkout: `cd sample_matches`)."
)
"""What a page whose commands read the examples' files says once, near its top."""


@dataclass(frozen=True)
class DocCommand:
    """A `golfref` command of a page, as the page writes it, and what running it must give."""

    page: str
    """The page, from the repository's root: `docs/BOT_TOOLS.md`."""
    line: int
    """Its line on the page, from 1."""
    text: str
    """The command as written (without a console's `$ `)."""
    argv: tuple[str, ...]
    """Its words as a shell splits them (`golfref` first, a trailing `# comment` dropped); a word
    with `<...>` names a file the page's earlier commands wrote (`words` finds it)."""
    folder: str
    """Where it runs, from the folder of examples: `.`, or where the page's console `cd`s."""
    statuses: frozenset[int]
    """The exit statuses its page implies (none when it is not run)."""
    skip: str | None = None
    """Why it is not run, or None."""
    needs: tuple[str, ...] = ()
    """What it needs beyond golfref's base install: an extra (`cluster`, `rl`)."""


# -- finding them -------------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*```(\S*)\s*$")
_FILE_BLOCK = re.compile(r"^# ([\w.-]+(?:/[\w.-]+)*\.\w+)$")
_SYNOPSIS = re.compile(r"\[(--|options\])")
_PLACEHOLDER = re.compile(r"<[^<>]+>")

NOT_RUN_PAGES = {
    "docs/TRAINING.md": "tests/test_docs_training.py runs the page's steps in order, in a folder of examples, "
    "with fewer training episodes and deal sets (as written they take many minutes)",
}
NOT_RUN = {
    ("docs/AUDIT.md", "golfref audit logs/m.json", 2): "the page plants leaks into the transcript by hand before it",
}
"""Commands not run, by page, command and which of its occurrences on the page (from 1)."""


def _blocks(text: str) -> Iterator[tuple[str, int, list[str]]]:
    """Each fenced block of a page: its language, the line number of its first line, its lines."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opened = _FENCE.match(lines[i])
        if opened is None:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), None)
        assert end is not None, f"line {i + 1}: a block that never closes"
        yield opened.group(1), i + 2, lines[i + 1 : end]
        i = end + 1


def _status(shown: list[str]) -> frozenset[int]:
    """The exit status what a page shows after a command implies."""
    for i, line in enumerate(shown):
        if line == "$ echo $?" and i + 1 < len(shown):
            return frozenset({int(shown[i + 1])})
    if any(line.startswith("golfref: error:") for line in shown):
        return frozenset({2})
    if any(line.startswith(("FAIL ", "diverged at ")) for line in shown):
        return frozenset({1})
    return frozenset({0})


def _split(command: str) -> tuple[str, ...]:
    """A command's words as a shell splits them, a trailing comment dropped, each `<...>` placeholder kept in one."""
    hidden = _PLACEHOLDER.sub(lambda m: m.group(0).replace(" ", "\0"), command)
    return tuple(word.replace("\0", " ") for word in shlex.split(hidden, comments=True))


def _classified(page: str, line: int, text: str, folder: str, shown: list[str], nth: int) -> DocCommand:
    argv = _split(text)
    needs = ("cluster",) if "--cluster" in argv else ("rl",) if page == "docs/TRAINING.md" else ()
    skip = NOT_RUN_PAGES.get(page) or NOT_RUN.get((page, " ".join(argv), nth))
    if argv[1] == "play":
        skip = "interactive: a person plays a seat at the terminal"
    elif any(word.startswith("tcp://") for word in argv):
        skip = "needs a Dask scheduler and workers of one's own"
    elif _SYNOPSIS.search(text):
        skip = "a synopsis: its bracketed options and capitals stand for what a user fills in"
    statuses = _status(shown)
    return DocCommand(page, line, text, argv, folder, frozenset() if skip else statuses, skip, needs)


def page_commands(page: str, text: str) -> list[DocCommand]:
    """Every `golfref` command of one page's text (`page`: its path from the repository's root), in order."""
    found: list[tuple[int, str, str, list[str]]] = []  # line, command, folder, what the page shows after it
    folder = "."
    for language, first, lines in _blocks(text):
        shown: list[str] | None = None  # what the block shows after its last `$ golfref` line
        for number, line in enumerate((raw.rstrip() for raw in lines), start=first):
            command = None
            if line.startswith("$ "):
                typed = line[2:].strip()
                if typed.startswith("golfref "):
                    command = typed
                elif typed == "echo $?" and shown is not None:
                    shown.append(line)
                    continue
                elif typed.startswith("cd ") and language == "console":
                    folder = str(Path(folder) / typed[3:].strip())
                shown = None
            elif language in ("sh", "text") and re.match(r"golfref [a-z]", line):
                command, shown = line, None
            elif language in ("yaml", "yml") and (step := re.match(r"\s*-?\s*run:\s*(golfref .*)$", line)):
                command, shown = step.group(1), None
            elif shown is not None:
                shown.append(line)
            if command is not None:
                found.append((number, command, folder, []))
                if line.startswith("$ "):
                    shown = found[-1][3]
    seen: dict[str, int] = {}
    commands = []
    for number, command, where, after in found:
        key = " ".join(_split(command))
        seen[key] = seen.get(key, 0) + 1
        commands.append(_classified(page, number, command, where, after, seen[key]))
    return commands


def doc_commands() -> list[DocCommand]:
    """Every `golfref` command of docs/*.md, page by page, each page's in its order."""
    pages = sorted(DOCS.glob("*.md"))
    return [c for path in pages for c in page_commands(f"docs/{path.name}", path.read_text(encoding="utf-8"))]


# -- what a page has its reader make ------------------------------------------------------------


def _copy(pairs: tuple[tuple[str, str], ...]) -> Callable[[Path], None]:
    def copy(examples: Path) -> None:
        for target, source in pairs:
            shutil.copyfile(examples / source, examples / target)

    return copy


def _audited_quickstart(examples: Path) -> None:
    """AUDIT.md: quickstart.yaml with `holes: 2` in its rules and its log at logs/m.json, with transcripts."""
    config = examples / "quickstart.yaml"
    text = config.read_text(encoding="utf-8")
    if "transcript: true" not in text:
        text = text.replace("  preset: standard\n", "  preset: standard\n  holes: 2\n", 1)
        text = re.sub(r"(?ms)^log:\n.*", "log: {path: logs/m.json, transcript: true}\n", text)
        config.write_text(text, encoding="utf-8")


PROSE: dict[str, Callable[[Path], None]] = {
    # "copy the kit's golfbot.py into it (... bots/golfbot.py of a folder of examples ...)"
    "docs/WRITING_A_BOT.md": _copy((("golfbot.py", "bots/golfbot.py"),)),
    # "the sample bots as bots/new_bot.py (greedy) and bots/old_bot.py (random)"
    "docs/TOURNAMENTS.md": _copy(
        (("bots/new_bot.py", "bots/greedy_bot.py"), ("bots/old_bot.py", "bots/random_bot.py"))
    ),
    "docs/AUDIT.md": _audited_quickstart,
}
"""What a page's prose has its reader make in the folder of examples before its commands."""


def file_blocks(page: str) -> list[tuple[int, str, str]]:
    """The files a page's blocks show, as (line, path, text): each block whose first line is `# PATH`."""
    text = (ROOT / page).read_text(encoding="utf-8")
    return [
        (first, match.group(1), "\n".join(lines) + "\n")
        for _, first, lines in _blocks(text)
        if lines and (match := _FILE_BLOCK.match(lines[0]))
    ]


def prepare(command: DocCommand, examples: Path) -> None:
    """Make in `examples` (a folder `golfref examples` wrote) what `command`'s page has made before it: the
    prose's files, then each file its blocks above the command show (the last one of each path)."""
    if command.page in PROSE:
        PROSE[command.page](examples)
    shown = {path: text for line, path, text in file_blocks(command.page) if line < command.line}
    for path, text in shown.items():
        (examples / path).parent.mkdir(parents=True, exist_ok=True)
        (examples / path).write_text(text, encoding="utf-8")


def words(command: DocCommand, examples: Path) -> list[str]:
    """The command's words, each `<...>` placeholder filled with the one file it matches (from where it runs)."""
    where = examples / command.folder
    filled = []
    for word in command.argv:
        if _PLACEHOLDER.search(word):
            matches = glob.glob(_PLACEHOLDER.sub("*", word), root_dir=where)
            assert len(matches) == 1, f"{command.page}:{command.line}: {word} matches {matches}"
            word = matches[0]
        filled.append(word)
    return filled


# -- the tests ----------------------------------------------------------------------------------

COMMANDS = doc_commands()
PAGES = sorted({c.page for c in COMMANDS if c.skip is None})


def test_the_commands_are_found_and_each_is_run_or_says_why_not() -> None:
    texts = {c.text for c in COMMANDS}
    assert "golfref check-bot --preset standard --move-ms 500 -- python3 test_bots/bad_bot.py sleep-forever" in texts
    assert any(c.argv[:2] == ("golfref", "tournament") and "ci/gate.yaml" in c.argv for c in COMMANDS)  # a CI step
    assert any(c.argv[1] == "replay" and c.page == "docs/VIEWER.md" for c in COMMANDS)  # an sh block
    for command in COMMANDS:
        assert command.argv[0] == "golfref" and (command.skip is None) == bool(command.statuses), command
    # The pages name no file of a checkout in a command (tests/logs, tests/bots, sample_matches/, docs/).
    checkout = [c for c in COMMANDS if re.search(r"\b(tests|sample_matches|docs)/", c.text)]
    assert checkout == []


def test_the_extractor_reads_each_kind_of_block() -> None:
    page = "\n".join([
        "```console", "$ cd arena", "$ golfref score \"7S\"", "3", "$ golfref rules --preset x",
        "golfref: error: no", "```", "```sh", "golfref replay logs/<the log>.json   # a comment", "```",
        "```text", "golfref check-bot [--preset P]... -- CMD", "golfref: a line it prints", "```",
        "```yaml", "steps:", "  - run: golfref tournament ci/gate.yaml --quiet", "```",
        "```text", "$ golfref audit logs/m.json", "logs/m.json: 1 leak", "$ echo $?", "1", "```",
    ])  # fmt: skip
    found = page_commands("docs/X.md", page)
    assert [(c.line, c.argv[1], c.folder, sorted(c.statuses), c.skip is None) for c in found] == [
        (3, "score", "arena", [0], True),
        (5, "rules", "arena", [2], True),
        (9, "replay", "arena", [0], True),
        (12, "check-bot", "arena", [], False),
        (17, "tournament", "arena", [0], True),
        (20, "audit", "arena", [1], True),
    ]
    assert found[2].argv == ("golfref", "replay", "logs/<the log>.json")


def test_each_page_whose_commands_read_the_examples_says_where_they_run(tmp_path: Path) -> None:
    examples = write_examples(tmp_path)
    for page in sorted({c.page for c in COMMANDS}):
        reads = [
            c for c in COMMANDS
            if c.page == page and any(("/" in w or "." in w) and (examples / c.folder / w).exists() for w in c.argv[2:])
        ]  # fmt: skip
        text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
        assert not reads or text.count(WHERE) == 1, f"{page} runs {reads[0].text} and does not say where, once"


def test_the_examples_files_the_pages_name_are_there(tmp_path: Path) -> None:
    # Names only a folder of examples has: its sample logs and test bots, and the sample bots.
    examples = write_examples(tmp_path)
    named = re.compile(r"(?<![\w/.])((?:sample_logs|test_bots)/[\w.-]*\w|bots/(?:greedy_bot|random_bot|golfbot)\.\w+)")
    found = set()
    for page in sorted(DOCS.glob("*.md")):
        names = set(named.findall(page.read_text(encoding="utf-8")))
        assert sorted(n for n in names if not (examples / n).is_file()) == [], f"{page.name}: not in the examples"
        found |= names
    assert {"test_bots/bad_bot.py", "sample_logs/faults_3p.json", "bots/golfbot.py"} <= found


def _sandbox_problem() -> str | None:
    """Why this machine cannot run the examples' sandboxed tournament as written, or None."""
    from tests.test_cli_run import _unsandboxable_here

    return _unsandboxable_here(ROOT / "sample_matches" / "tournament.yaml")


@pytest.mark.parametrize("page", PAGES)
def test_every_command_of_the_page_runs_from_a_folder_of_examples(
    page: str, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from golfref.cli.app import app

    commands = [c for c in COMMANDS if c.page == page and c.skip is None]
    if any(c.argv[1] == "tournament" for c in commands) and (problem := _sandbox_problem()) is not None:
        pytest.skip(problem)
    for extra in {n for c in commands for n in c.needs}:
        pytest.importorskip({"cluster": "distributed", "rl": "gymnasium"}[extra], reason=f"needs the {extra} extra")
    # The bots are `python3 ...`: the system's, as on a stock machine (see system_first_path).
    monkeypatch.setenv("PATH", system_first_path())
    examples = write_examples(shared)  # where a sandboxed bot's own user may enter
    for command in commands:
        prepare(command, examples)
        monkeypatch.chdir(examples / command.folder)
        result = CliRunner().invoke(app, words(command, examples)[1:])
        where = f"{page}:{command.line}: $ {command.text}\n{result.output[-3000:]}"
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise AssertionError(where) from result.exception
        assert result.exit_code in command.statuses, where
        assert "Traceback" not in result.output and "internal error" not in result.output, where
