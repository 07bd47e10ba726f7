"""docs/PROTOCOL.md tells the truth: its minimal bot plays, and its transcript is real.

- The ```python block is the minimal bot: at most 40 lines, and it plays whole matches
  without a single fault under several rule sets (every decision kind).
- Every `>` / `<` line of the annotated transcript appears, in order, in the transcript
  of the very match the doc describes (seed 3, standard, 2x2, 1 hole), with `...` standing
  for any text.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from golfref.config import parse_config
from golfref.referee import run_match

DOC = (Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")

pytestmark = pytest.mark.process


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC, flags=re.S)


@pytest.fixture
def minimal_bot(tmp_path: Path) -> Path:
    (code,) = _blocks("python")
    path = tmp_path / "minimal_bot.py"
    path.write_text(code, encoding="utf-8")
    path.chmod(0o755)
    return path


def test_minimal_bot_has_at_most_40_lines() -> None:
    (code,) = _blocks("python")
    assert len(code.rstrip("\n").splitlines()) <= 40


def _match(tmp_path: Path, bot: Path, rules: str, seed: int, transcript: bool = False) -> dict:
    text = f"""
match: transcript
rules: {rules}
seed: {seed}
players:
  - name: minimal
    command: {shlex.quote(sys.executable)} {shlex.quote(str(bot))}
  - name: greedy
    builtin: greedy
log:
  path: {json.dumps(str(tmp_path / "out" / "{match}.json"))}
  transcript: {str(transcript).lower()}
"""
    result = run_match(parse_config(text, source="doc", base_dir=tmp_path))
    return result.log


@pytest.mark.parametrize(
    "rules",
    [
        "{preset: standard, layout: 2x2, holes: 2}",
        "{preset: classic, holes: 1}",
        "{preset: knock, holes: 1}",
        "{preset: arena, layout: 2x2, card_powers: on, holes: 1}",
        "{preset: standard, flip_after_throw: may, reveal_choice: player, holes: 1}",
    ],
)
def test_minimal_bot_plays_without_faults(tmp_path: Path, minimal_bot: Path, rules: str) -> None:
    log = _match(tmp_path, minimal_bot, rules, seed=5)
    assert log["status"] == "finished"
    assert log["faults"] == []
    steps = [s for h in log["holes"] for s in h["steps"] if s.get("seat") == 0]
    assert steps and all(s["by"] == "bot" for s in steps)


def test_annotated_transcript_is_a_real_one(tmp_path: Path, minimal_bot: Path) -> None:
    _match(tmp_path, minimal_bot, "{preset: standard, layout: 2x2, holes: 1}", seed=3, transcript=True)
    (path,) = (tmp_path / "out").glob("*.seat0.transcript.jsonl")
    real = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        real.append(("> " if entry["dir"] == "to_bot" else "< ") + entry["line"])
    documented = [line for block in _blocks("text") for line in block.splitlines() if line[:2] in ("> ", "< ")]
    assert len(documented) >= 10
    at = 0
    for doc_line in documented:
        pattern = ".*".join(re.escape(part) for part in doc_line.split("..."))
        while at < len(real) and not re.fullmatch(pattern, real[at]):
            at += 1
        assert at < len(real), f"not in the real transcript (in order): {doc_line}"
        at += 1
