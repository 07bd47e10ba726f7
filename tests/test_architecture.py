"""The layout holds (docs/ARCHITECTURE.md): import contracts, a docstring per sub-package, no private imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "golfref"
SUB_PACKAGES = (
    "kit", "game", "config", "bots", "record", "match", "tools", "tournament", "stats", "show", "api", "env", "cli",
)  # fmt: skip

# Private names one module still takes from another (docs/ARCHITECTURE.md, "The contracts"): none.
KNOWN_PRIVATE_IMPORTS: set[tuple[str, str]] = set()


def test_the_import_contracts_hold(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """import-linter checks pyproject.toml's [tool.importlinter] contracts; a broken one names the imports."""
    from importlinter.cli import lint_imports

    monkeypatch.chdir(ROOT)  # the contracts name golfref's modules as this checkout has them
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "0 broken" in out, out


def test_every_sub_package_says_its_job_and_what_it_may_import() -> None:
    """Each sub-package's docstring names what it may import; no module sits loose beside them but the base ones."""
    for name in SUB_PACKAGES:
        doc = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "May import:" in doc, name
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "files.py"]
    assert sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(SUB_PACKAGES)


def test_no_module_takes_a_private_name_of_another() -> None:
    """`from .x import _name` couples a module to another's insides; only the known few remain."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("golfref")):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.add((path.relative_to(ROOT).as_posix(), alias.name))
    assert found == KNOWN_PRIVATE_IMPORTS


def test_the_architecture_page_draws_the_contracts_layers() -> None:
    """docs/ARCHITECTURE.md's picture lists the sub-packages in the order of pyproject.toml's layers contract."""
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as f:
        contracts = tomllib.load(f)["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    order = [name.strip().removeprefix("golfref.") for layer in layers for name in layer.split("|")]
    page = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    picture = page.split("```")[1]
    drawn = [line.split()[0] for line in picture.splitlines() if line.strip() and line.split()[0].isalpha()]
    assert drawn == order
    assert sorted(order) == sorted(SUB_PACKAGES)
