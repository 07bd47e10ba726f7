"""The sandbox's settings as values: a config's ``sandbox`` section (`SandboxSpec`, `Limits`) and the rule on
the paths it may show a bot (`unsafe_path`).

Values only: golfref.bots.sandbox applies them (and probes what the machine offers); nothing here
starts a process, so reading a config never loads subprocess.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

__all__ = ["HOST_ONLY", "LIMIT_NAMES", "Limits", "SandboxSpec", "sandbox_spec", "unsafe_path"]

HOST_ONLY = ("/proc", "/sys", "/dev", "/run")
"""The machine's own pseudo-file systems and run-time state: a bot gets its own /proc and /dev, never these."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of each sandboxed bot."""

    memory_mb: int = 1024
    """Memory per process, MiB: what it allocates privately (RLIMIT_DATA), and at most
    `bots.sandbox.ADDRESS_SPACE_FACTOR` times as much address space (RLIMIT_AS) for shared mappings
    and for runtimes that reserve more than they use (the JVM)."""
    cpu_seconds: int = 600
    """CPU seconds per process over the whole match (RLIMIT_CPU)."""
    processes: int = 64
    """Processes of the bot's own user (RLIMIT_NPROC); applied only with a user of its own."""
    open_files: int = 256
    """Open files per process (RLIMIT_NOFILE)."""
    file_size_mb: int = 16
    """The largest file a process may write (RLIMIT_FSIZE), MiB."""
    tmp_mb: int = 64
    """The size of the bot's private /tmp (with bubblewrap), MiB."""

    def to_json(self) -> dict[str, int]:
        """The limits as plain data."""
        return {name: getattr(self, name) for name in LIMIT_NAMES}


LIMIT_NAMES = ("memory_mb", "cpu_seconds", "processes", "open_files", "file_size_mb", "tmp_mb")
"""The limit names of a config's ``sandbox.limits`` and of a `resource_limit` fault."""


@dataclass(frozen=True)
class SandboxSpec:
    """A config's ``sandbox`` section, after the command line's ``--sandbox`` / ``--no-sandbox``."""

    enabled: bool = False
    required: bool = False
    """Refuse to play when bubblewrap cannot be used (otherwise: play with what can be applied)."""
    network: bool = False
    paths: tuple[str, ...] = ()
    """Extra folders or files the bots see, read-only (absolute)."""
    limits: Limits = field(default_factory=Limits)

    def to_json(self) -> dict[str, Any]:
        """The section as plain data (a tournament's canonical form uses this)."""
        return {
            "enabled": self.enabled,
            "required": self.required,
            "network": self.network,
            "paths": list(self.paths),
            "limits": self.limits.to_json(),
        }

    def switched(self, enabled: bool | None) -> SandboxSpec:
        """This spec with the command line's choice applied (None: the config's)."""
        return self if enabled is None else replace(self, enabled=enabled)


def unsafe_path(path: str | os.PathLike[str]) -> str | None:
    """Why `path` may not be shown to a sandboxed bot (in `sandbox.paths`), or None when it may.

    Refused: the whole file system, and anything under HOST_ONLY (/proc/1/root is the
    machine's root, /dev its devices), by the path as written or by where its links lead.
    """
    written = os.path.abspath(path)
    for shown in (written, None):
        if shown is None:
            try:
                shown = os.path.realpath(path)  # after the written path: /proc/1/root may not be followed
            except OSError:
                return None  # the caller finds that it cannot be reached
        if shown == "/":
            return f"{path} shows the whole file system; name the folders the bot needs"
        for folder in HOST_ONLY:
            if shown == folder or shown.startswith(folder + "/"):
                via = "" if shown == written else f" (it leads to {shown})"
                return f"{path} is under {folder}{via}: a sandboxed bot never sees the machine's {folder}"
    return None


def sandbox_spec(data: Mapping[str, Any] | None, base: Path, enabled_by_default: bool) -> SandboxSpec:
    """The spec of a schema-checked ``sandbox`` section; relative ``paths`` are read from `base`."""
    data = data or {}
    return SandboxSpec(
        enabled=data.get("enabled", enabled_by_default),
        required=data.get("required", False),
        network=data.get("network", False),
        paths=tuple(str((base / p).resolve()) for p in data.get("paths", ())),
        limits=Limits(**(data.get("limits") or {})),
    )
