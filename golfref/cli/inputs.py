"""What several commands read before calling the library (a config, a key) and check (the sandboxes), as
one-line errors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .exits import fail, fail_config
from .output import err

if TYPE_CHECKING:
    from pathlib import Path

    from ..config.match import MatchConfig, PlayerSpec
    from ..config.sandbox_spec import SandboxSpec
    from ..config.tournament import TournamentConfig
    from ..record.signing import Signer


NOTHING_SECRET = "nothing this user may read is secret from them: the config and its seed, keys, earlier logs"
"""What a bot of the referee's own user can read (docs/SANDBOX.md, "The seed")."""


def config_or_fail(path: str) -> MatchConfig:
    from ..config.match import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as e:
        fail_config(e)


def tournament_or_fail(path: str) -> TournamentConfig:
    from ..config.match import ConfigError
    from ..config.tournament import load_tournament

    try:
        return load_tournament(path)
    except ConfigError as e:
        fail_config(e)


def signer_or_fail(sign: str | None) -> Signer | None:
    """The signer of `--sign KEY`, or a one-line error naming what is wrong with the key."""
    if sign is None:
        return None
    from ..record.signing import KeyFileError, Signer

    try:
        return Signer.from_file(sign)
    except KeyFileError as e:
        fail(f"--sign {e}")


def sandbox_warning(spec: SandboxSpec, players: Sequence[PlayerSpec] = (), tournament: bool = False) -> None:
    """Say in one line when the sandbox is on but bubblewrap cannot be used (the log records what was applied),
    and, for a `tournament` with a bot among `players`, when its bots run as the referee's own user."""
    from ..bots.sandbox import Exposure, bubblewrap_problem, exposure

    if spec.enabled and not spec.required:  # required: the match refuses to start and says why
        problem = bubblewrap_problem()
        if problem is None:
            return
        if exposure(spec) is Exposure.OTHER_USER:
            err(f"golfref: warning: sandbox: {problem}; bots run with a user of their own (as root) and "
                "resource limits only, as each log records")  # fmt: skip
        else:
            err(f"golfref: warning: sandbox: {problem}; bots run as your own user with resource limits only, "
                f"and {NOTHING_SECRET}")  # fmt: skip
        return
    # Built-ins play in the referee's own process: only a bot's program could read anything.
    if tournament and not spec.enabled and any(p.command is not None for p in players):
        err(f"golfref: warning: sandbox: off, so the bots run as your own user, and {NOTHING_SECRET} "
            "(docs/SANDBOX.md)")  # fmt: skip


def in_process_warning(spec: SandboxSpec, players: Sequence[PlayerSpec]) -> None:
    """Say in one line when the sandbox is on and python players still run in golfref's own process."""
    inside = [p.name for p in players if p.python is not None]
    if spec.enabled and inside:
        err(f"golfref: warning: sandbox: {', '.join(inside)} run in golfref's own process, where no sandbox applies "
            "(process: true runs a policy as a bot program, sandboxed: docs/PYTHON_API.md)")  # fmt: skip


def player_label(_seat: int, player: PlayerSpec) -> str:
    """A tournament's player as its sandbox errors name it (a match's are named by seat)."""
    return f"player {player.name}"


def check_sandboxes(
    spec: SandboxSpec,
    players: Sequence[PlayerSpec],
    log_folder: Path,
    source: str,
    hide: Sequence[Path] = (),
    label: Callable[[int, PlayerSpec], str] | None = None,
) -> None:
    """Set up (and give back) each bot's sandbox as a run would, to report what would stop it."""
    from ..bots.launch import build_sandboxes
    from ..config.match import ConfigError

    try:
        boxes = build_sandboxes(spec, players, log_folder, source, hide, prepare=False, label=label)
    except ConfigError as e:
        fail_config(e)
    for box in boxes:
        if box is not None:
            box.close()
