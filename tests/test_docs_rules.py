"""docs/RULES.md agrees with the code.

- Every ```console block is run: each `$ golfref ...` line goes through typer's CliRunner,
  from a folder of examples (`golfref examples`) as a user's would, and its output must equal
  the lines that follow it (trailing whitespace ignored).
- Every option name and every decision D1..D15 (and gap decision G1..G20) is mentioned.
- The page stands on its own: every file it names or links to is in the repository.
- The "Default values" table and the "What `decks: auto` gives" table match resolve_rules
  for every preset, every layout 1x1..4x4 and every player count.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from golfref.cli.app import app
from golfref.game.rules import HOUSE_OPTIONS, OPTION_NAMES, PRESETS, RulesError, resolve_rules

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "RULES.md"
TEXT = DOC.read_text(encoding="utf-8")
LAYOUTS = [f"{r}x{c}" for r in range(1, 5) for c in range(1, 5)]
PLAYERS = range(2, 9)


# -- console examples ------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    line: int
    command: str
    expected: tuple[str, ...]


def _console_examples(text: str) -> list[Example]:
    examples: list[Example] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        i += 1
        current: tuple[int, str] | None = None
        expected: list[str] = []
        while i < len(lines) and lines[i].strip() != "```":
            line = lines[i]
            if line.startswith("$ "):
                if current is not None:
                    examples.append(Example(current[0], current[1], tuple(expected)))
                current, expected = (i + 1, line[2:]), []
            elif current is None:
                raise AssertionError(f"RULES.md:{i + 1}: console block must start with a '$ ' line")
            else:
                expected.append(line)
            i += 1
        if i == len(lines):
            raise AssertionError("RULES.md: unterminated ```console block")
        if current is not None:
            examples.append(Example(current[0], current[1], tuple(expected)))
        i += 1
    return examples


EXAMPLES = _console_examples(TEXT)


def test_doc_has_examples() -> None:
    commands = [shlex.split(e.command)[:2] for e in EXAMPLES]
    assert ["golfref", "score"] in commands
    assert ["golfref", "rules"] in commands


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_console_example(example: Example, examples: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(examples)
    argv = shlex.split(example.command)
    assert argv[0] == "golfref", f"RULES.md:{example.line}: only golfref commands can be run"
    result = CliRunner().invoke(app, argv[1:])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    got = [line.rstrip() for line in result.output.splitlines()]
    want = [line.rstrip() for line in example.expected]
    assert got == want, f"RULES.md:{example.line}: $ {example.command}"
    is_error = any(line.startswith("golfref: error:") for line in want)
    assert result.exit_code == (2 if is_error else 0), f"RULES.md:{example.line}: exit code"


# -- names and decisions -------------------------------------------------------------------


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_option_documented(name: str) -> None:
    assert f"`{name}`" in TEXT, f"option {name} is not mentioned in RULES.md"


@pytest.mark.parametrize("ref", [f"D{n}" for n in range(1, 16)] + [f"G{n}" for n in range(1, 21)])
def test_decision_cited(ref: str) -> None:
    assert re.search(rf"\b{ref}\b", TEXT), f"{ref} is not mentioned in RULES.md"


@pytest.mark.parametrize("n", range(1, 16))
def test_decision_has_section(n: int) -> None:
    assert re.search(rf"^### D{n} ", TEXT, re.MULTILINE), f"no section for D{n}"


# -- standing on its own --------------------------------------------------------------------

# A file name: a path-like word ending in an extension a repository file could have.
_FILE_NAME = re.compile(r"(?<![\w/.-])[\w./-]*\w\.(?:md|txt|py|pyi|json|jsonl|ya?ml|js|toml|cfg|ini|csv|sh)\b")
_LINK = re.compile(r"\]\(([^)#\s]+)")
_URL = re.compile(r"\b[a-z]+://\S+")


def named_files(text: str) -> list[str]:
    """Every file name mentioned in `text` and every relative link target (web addresses aside)."""
    links = [t for t in _LINK.findall(text) if not _URL.match(t)]
    return sorted(set(_FILE_NAME.findall(_URL.sub(" ", text))) | set(links))


def test_named_files_finds_what_a_page_could_cite() -> None:
    text = "see `golf-rules.md`, 000_5fdfee220c735fad.txt and [x](../schemas/log.schema.json#a) (x.py)"
    assert named_files(text) == ["../schemas/log.schema.json", "000_5fdfee220c735fad.txt", "golf-rules.md", "x.py"]
    assert named_files("[web](https://example.org/a.md) version 1.0, e.g. 2x3") == []


def test_rules_md_names_no_file_outside_the_repository() -> None:
    """A reader must find every file the page names: as a path from the repository's root
    or from docs/ (a bare name of a file elsewhere, or of a text kept outside, fails)."""
    missing = [n for n in named_files(TEXT) if not ((ROOT / n).is_file() or (DOC.parent / n).is_file())]
    assert missing == [], f"RULES.md names files that are not in the repository: {missing}"


# -- tables ----------------------------------------------------------------------------------


def _table(header_start: str) -> tuple[list[str], list[list[str]]]:
    """The markdown table whose header row starts with `header_start`."""
    lines = TEXT.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(header_start):
            header = _cells(line)
            rows = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append(_cells(row))
            assert rows, f"table {header_start!r} is empty"
            return header, rows
    raise AssertionError(f"RULES.md has no table starting {header_start!r}")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _printed(value: Any) -> str:
    """A resolved value written as `golfref rules` prints it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_CLAUSE = re.compile(r"^(?:(?P<layouts>[^:`]+):\s*)?`(?P<value>[^`]+)`$")


