"""YAML match configs into frozen values, with errors that name the key path and line.

A config is read with `yaml.safe_load` only, checked against
`schemas/match-config.schema.json`, then against the rules (via `resolve_rules`), all
before any bot is started.
"""

from __future__ import annotations

import enum
import json
import os
import shlex
import shutil
import string
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from .rules import OPTION_NAMES, Rules, RulesError, closest_name, resolve_rules

__all__ = [
    "ConfigError",
    "FaultMode",
    "PlayerSpec",
    "TimeControl",
    "FaultPolicy",
    "LogSpec",
    "MatchConfig",
    "load_config",
    "parse_config",
    "SCHEMA_DIR",
]

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
if not SCHEMA_DIR.is_dir():  # installed as a wheel: schemas ship inside the package
    SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


class ConfigError(ValueError):
    """A match config that cannot be played; the message names the file, line and key path."""


class FaultMode(enum.Enum):
    """What happens when a bot faults."""

    FALLBACK = "fallback"
    """The fallback policy plays the faulted decision; after `max_faults` the seat is disqualified."""
    FORFEIT = "forfeit"
    """The seat is disqualified at its first fault."""


@dataclass(frozen=True)
class PlayerSpec:
    """One seat: an external bot (`command`) or a built-in policy (`builtin`)."""

    name: str
    command: tuple[str, ...] | None = None
    builtin: str | None = None
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The player as recorded in a log."""
        data: dict[str, Any] = {"name": self.name}
        if self.command is not None:
            data["command"] = list(self.command)
            data["cwd"] = self.cwd
            data["env"] = dict(self.env)
        else:
            data["builtin"] = self.builtin
        return data


@dataclass(frozen=True)
class TimeControl:
    """Time limits in milliseconds; `grace_ms` absorbs machine jitter on every deadline."""

    startup_ms: int = 10_000
    move_ms: int = 2_000
    bank_ms: int = 0
    increment_ms: int = 0
    grace_ms: int = 100
    match_ms: int = 0
    """Thinking time a bot may use over the whole match; 0 for no limit."""

    def to_json(self) -> dict[str, int]:
        """The time control as plain data (the hello message and the log use this)."""
        data = {
            "startup_ms": self.startup_ms,
            "move_ms": self.move_ms,
            "bank_ms": self.bank_ms,
            "increment_ms": self.increment_ms,
            "grace_ms": self.grace_ms,
        }
        if self.match_ms:
            data["match_ms"] = self.match_ms
        return data


@dataclass(frozen=True)
class FaultPolicy:
    """How bot faults are handled."""

    mode: FaultMode = FaultMode.FALLBACK
    fallback: str = "greedy"
    max_faults: int = 3

    def to_json(self) -> dict[str, Any]:
        """The policy as plain data."""
        return {"policy": self.mode.value, "fallback": self.fallback, "max_faults": self.max_faults}


@dataclass(frozen=True)
class LogSpec:
    """Where the log goes; `path` may use {match_id}, {match} and {date}."""

    path: str = "logs/{match_id}.json"
    transcript: bool = False


@dataclass(frozen=True)
class MatchConfig:
    """A whole, checked match config."""

    name: str
    rules: Rules
    seed: int | None
    players: tuple[PlayerSpec, ...]
    time: TimeControl
    faults: FaultPolicy
    log: LogSpec
    source: str = "<config>"


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Load one JSON Schema from the schemas folder."""
    with open(SCHEMA_DIR / name, encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def load_config(path: str | os.PathLike[str]) -> MatchConfig:
    """Read and check a match config file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{p}: is a directory, not a match config") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{p}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read: {e.strerror}") from None
    return parse_config(text, source=str(p), base_dir=p.resolve().parent)


def _line_map(text: str) -> dict[tuple[Any, ...], int]:
    """Map every key path of a YAML document to its 1-based line."""
    lines: dict[tuple[Any, ...], int] = {}
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return lines

    def walk(node: yaml.Node, path: tuple[Any, ...]) -> None:
        lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = key_node.value
                lines[path + (key,)] = key_node.start_mark.line + 1
                walk(value_node, path + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, path + (i,))

    if root is not None:
        walk(root, ())
    return lines


_MAX_CONFIG_CHARS = 1_000_000
_MAX_NODES = 100_000


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_expansion(text: str, source: str) -> None:
    """Refuse a document whose aliases expand to more than _MAX_NODES values ("billion laughs")."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return  # safe_load reports it, with its line
    if root is None:
        return
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:  # iterative: a deeply nested document must not exhaust the stack here
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(node))
            if sizes[key] > _MAX_NODES:
                line = node.start_mark.line + 1
                raise ConfigError(f"{source}:{line}: the YAML expands to more than {_MAX_NODES:,} values")
            continue
        if key in sizes:
            continue
        open_nodes.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise ConfigError(f"{source}:{child.start_mark.line + 1}: a YAML alias refers to itself")
            if id(child) not in sizes:
                stack.append((child, False))


