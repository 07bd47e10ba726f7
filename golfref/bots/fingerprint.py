"""Bot fingerprints: which build of a bot played, as SHA-256 hashes recorded in the log.

For each external bot the referee hashes, before any bot starts:

- **the file**: the bot's own program. A program named by a relative path (`./bot`,
  `build/bot`) is the bot's own. Any other program (a name found on PATH such as
  `python3`, `node`, `java`, or an absolute path) is taken as an interpreter, and the
  file is the first later argument that names an existing file, relative to the bot's
  working directory (`bot.py` in `python3 -u bot.py`, `bot.jar` in `java -jar bot.jar`);
  when no argument does, the program itself.
- **the directory**: every regular file under the file's directory (under the working
  directory when the file is an interpreter given no script, as in `python3 -m bot`),
  walked in sorted order of relative path, skipping `__pycache__` and version-control
  folders, and the referee's own outputs inside it (`outputs`: a tournament's results
  folder, a match's log, its folder and its transcripts, a tournament's report and JUnit
  file, the file this process's output is redirected into), which change as matches are
  played and are no part of the bot, and the files its player's config leaves out
  (`fingerprint: {exclude: [...]}`: glob patterns relative to that folder, `excluded`, which
  the fingerprint then records). The hash covers the compact JSON array of `[relative path, size, sha256]` of
  each file. The walk stops before the first file that would take the total past
  `DIRECTORY_CAP_BYTES` or the count past `DIRECTORY_CAP_FILES`, and says `truncated`.

docs/LOG_FORMAT.md (players) documents the recorded object.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
import stat
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

__all__ = [
    "DIRECTORY_CAP_BYTES",
    "DIRECTORY_CAP_FILES",
    "SKIPPED_FOLDERS",
    "Build",
    "bot_file",
    "build",
    "changed_files",
    "changes",
    "excluded",
    "fingerprint",
    "redirected_into",
]

DIRECTORY_CAP_BYTES = 64 * 1024 * 1024
"""At most this many bytes of a bot's directory are hashed (64 MiB)."""
DIRECTORY_CAP_FILES = 10_000
"""At most this many files of a bot's directory are hashed."""
SKIPPED_FOLDERS = frozenset({"__pycache__", ".git", ".hg", ".svn"})
"""Folders left out of the directory hash: caches a bot rewrites as it runs, and repository metadata."""

_CHUNK = 1 << 20

_SETTLED_NS = 2_000_000_000
"""A file whose status changed less than this long ago is hashed again each time (see `_digest`)."""
_KNOWN_LIMIT = 100_000
_known: dict[tuple[int, int], tuple[int, int, int, str]] = {}
"""Digests already taken in this process: (device, inode) -> (size, mtime_ns, ctime_ns, sha256)."""


def _sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _digest(path: str | Path, st: os.stat_result) -> str:
    """The file's SHA-256, taken again only when its status says it may have changed.

    A tournament fingerprints every bot before every match, and a bot's folder may hold
    many megabytes. Any write to a file moves its ctime, which no process can set back
    (unlike the mtime), so an unchanged (size, mtime, ctime) means unchanged bytes. A file
    changed within the last two seconds may still change within the same clock tick
    unseen (git's "racy" case), so its digest is not kept.
    """
    key = (st.st_dev, st.st_ino)
    seen = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _known.get(key)
    if known is not None and known[:3] == seen:
        return known[3]
    digest = _sha256(path)
    if time.time_ns() - st.st_ctime_ns > _SETTLED_NS:
        if len(_known) >= _KNOWN_LIMIT:
            _known.clear()
        _known[key] = (*seen, digest)
    return digest


def bot_file(command: Sequence[str], cwd: Path, path_env: str | None) -> tuple[str, Path, Path] | None:
    """The bot's own file as (written as in the command, resolved path, directory to hash), or None.

    None when the program cannot be found (the bot then fails to start, a recorded fault).
    """
    program = command[0]
    if "/" in program and not os.path.isabs(program):
        own = cwd / program
        return (program, own, own.parent) if own.is_file() else None
    for arg in command[1:]:
        candidate = cwd / arg
        if arg and candidate.is_file():
            return arg, candidate, candidate.parent
    found = program if os.path.isabs(program) else shutil.which(program, path=path_env)
    if found is None or not Path(found).is_file():
        return None
    return found, Path(found), cwd


def _left_out(root: Path, outputs: Iterable[str | Path]) -> frozenset[str]:
    """The real paths of `outputs` that lie inside `root` (the folder itself, or one holding it, is never left out)."""
    inside = []
    for path in outputs:
        real = os.path.realpath(path)
        if real.startswith(str(root) + os.sep):
            inside.append(real)
    return frozenset(inside)


