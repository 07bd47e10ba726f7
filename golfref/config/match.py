"""YAML match configs into frozen values, with errors that name the key path and line.

A config is parsed once, by a `yaml.SafeLoader` that also keeps every key's line and
every key given twice, then checked against `schemas/match-config.schema.json` and
against the rules (via `resolve_rules`), all before any bot is started.
"""

from __future__ import annotations

import enum
import math
import os
import re
import shlex
import string
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import referencing
import yaml

from ..files import CONFIG_MAX_BYTES, UnsafeFile, read_text_capped
from ..game.policies import POLICIES, policy_settings
from ..game.rules import Rules, RulesError, closest_name, did_you_mean, resolve_rules, shown, unknown_option
from ..kit.policy import PolicyError, describe, import_policy
from .programs import find_program
from .sandbox_spec import SandboxSpec, sandbox_spec, unsafe_path
from .schemas import load_schema

__all__ = [
    "ConfigError",
    "FaultMode",
    "FailOn",
    "PlayerSpec",
    "OBJECT",
    "RUNNER",
    "TimeControl",
    "FaultPolicy",
    "LogSpec",
    "MatchConfig",
    "load_config",
    "read_config_text",
    "parse_config",
    "template_problem",
    "PATH_PLACEHOLDERS",
    "dotted",
    "Where",
    "CheckedDocument",
    "check_document",
    "checked_rules",
    "time_and_faults",
]


class ConfigError(ValueError):
    """A match config that cannot be played; each of `errors` names the file, line and key path.

    `str()` is the errors one per line, in file order.
    """

    def __init__(self, message: str, errors: tuple[str, ...] | None = None) -> None:
        self.errors: tuple[str, ...] = errors if errors else (message,)
        super().__init__("\n".join(self.errors))


class FaultMode(enum.Enum):
    """What happens when a bot faults."""

    FALLBACK = "fallback"
    """The fallback policy plays the faulted decision; after `max_faults` the seat is disqualified."""
    FORFEIT = "forfeit"
    """The seat is disqualified at its first fault."""


class FailOn(enum.Enum):
    """Which faults make `golfref run` and `golfref tournament` exit 1 (`faults.fail_on`); never what is played."""

    ENDED = "ended"
    """A bot's seat was ended by a fault (disqualified) in a match: the default."""
    ANY = "any"
    """Any bot fault at all, also one the fault policy played through (`--strict`)."""
    NEVER = "never"
    """No fault changes the exit status (`--accept-faults`)."""

    def fails(self, ended: bool, faulted: bool) -> bool:
        """Whether faults fail the run: a seat ended by one (`ended`), or with `any`, any fault at all (`faulted`)."""
        if self is FailOn.NEVER:
            return False
        return ended or (self is FailOn.ANY and faulted)


HUMAN = "human"
"""The built-in player that is a person at the terminal (golfref/show/human_seat.py)."""
BUILTIN_PLAYERS = (*POLICIES, HUMAN)
"""What a player's `builtin` may name: a built-in policy, or a person."""

OBJECT = "<object>"
"""A `python` player's reference when its policy was given as an object that no ``module:object`` imports back."""

RUNNER = ("-m", "golfref.kit.run")
"""What a ``process: true`` Python player runs under the referee's interpreter: the kit's launcher program."""


@dataclass(frozen=True)
class PlayerSpec:
    """One seat: an external bot (`command`), a built-in policy (`builtin`) or a Python policy (`python`)."""

    name: str
    command: tuple[str, ...] | None = None
    builtin: str | None = None
    options: tuple[tuple[str, int], ...] = ()
    """A built-in's options (`golfref.game.policies.OPTIONS`), as the config gives them."""
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    sandbox_paths: tuple[str, ...] = ()
    """More folders or files this bot alone sees read-only in the sandbox (absolute). Like the config's
    ``sandbox`` section, not part of `to_json` (so neither of a tournament's digest: a resume may
    change them): the log records them in ``players[i].sandbox.paths`` (docs/SANDBOX.md)."""
    fingerprint_exclude: tuple[str, ...] = ()
    """Glob patterns, relative to the bot's folder, of files there that are not the bot's (``fingerprint:
    {exclude: [...]}``), left out of its fingerprint. Not part of `to_json` either, so that a tournament refused
    for such a file resumes once the pattern is added: the log records them in its fingerprint's ``excluded``."""

    python: str | None = None
    """A Python policy in the referee's process: its ``module:object`` reference, or `OBJECT` for an object
    given from Python that no reference imports back (docs/PYTHON_API.md)."""
    policy: Any = field(default=None, compare=False, repr=False)
    """The policy object of a `python` player (`golfref.kit.policy`: imported from the reference, or given)."""

    @property
    def external(self) -> bool:
        """Whether the seat is played by a bot the referee asks over the protocol (a program or a Python policy)."""
        return self.command is not None or self.python is not None

    @property
    def kind(self) -> str:
        """What plays the seat, in a few words: ``bot`` (a program, a ``process: true`` policy too), ``builtin
        greedy``, ``python mypolicy:Policy`` (a policy in the referee's process)."""
        if self.builtin is not None:
            return f"builtin {self.builtin}"
        if self.python is not None:
            return f"python {self.python}"
        return "bot"

    def to_json(self) -> dict[str, Any]:
        """The player as recorded in a log."""
        data: dict[str, Any] = {"name": self.name}
        if self.command is not None:
            data["command"] = list(self.command)
            data["cwd"] = self.cwd
            data["env"] = dict(self.env)
        elif self.python is not None:
            data["python"] = self.python
            data["cwd"] = self.cwd
            if self.python == OBJECT:
                data["object"] = describe(self.policy)
        else:
            data["builtin"] = self.builtin
            if self.options:
                data["options"] = dict(self.options)
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


