"""docs/PYTHON_API.md tells the truth: its examples run, in order, in a fresh folder, and print what it says;
its config fragment is a valid config; its log entry has the fields the log schema gives a player."""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from pathlib import Path

import pytest

from golfref.config.match import parse_config

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "PYTHON_API.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```(\w+)\n(.*?)^```$", DOC, flags=re.M | re.S)


def run_examples(folder: Path) -> list[tuple[str, str, str | None]]:
    """Each python example of the page run in `folder` (a file example written there): (code, printed, expected)."""
    namespace: dict[str, object] = {}
    ran: list[tuple[str, str, str | None]] = []
    for kind, text in BLOCKS:
        if kind == "python" and text.startswith("# ") and text.split("\n")[0].endswith(".py"):
            (folder / text.split("\n")[0][2:]).write_text(text, encoding="utf-8")
        elif kind == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(text, "PYTHON_API.md", "exec"), namespace)  # noqa: S102 - the page's own examples
            ran.append((text, out.getvalue(), None))
        elif kind == "output":
            code, printed, _ = ran[-1]
            ran[-1] = (code, printed, text)
    return ran


@pytest.mark.process  # one example runs its policy in a child process
def test_every_example_runs_and_prints_what_the_page_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        ran = run_examples(tmp_path)
    finally:
        sys.modules.pop("mypolicy", None)
    assert len(ran) >= 5
    for code, printed, expected in ran:
        if expected is not None:
            assert printed == expected, code


def test_the_config_fragment_is_a_valid_config(tmp_path: Path) -> None:
    (tmp_path / "mypolicy.py").write_text(next(t for k, t in BLOCKS if t.startswith("# mypolicy.py")))
    (fragment,) = [t for k, t in BLOCKS if k == "yaml"]
    try:
        config = parse_config(fragment, "match.yaml", base_dir=tmp_path)
    finally:
        sys.modules.pop("mypolicy", None)
    mine, boxed, greedy = config.players
    assert mine.python == "mypolicy:LowDiscard" and mine.command is None
    assert boxed.command is not None and boxed.command[-1] == "mypolicy:LowDiscard"
    assert greedy.builtin == "greedy"


def test_the_log_entry_shown_has_a_players_fields() -> None:
    schema = json.loads((ROOT / "schemas" / "log.schema.json").read_text(encoding="utf-8"))
    (entry,) = [t for k, t in BLOCKS if k == "json"]
    shown = json.loads(entry)
    fields = schema["$defs"]["player"]["properties"]
    assert set(shown) - {"..."} <= set(fields)
    assert set(shown["fingerprint"]) == set(schema["$defs"]["module_fingerprint"]["properties"])


def test_the_readme_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## From Python", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"^```python\n(.*?)^```$", section, flags=re.M | re.S)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own example
    # Unseeded: a total may be negative.
    found = re.fullmatch(r"\(-?\d+, -?\d+\) \([12], [12]\) (\S+)\n", out.getvalue())
    assert found is not None, out.getvalue()
    log = found.group(1)
    assert Path(log).is_file() and Path(log).parent.resolve() == (tmp_path / "logs").resolve()
