"""`golfref export-bot`: a Python policy written out as a bot folder that runs on its own, sandboxed too.

The folder holds the policy's code, the kit (as golfref/kit/golfbot.py) and bot.py; it must play
as a bot program with nothing but itself, and every refusal is one line with nothing left written.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from golfref.config.match import parse_config
from golfref.kit import golfbot
from golfref.match.referee import run_match
from golfref.record.faults import SeatStatus
from golfref.tools.export import ExportError, export_bot
from golfref.tools.rerun import load_script

from .test_sandbox import SYSTEM_PYTHON, needs_bubblewrap

GOLFREF = [sys.executable, "-m", "golfref"]

FIRST_LEGAL = """
from golfref.kit import golfbot


def first(view: golfbot.View, legal: list[str]) -> str:
    return legal[0]
"""

# A package with a data file beside it: the whole top-level package is copied, weights and all.
PACKAGE = {
    "__init__.py": "",
    "weights.txt": "swap\n",
    "agent.py": '''
        from pathlib import Path

        from golfref.kit import golfbot

        PREFERRED = (Path(__file__).parent / "weights.txt").read_text().strip()


        class Agent:
            def choose(self, view: golfbot.View, legal: list[str]) -> str:
                preferred = [a for a in legal if a.startswith(PREFERRED)]
                return (preferred or legal)[-1]


        agent = Agent()
    ''',
}


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder of the user's policies, as the current folder; its modules forgotten afterwards."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    before = set(sys.modules)
    yield work
    for name in set(sys.modules) - before:
        if name.split(".")[0] in ("first_legal", "mypkg", "broken", "leaky", "needy"):
            del sys.modules[name]


def write_package(root: Path) -> None:
    (root / "mypkg").mkdir()
    for name, text in PACKAGE.items():
        (root / "mypkg" / name).write_text(textwrap.dedent(text), encoding="utf-8")


def test_a_function_policy_becomes_a_folder_with_its_module_the_kit_and_a_launcher(here: Path) -> None:
    (here / "first_legal.py").write_text(FIRST_LEGAL, encoding="utf-8")
    bot = export_bot("first_legal:first", here / "bot")
    kit_files = tuple(f"golfref/kit/{p.name}" for p in sorted(Path(golfbot.__file__).parent.glob("*.py")))
    assert bot.files == ("bot.py", "first_legal.py", "golfref/__init__.py", *kit_files)
    assert {"golfref/kit/__init__.py", "golfref/kit/golfbot.py"} <= set(kit_files)
    assert bot.name == "first" and bot.command == ("python3", "bot.py") and bot.needs == ()
    kit = Path(golfbot.__file__).read_bytes()
    assert (here / "bot" / "golfref" / "kit" / "golfbot.py").read_bytes() == kit


def test_a_package_policy_is_copied_whole_with_its_files_and_an_included_one(here: Path) -> None:
    write_package(here)
    (here / "notes.json").write_text("{}", encoding="utf-8")
    bot = export_bot("mypkg.agent:agent", here / "out", name="agent-1", include=[here / "notes.json"])
    assert {"mypkg/__init__.py", "mypkg/agent.py", "mypkg/weights.txt", "notes.json"} <= set(bot.files)
    assert not any("__pycache__" in f for f in bot.files)
    assert '"--name", \'agent-1\'' in (here / "out" / "bot.py").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("target", "module", "words"),
    [
        ("first_legal", FIRST_LEGAL, "a policy is named MODULE:OBJECT"),
        ("first_legal:", FIRST_LEGAL, "a policy is named MODULE:OBJECT"),
        ("no_such_module:x", None, "cannot import no_such_module: ModuleNotFoundError"),
        ("broken:x", "raise RuntimeError('boom at import')\n", "cannot import broken: RuntimeError: boom at import"),
        ("first_legal:second", FIRST_LEGAL, "first_legal has no second"),
        ("first_legal:NUMBER", FIRST_LEGAL + "NUMBER = 3\n", "builtins.int has no choose(view, legal) method"),
        ("first_legal:Kind", FIRST_LEGAL + "class Kind: pass\n", "class Kind has no choose(view, legal) method"),
        ("leaky:first", FIRST_LEGAL + "from golfref.game import engine\n", "leaky.py:7: imports golfref.game"),
        ("golfref.game.policies:RandomPolicy", None, "a policy inside golfref itself is a built-in"),
    ],
)
def test_a_policy_that_cannot_be_exported_is_one_line_and_nothing_is_written(
    here: Path, target: str, module: str | None, words: str
) -> None:
    if module is not None:
        (here / (target.partition(":")[0] + ".py")).write_text(module, encoding="utf-8")
    with pytest.raises(ExportError) as caught:
        export_bot(target, here / "out")
    assert words in str(caught.value) and "\n" not in str(caught.value)
    assert not (here / "out").exists()


def test_a_folder_that_holds_files_is_refused_and_kept(here: Path) -> None:
    (here / "first_legal.py").write_text(FIRST_LEGAL, encoding="utf-8")
    (here / "out").mkdir()
    (here / "out" / "mine.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(ExportError, match="already there and not an empty folder"):
        export_bot("first_legal:first", here / "out")
    assert (here / "out" / "mine.txt").read_text(encoding="utf-8") == "keep me"
    (here / "empty").mkdir()
    export_bot("first_legal:first", here / "empty")  # an empty folder is fine


def test_what_the_policy_imports_beyond_the_folder_is_named(here: Path) -> None:
    # Imported where it is used, as a policy may: the folder is looked at, not run.
    lazy = "import json\n\n\ndef later():\n    import numpy\n    from yaml import safe_load\n"
    (here / "needy.py").write_text(FIRST_LEGAL + lazy, "utf-8")
    assert export_bot("needy:first", here / "out").needs == ("numpy", "yaml")


def match_config(folder: Path, logs: Path, sandboxed: bool, python: str = "python3") -> str:
    return yaml.safe_dump(
        {
            "match": "exported",
            "rules": {"preset": "standard", "layout": "2x2", "holes": 2},
            "seed": 5,
            "players": [
                {"name": "exported", "command": [python, "bot.py"], "cwd": str(folder)},
                {"name": "greedy", "builtin": "greedy"},
            ],
            "time": {"startup_ms": 60_000, "move_ms": 60_000},
            "log": {"path": str(logs / "{match}.json")},
            "sandbox": {"enabled": sandboxed},
        }
    )


def in_process_choices(log_path: str, policy: object) -> tuple[list[str | None], list[str]]:
    """What the log says seat 0 chose at each request, and what `policy` chooses on the same request lines."""
    logged, chosen = [], []
    rules = time = None
    for message in load_script(log_path, 0).messages:
        data = json.loads(message.line)
        if message.kind == "hello":
            rules, time = golfbot.Rules.from_json(data["rules"]), golfbot.TimeControl.from_json(data["time"])
        elif message.kind == "request":
            assert rules is not None and time is not None and message.expected is not None
            logged.append(message.expected.action)
            chosen.append(golfbot.choose_of(policy)(golfbot.View.from_request(data, rules, time), data["legal"]))
    return logged, chosen


@pytest.mark.process
def test_the_folder_alone_plays_as_the_policy_does_in_process(here: Path, tmp_path: Path) -> None:
    write_package(here)
    export_bot("mypkg.agent:agent", here / "out")
    # The folder alone, elsewhere: the policy's package is not on its path, only the folder's copy.
    moved = Path(shutil.move(here / "out", tmp_path / "moved"))
    config = match_config(moved, tmp_path / "logs", sandboxed=False, python=sys.executable)
    result = run_match(parse_config(config))
    assert result.statuses == (SeatStatus.OK, SeatStatus.OK) and result.faults == ()
    from mypkg.agent import agent  # the original, in this process

    logged, chosen = in_process_choices(str(result.log_path), agent)
    assert logged and logged == chosen


@pytest.mark.process
def test_golfref_export_bot_writes_a_folder_that_check_bot_passes(here: Path) -> None:
    (here / "first_legal.py").write_text(FIRST_LEGAL, encoding="utf-8")
    done = subprocess.run([*GOLFREF, "export-bot", "first_legal:first", "out"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "check it: golfref check-bot -- python3 out/bot.py" in done.stdout
    again = subprocess.run([*GOLFREF, "export-bot", "first_legal:first", "out"], capture_output=True, text=True)
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "Traceback" not in again.stderr
    check = [*GOLFREF, "check-bot", "--", sys.executable, "out/bot.py"]
    checked = subprocess.run(check, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@needs_bubblewrap
@pytest.mark.process
def test_the_folder_plays_sandboxed_on_the_systems_python(here: Path, shared: Path) -> None:
    (here / "first_legal.py").write_text(FIRST_LEGAL, encoding="utf-8")
    export_bot("first_legal:first", shared / "bot")
    for path in [shared, *(p for p in (shared / "bot").rglob("*"))]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    config = match_config(shared / "bot", shared / "logs", sandboxed=True, python=SYSTEM_PYTHON)
    result = run_match(parse_config(config))
    assert result.statuses == (SeatStatus.OK, SeatStatus.OK) and result.faults == ()


def test_a_policy_may_be_named_by_its_file(here: Path) -> None:
    (here / "policies").mkdir()
    (here / "policies" / "first_legal.py").write_text(FIRST_LEGAL, encoding="utf-8")
    bot = export_bot("policies/first_legal.py:first", here / "out")
    assert "first_legal.py" in bot.files and "run.main(['first_legal:first'" in (
        here / "out" / "bot.py"
    ).read_text(encoding="utf-8")
    with pytest.raises(ExportError, match="no such file: policies/missing.py"):
        export_bot("policies/missing.py:first", here / "out2")
    with pytest.raises(ExportError, match="a policy is named"):
        export_bot("policies/first-legal.py:first", here / "out2")