# The placeholders a log path template may use, each a plain name (no attribute,
# index, conversion or format spec: `str.format` would reach into objects).
PATH_PLACEHOLDERS = ("match_id", "match", "date")


@dataclass(frozen=True)
class LogSpec:
    """Where the log goes; `path` may use {match_id}, {match} and {date}.

    A relative `path` is read from `directory`, the config file's folder (None: the
    current directory, for a config given as text).
    """

    path: str = "logs/{match_id}.json"
    transcript: bool = False
    directory: str | None = None


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
    sandbox: SandboxSpec = field(default_factory=SandboxSpec)
    fail_on: FailOn = FailOn.ENDED
    """Which faults make `golfref run` exit 1; the match is played the same, and the log does not record it."""
    rule_options: tuple[tuple[str, Any], ...] = ()
    """The options `rules:` sets beyond its preset, as written: check-bot plays its checks under them."""
    seed_in_source: bool = False
    """Whether the file `source` holds the seed: the match's own `seed:`, or the tournament seed that a
    tournament match's seed comes from. No bot may read such a file (`bots.sandbox.seed_file_problem`)."""


@cache
def _registry() -> referencing.Registry[Any]:
    """The config schemas by their $id, so that one may refer to a definition of another."""
    entries = [
        (schema["$id"], referencing.Resource.from_contents(schema))
        for schema in map(load_schema, ("match-config.schema.json", "tournament.schema.json"))
    ]
    return referencing.Registry().with_resources(entries)


def load_config(path: str | os.PathLike[str]) -> MatchConfig:
    """Read and check a match config file."""
    p = Path(path)
    return parse_config(read_config_text(p), source=str(p), base_dir=p.resolve().parent)


def read_config_text(p: Path, what: str = "a match config") -> str:
    """The text of a config file, or a ConfigError naming the file and what is wrong.

    Only a regular file of at most `files.CONFIG_MAX_BYTES` is read: a FIFO, a device or a
    huge file is refused before a byte is read.
    """
    if p.is_dir():
        raise ConfigError(f"{p}: is a directory, not {what}")
    try:
        return read_text_capped(p, CONFIG_MAX_BYTES, "config")
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such file") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{p}: not UTF-8 text (byte {e.start})") from None
    except UnsafeFile as e:
        raise ConfigError(str(e)) from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read: {e.strerror}") from None


_MAX_CONFIG_CHARS = 1_000_000
_MAX_NODES = 100_000


_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


