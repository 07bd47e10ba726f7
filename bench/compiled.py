"""The compiled build in build/compiled (`make compiled`): whether it can be used, and putting it first.

Shared by the bench (`python -m bench --compiled`) and the tests (`pytest --compiled`). It
imports nothing of golfref: `use` must run before anything else does.
"""

from __future__ import annotations

import filecmp
import importlib
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPILED = ROOT / "build" / "compiled"


def modules() -> list[str]:
    """The modules mypyc compiles, as import names (from pyproject.toml's [tool.golfref.mypyc])."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        paths: list[str] = tomllib.load(f)["tool"]["golfref"]["mypyc"]["modules"]
    return [path.removesuffix(".py").replace("/", ".") for path in paths]


MAPPED = {"schemas": "schemas", "kits": "kits", "sample_matches": "samples"}
"""The repository's folders that the package holds under other names (pyproject.toml's package-dir), as the
Makefile copies them into the compiled build: folder -> its name in golfref/."""


def unavailable() -> str | None:
    """Why the compiled build cannot be used (missing, no compiler, stale), or None when it can."""
    reason = COMPILED / "UNAVAILABLE"
    if reason.is_file():
        return f"no compiled build: {reason.read_text(encoding='utf-8').strip()}"
    if not (COMPILED / ".built").is_file():
        return f"no compiled build in {COMPILED} (make compiled)"
    package = COMPILED / "golfref"
    stale = _differing(ROOT / "golfref", package) or next(
        (found for folder, name in MAPPED.items() if (found := _differing(ROOT / folder, package / name))), None
    )
    if stale:
        return f"the compiled build is stale: {stale} changed since it was built (make compiled)"
    return None


def _differing(source: Path, copy: Path) -> str | None:
    """The first source file whose copy is missing or differs, or module the sources no longer have."""
    for path in sorted(source.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file() or path.suffix in (".pyc", ".so"):
            continue
        twin = copy / path.relative_to(source)
        if not twin.is_file() or not filecmp.cmp(path, twin, shallow=False):
            return str(path.relative_to(ROOT))
    for twin in sorted(copy.rglob("*.py")):
        if not (source / twin.relative_to(copy)).is_file() and twin.relative_to(copy).parts[0] not in MAPPED.values():
            return str((source / twin.relative_to(copy)).relative_to(ROOT))
    return None


def use() -> list[str]:
    """Put the compiled build first on sys.path and import its compiled modules; returns their files.

    Raises RuntimeError when golfref was imported already (from elsewhere), or when a module
    that should be compiled was not loaded from an extension module.
    """
    if "golfref" in sys.modules:
        raise RuntimeError(f"golfref was imported before the compiled build was put first: {sys.modules['golfref']}")
    sys.path.insert(0, str(COMPILED))
    files = []
    for name in modules():
        module = importlib.import_module(name)
        where = str(getattr(module, "__file__", ""))
        if not where.endswith(".so"):
            raise RuntimeError(f"{name} is not compiled: it was loaded from {where}")
        files.append(where)
    return files
