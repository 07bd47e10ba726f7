"""The one door through which the match loop gets a started bot for a seat.

The referee never builds a sandbox, starts a process or reads a sandbox's limits itself: it
asks a `Launcher` to prepare the seats (each external player's sandbox, set up before any bot
starts), to fingerprint and start each bot, to say what protected it (the log's
``players[i].sandbox``) and to close them all; what it gets back for a seat is a `StartedBot`,
the small interface of everything the match loop calls on a bot. `ProcessLauncher` is the
door to real processes (`process.BotProcess` in a `process.BotPool`, each in its `Sandbox`);
an in-process bot that implements `StartedBot` comes through a launcher of its own.

What must be checked on this machine before a match's first bot starts, and that reading a config
does not probe, is checked here too (`match_seed_problem`: could a bot read the seed's file?).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from ..config.match import ConfigError, MatchConfig, PlayerSpec
from ..config.sandbox_spec import SandboxSpec
from .bot_process import BotProcess
from .environment import bot_environment
from .fingerprint import bot_file, fingerprint
from .framing import ReadResult
from .lifetime import BotStartError
from .multiplex import BotPool
from .pythons import referee_packages
from .sandbox import OFF, Sandbox, SandboxError, seed_file_problem

__all__ = [
    "InProcessLauncher",
    "Launcher",
    "LauncherFactory",
    "ProcessLauncher",
    "StartFailed",
    "StartedBot",
    "build_sandboxes",
    "match_seed_problem",
]


class StartFailed(Exception):
    """A bot could not be started; the message (the program and its working directory named) is its fault's."""


class StartedBot(Protocol):
    """What the match loop calls on a started bot: lines in and out, its end, and what it left behind."""

    @property
    def sends(self) -> int:
        """How many `send` calls have begun (a line read before a request's send cannot answer it)."""
        ...

    def send(self, line: str, deadline: float | None = None) -> bool:
        """Write one line to the bot; False if it cannot take it by `deadline` (time.monotonic)."""
        ...

    def read_line(self, deadline: float) -> ReadResult:
        """Wait until the bot answers with a line, its output ends, or `deadline` (time.monotonic) passes."""
        ...

    def take_unasked(self) -> list[ReadResult]:
        """Return and forget every line of the bot that no `read_line` returned, oldest first."""
        ...

    def wait_exit(self, timeout: float) -> int | None:
        """Wait up to `timeout` s for the bot to end: its exit status, or None if it still runs."""
        ...

    def limit_hit(self, code: int) -> str | None:
        """The sandbox limit a bot that ended with `code` ran into, as a fault says it (``memory_mb (1024 MiB)``)."""
        ...

    def stderr_text(self) -> str:
        """What the bot wrote to stderr (capped), for the log."""
        ...

    def follow_stderr(self, limit: int) -> None:
        """Keep what the bot writes to stderr from now on for `take_stderr`, at most `limit` bytes between takes."""
        ...

    def take_stderr(self) -> tuple[bytes, int]:
        """What the bot wrote to stderr since the latest take (as far as read), and how many bytes more were cut."""
        ...

    def close(self, grace: float = 0.5) -> None:
        """End the bot: its input closed, `grace` s to go, then ended by force."""
        ...


class Launcher(Protocol):
    """How the match loop gets its seats' bots: prepared, fingerprinted, started, recorded, closed."""

    @property
    def clock(self) -> Callable[[], float]:
        """The time the bots' deadlines are on, in seconds: ``time.monotonic`` for processes, a virtual
        clock for in-process bots (`scripted.ScriptedLauncher`); the referee reads no other."""
        ...

    def prepare(
        self, spec: SandboxSpec, players: Sequence[PlayerSpec], log_folder: Path, source: str, hide: Sequence[Path]
    ) -> None:
        """Set up what each external player needs before any bot starts (a ConfigError naming the player)."""
        ...

    def fingerprint(self, seat: int, player: PlayerSpec, outputs: Sequence[Path]) -> dict[str, Any] | None:
        """The log's fingerprint of the seat's bot (`outputs`: the referee's files, left out), before any start."""
        ...

    def start(self, seat: int, player: PlayerSpec) -> StartedBot:
        """The seat's bot, started; `StartFailed` if it cannot be."""
        ...

    def protections(self, seat: int) -> dict[str, Any]:
        """The log's record of what protected the seat's bot (``players[i].sandbox``)."""
        ...

    def release(self) -> None:
        """Give back what was prepared for bots that never started (a started bot's close does it)."""
        ...

    def close_all(self, grace: float) -> None:
        """Close every started bot at once, with one shared `grace` period; idempotent."""
        ...