class _ConfigLoader(yaml.SafeLoader):
    """A SafeLoader that parses a config once and keeps, from that one parse, the line of every
    key path and every key given twice in one mapping (plain YAML silently keeps the last)."""

    def __init__(self, text: str, source: str) -> None:
        super().__init__(text)
        self.source = source
        self.lines: dict[tuple[Any, ...], int] = {}
        """Each key path's 1-based line (a key's own line; a list item's first line)."""
        self.duplicates: list[tuple[tuple[Any, ...], int]] = []
        """(key path, line) of every repeated key, at its repetition."""
        self._paths: dict[int, tuple[Any, ...]] = {}  # id(node) -> its key path, for construction errors

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        """A plain scalar's tag, as YAML 1.1 gives it, except that a number with colons is text.

        YAML 1.1 reads `10:1` as the base-60 number 601: `card_values: 10:1` and
        `exact_score: 21:0` (the options' text forms) would arrive as numbers. No key of a
        config takes a base-60 number, so such a value is kept as written.
        """
        tag = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        if tag in _NUMBER_TAGS and ":" in value:
            return "tag:yaml.org,2002:str"
        return tag

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        """An int, or a located ConfigError for one too long to read (Python's 4,300-digit limit)."""
        try:
            return int(super().construct_yaml_int(node))
        except ValueError:
            line = node.start_mark.line + 1
            where = dotted(self._paths.get(id(node), ()))
            digits = f"{len(node.value):,}"
            raise ConfigError(f"{self.source}:{line}: {where}: a number of {digits} digits is out of range") from None

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        """A finite float, or a located ConfigError: no config value is infinite or not a number (.inf, .nan, 1e999)."""
        value = float(super().construct_yaml_float(node))
        if not math.isfinite(value):
            where = dotted(self._paths.get(id(node), ()))
            raise ConfigError(f"{self.source}:{node.start_mark.line + 1}: {where}: {node.value} is not a finite number")
        return value

    def construct_document(self, node: yaml.Node) -> Any:
        """Survey the composed document, then build its Python value."""
        _check_expansion(node, self.source)  # before anything walks aliases
        self._survey(node)
        return super().construct_document(node)

    def _survey(self, root: yaml.Node) -> None:
        # Iterative and in document order: a deep document must not exhaust the stack here,
        # and the first line found for a path is the one kept.
        stack: list[tuple[yaml.Node, tuple[Any, ...]]] = [(root, ())]
        while stack:
            node, path = stack.pop()
            self.lines.setdefault(path, node.start_mark.line + 1)
            self._paths.setdefault(id(node), path)
            children: list[tuple[yaml.Node, tuple[Any, ...]]] = []
            if isinstance(node, yaml.MappingNode):
                seen: set[tuple[str, Any]] = set()
                for key_node, value_node in node.value:
                    if not isinstance(key_node, yaml.ScalarNode):
                        continue  # a list or mapping as a key: construction refuses it, with its line
                    key, line = key_node.value, key_node.start_mark.line + 1
                    if (key_node.tag, key) in seen:
                        self.duplicates.append((path + (key,), line))
                    seen.add((key_node.tag, key))
                    self.lines[path + (key,)] = line
                    children.append((value_node, path + (key,)))
            elif isinstance(node, yaml.SequenceNode):
                children = [(item, path + (i,)) for i, item in enumerate(node.value)]
            stack.extend(reversed(children))


_ConfigLoader.add_constructor("tag:yaml.org,2002:int", _ConfigLoader.construct_yaml_int)
_ConfigLoader.add_constructor("tag:yaml.org,2002:float", _ConfigLoader.construct_yaml_float)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_expansion(root: yaml.Node, source: str) -> None:
    """Refuse a document whose aliases expand to more than _MAX_NODES values ("billion laughs")."""
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


# JSON Schema's "integer" also matches 5.0; a config's whole numbers must be ints.
_Validator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
    ),
)


