"""Packaging: the sdist holds the whole project (its tests need the docs, samples and
Makefile), the licence is in the metadata, and an installed golfref finds its schemas
through the import system, whatever else sits next to it in site-packages.

Both builds run setuptools' PEP 517 hooks without isolation (no network), in a copy of
the source tree, so nothing is written into the checkout.
"""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from .conftest import ROOT

# What a copy of the checkout leaves out: environments, caches, build output.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "logs", "out"
)


def _build(kind: str, tree: Path, env: dict[str, str] | None = None, out: Path | None = None) -> Path:
    """Build an sdist or a wheel of `tree` with its own setuptools hook; return the file."""
    out = out or tree / "dist"
    code = f"from setuptools import build_meta; print(build_meta.build_{kind}({str(out)!r}))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, timeout=300, check=False, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return out / done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source") / "golfref"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE)
    # tests/logs holds sample logs: the copy must keep it, the pattern above dropped it.
    shutil.copytree(ROOT / "tests" / "logs", source / "tests" / "logs", ignore=shutil.ignore_patterns("__pycache__"))
    return source


def _tracked() -> list[str]:
    """The files git tracks in the checkout (skips the test outside a git checkout, e.g. in an sdist)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    done = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip("not a git checkout")
    return done.stdout.splitlines()


@pytest.mark.process
def test_the_sdist_holds_the_project_its_tests_need_and_no_junk(tree: Path) -> None:
    sdist = _build("sdist", tree)
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
        pkg_info = tar.extractfile(f"{sdist.name.removesuffix('.tar.gz')}/PKG-INFO")
        assert pkg_info is not None
        metadata = email.message_from_bytes(pkg_info.read())
    missing = [name for name in _tracked() if name != ".gitignore" and name not in names]
    assert missing == [], "tracked files the sdist leaves out"
    for needed in ("LICENSE", "Makefile", ".ci/run", "docs/RULES.md", "sample_matches/quickstart.yaml",
                   "schemas/log.schema.json", "tests/logs/standard_2p.json", "tests/bots/echo_bot.py"):
        assert needed in names
    junk = [n for n in names if "__pycache__" in n or n.endswith(".pyc") or n.startswith((".venv", "build/", "logs/"))]
    assert junk == []
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]


@pytest.mark.process
def test_an_installed_golfref_finds_its_schemas_beside_an_unrelated_schemas_package(
    tree: Path, tmp_path: Path
) -> None:
    wheel = _build("wheel", tree)
    assert wheel.name.endswith("-py3-none-any.whl")  # pure: GOLFREF_COMPILE=1 asks for the compiled build
    site = tmp_path / "site-packages"
    with zipfile.ZipFile(wheel) as whl:
        whl.extractall(site)
        assert [n for n in whl.namelist() if n.endswith(".so")] == []
        assert "golfref/schemas/log.schema.json" in whl.namelist()
        # The HTML viewer's page, style and scripts (golfref/show/viewer/) ship as package data.
        viewer = {"golfref/show/viewer/replay.html", "golfref/show/viewer/viewer.css", "golfref/show/viewer/replay.js"}
        assert viewer <= set(whl.namelist())
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in whl.namelist())
    # Another distribution's top-level `schemas` package, right next to golfref/.
    (site / "schemas").mkdir()
    (site / "schemas" / "__init__.py").write_text("", encoding="utf-8")
    (site / "schemas" / "log.schema.json").write_text("not a schema", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(site)}
    work = tmp_path / "work"  # not the checkout: its golfref/ must not be the one imported
    work.mkdir()
    config = ROOT / "sample_matches" / "quickstart.yaml"
    log = ROOT / "tests" / "logs" / "standard_2p.json"
    where = subprocess.run(
        [sys.executable, "-c", "import golfref; print(golfref.__file__)"], cwd=work, env=env,
        capture_output=True, text=True, check=True,
    )
    assert where.stdout.strip() == str(site / "golfref" / "__init__.py")
    page = tmp_path / "page.html"
    for args in (
        ["check-config", str(config)],
        ["replay", str(log), "--check"],
        ["replay", str(log), "--html", str(page)],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "golfref", *args], cwd=work, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.process
def test_a_wheel_asked_to_compile_where_there_is_no_c_compiler_is_the_pure_package(tree: Path, tmp_path: Path) -> None:
    # Nothing on PATH: no compiler (this python is named by its path, mypy is never asked for).
    env = {**os.environ, "GOLFREF_COMPILE": "1", "PATH": str(tmp_path)}
    env.pop("CC", None)
    wheel = _build("wheel", tree, env, tmp_path / "dist")
    assert wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
    assert "golfref/game/engine.py" in names and [n for n in names if n.endswith(".so")] == []


def test_setup_names_what_a_compiled_build_lacks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import sysconfig

    sys.path.insert(0, str(ROOT))
    try:
        import setup
    finally:
        sys.path.remove(str(ROOT))
    monkeypatch.setattr(sysconfig, "get_config_var", lambda name: "no-such-cc -pthread" if name == "CC" else None)
    assert setup.missing_toolchain() == "no C compiler (no-such-cc) on PATH"
    monkeypatch.setattr(sysconfig, "get_config_var", lambda name: "sh" if name == "CC" else None)
    monkeypatch.setattr(sysconfig, "get_paths", lambda: {"include": str(tmp_path)})
    assert setup.missing_toolchain() == f"no Python headers ({tmp_path / 'Python.h'} is missing: python3-dev on Debian)"
    modules = setup.mypyc_settings()["modules"]
    assert modules and all((ROOT / m).is_file() for m in modules)
