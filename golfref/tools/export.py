"""A Python policy written out as a standalone bot folder: `golfref export-bot MODULE:OBJECT DIR`.

A policy trained or written in process (golfref.kit.policy: an object with ``choose(view, legal)``,
a class of them, or such a function) becomes a bot program that a sandbox can run, seeing over the
protocol exactly what it saw in process. The folder holds:

- the policy's code: its module's file, or the whole top-level package it belongs to;
- the kit, as ``golfref/kit/`` with the package's ``__init__.py`` (the kit imports nothing else of
  golfref, which tests/test_kits.py holds), so that the policy's own ``from golfref.kit import
  golfbot`` works in the folder as it does in process;
- ``bot.py``, the launcher: ``python3 bot.py`` plays it with the kit's runner (`golfref.kit.run`).

What the policy imports beyond the standard library, the kit and its own package is not copied:
it is named (`ExportedBot.needs`), for the bot's python3 to have (docs/SANDBOX.md shows how a
bot gets a virtual environment of its own). An import of any other part of golfref is refused:
a bot folder has the kit only.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from .. import __version__
from ..kit.policy import PolicyError, check_policy, policy_name

__all__ = ["ExportError", "ExportedBot", "export_bot", "LAUNCHER", "MAX_BYTES"]

MAX_BYTES = 64 * 2**20
"""The most a bot folder may hold, as the cap on a bot's fingerprinted files (golfref.bots.fingerprint)."""

LAUNCHER = "bot.py"
"""The launcher's file name in the folder."""

_PACKAGE = Path(__file__).resolve().parent.parent
_SKIP = shutil.ignore_patterns("__pycache__", "*.py[co]")


class ExportError(Exception):
    """A policy that cannot be written out as a bot folder; the message names the target or the file."""


@dataclass(frozen=True)
class ExportedBot:
    """A bot folder written by `export_bot`."""

    folder: Path
    name: str
    """The name the bot gives in its ready."""
    files: tuple[str, ...]
    """Every file written, relative to `folder`, sorted."""
    command: tuple[str, ...]
    """The bot's command, run from `folder`."""
    needs: tuple[str, ...]
    """Top-level modules the policy imports that the folder does not hold (neither standard library nor its own)."""


def _split(target: str) -> tuple[str, list[str]]:
    module, sep, obj = target.rpartition(":")
    names = obj.split(".")
    parts = [Path(module).stem] if module.endswith(".py") else module.split(".")
    if not sep or not all(part.isidentifier() for part in [*parts, *names]):
        raise ExportError(f"{target!r}: a policy is named MODULE:OBJECT or FILE.py:OBJECT, as in my_policy:policy")
    return module, names


def _import(module_name: str) -> ModuleType:
    """`module_name` imported, or the file it names (FILE.py) loaded as a module of its file's name."""
    if not module_name.endswith(".py"):
        return importlib.import_module(module_name)
    path = Path(module_name)
    if not path.is_file():
        raise ModuleNotFoundError(f"no such file: {module_name}")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[path.stem]
        raise
    return module


def _load(target: str, module_name: str, names: Sequence[str]) -> object:
    """The policy, its module imported as `python -m` would from the current folder; checked to be one."""
    added = "" not in sys.path
    if added:
        sys.path.insert(0, "")
    try:
        module = _import(module_name)
    except Exception as e:  # the policy's own import-time error is the user's to see, in one line
        raise ExportError(f"{target!r}: cannot import {module_name}: {type(e).__name__}: {e}") from None
    finally:
        if added:
            sys.path.remove("")
    policy: object = module
    for name in names:
        if not hasattr(policy, name):
            raise ExportError(f"{target!r}: {module_name} has no {'.'.join(names)}")
        policy = getattr(policy, name)
    try:
        check_policy(policy, repr(target))
    except PolicyError as e:
        raise ExportError(str(e)) from None
    return policy