def dotted(path: Sequence[Any]) -> str:
    """A key path as the messages write it, `players[0].name`; "(top level)" for the empty path."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


class Where:
    """Turns key paths into located messages, and collects every problem of a config."""

    def __init__(
        self, source: str, lines: dict[tuple[Any, ...], int], labels: Mapping[tuple[Any, ...], str] | None = None
    ) -> None:
        self.source = source
        self.lines = lines
        # A config made from command-line options (`golfref play`) names the option, not a line
        # of YAML its user never saw.
        self.labels = labels
        self.problems: list[tuple[int, int, str]] = []  # (line, order found, message)

    def _line(self, path: tuple[Any, ...]) -> int | None:
        probe = path
        while probe not in self.lines and probe:
            probe = probe[:-1]
        return self.lines.get(probe)

    def name(self, path: tuple[Any, ...]) -> str:
        """What a key path is called in messages: its label, else its dotted form (`players[1].name`)."""
        if self.labels is not None:
            probe = path
            while probe and probe not in self.labels:
                probe = probe[:-1]
            if probe in self.labels:
                return self.labels[probe]
        return dotted(path)

    def _text(self, path: tuple[Any, ...], message: str, line: int | None) -> str:
        if self.labels is not None:
            return f"{self.source}: {self.name(path)}: {message}"
        where = f"{self.source}:{line}" if line else self.source
        return f"{where}: {dotted(path)}: {message}"

    def error(self, path: tuple[Any, ...], message: str) -> ConfigError:
        """The located error of one problem, to raise at once."""
        return ConfigError(self._text(path, message, self._line(path)))

    def add(self, path: tuple[Any, ...], message: str, line: int | None = None) -> None:
        """Note a problem at a key path (`line`: where the YAML has it, when the path cannot say)."""
        line = line or self._line(path)
        text = self._text(path, message, line)
        if all(text != known for _, _, known in self.problems):
            self.problems.append((line or 0, len(self.problems), text))

    def raise_problems(self) -> None:
        """Raise one ConfigError carrying every problem found, in file order."""
        if self.problems:
            ordered = tuple(text for _, _, text in sorted(self.problems))
            raise ConfigError(ordered[0], ordered)


_PLACEHOLDER_LIST = ", ".join(f"{{{name}}}" for name in PATH_PLACEHOLDERS)
_QUOTE_HINT = 'quote a value holding a placeholder, as in path: "logs/{match_id}.json"'
_UNQUOTED_PLACEHOLDER = re.compile(r"(?<![\"'{])\{(?:" + "|".join(PATH_PLACEHOLDERS) + r")\}")


def _unquoted_placeholder(instance: Any) -> bool:
    """YAML reads an unquoted `{match_id}` as the mapping {match_id: null}."""
    return (
        isinstance(instance, dict)
        and bool(instance)
        and all(k in PATH_PLACEHOLDERS and v is None for k, v in instance.items())
    )


def _suggest(key: str, allowed: list[str]) -> str:
    return did_you_mean(key, allowed) or f" (allowed: {', '.join(allowed)})"


def _misplaced(path: tuple[Any, ...], key: Any, allowed: list[str]) -> str:
    """The hint for an unknown key: where it belongs when it is a key of another kind of config, else the nearest."""
    if path == () and key == "log" and "results" in allowed:
        return " (a tournament writes every match's log into its results folder: results: DIR)"
    return _suggest(str(key), allowed)


def _schema_messages(error: jsonschema.ValidationError) -> list[tuple[tuple[Any, ...], str]]:
    path = tuple(error.absolute_path)
    schema: Any = error.schema
    instance: Any = error.instance
    if error.validator == "additionalProperties":
        allowed = list(schema.get("properties", {}))
        extras = [k for k in instance if k not in allowed]
        return [(path + (key,), f"unknown key {key!r}{_misplaced(path, key, allowed)}") for key in extras]
    if error.validator == "required":
        return [(path, error.message.replace("is a required property", "is required"))]
    if error.validator == "oneOf" and path and isinstance(path[-1], int) and "players" in path:
        builtins = ", ".join(BUILTIN_PLAYERS)
        return [(path, f"a player needs exactly one of command (a bot program), builtin ({builtins}) "
                       "or python (a policy, module:object)")]
    if error.validator == "enum":
        values: Any = error.validator_value
        choices = ", ".join(str(c) for c in values)
        hint = did_you_mean(instance, [str(c) for c in values]) if isinstance(instance, str) else ""
        return [(path, f"{instance!r} is not one of: {choices}{hint}")]
    if error.validator == "minItems" and path == ("players",):
        return [(path, "a match needs at least 2 players")]
    seats = load_schema("match-config.schema.json")["properties"]["players"]["maxItems"]
    if error.validator == "maxItems" and path == ("players",) and error.validator_value == seats:
        return [(path, f"a match takes at most {seats} players")]
    if _unquoted_placeholder(instance):
        return [(path, f"{error.message}: {_QUOTE_HINT}")]
    bound: Any = error.validator_value
    if error.validator == "maxLength" and isinstance(instance, str):
        return [(path, f"{len(instance):,} characters is too long: at most {bound}")]
    if error.validator in ("maxItems", "maxProperties"):
        what = "entries" if error.validator == "maxProperties" else "items"
        return [(path, f"{len(instance):,} {what} is too many: at most {bound}")]
    if error.validator in ("maximum", "minimum"):
        side = "greater than the maximum" if error.validator == "maximum" else "less than the minimum"
        return [(path, f"{shown(instance)} is {side} of {bound}")]
    if error.validator == "pattern" and isinstance(instance, str) and path and path[-1] == "python":
        return [(path, f"{shown(instance)} is not a reference of the form module:object (such as mypolicy:Greedy)")]
    if error.validator == "pattern" and isinstance(instance, str) and path and path[-1] == "name":
        return [(path, f"{shown(instance)}: a name may not hold control characters (bidirectional ones included)")]
    if len(error.message) > 200:  # a hostile value quoted whole: say what is wrong, not the value
        return [(path, f"{shown(instance)}: not allowed here ({error.validator})")]
    return [(path, error.message)]


def _schema_properties(schema: str) -> dict[str, Any]:
    """The top-level keys a config of this schema takes."""
    properties: dict[str, Any] = load_schema(schema).get("properties", {})
    return properties


def _check_schema(
    data: dict[str, Any], where: Where, schema: str = "match-config.schema.json"
) -> set[tuple[Any, ...]]:
    """Add every schema error to `where`; return the key paths that had one."""
    validator = _Validator(load_schema(schema), registry=_registry())
    errors = list(validator.iter_errors(data))
    # A misspelt key suggested as a missing required one is one mistake: say it once.
    suggested = {
        (tuple(e.absolute_path), close)
        for e in errors
        if e.validator == "additionalProperties"
        for key in e.instance
        if key not in e.schema.get("properties", {})
        if (close := closest_name(str(key), e.schema.get("properties", {}))) is not None
    }
    bad: set[tuple[Any, ...]] = set()
    for error in errors:
        path = tuple(error.absolute_path)
        if error.validator == "required":
            missing = [k for k in error.validator_value if k not in error.instance]
            if missing and all((path, k) in suggested for k in missing):
                continue
        bad.add(path)
        for key_path, message in _schema_messages(error):
            where.add(key_path, message)
    return bad


def _yaml_hint(text: str, error: yaml.YAMLError) -> str:
    """A hint for a YAML error caused by an unquoted placeholder on the lines it names."""
    lines = text.splitlines()
    for mark in (getattr(error, "problem_mark", None), getattr(error, "context_mark", None)):
        if mark is not None and mark.line < len(lines) and _UNQUOTED_PLACEHOLDER.search(lines[mark.line]):
            return f" ({_QUOTE_HINT})"
    return ""


@dataclass(frozen=True)
class _YamlDocument:
    """A config's YAML, parsed once: its value, each key path's line, and the keys given twice."""

    data: Any
    lines: dict[tuple[Any, ...], int]
    duplicates: list[tuple[tuple[Any, ...], int]]


def _read_yaml(text: str, source: str, what: str = "a match config") -> _YamlDocument:
    """Parse `text` once, safely (size and alias expansion bounded), or raise a located ConfigError."""
    if len(text) > _MAX_CONFIG_CHARS:
        raise ConfigError(f"{source}: {len(text):,} characters is too large for {what}")
    loader = _ConfigLoader(text, source)
    try:
        data = loader.get_single_data()
    except RecursionError:
        raise ConfigError(f"{source}: the YAML is nested too deeply") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"{source}{line}: not valid YAML: {problem}{_yaml_hint(text, e)}") from None
    finally:
        loader.dispose()
    return _YamlDocument(data, loader.lines, loader.duplicates)


@dataclass(frozen=True)
class CheckedDocument:
    """A config's YAML checked as far as the schema and the players: the rest is the caller's."""

    data: dict[str, Any]
    where: Where
    bad: set[tuple[Any, ...]]
    """Key paths the schema found a problem at."""
    bad_top: set[Any]
    """Top-level keys with a problem somewhere below them."""
    players: tuple[PlayerSpec, ...]


def check_document(
    text: str,
    source: str,
    base: Path,
    what: str,
    shape: str,
    schema: str,
    labels: Mapping[tuple[Any, ...], str] | None = None,
) -> CheckedDocument:
    """Parse once; note repeated keys, schema problems and player problems in one `Where`."""
    document = _read_yaml(text, source, what)
    data = document.data
    where = Where(source, document.lines, labels)
    if not isinstance(data, dict):
        raise where.error((), f"{what} is {shape}")
    if isinstance(data.get("log"), str) and "log" in _schema_properties(schema):
        data["log"] = {"path": data["log"]}  # `log: PATH` is short for `log: {path: PATH}`
    for key_path, key_line in document.duplicates:
        where.add(key_path, "the key is given twice", key_line)
    bad = _check_schema(data, where, schema)
    items = data.get("players")
    players: tuple[PlayerSpec, ...] = ()
    if isinstance(items, list):
        bad_items = {path[1] for path in bad if len(path) > 1 and path[0] == "players"}
        players = _players(items, bad_items, where, base)
    return CheckedDocument(data, where, bad, {path[0] for path in bad if path}, players)


def parse_config(
    text: str,
    source: str = "<config>",
    base_dir: Path | None = None,
    labels: Mapping[tuple[Any, ...], str] | None = None,
) -> MatchConfig:
    """Check a config given as YAML text; `base_dir` (default: the current directory) anchors relative paths.

    Every problem is reported, not only the first: the ConfigError carries them in file order.
    `labels` names, by key path, what a problem is said to be about instead of the YAML's line
    and key (for a config built from command-line options); the longest labelled prefix of a
    problem's key path is used.
    """
    base = base_dir or Path.cwd()
    checked = check_document(
        text,
        source,
        base,
        "a match config",
        "a mapping with at least a players list",
        "match-config.schema.json",
        labels,
    )
    data, where, bad, bad_top, players = checked.data, checked.where, checked.bad, checked.bad_top, checked.players
    items = data.get("players")
    count = len(items) if isinstance(items, list) and ("players",) not in bad else None
    rules = checked_rules(data.get("rules") or {}, count if "rules" not in bad_top else None, where)
    check_sandbox_paths(data, bad_top, where, base)
    log_data = data.get("log") or {}
    if "log" not in bad_top:
        problem = template_problem(log_data.get("path", LogSpec.path))
        if problem:
            where.add(("log", "path"), problem)
    where.raise_problems()
    assert rules is not None  # no problem was found, so the rules resolved

    time, faults = time_and_faults(data)
    sandbox = sandbox_spec(data.get("sandbox"), base, enabled_by_default=False)
    log = LogSpec(
        path=log_data.get("path", LogSpec.path), transcript=log_data.get("transcript", False), directory=str(base)
    )
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
        sandbox=sandbox,
        fail_on=faults_fail_on(data),
        rule_options=rule_options(data),
        seed_in_source=data.get("seed") is not None,
    )


def faults_fail_on(data: Mapping[str, Any]) -> FailOn:
    """The `faults.fail_on` of a schema-checked config (match or tournament)."""
    return FailOn((data.get("faults") or {}).get("fail_on", FailOn.ENDED.value))


def rule_options(data: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The options a checked config's `rules:` sets beyond its preset, in file order."""
    return tuple((key, value) for key, value in (data.get("rules") or {}).items() if key != "preset")