def _cell_value(cell: str, layout: str) -> str:
    """The value a defaults cell gives for `layout` (`2x2: a; others: b` or `a`)."""
    fallback: str | None = None
    for clause in cell.split(";"):
        m = _CLAUSE.match(clause.strip())
        assert m, f"cannot read defaults cell {cell!r}"
        where = m.group("layouts")
        if where is None or where.strip() == "others":
            fallback = m.group("value")
            continue
        if layout in [w.strip() for w in where.split(",")]:
            return m.group("value")
    assert fallback is not None, f"defaults cell {cell!r} has no value for {layout}"
    return fallback


DEFAULTS_HEADER, DEFAULTS_ROWS = _table("| option | standard | classic | knock | arena |")
PLAIN_OPTIONS = [name for name in OPTION_NAMES if name not in HOUSE_OPTIONS]


def test_defaults_table_shape() -> None:
    assert DEFAULTS_HEADER[1:] == list(PRESETS)
    names = [row[0].strip("`") for row in DEFAULTS_ROWS]
    # The house options are off in every preset: their section says so, once.
    assert names == ["players", *PLAIN_OPTIONS]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_defaults_table_matches_code(preset: str) -> None:
    col = DEFAULTS_HEADER.index(preset)
    rows = {row[0].strip("`"): row[col] for row in DEFAULTS_ROWS}

    low, high = (int(x) for x in rows["players"].split("-"))
    assert low == 2
    resolve_rules(preset, {}, high)
    if high < 8:
        with pytest.raises(RulesError):
            resolve_rules(preset, {}, high + 1)

    plain = resolve_rules(preset, {}, 2).to_dict()
    assert rows["layout"] == f"`{plain['layout']}`"
    assert rows["decks"] == f"`{PRESETS[preset]['decks']}`"

    for layout in LAYOUTS:
        for players in range(2, high + 1):
            resolved = resolve_rules(preset, {"layout": layout}, players).to_dict()
            for name in PLAIN_OPTIONS:
                if name in ("layout", "decks"):
                    continue
                doc = _cell_value(rows[name], layout)
                assert doc == _printed(resolved[name]), (
                    f"{preset} {layout} {players} players: RULES.md says {name}: {doc}, "
                    f"code resolves {_printed(resolved[name])}"
                )


DECKS_HEADER, DECKS_ROWS = _table("| preset | layouts |")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_decks_table_matches_code(preset: str) -> None:
    counts = [int(h) for h in DECKS_HEADER[2:]]
    assert counts == list(PLAYERS)
    seen: list[str] = []
    for row in DECKS_ROWS:
        if row[0] != preset:
            continue
        layouts = [w.strip() for w in row[1].split(",")]
        seen += layouts
        for layout in layouts:
            for players, cell in zip(counts, row[2:], strict=True):
                if cell == "-":
                    with pytest.raises(RulesError):
                        resolve_rules(preset, {"layout": layout}, players)
                    continue
                got = resolve_rules(preset, {"layout": layout}, players).decks
                assert int(cell) == got, (
                    f"{preset} {layout} {players} players: RULES.md says {cell} decks, code gives {got}"
                )
    assert sorted(seen) == sorted(LAYOUTS), f"{preset}: every layout exactly once in the decks table"
