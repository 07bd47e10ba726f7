"""The files a match writes: where its log and transcripts go, and what is checked first.

`golfref run` and `golfref check-config` both go through `planned_log_path` and
`check_outputs`, so that check-config finds everything run would refuse before a bot
starts: a bad placeholder, a log path that is a directory, a device or under a file, a
file that is not a golfref log (unless forced), and a path that is one of the match's own
inputs (the config, a bot's program or script; never, even forced).

Relative paths: a log path from the config is read from the config file's folder; one
given on the command line (`--log`) from the current directory.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..config.match import ConfigError, MatchConfig, template_problem
from ..files import create_new, open_append
from ..record.log import LOG_FORMAT
from ..record.transcript import transcript_path

__all__ = [
    "FILE_MODE",
    "MAX_SEATS",
    "new_match_id",
    "log_path_for",
    "planned_log_path",
    "transcript_path",
    "match_inputs",
    "is_golfref_log",
    "is_transcript",
    "check_outputs",
    "start_transcripts",
    "append_transcript",
]

FILE_MODE = 0o600
"""The permissions of a log (what `tempfile.mkstemp` gives it) and of its transcripts."""
MAX_SEATS = 8
"""The most seats a match has (the config schema's players.maxItems)."""

_MARKER = re.compile(rb'"format"\s*:\s*"' + re.escape(LOG_FORMAT.encode()) + rb'"')
_CHUNK = 1 << 20


def new_match_id(name: str, now: dt.datetime) -> tuple[str, str]:
    """A fresh match id and the match's name as a file-name-safe slug."""
    slug = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)[:40] or "match"
    return f"{slug}-{now.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}", slug


def log_path_for(
    template: str, match_id: str, match: str, now: dt.datetime, directory: str | os.PathLike[str] | None = None
) -> Path:
    """Fill a log path template; a relative result is read from `directory` (None: the current one)."""
    path = Path(template.format(match_id=match_id, match=match, date=now.strftime("%Y-%m-%d")))
    # normpath: a config in sample_matches/ with log.path ../logs/x.json names logs/x.json plainly
    return Path(os.path.normpath(Path(directory) / path)) if directory is not None else path


def planned_log_path(
    config: MatchConfig, log_option: str | None, match_id: str, slug: str, now: dt.datetime
) -> Path:
    """Where the log of this match goes: `--log` (from the current directory) or the config's log.path."""
    if log_option is None:
        template, directory = config.log.path, config.log.directory
        what = f"{config.source}: log.path {template!r}"
    else:
        template, directory = log_option, None
        what = f"--log {log_option!r}"
    problem = template_problem(template)
    if problem:
        raise ConfigError(f"{what}: {problem}")
    return log_path_for(template, match_id, slug, now, directory)


def match_inputs(config: MatchConfig) -> list[tuple[Path, str]]:
    """The files a match reads: its config, and each bot's program and the files its command names."""
    inputs: list[tuple[Path, str]] = []
    source = Path(config.source)
    if source.is_file():
        inputs.append((source, "the match config"))
    for i, player in enumerate(config.players):
        if player.command is None:
            continue
        cwd = Path(player.cwd) if player.cwd is not None else Path.cwd()
        exe = player.command[0]
        env_path = dict(player.env).get("PATH", os.environ.get("PATH") or os.defpath)
        found = shutil.which(exe, path=env_path) if os.sep not in exe else str(cwd / exe)
        if found:
            inputs.append((Path(found), f"the program of players[{i}] ({player.name})"))
        for arg in player.command[1:]:
            candidate = cwd / arg
            if "\0" not in arg and os.path.isfile(candidate):
                inputs.append((candidate, f"a file in the command of players[{i}] ({player.name})"))
    return inputs


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)  # follows links, sees hard links: the same inode is the same file
    except OSError:
        return False