def check_sandbox_paths(data: Mapping[str, Any], bad_top: set[str], where: Where, base: Path) -> None:
    """Add a problem for each ``sandbox.paths`` entry that does not exist."""
    if "sandbox" in bad_top:
        return
    for i, entry in enumerate((data.get("sandbox") or {}).get("paths", ())):
        problem = _sandbox_path_problem(base / entry)
        if problem:
            where.add(("sandbox", "paths", i), problem)


def _sandbox_path_problem(path: Path) -> str | None:
    """Why a `sandbox.paths` entry cannot be shown to a bot: missing, or unsafe (`sandbox_spec.unsafe_path`)."""
    try:
        return unsafe_path(path) or (None if path.exists() else f"no such file or folder: {path}")
    except (OSError, ValueError) as e:  # a name too long, a NUL byte...
        return f"{shown(str(path))}: {e}"


def time_and_faults(data: Mapping[str, Any]) -> tuple[TimeControl, FaultPolicy]:
    """The time control and fault policy of a schema-checked config."""
    faults_data = data.get("faults") or {}
    faults = FaultPolicy(
        mode=FaultMode(faults_data.get("policy", "fallback")),
        fallback=faults_data.get("fallback", "greedy"),
        max_faults=faults_data.get("max_faults", 3),
    )
    return TimeControl(**(data.get("time") or {})), faults