class _Closable(Protocol):
    def close(self, grace: float = 0.5) -> None: ...


_Bot = TypeVar("_Bot", bound=_Closable)


class InProcessLauncher(Generic[_Bot]):
    """What every door to bots in this process shares: no sandbox to prepare, record or give back; its
    bots (`bots`, by seat) closed together. A subclass fingerprints and starts them."""

    bots: dict[int, _Bot]

    def prepare(
        self, spec: SandboxSpec, players: Sequence[PlayerSpec], log_folder: Path, source: str, hide: Sequence[Path]
    ) -> None:
        """Nothing to prepare: a bot in this process has no sandbox."""

    def protections(self, seat: int) -> dict[str, Any]:
        """The record of no sandbox."""
        return OFF.to_json()

    def release(self) -> None:
        """Nothing to give back."""

    def close_all(self, grace: float) -> None:
        """Close every bot started."""
        for bot in self.bots.values():
            bot.close(grace)


LauncherFactory = Callable[[Callable[[], None] | None], Launcher]
"""Makes a match's launcher from the referee's stop check (called at its waits; it may raise to stop)."""


class _ProcessBot:
    """A started `BotProcess` as a `StartedBot`: read through its pool, its limits read from its sandbox."""

    __slots__ = ("_bot", "_pool", "_box")

    def __init__(self, bot: BotProcess, pool: BotPool, box: Sandbox | None) -> None:
        self._bot = bot
        self._pool = pool
        self._box = box

    @property
    def sends(self) -> int:
        """How many `send` calls have begun."""
        return self._bot.sends

    def send(self, line: str, deadline: float | None = None) -> bool:
        """Write one line to the bot's stdin."""
        return self._bot.send(line, deadline)

    def read_line(self, deadline: float) -> ReadResult:
        """Wait for the bot's next line, servicing every bot of the pool meanwhile."""
        return self._pool.read_line(self._bot, deadline)

    def take_unasked(self) -> list[ReadResult]:
        """The lines no read returned."""
        return self._pool.take_unasked(self._bot)

    def wait_exit(self, timeout: float) -> int | None:
        """The bot's exit status, waiting up to `timeout` s."""
        return self._bot.wait_exit(timeout)

    def limit_hit(self, code: int) -> str | None:
        """The sandbox limit it ran into, described, or None (also without a sandbox)."""
        box = self._box
        if box is None:
            return None
        limit = box.limit_hit(code, self._bot.read_stderr())
        return None if limit is None else box.describe(limit)

    def stderr_text(self) -> str:
        """The kept stderr output."""
        return self._bot.stderr_text()

    def follow_stderr(self, limit: int) -> None:
        """Keep stderr between takes."""
        self._bot.follow_stderr(limit)

    def take_stderr(self) -> tuple[bytes, int]:
        """The stderr read since the latest take: no read of its own, the pool reads every bot's stderr."""
        return self._bot.take_stderr()

    def close(self, grace: float = 0.5) -> None:
        """Close the bot's process tree."""
        self._bot.close(grace=grace)