def _files_under(root: Path, left_out: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(relative posix path, path) of every regular file under `root`, links to files included.

    Folders named in `SKIPPED_FOLDERS` and links to folders are not entered, as in
    `os.walk`; files and folders whose path is in `left_out` are not listed. The entries'
    types come from the folder listing, so only the files that will be hashed are ever
    stat'ed: a bot's folder may hold tens of thousands of files.
    """
    found: list[tuple[str, str]] = []
    folders = [("", str(root))]
    while folders:
        rel_dir, folder = folders.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    rel = f"{rel_dir}{entry.name}"
                    if entry.path in left_out:
                        continue
                    try:
                        if entry.is_dir():
                            if entry.name not in SKIPPED_FOLDERS and not entry.is_symlink():
                                folders.append((f"{rel}/", entry.path))
                        elif entry.is_file():  # not sockets or fifos
                            found.append((rel, entry.path))
                    except OSError:
                        continue
        except OSError:
            continue  # unreadable, or gone while walking
    found.sort()
    return found


Listing = tuple[tuple[str, int, str], ...]
"""What a directory hash covers: (relative path, size, sha256) of each file, in order."""


def excluded(rel: str, patterns: Sequence[str]) -> bool:
    """Whether a file at `rel` (relative to the bot's folder, `/` separators) is left out by one of `patterns`.

    A pattern is shell-style (`*`, `?`, `[...]`; `*` crosses `/` too, so `*.log` is any log at
    any depth) and matches the file's path or the path of a folder holding it (`logs` leaves
    out everything under `logs/`). A leading `./` and a trailing `/` are ignored.
    """
    if not patterns:
        return False
    parts = rel.split("/")
    paths = ["/".join(parts[: k + 1]) for k in range(len(parts))]
    return any(fnmatch.fnmatchcase(path, _bare(pattern)) for pattern in patterns for path in paths)


def _bare(pattern: str) -> str:
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern.rstrip("/") or pattern


def _summary(listing: Listing, truncated: bool, exclude: Sequence[str]) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "sha256": hashlib.sha256(orjson.dumps(listing)).hexdigest(),
        "files": len(listing),
        "bytes": sum(size for _, size, _ in listing),
        "truncated": truncated,
    }
    if exclude:
        summary["excluded"] = list(exclude)  # the log says what the hash does not cover
    return summary


def _directory(
    root: Path, cap_bytes: int, cap_files: int, outputs: Iterable[str | Path] = (), exclude: Sequence[str] = ()
) -> tuple[dict[str, Any], Listing]:
    # Walked from its real path, so that the outputs' real paths can be compared with the entries'.
    real = Path(os.path.realpath(root))
    listing: list[tuple[str, int, str]] = []
    total = 0
    truncated = False
    for rel, path in _files_under(real, _left_out(real, outputs)):
        if excluded(rel, exclude):
            continue  # before the caps: a file left out takes no share of them
        try:
            st = os.stat(path)
            size = st.st_size
            if total + size > cap_bytes or len(listing) == cap_files:
                truncated = True
                break
            digest = _digest(path, st)
        except OSError:
            continue  # unreadable (or gone while walking): not part of what the bot can run
        listing.append((rel, size, digest))
        total += size
    return _summary(tuple(listing), truncated, exclude), tuple(listing)


@dataclass(frozen=True)
class Build:
    """A bot's files as one fingerprint saw them: the fingerprint the log records, and the listing it hashed."""

    fingerprint: dict[str, Any]
    listing: Listing
    own: str | None = None
    """The file's path in the listing, when it lies in the folder hashed (its change is said once)."""
    root: str | None = None
    """The real path of the folder hashed (None in a build stored before golfref kept it)."""

    def key(self) -> tuple[str, str]:
        """What identifies the build: the SHA-256 of its file and of its folder's listing."""
        return self.fingerprint["sha256"], self.fingerprint["directory"]["sha256"]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (`from_json` reads it back)."""
        listing = [list(entry) for entry in self.listing]
        return {"fingerprint": self.fingerprint, "listing": listing, "own": self.own, "root": self.root}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Build:
        """The build `to_json` wrote."""
        listing = tuple((str(r), int(n), str(h)) for r, n, h in data["listing"])
        return Build(data["fingerprint"], listing, data.get("own"), data.get("root"))

    def without(self, exclude: Sequence[str], outputs: Iterable[str | Path], root: str | None = None) -> Build:
        """This build as if taken with `exclude` and `outputs` left out too (`root`: the folder, if not known).

        A tournament compares the build it started with against one taken now: what is left
        out now (a pattern added to the config, a file golfref wrote since) is left out of both.
        """
        folder = self.root or root
        inside = _left_out(Path(folder), outputs) if folder is not None else frozenset()
        kept = tuple(
            entry
            for entry in self.listing
            if not excluded(entry[0], exclude) and not _under(os.path.join(folder or "", entry[0]), inside)
        )
        if kept == self.listing and self.fingerprint["directory"].get("excluded", []) == list(exclude):
            return self
        summary = _summary(kept, self.fingerprint["directory"]["truncated"], exclude)
        return Build({**self.fingerprint, "directory": summary}, kept, self.own, self.root)


def _under(path: str, left_out: frozenset[str]) -> bool:
    return any(path == out or path.startswith(out + os.sep) for out in left_out)


def redirected_into(found: Build, streams: Sequence[int] = (1, 2)) -> tuple[str, ...]:
    """The files of `found` (relative paths) that this process's `streams` (stdout, stderr) are redirected into.

    `golfref tournament > out.txt` run in a bot's folder makes the shell recreate out.txt
    before golfref starts, on every run: golfref's own output, never the bot's. The file
    is known by its device and inode, which a redirection shares with the open stream.
    """
    ids = set()
    for fd in streams:
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            ids.add((st.st_dev, st.st_ino))
    if not ids or found.root is None:
        return ()
    hits = []
    for rel, _, _ in found.listing:
        try:
            st = os.stat(os.path.join(found.root, rel))
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in ids:
            hits.append(rel)
    return tuple(hits)


def build(
    command: Sequence[str],
    cwd: str | None,
    env: Mapping[str, str] | None = None,
    outputs: Iterable[str | Path] = (),
    cap_bytes: int = DIRECTORY_CAP_BYTES,
    cap_files: int = DIRECTORY_CAP_FILES,
    exclude: Sequence[str] = (),
) -> Build | None:
    """The bot's build (see `fingerprint`, which takes the same arguments); None when its program cannot be found."""
    where = Path(cwd) if cwd is not None else Path.cwd()
    path_env = (env or {}).get("PATH", os.environ.get("PATH"))
    found = bot_file(command, where, path_env)
    if found is None:
        return None
    written, path, directory = found
    try:
        digest = _digest(path, path.stat())
    except OSError:
        return None
    summary, listing = _directory(directory, cap_bytes, cap_files, outputs, exclude)
    real, folder = os.path.realpath(path), os.path.realpath(directory)
    own = Path(os.path.relpath(real, folder)).as_posix() if real.startswith(folder + os.sep) else None
    return Build({"file": written, "sha256": digest, "directory": summary}, listing, own, folder)


_NAMED = 3
"""How many of a folder's changed files `changes` names before it counts the rest."""


def changed_files(before: Build, after: Build) -> dict[str, list[str]]:
    """The files of the bot's folder that differ between two builds, by how: `changed`, `added`, `removed`.

    The bot's own file is not among them (its change is `fingerprint["sha256"]`'s).
    """
    old = {rel: (size, digest) for rel, size, digest in before.listing}
    new = {rel: (size, digest) for rel, size, digest in after.listing}
    return {
        "changed": sorted(rel for rel in old.keys() & new.keys() if old[rel] != new[rel] and rel != before.own),
        "added": sorted(new.keys() - old.keys()),
        "removed": sorted(old.keys() - new.keys()),
    }


def changes(before: Build, after: Build | None) -> str | None:
    """What differs between two builds of a bot, in a few words for a one-line message; None when nothing does."""
    if after is None:
        return f"its program {before.fingerprint['file']} is gone"
    if after.key() == before.key():
        return None
    said = []
    if after.fingerprint["sha256"] != before.fingerprint["sha256"]:
        said.append(f"its file {before.fingerprint['file']} changed")
    for what, names in changed_files(before, after).items():
        if names:
            more = f" and {len(names) - _NAMED} more" if len(names) > _NAMED else ""
            said.append(f"{what} in its folder: {', '.join(names[:_NAMED])}{more}")
    if not said:  # the same files, but a cap cut the walk elsewhere
        said.append("the files of its folder changed")
    return "; ".join(said)


def fingerprint(
    command: Sequence[str],
    cwd: str | None,
    env: Mapping[str, str] | None = None,
    cap_bytes: int = DIRECTORY_CAP_BYTES,
    cap_files: int = DIRECTORY_CAP_FILES,
    outputs: Iterable[str | Path] = (),
    exclude: Sequence[str] = (),
) -> dict[str, Any] | None:
    """The fingerprint of a bot as recorded in the log; None when its program cannot be found or read.

    `cwd` is the bot's working directory (None: the current one), `env` the extra
    environment the config gives it (its PATH decides where a bare program name is found),
    `outputs` the referee's files and folders to leave out where they lie inside the bot's folder,
    `exclude` the player's patterns of files in its folder that are not the bot's (`excluded`).
    """
    found = build(command, cwd, env, outputs, cap_bytes, cap_files, exclude)
    return None if found is None else found.fingerprint