# Shell syntax that would do something under a shell but is a plain argument here.
_SHELL_OPERATORS = ("&&", "||", "$(", "|", ";", ">", "<", "&", "`")


def shell_syntax(command: str) -> str | None:
    """The first shell operator in `command` outside quotes, if any (no shell ever runs it)."""
    quote: str | None = None
    i = 0
    while i < len(command):
        ch = command[i]
        if quote == "'":
            quote = None if ch == "'" else quote
        elif ch == "\\":
            i += 2  # an escaped character is literal, in or out of double quotes
            continue
        elif quote == '"':
            quote = None if ch == '"' else quote
        elif ch in "'\"":
            quote = ch
        else:
            for op in _SHELL_OPERATORS:
                if command.startswith(op, i):
                    return op
        i += 1
    return None


def _split_command(command: Any, at: tuple[Any, ...], where: Where) -> list[str] | None:
    if not isinstance(command, str):
        return list(command)
    try:
        argv = shlex.split(command)
    except ValueError as e:
        where.add(at, f"cannot split the command: {e}")
        return None
    if not argv:
        where.add(at, "the command is empty")
        return None
    op = shell_syntax(command)
    if op is not None:
        where.add(
            at,
            f"{op!r} is shell syntax, but no shell runs the command (it would reach the bot as an argument): "
            f"write a script, or start a shell yourself: command: [sh, -c, {command!r}]",
        )
        return None
    return argv