def _sources(module_name: str) -> tuple[Path, str]:
    """Where the policy's code is (its module's file, or its top-level package's folder) and its name there."""
    top_name = module_name.split(".")[0]
    if top_name == "golfref":
        raise ExportError(f"{module_name}: a policy inside golfref itself is a built-in, not a bot to export")
    top = sys.modules[top_name]
    paths = list(getattr(top, "__path__", []))
    if paths:
        if len(paths) != 1:
            raise ExportError(f"{top_name}: a namespace package spread over {len(paths)} folders cannot be copied")
        return Path(paths[0]), top_name
    file = getattr(top, "__file__", None)
    if file is None or not file.endswith(".py"):
        raise ExportError(f"{top_name}: its code is not a Python source file ({file or 'built in'})")
    return Path(file), f"{top_name}.py"


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every absolute import of the file at `path`: (line, dotted module)."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as e:
        raise ExportError(f"{path}:{e.lineno}: not Python: {e.msg}") from None
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append((node.lineno, node.module))
    return found


def _needs(folder: Path, own: str) -> tuple[str, ...]:
    """What the copied code imports that the folder lacks; a ExportError for a part of golfref beyond the kit."""
    needs: set[str] = set()
    for path in sorted(folder.rglob("*.py")):
        if path.is_relative_to(folder / "golfref"):
            continue
        for line, name in _imports(path):
            top = name.split(".")[0]
            if top == "golfref":
                if name != "golfref" and name != "golfref.kit" and not name.startswith("golfref.kit."):
                    where = path.relative_to(folder)
                    raise ExportError(f"{where}:{line}: imports {name}: a bot folder holds golfref.kit only")
            elif top not in sys.stdlib_module_names and top != own and top != "__future__":
                needs.add(top)
    return tuple(sorted(needs))


def _launcher(target: str, reference: str, name: str, version: str) -> str:
    return f'''#!/usr/bin/env python3
"""A golfref bot: the Python policy {target}, written by `golfref export-bot` (golfref {__version__}).

Run it as `python3 bot.py`, from any folder: it needs this folder and Python 3.11 or newer.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from golfref.kit import run  # noqa: E402  (this folder's copy of the kit)

sys.exit(run.main([{reference!r}, "--name", {name!r}, "--version", {version!r}]))
'''


def export_bot(
    target: str,
    folder: Path,
    *,
    name: str | None = None,
    version: str = "1",
    include: Sequence[Path] = (),
) -> ExportedBot:
    """Write the policy `target` ("module:object") and the kit as a bot folder at `folder` (new or empty)."""
    module_name, names = _split(target)
    importable = Path(module_name).stem if module_name.endswith(".py") else module_name
    if name is not None and not 1 <= len(name) <= 64:
        raise ExportError(f"--name {name!r}: a bot's name has 1 to 64 characters")
    policy = _load(target, module_name, names)
    name = name or policy_name(policy, f"{importable}:{'.'.join(names)}")
    source, copied_as = _sources(importable)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ExportError(f"{folder}: already there and not an empty folder; name a new one")
    for extra in include:
        if not extra.is_file():
            raise ExportError(f"--include {extra}: no such file")
    existed = folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        reference = f"{importable}:{'.'.join(names)}"
        return _write(folder, target, reference, name, version, source, copied_as, include)
    except BaseException:
        # The folder was new or empty: leave it as it was.
        shutil.rmtree(folder, ignore_errors=True)
        if existed:
            folder.mkdir(exist_ok=True)
        raise


def _write(
    folder: Path,
    target: str,
    reference: str,
    name: str,
    version: str,
    source: Path,
    copied_as: str,
    include: Sequence[Path],
) -> ExportedBot:
    if source.is_dir():
        shutil.copytree(source, folder / copied_as, ignore=_SKIP)
    else:
        shutil.copy2(source, folder / copied_as)
    for extra in include:
        shutil.copy2(extra, folder / extra.name)
    kit = folder / "golfref" / "kit"
    kit.mkdir(parents=True)
    shutil.copy2(_PACKAGE / "__init__.py", folder / "golfref" / "__init__.py")
    for module in sorted((_PACKAGE / "kit").glob("*.py")):  # the whole kit: standard library only, all of it
        shutil.copy2(module, kit / module.name)
    (folder / LAUNCHER).write_text(_launcher(target, reference, name, version), encoding="utf-8")
    files = tuple(sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()))
    size = sum((folder / f).stat().st_size for f in files)
    if size > MAX_BYTES:
        raise ExportError(f"{folder}: {size / 2**20:.0f} MiB written, over a bot folder's {MAX_BYTES // 2**20} MiB")
    own = reference.partition(":")[0].split(".")[0]
    return ExportedBot(folder, name, files, ("python3", LAUNCHER), _needs(folder, own))