def is_golfref_log(path: Path) -> bool:
    """Whether the regular file at `path` is a golfref log (or empty): a JSON object with the log's format marker."""
    if not path.is_file():
        return False  # never open a fifo or a device: it could block or be consumed
    try:
        with open(path, "rb") as f:
            head = f.read(_CHUNK)
            if not head.strip():
                return True  # nothing to lose
            if not head.lstrip().startswith(b"{"):
                return False
            tail = b""
            chunk = head
            while chunk:
                if _MARKER.search(tail + chunk):
                    return True
                tail = (tail + chunk)[-64:]  # a marker split across two reads
                chunk = f.read(_CHUNK)
    except OSError:
        return False
    return False


def is_transcript(path: Path) -> bool:
    """Whether the regular file at `path` is a golfref transcript (or empty): JSON lines of ms, dir and line."""
    if not path.is_file():
        return False  # never open a fifo or a device: it could block or be consumed
    try:
        with open(path, "rb") as f:
            first = f.readline(64 * 1024)
    except OSError:
        return False
    if not first.strip():
        return True
    return first.startswith(b'{"ms":') and b'"dir":' in first and b'"line":' in first


def _check_target(path: Path, what: str, inputs: list[tuple[Path, str]], force: bool, own_kind: bool) -> None:
    """Refuse `path` unless the match may write `what` there."""
    for source, description in inputs:
        if _same_file(path, source):
            raise ConfigError(f"cannot write the {what} {path}: it is {description} ({source})")
    if path.is_dir():
        raise ConfigError(f"cannot write the {what} {path}: it is a directory")
    if path.exists() and not path.is_file():
        # The log is written by renaming a new file over the old one: never over a device.
        raise ConfigError(f"cannot write the {what} {path}: it exists and is not a regular file")
    if path.is_file() and not own_kind and not force:
        raise ConfigError(
            f"cannot write the {what} {path}: the file there is not a golfref {what}; "
            "choose another path, or give --force to replace it"
        )


def _check_folder(path: Path, what: str) -> None:
    """Refuse a path whose folder cannot be made or written, without creating anything."""
    folder = path.parent
    while not folder.exists():
        if folder.is_symlink():
            raise ConfigError(f"cannot write the {what} {path}: {folder} is a broken link")
        folder = folder.parent
    if not folder.is_dir():
        raise ConfigError(f"cannot write the {what} {path}: {folder} is a file, not a folder")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{path.name}.", suffix=".probe"):
            pass
    except OSError as e:
        raise ConfigError(f"cannot write the {what} {path}: {e.strerror or e}") from None


def check_outputs(config: MatchConfig, log_path: Path, *, force: bool = False) -> None:
    """Raise ConfigError for any file the match would refuse to write (checked before any bot starts)."""
    inputs = match_inputs(config)
    try:
        _check_target(log_path, "log", inputs, force, own_kind=is_golfref_log(log_path))
        _check_folder(log_path, "log")
        if config.log.transcript:
            for seat, player in enumerate(config.players):
                if player.command is not None:
                    path = transcript_path(log_path, seat)
                    _check_target(path, "transcript", inputs, force, own_kind=is_transcript(path))
    except OSError as e:  # a path too long, a name not allowed by the file system...
        raise ConfigError(f"cannot write the log {log_path}: {e.strerror or e}") from None


def start_transcripts(log_path: Path, seats: Iterable[int]) -> None:
    """Give each of `seats` a fresh, empty transcript, and remove transcripts an earlier match left at this log path.

    A transcript belongs to one match, like the log next to it. `check_outputs` has
    already refused (or been forced past) whatever else is at a path a seat writes.
    """
    fresh = set(seats)
    if fresh:
        log_path.parent.mkdir(parents=True, exist_ok=True)
    for seat in range(MAX_SEATS):
        path = transcript_path(log_path, seat)
        ours = path.is_file() and is_transcript(path)
        if path.is_symlink() or ours or (seat in fresh and path.is_file()):
            path.unlink()  # never written through: a link or an old file's mode is not kept
        if seat in fresh:
            os.close(create_new(path, FILE_MODE))


def append_transcript(path: Path, text: str) -> None:
    """Append lines to a transcript, creating it with the log's permissions if it went missing.

    Never through a link: a bot that put one (or a FIFO...) at the path gets UnsafeFile
    naming it, and the file the link points to is left as it was.
    """
    with os.fdopen(open_append(path, FILE_MODE), "w", encoding="utf-8") as f:
        f.write(text)