def _players(items: list[Any], skip: set[int], where: Where, base: Path) -> tuple[PlayerSpec, ...]:
    seen: dict[str, int] = {}
    out = []
    for i, item in enumerate(items):
        if i in skip or not isinstance(item, dict):
            continue  # its schema errors are reported already
        name = item["name"]
        if name in seen:
            where.add(("players", i, "name"), f"name {name!r} is already used by {where.name(('players', seen[name]))}")
            continue
        seen[name] = i
        if "builtin" in item:
            for key in ("cwd", "env", "sandbox", "fingerprint", "process"):
                if key in item:
                    where.add(("players", i, key), "applies only to a player with a command")
            options = item.get("options") or {}
            try:
                policy_settings(item["builtin"], options)
            except ValueError as e:
                where.add(("players", i, "options"), str(e))
                continue
            out.append(PlayerSpec(name=name, builtin=item["builtin"], options=tuple(options.items())))
            continue
        if "options" in item:
            where.add(("players", i, "options"), "applies only to a built-in player (builtin)")
        if "process" in item and "python" not in item:
            where.add(("players", i, "process"), "applies only to a python player")
        if "python" in item and not item.get("process"):
            python = _python_player(item, i, where, base)
            if python is not None:
                out.append(python)
            continue
        at = ("players", i, "python" if "python" in item else "command")
        command = item["command"] if "python" not in item else [_interpreter_path(), *RUNNER, item["python"]]
        argv = _split_command(command, at, where)
        env = []
        for key, value in (item.get("env") or {}).items():
            problem = _env_problem(key)
            text = _env_value(value)
            if problem is None and "\0" in text:
                problem = "the value holds a NUL character"
            if problem:
                where.add(("players", i, "env", key), problem)
            env.append((key, text))
        if argv is None:
            continue
        if any("\0" in arg for arg in argv):
            where.add(at, "the command holds a NUL character")
            continue
        cwd = base / item["cwd"] if "cwd" in item else base
        if not cwd.is_dir():
            where.add(("players", i, "cwd"), f"no such directory: {cwd}")
            continue
        exe = argv[0]
        if os.sep in exe:
            # os.path (never raising) and access(): a path this user may run but not stat
            # through every link (a folder it may only traverse) is still a program.
            exe_path = cwd / exe
            if os.path.isdir(exe_path) or not os.path.exists(exe_path):
                where.add(at, f"no such program: {exe} (looked in {cwd})")
            elif not os.access(exe_path, os.X_OK):
                where.add(at, f"{exe} is not executable (chmod +x, or start it with an interpreter)")
        else:
            own_path = dict((k, v) for k, v in env if isinstance(k, str)).get("PATH")
            referee_path = os.environ.get("PATH") or os.defpath  # what a bot gets by default
            if find_program(exe, own_path if own_path is not None else referee_path, cwd) is None:
                hidden = own_path is not None and find_program(exe, referee_path, cwd) is not None
                if hidden:
                    where.add(
                        ("players", i, "env", "PATH"),
                        f"this PATH hides the program {exe!r} (the bot's PATH is the one its env gives); "
                        "add the program's folder to it, or give the program's full path",
                    )
                else:
                    where.add(at, f"program {exe!r} is not on PATH")
        script = missing_script(argv, cwd)
        if script is not None:
            where.add(at, script)
        visible = []
        for k, entry in enumerate((item.get("sandbox") or {}).get("paths", ())):
            problem = _sandbox_path_problem(base / entry)
            if problem:
                where.add(("players", i, "sandbox", "paths", k), problem)
                continue
            visible.append(str((base / entry).resolve()))
        exclude = (item.get("fingerprint") or {}).get("exclude", ())
        for k, pattern in enumerate(exclude):
            problem = exclude_problem(pattern)
            if problem:
                where.add(("players", i, "fingerprint", "exclude", k), problem)
        out.append(PlayerSpec(name=name, command=tuple(argv), cwd=str(cwd), env=tuple(env),
                              sandbox_paths=tuple(visible), fingerprint_exclude=tuple(exclude)))  # fmt: skip
    return tuple(out)


def exclude_problem(pattern: str) -> str | None:
    """Why a `fingerprint.exclude` pattern cannot name files of the bot's folder that are not the bot's, or None."""
    if "\0" in pattern:
        return "the pattern holds a NUL character"
    if pattern.startswith("/"):
        return (f"{shown(pattern)} is an absolute path: a pattern is relative to the bot's folder (the folder of "
                "its program), as out.txt or logs/*.log")  # fmt: skip
    if ".." in pattern.split("/"):
        return f"{shown(pattern)} reaches out of the bot's folder (..): a pattern names files inside it"
    bare = pattern
    while bare.startswith("./"):
        bare = bare[2:]
    if bare.rstrip("/") in ("", ".") or set(bare) <= {"*", "/"}:
        return (f"{shown(pattern)} would leave out every file of the bot's folder, so its fingerprint would cover "
                "nothing beside its program: name the files that are not the bot's")  # fmt: skip
    return None


def _interpreter_path() -> str:
    """The Python that runs a ``process: true`` policy: the referee's own, which has golfref."""
    return sys.executable


def _python_player(item: Mapping[str, Any], i: int, where: Where, base: Path) -> PlayerSpec | None:
    """A python player in the referee's process: its policy imported from its cwd now, so that a bad one is a
    config error naming the player and key."""
    for key in ("env", "sandbox", "fingerprint"):
        if key in item:
            where.add(("players", i, key), "applies only to a bot process (a command, or python with process: true)")
    cwd = base / item["cwd"] if "cwd" in item else base
    if not cwd.is_dir():
        where.add(("players", i, "cwd"), f"no such directory: {cwd}")
        return None
    try:
        policy = import_policy(item["python"], str(cwd.resolve()))
    except PolicyError as e:
        where.add(("players", i, "python"), str(e))
        return None
    return PlayerSpec(name=item["name"], python=item["python"], cwd=str(cwd), policy=policy)


