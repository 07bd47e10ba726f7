"""The options and option values that several commands share."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..files import LOG_MAX_BYTES, MIB
from ..game.rules import PRESETS
from .exits import fail

if TYPE_CHECKING:
    from ..config.match import FailOn


SEED_ENV = "GOLFREF_SEED"
"""The environment variable that gives `--seed` where no command line may show it (docs/SANDBOX.md, "The seed")."""


def seed_option(help: str) -> Any:
    """A command's `--seed`: a shuffle seed, as a config's `seed:` (0 to 2**63 - 1), also read from GOLFREF_SEED."""
    return typer.Option("--seed", min=0, max=2**63 - 1, envvar=SEED_ENV, help=help)


PresetOpt = Annotated[str, typer.Option("--preset", "-p", help=f"Rule preset: {', '.join(PRESETS)}.")]


SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override one rule option (repeatable)."),
]


MaxLogOpt = Annotated[
    int,
    typer.Option(
        "--max-log-mb",
        metavar="MB",
        min=1,
        max=1 << 20,
        help=f"Read a log (and each transcript) of at most MB MiB (default {LOG_MAX_BYTES // MIB}); a bigger one is"
        " refused unread.",
    ),
]


StrictOpt = Annotated[
    bool, typer.Option("--strict", help="Exit 1 when any bot faulted, even where the fault policy played on "
                       "(faults.fail_on: any).")  # fmt: skip
]


AcceptFaultsOpt = Annotated[
    bool,
    typer.Option(
        "--accept-faults",
        help="Exit 0 even when a bot's seat was ended by a fault (faults.fail_on: never); faults are still reported.",
    ),
]


def parse_sets(items: list[str] | None) -> dict[str, Any]:
    """Read `--set KEY=VALUE` items; values are read as YAML scalars (`-2`, `on`, `2x3`)."""
    result: dict[str, Any] = {}
    if items:
        import yaml
    for item in items or []:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            fail(f"--set {item!r}: expected KEY=VALUE")
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            value = raw
        if isinstance(value, (dict, list)):
            value = raw
        result[key] = value
    return result


def parse_number(option: str, text: str | None, what: str) -> int | None:
    """An option's whole number, or a one-line usage error (typer's own would be a box of text)."""
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        fail(f"{option} {text!r}: expected {what}")


def check_fault_flags(strict: bool, accept_faults: bool) -> None:
    """`--strict` and `--accept-faults` ask opposite things: both at once is a usage error."""
    if strict and accept_faults:
        fail("--strict and --accept-faults: choose one (--strict exits 1 on any fault, --accept-faults on none)")


def chosen_fail_on(configured: FailOn, strict: bool, accept_faults: bool) -> FailOn:
    """Which faults fail the run: `--strict` (any) or `--accept-faults` (never) over the config's faults.fail_on
    (`check_fault_flags` has refused both at once)."""
    from ..config.match import FailOn

    if strict:
        return FailOn.ANY
    if accept_faults:
        return FailOn.NEVER
    return configured


def use_color(stream: Any, environ: Mapping[str, str], no_color: bool) -> bool:
    """Colour only on a terminal, and never with --no-color or a non-empty NO_COLOR (no-color.org)."""
    if no_color or environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def output_width(stream: Any, environ: Mapping[str, str], given: int | None, default: int, least: int) -> int:
    """The columns to print in: `--width`, else COLUMNS, else the terminal's, else `default`.

    A terminal (or COLUMNS) narrower than `least` still gets `least`: the lines wrap
    there, as they must, rather than the match not being shown.
    """
    if given is not None:
        return given
    columns = environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(least, int(columns))
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        return max(least, shutil.get_terminal_size((default, 24)).columns)
    return default