class ProcessLauncher:
    """The door to bot processes: each external player's sandbox (when the config asks), its process, one pool."""

    def __init__(self, check: Callable[[], None] | None = None) -> None:
        self.clock = time.monotonic
        """The pool's deadlines are on ``time.monotonic``."""
        self._pool = BotPool(check=check)
        self._boxes: dict[int, Sandbox] = {}
        self._started: set[int] = set()

    def prepare(
        self, spec: SandboxSpec, players: Sequence[PlayerSpec], log_folder: Path, source: str, hide: Sequence[Path]
    ) -> None:
        """Build each external player's sandbox (`build_sandboxes`)."""
        boxes = build_sandboxes(spec, players, log_folder, source, hide)
        self._boxes = {i: box for i, box in enumerate(boxes) if box is not None}

    def fingerprint(self, seat: int, player: PlayerSpec, outputs: Sequence[Path]) -> dict[str, Any] | None:
        """The fingerprint of the player's files (`fingerprint.fingerprint`)."""
        assert player.command is not None
        return fingerprint(
            player.command, player.cwd, dict(player.env), outputs=outputs, exclude=player.fingerprint_exclude
        )

    def start(self, seat: int, player: PlayerSpec) -> StartedBot:
        """Start the player's program in its sandbox and add it to the pool."""
        command = player.command
        assert command is not None
        box = self._boxes.get(seat)
        bot = BotProcess(list(command), seat=seat, cwd=player.cwd, env=dict(player.env), sandbox=box)
        try:
            bot.start()
        except BotStartError as e:
            where = Path(player.cwd) if player.cwd is not None else Path.cwd()
            first = command[0]
            program = where / first if "/" in first else shutil.which(first, path=bot.environment["PATH"]) or first
            raise StartFailed(f"{e} (program {program}, working directory {where})") from None
        self._started.add(seat)
        self._pool.add(bot)
        return _ProcessBot(bot, self._pool, box)

    def protections(self, seat: int) -> dict[str, Any]:
        """What the seat's sandbox applied, or the record of no sandbox."""
        box = self._boxes.get(seat)
        return (box.protections if box is not None else OFF).to_json()

    def release(self) -> None:
        """Close the sandboxes of bots that never started."""
        for seat, box in self._boxes.items():
            if seat not in self._started:
                box.close()

    def close_all(self, grace: float) -> None:
        """Close every bot of the pool."""
        self._pool.close_all(grace)


def build_sandboxes(
    spec: SandboxSpec,
    players: Sequence[PlayerSpec],
    log_folder: Path,
    source: str,
    hide: Sequence[Path] = (),
    prepare: bool = True,
    label: Callable[[int, PlayerSpec], str] | None = None,
) -> list[Sandbox | None]:
    """Each external player's sandbox (None for a built-in, or all None when `spec` is off); a
    ConfigError, naming the player, for one that cannot be set up, with nothing left leased.

    The referee's own files stay out of the bots' sight: the config (`source`), the log's
    folder, the Python packages golfref runs with (its virtual environment, or its
    site-packages: `pythons.referee_packages`), and `hide`. `prepare` creates the log's
    folder first, so that it can be covered (`golfref check-config` does not: it writes nothing).
    `label` names a player in an error (default: its seat).
    """
    if not spec.enabled:
        return [None] * len(players)
    if prepare:
        log_folder.mkdir(parents=True, exist_ok=True)
    private = [log_folder, *hide]
    if Path(source).is_file():
        private.append(Path(source))
    private += referee_packages()
    boxes: list[Sandbox | None] = []
    try:
        for i, player in enumerate(players):
            if player.command is None:
                boxes.append(None)
                continue
            cwd = player.cwd or os.getcwd()
            env = bot_environment(dict(player.env), i)
            found = bot_file(player.command, Path(cwd), env["PATH"])
            name = f"seat {i}" if label is None else label(i, player)
            boxes.append(Sandbox(spec, player.command, cwd, env["PATH"], found[2] if found else None, private, name,
                                 own_file=found[1] if found else None, paths=player.sandbox_paths,
                                 env=env))  # fmt: skip
    except SandboxError as e:
        for box in boxes:
            if box is not None:
                box.close()
        raise ConfigError(f"sandbox: {e}") from None
    return boxes


def match_seed_problem(config: MatchConfig) -> str | None:
    """`sandbox.seed_file_problem` of a match whose seed in play is its config file's; None when it is not.

    Checked before any bot starts (`golfref check-config` and `run`): whether a bot could read the
    file depends on how bots run on this machine, which reading the config does not probe.
    """
    if not config.seed_in_source:
        return None
    return seed_file_problem(config.sandbox, config.players, config.source, "the seed of its deals")
