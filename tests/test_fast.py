"""The hot path's speed tricks (golfref.game.fast): every fast-built named tuple has its type's arity."""

from __future__ import annotations

import ast
import enum
import importlib
from pathlib import Path

import pytest

from golfref.game.engine import Decision, Pile
from golfref.game.fast import enum_value, new_tuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "golfref"


def _module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def fast_builds(package: Path = PACKAGE) -> list[tuple[str, int, str, int]]:
    """Every `new_tuple(Type, (...))` call under `package`: (module, line, type name, fields given).

    A call whose type is not a plain name, or whose fields are not spelled as a tuple (a starred
    item, a variable), cannot be checked and fails here.
    """
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "fast.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "new_tuple"):
                continue
            where = f"{path.relative_to(package.parent)}:{node.lineno}"
            assert len(node.args) == 2 and not node.keywords, f"{where}: new_tuple(Type, (fields...)) expected"
            kind, fields = node.args
            assert isinstance(kind, ast.Name), f"{where}: the type built is named at the call"
            assert isinstance(fields, ast.Tuple), f"{where}: the fields are spelled as a tuple"
            assert not any(isinstance(e, ast.Starred) for e in fields.elts), f"{where}: no starred fields"
            found.append((_module_name(path, package.parent), node.lineno, kind.id, len(fields.elts)))
    return found


def test_every_fast_build_gives_its_named_tuple_all_its_fields() -> None:
    """A field added to a named tuple without updating its fast construction sites fails here, not far away."""
    builds = fast_builds()
    # The engine's moves and events, the seat's view and the process layer's reads, at least.
    assert {kind for _, _, kind, _ in builds} >= {"Move", "DrawEvent", "SwapEvent", "SeatView", "ReadResult"}
    for module, line, kind, given in builds:
        cls = getattr(importlib.import_module(module), kind)
        assert given == len(cls._fields), f"{module}:{line}: {kind} has {len(cls._fields)} fields, {given} given"


def test_the_check_catches_a_wrong_arity(tmp_path: Path) -> None:
    """The AST walk sees a call with a field missing (so the test above can fail)."""
    (tmp_path / "m.py").write_text("x = new_tuple(Move, (0,))\ny = new_tuple(Move, (*z,))\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="no starred"):
        fast_builds(tmp_path)
    (tmp_path / "m.py").write_text("x = new_tuple(Move, (0,))\n", encoding="utf-8")
    ((module, line, kind, given),) = fast_builds(tmp_path)
    assert (line, kind, given) == (1, "Move", 1)


def test_no_module_spells_the_tricks_itself() -> None:
    """`tuple.__new__` and `._value_` are spelled in golfref.game.fast alone."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "fast.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                spelled = isinstance(node.value, ast.Name) and node.value.id == "tuple" and node.attr == "__new__"
                assert not spelled and node.attr != "_value_", f"{path.relative_to(ROOT)}:{node.lineno}"


def test_the_helpers_build_and_read_like_the_plain_spelling() -> None:
    """`new_tuple` is the class call without its check; `enum_value` is `.value`."""
    from golfref.game.engine import Move

    move = new_tuple(Move, (1, None))
    assert type(move) is Move and move == Move(1, None)
    for member in [*Pile, *Decision]:
        assert enum_value(member) == member.value
    assert isinstance(Pile.STOCK, enum.Enum)