# Interpreters that run the script named by their first argument that is not an option: per
# interpreter, the options that take a value (skipped with it) and those that mean no script
# file follows (code on the command line, a module, a REPL).
_INTERPRETERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "python": (frozenset({"-X", "-W", "--check-hash-based-pycs"}), frozenset({"-c", "-m", "-", "-i"})),
    "node": (frozenset({"-r", "--require", "--import", "--loader", "--input-type"}),
             frozenset({"-e", "--eval", "-p", "--print", "-i", "--interactive", "-"})),
    "ruby": (frozenset({"-I", "-r"}), frozenset({"-e", "-"})),
    "perl": (frozenset({"-I", "-M", "-m"}), frozenset({"-e", "-E", "-"})),
    "php": (frozenset({"-d", "-c"}), frozenset({"-r", "-a", "-"})),
    "sh": (frozenset({"-o"}), frozenset({"-c", "-s", "-i", "-"})),
    "lua": (frozenset({"-l"}), frozenset({"-e", "-i", "-"})),
    "Rscript": (frozenset(), frozenset({"-e", "-"})),
}  # fmt: skip
_ALIASES = {"pypy": "python", "nodejs": "node", "bash": "sh", "dash": "sh", "zsh": "sh", "ksh": "sh"}


def _interpreter(program: str) -> str | None:
    """The interpreter family of a program name (`python3.11` is python), or None."""
    base = os.path.basename(program)
    family = re.sub(r"[\d.]+$", "", base)  # python3.11 -> python, lua5.4 -> lua
    family = _ALIASES.get(family, family)
    return family if family in _INTERPRETERS else None


def missing_script(argv: Sequence[str], cwd: Path) -> str | None:
    """What is wrong when `argv` runs an interpreter on a script file that does not exist, else None.

    A misspelt script would otherwise be found only when the bot starts (and fails to).
    Only the interpreters of `_INTERPRETERS` are read this way, and `java -jar FILE`.
    """
    family = _interpreter(argv[0])
    if family is None:
        if os.path.basename(argv[0]).startswith("java") and "-jar" in argv[:-1]:
            jar = argv[argv.index("-jar") + 1]
            if not (cwd / jar).is_file():
                return f"no such file: {jar} (the jar {argv[0]} -jar runs; looked in {cwd})"
        return None
    valued, no_script = _INTERPRETERS[family]
    args = iter(argv[1:])
    for arg in args:
        if arg in no_script or (family == "python" and arg[:2] in ("-c", "-m") and len(arg) > 2):
            return None  # python -cCODE and -mMODULE take their value attached too
        if arg in valued:
            next(args, None)
            continue
        if arg.startswith("-"):
            continue
        if not (cwd / arg).is_file():
            return f"no such file: {arg} (the script {argv[0]} runs; looked in {cwd})"
        return None
    return None


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


def checked_rules(data: Any, players: int | None, where: Where) -> Rules | None:
    """The resolved rules, or None after adding their problems (or when the player count is unknown).

    Misspelt option names are reported whatever else is wrong (a bad preset, a bad player), so
    that they come in the first batch of problems.
    """
    if not isinstance(data, Mapping):
        return None  # the schema said what is wrong
    preset = data.get("preset", "standard")
    overrides = {k: v for k, v in data.items() if k != "preset"}
    unknown = [(key, problem) for key in overrides if (problem := unknown_option(key))]
    for key, problem in unknown:
        where.add(("rules", key), problem)
    if unknown or players is None:
        return None
    try:
        return resolve_rules(preset, overrides, players)
    except RulesError as e:
        message = str(e)
        option, _, problem = message.partition(":")
        # A mapping option's entry is named `card_values.K`: the problem is the option's, the entry its part.
        base, _, entry = option.partition(".")
        if base in overrides:
            where.add(("rules", base), f"{entry}: {problem.strip()}" if entry else problem.strip())
        elif option == "players":
            where.add(("players",), message.split(":", 1)[1].strip())
        else:
            where.add(("rules",), message)
        return None


def template_problem(template: str) -> str | None:
    """What is wrong with a log path template, or None: only the plain placeholders are allowed."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as e:
        return f"bad template: {e} (a literal brace is written {{{{ or }}}})"
    for _, name, spec, conversion in fields:
        if name is None:
            continue
        if name not in PATH_PLACEHOLDERS or spec or conversion:
            shown = name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            return f"unknown placeholder {{{shown}}} (use {_PLACEHOLDER_LIST})"
    return None