def _duplicate_key(text: str) -> tuple[tuple[Any, ...], int] | None:
    """The first key given twice in one mapping (YAML would silently keep the last)."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    stack: list[tuple[yaml.Node, tuple[Any, ...]]] = [(root, ())] if root is not None else []
    while stack:
        node, path = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, value_node in node.value:
                if key_node.value in seen:
                    return path + (key_node.value,), key_node.start_mark.line + 1
                seen.add(key_node.value)
                stack.append((value_node, path + (key_node.value,)))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, path + (i,)) for i, item in enumerate(node.value))
    return None


# JSON Schema's "integer" also matches 5.0; a config's whole numbers must be ints.
_Validator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
    ),
)


def _dotted(path: tuple[Any, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


class _Where:
    def __init__(self, source: str, lines: dict[tuple[Any, ...], int]) -> None:
        self.source = source
        self.lines = lines

    def error(self, path: tuple[Any, ...], message: str) -> ConfigError:
        probe = path
        while probe not in self.lines and probe:
            probe = probe[:-1]
        line = self.lines.get(probe)
        where = f"{self.source}:{line}" if line else self.source
        return ConfigError(f"{where}: {_dotted(path)}: {message}")


def _schema_message(error: jsonschema.ValidationError) -> tuple[tuple[Any, ...], str]:
    path = tuple(error.absolute_path)
    schema: Any = error.schema
    instance: Any = error.instance
    if error.validator == "additionalProperties":
        allowed = list(schema.get("properties", {}))
        extras = [k for k in instance if k not in allowed]
        key = extras[0] if extras else "?"
        hint = closest_name(str(key), allowed)
        suggestion = f"; did you mean {hint!r}?" if hint else f" (allowed: {', '.join(allowed)})"
        return path + (key,), f"unknown key {key!r}{suggestion}"
    if error.validator == "required":
        return path, error.message.replace("is a required property", "is required")
    if error.validator == "oneOf" and path and isinstance(path[-1], int) and "players" in path:
        return path, "a player needs exactly one of command (a bot program) or builtin (random, greedy)"
    if error.validator == "enum":
        values: Any = error.validator_value
        choices = ", ".join(str(c) for c in values)
        return path, f"{instance!r} is not one of: {choices}"
    if error.validator == "minItems" and path == ("players",):
        return path, "a match needs at least 2 players"
    if error.validator == "maxItems" and path == ("players",):
        return path, "a match takes at most 8 players"
    return path, error.message


def parse_config(text: str, source: str = "<config>", base_dir: Path | None = None) -> MatchConfig:
    """Check a config given as YAML text; `base_dir` anchors relative bot paths."""
    base = base_dir or Path.cwd()
    if len(text) > _MAX_CONFIG_CHARS:
        raise ConfigError(f"{source}: {len(text):,} characters is too large for a match config")
    try:
        _check_expansion(text, source)
        data = yaml.safe_load(text)
    except RecursionError:
        raise ConfigError(f"{source}: the YAML is nested too deeply") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"{source}{line}: not valid YAML: {problem}") from None
    where = _Where(source, _line_map(text))
    if not isinstance(data, dict):
        raise where.error((), "a match config is a mapping with at least a players list")

    duplicate = _duplicate_key(text)
    if duplicate is not None:
        key_path, key_line = duplicate
        raise ConfigError(f"{source}:{key_line}: {_dotted(key_path)}: the key is given twice")
    validator = _Validator(load_schema("match-config.schema.json"))
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), str(e.absolute_path)))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        path, message = _schema_message(best)
        raise where.error(path, message)

    players = _players(data["players"], where, base)
    rules = _rules(data.get("rules") or {}, len(players), where)
    time = TimeControl(**(data.get("time") or {}))
    faults_data = data.get("faults") or {}
    faults = FaultPolicy(
        mode=FaultMode(faults_data.get("policy", "fallback")),
        fallback=faults_data.get("fallback", "greedy"),
        max_faults=faults_data.get("max_faults", 3),
    )
    log_data = data.get("log") or {}
    log = LogSpec(path=log_data.get("path", LogSpec.path), transcript=log_data.get("transcript", False))
    _check_template(log.path, where)
    name = data.get("match") or Path(source).stem
    return MatchConfig(
        name=name,
        rules=rules,
        seed=data.get("seed"),
        players=players,
        time=time,
        faults=faults,
        log=log,
        source=source,
    )


def _players(items: list[dict[str, Any]], where: _Where, base: Path) -> tuple[PlayerSpec, ...]:
    seen: dict[str, int] = {}
    out = []
    for i, item in enumerate(items):
        name = item["name"]
        if name in seen:
            raise where.error(("players", i, "name"), f"name {name!r} is already used by players[{seen[name]}]")
        seen[name] = i
        if "builtin" in item:
            for key in ("cwd", "env"):
                if key in item:
                    raise where.error(("players", i, key), "applies only to a player with a command")
            out.append(PlayerSpec(name=name, builtin=item["builtin"]))
            continue
        command = item["command"]
        if isinstance(command, str):
            try:
                argv = shlex.split(command)
            except ValueError as e:
                raise where.error(("players", i, "command"), f"cannot split the command: {e}") from None
            if not argv:
                raise where.error(("players", i, "command"), "the command is empty")
        else:
            argv = list(command)
        if any("\0" in arg for arg in argv):
            raise where.error(("players", i, "command"), "the command holds a NUL character")
        cwd = base / item["cwd"] if "cwd" in item else base
        if not cwd.is_dir():
            raise where.error(("players", i, "cwd"), f"no such directory: {cwd}")
        exe = argv[0]
        if os.sep in exe:
            exe_path = (cwd / exe).resolve()
            if not exe_path.is_file():
                raise where.error(("players", i, "command"), f"no such program: {exe} (looked in {cwd})")
            if not os.access(exe_path, os.X_OK):
                raise where.error(
                    ("players", i, "command"), f"{exe} is not executable (chmod +x, or start it with an interpreter)"
                )
        elif shutil.which(exe) is None:
            raise where.error(("players", i, "command"), f"program {exe!r} is not on PATH")
        env = []
        for key, value in (item.get("env") or {}).items():
            problem = _env_problem(key)
            if problem:
                raise where.error(("players", i, "env", key), problem)
            text = _env_value(value)
            if "\0" in text:
                raise where.error(("players", i, "env", key), "the value holds a NUL character")
            env.append((key, text))
        out.append(PlayerSpec(name=name, command=tuple(argv), cwd=str(cwd), env=tuple(env)))
    return tuple(out)


def _env_problem(key: Any) -> str | None:
    if not isinstance(key, str):
        return f"an environment variable name must be text, got {key!r} (quote it in the YAML)"
    if not key or "=" in key or "\0" in key:
        return f"{key!r} is not a valid environment variable name"
    if key in ("GOLFREF_SEAT", "GOLFREF_PROTOCOL"):
        return f"{key} is set by the referee itself and cannot be overridden"
    return None


def _env_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _rules(data: Mapping[str, Any], players: int, where: _Where) -> Rules:
    preset = data.get("preset", "standard")
    overrides = {k: v for k, v in data.items() if k != "preset"}
    for key in overrides:
        if key not in OPTION_NAMES:
            hint = closest_name(str(key), list(OPTION_NAMES))
            suggestion = f"; did you mean {hint!r}?" if hint else ""
            raise where.error(("rules", key), f"unknown rule option {key!r}{suggestion}")
    try:
        return resolve_rules(preset, overrides, players)
    except RulesError as e:
        message = str(e)
        option = message.split(":", 1)[0]
        if option in overrides:
            raise where.error(("rules", option), message.split(":", 1)[1].strip()) from None
        if option == "players":
            raise where.error(("players",), message.split(":", 1)[1].strip()) from None
        raise where.error(("rules",), message) from None


_FIELDS = {"match_id", "match", "date"}


def _check_template(template: str, where: _Where) -> None:
    try:
        names = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
    except ValueError as e:
        raise where.error(("log", "path"), f"bad template: {e}") from None
    unknown = names - _FIELDS
    if unknown:
        raise where.error(
            ("log", "path"), f"unknown placeholder {{{sorted(unknown)[0]}}} (use {{match_id}}, {{match}}, {{date}})"
        )
