"""The compiled build (build/compiled, `make compiled`) and the pure package write the same bytes.

Each build runs in a process of its own (`python -m tests.test_compiled pure|compiled OUT`)
and writes into OUT: the sample logs (tests/logs/make_logs.py), the golden games
(tests/test_golden.py) and more seeded games of every preset recorded the same way. The test
compares the two folders file by file, byte for byte. `make test` also runs the engine's,
view's and scoring's own tests, the golden games and the sample logs against the compiled
build (`pytest --compiled`, tests/conftest.py).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import compiled

from .conftest import ROOT

# More seeded games, recorded as the golden ones: name: (preset, overrides, players, seed).
GAMES: dict[str, tuple[str, dict[str, Any], int, int]] = {
    "standard_6p": ("standard", {"holes": 9}, 6, 1),
    "classic_8p_two_decks": ("classic", {"holes": 4}, 8, 2),
    "knock_4p_3x3": ("knock", {"layout": "3x3", "holes": 5}, 4, 3),
    "arena_3p_powers": ("arena", {"card_powers": True, "holes": 5}, 3, 4),
    "arena_2p_2x4_may_flip": ("arena", {"layout": "2x4", "flip_after_throw": "may", "holes": 5}, 2, 5),
}


def write_outputs(out: Path) -> None:
    """Write every sample log, golden game and seeded game of the golfref imported into `out`."""
    from . import test_golden

    spec = importlib.util.spec_from_file_location("make_logs", ROOT / "tests" / "logs" / "make_logs.py")
    assert spec is not None and spec.loader is not None
    make_logs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_logs)
    (out / "logs").mkdir(parents=True)
    make_logs.main(out / "logs")
    (out / "games").mkdir()
    test_golden.SCENARIOS.update(GAMES)  # this process only: record() plays any scenario named there
    for name in test_golden.SCENARIOS:
        (out / "games" / f"{name}.json").write_text(test_golden.dumps(test_golden.record(name)), encoding="utf-8")


def _outputs(build: str, out: Path) -> list[Path]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.test_compiled", build, str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == build, done.stdout
    return sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())


@pytest.mark.process
def test_the_compiled_and_pure_builds_write_the_same_logs_and_games_byte_for_byte(tmp_path: Path) -> None:
    reason = compiled.unavailable()
    if reason is not None:
        pytest.skip(reason)
    pure = _outputs("pure", tmp_path / "pure")
    native = _outputs("compiled", tmp_path / "compiled")
    assert pure == native
    assert len([p for p in pure if p.parts[0] == "logs"]) == len(list((ROOT / "tests" / "logs").glob("*.json")))
    golden = len(list((ROOT / "tests" / "golden").glob("*.json")))
    assert len([p for p in pure if p.parts[0] == "games"]) == golden + len(GAMES)
    differing = [p for p in pure if (tmp_path / "pure" / p).read_bytes() != (tmp_path / "compiled" / p).read_bytes()]
    assert differing == []


def test_a_missing_unavailable_or_stale_compiled_build_says_why(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(compiled, "COMPILED", tmp_path)
    assert compiled.unavailable() == f"no compiled build in {tmp_path} (make compiled)"
    (tmp_path / "UNAVAILABLE").write_text("no C compiler (gcc) on PATH\n", encoding="utf-8")
    assert compiled.unavailable() == "no compiled build: no C compiler (gcc) on PATH"
    (tmp_path / "UNAVAILABLE").unlink()
    (tmp_path / ".built").touch()
    shutil.copytree(ROOT / "golfref", tmp_path / "golfref", ignore=shutil.ignore_patterns("__pycache__"))
    for folder, name in compiled.MAPPED.items():  # as the Makefile copies them
        shutil.copytree(ROOT / folder, tmp_path / "golfref" / name, ignore=shutil.ignore_patterns("__pycache__"))
    assert compiled.unavailable() is None
    (tmp_path / "golfref" / "kits" / "c" / "bot.c").write_text("edited")
    stale = "the compiled build is stale: {} changed since it was built (make compiled)"
    assert compiled.unavailable() == stale.format("kits/c/bot.c")
    shutil.copy(ROOT / "kits" / "c" / "bot.c", tmp_path / "golfref" / "kits" / "c" / "bot.c")
    with open(tmp_path / "golfref" / "game" / "engine.py", "a", encoding="utf-8") as f:
        f.write("# edited\n")
    assert compiled.unavailable() == stale.format("golfref/game/engine.py")
    shutil.copy(ROOT / "golfref" / "game" / "engine.py", tmp_path / "golfref" / "game" / "engine.py")
    (tmp_path / "golfref" / "game" / "view.py").unlink()
    assert compiled.unavailable() == stale.format("golfref/game/view.py")
    (tmp_path / "golfref" / "game" / "view.py").write_bytes((ROOT / "golfref" / "game" / "view.py").read_bytes())
    (tmp_path / "golfref" / "gone.py").touch()  # a module since deleted from the sources
    assert compiled.unavailable() == stale.format("golfref/gone.py")


def main(build: str, out: Path) -> None:
    """Put the build asked for first, check that it is the one imported, and write the outputs."""
    if build == "compiled":
        compiled.use()
    else:
        for name in compiled.modules():
            module = __import__(name, fromlist=["_"])
            assert str(module.__file__).endswith(".py"), module.__file__
    write_outputs(out)
    print(build)


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
