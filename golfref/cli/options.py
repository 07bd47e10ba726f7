"""The options and option values that several commands share."""

from __future__ import annotations

import functools
import re
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
    """Read `--set KEY=VALUE` items; each value is read as YAML 1.2 reads it (`read_set_value`)."""
    result: dict[str, Any] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            fail(f"--set {item!r}: expected KEY=VALUE")
        result[key] = read_set_value(raw)
    return result


def read_set_value(raw: str) -> Any:
    """One `--set` value as YAML 1.2 reads it: numbers, true/false, `{K: -2}`, `[21, 0]`; other text as written."""
    if not raw.strip():
        return ""
    import yaml

    try:
        return yaml.load(raw, Loader=_set_value_loader())  # a SafeLoader's subclass: no tags beyond plain data
    except (yaml.YAMLError, ValueError, RecursionError):
        # Text YAML cannot read (`a: b: c`, an alias, a number of 5,000 digits) is the value as
        # written: the option's reader judges it, and says so in one line.
        return raw


@functools.cache
def _set_value_loader() -> type:
    """A SafeLoader that resolves plain scalars by YAML 1.2's core schema, not YAML 1.1's.

    YAML 1.1 reads `10:1` as the base-60 number 601 and `010` as the octal 8, so the
    command-line forms of `card_values` (`10:1`) and `exact_score` (`21:0`) would arrive as
    numbers. `on`, `off`, `yes` and `no` stay text: every option that takes them reads the words.
    """
    import yaml

    class SetValueLoader(yaml.SafeLoader):
        yaml_implicit_resolvers: dict[Any, Any] = {}  # none of SafeLoader's YAML 1.1 ones

        def compose_node(self, parent: Any, index: Any) -> Any:
            # An alias has no use in one value, and nested ones would print as a value of billions.
            if self.check_event(yaml.AliasEvent):
                raise yaml.YAMLError("an alias in a --set value")
            return super().compose_node(parent, index)

    def construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
        text = str(loader.construct_scalar(node))
        base = {"0o": 8, "0x": 16}.get(text[:2], 10)
        return int(text if base == 10 else text[2:], base)

    def construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
        text = str(loader.construct_scalar(node)).lower()
        return float(text.replace(".inf", "inf").replace(".nan", "nan"))

    core = [
        ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
        ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
        ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
        (
            "tag:yaml.org,2002:float",
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
            "-+.0123456789",
        ),
    ]
    for tag, pattern, first in core:
        SetValueLoader.add_implicit_resolver(tag, re.compile(pattern), list(first))
    SetValueLoader.add_constructor("tag:yaml.org,2002:int", construct_int)
    SetValueLoader.add_constructor("tag:yaml.org,2002:float", construct_float)
    return SetValueLoader


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
