"""In-process bots: a scripted or Python-policy bot that the referee treats as it treats a process.

A `ScriptedBot` offers what the match loop calls on a started bot (`send`, `read_line`,
`take_unasked`, `wait_exit`, `close`, the stderr text) and answers through the same
`ReadResult` values a `BotProcess` gives, so every fault the referee records for a process
(silence, an exit, a malformed or overlong line, a wrong id, output nobody asked for) can
be provoked without one. What it does comes from a `Brain`:

- `Script`: what to do on each message that wants an answer (the hello, then each request),
  as a list of steps (`Say`, `Ready`, `Answer`, `Think`, `Stderr`, `Exit`, ...), like
  python-chess's ``MockTransport.expect``; once the script runs out, a fallback brain
  (by default one that says ready and plays the first legal choice) takes over.
- `PolicyBrain`: a Python object that decides from each request: a game policy
  (`golfref.game.policies.Policy`, given the seat's view rebuilt from the request) or any
  callable from the request's JSON to an action text.

Time is virtual: the bots of one match share a `VirtualClock`, which the referee reads in
place of ``time.monotonic``. A bot that stays silent makes `read_line` return
`ReadStatus.TIMEOUT` at once with the clock moved to the deadline, and `Think(ms)` moves
it by what the bot takes, so a timeout, the time bank and the match time come out as they
would for a process, without waiting, and the same script gives the same log every time.

Lines are delivered as a process's would be once framed (see `golfref.bots.framing`): a
`Say` is one decoded line, and one longer than the line limit is `ReadStatus.TOO_LONG`;
`NotUtf8` gives the bytes of a line that does not decode. Lines a bot writes before a send
cannot answer it and come back from `take_unasked`, as for a process. The model is a bot
whose output reaches the referee the moment it is written: no pipe, no scheduler.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..config.match import PlayerSpec
from ..game.engine import Action
from ..game.policies import Policy
from ..game.view import seat_view_from_json
from .environment import bot_environment
from .framing import LINE_LIMIT, STDERR_LIMIT, UNASKED_LIMIT, CappedBytes, ReadResult, ReadStatus, short_repr
from .launch import InProcessLauncher, StartFailed

__all__ = [
    "Always",
    "Answer",
    "Brain",
    "CannotStart",
    "CloseStdin",
    "CloseStdout",
    "EchoBrain",
    "Exit",
    "NotUtf8",
    "PolicyBrain",
    "Ready",
    "RequestPolicy",
    "Say",
    "Script",
    "ScriptedBot",
    "ScriptedLauncher",
    "Silent",
    "Stderr",
    "Step",
    "Think",
    "VirtualClock",
]


class VirtualClock:
    """A stand-in for ``time.monotonic``: seconds that pass only when a scripted bot says so."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def __call__(self) -> float:
        """The current virtual time, in seconds."""
        return self._now

    def advance_to(self, when: float) -> None:
        """Move the clock to `when`, if that is later than now (it never goes back)."""
        if when > self._now:
            self._now = when


# -- steps ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Say:
    """Print one line (without its newline), exactly as given: malformed JSON, a wrong id, chatter."""

    text: str


@dataclass(frozen=True)
class NotUtf8:
    """Print one line whose bytes are not UTF-8 (the referee sees `ReadStatus.NOT_UTF8`)."""

    data: bytes = b"\xff\xfe"


@dataclass(frozen=True)
class Ready:
    """Say ready, with this name and version."""

    name: str = "scripted"
    version: str | None = "1"


@dataclass(frozen=True)
class Answer:
    """Answer the open request: `action` (default: its first legal choice, ``stock`` for a message without
    one), under `id` (default: the message's id, 0 for one without)."""

    action: str | None = None
    id: int | None = None


@dataclass(frozen=True)
class Think:
    """Take `ms` milliseconds (of virtual time) before the next step."""

    ms: float


@dataclass(frozen=True)
class Stderr:
    """Write `text` to stderr."""

    text: str


@dataclass(frozen=True)
class Exit:
    """End the bot: its stdout closes and its exit status is `code` (negative: killed by that signal).

    `limit` names the sandbox limit it ran into, as a fault words it (``memory_mb (1024 MiB)``),
    for a bot that ended at one.
    """

    code: int = 0
    limit: str | None = None


@dataclass(frozen=True)
class CloseStdout:
    """Close stdout but keep running: the referee sees the end of the output and no exit status."""


@dataclass(frozen=True)
class CloseStdin:
    """Stop reading: every later send to the bot fails, as a write to a closed pipe does."""


Step = Say | NotUtf8 | Ready | Answer | Think | Stderr | Exit | CloseStdout | CloseStdin
"""One thing a scripted bot does; a plain string is short for `Say`."""


# -- brains -------------------------------------------------------------------------------


class Brain(Protocol):
    """What a `ScriptedBot` does: at its start, and on each message the referee sends it."""

    def start(self) -> Sequence[Step | str]:
        """What the bot does before any message (a banner, a crash at startup); usually nothing."""
        ...

    def react(self, message: Mapping[str, Any]) -> Sequence[Step | str]:
        """What the bot does on `message` (a protocol message, decoded)."""
        ...


class EchoBrain:
    """A well-behaved bot: ready on hello, the first legal choice on each request, exit on goodbye."""

    def __init__(self, name: str = "scripted") -> None:
        self.name = name

    def start(self) -> Sequence[Step | str]:
        """Nothing before the hello."""
        return ()

    def react(self, message: Mapping[str, Any]) -> Sequence[Step | str]:
        """Ready, the first legal choice, or an exit at goodbye."""
        kind = message.get("type")
        if kind == "hello":
            return (Ready(self.name),)
        if kind == "request":
            return (Answer(),)
        if kind == "goodbye":
            return (Exit(0),)
        return ()


class Always:
    """A bot that says ready, then does `steps` on every request (a fault repeated until the policy ends it)."""

    def __init__(self, *steps: Step | str, name: str = "scripted") -> None:
        self.steps = steps
        self.name = name

    def start(self) -> Sequence[Step | str]:
        """Nothing before the hello."""
        return ()

    def react(self, message: Mapping[str, Any]) -> Sequence[Step | str]:
        """Ready on hello, `steps` on a request, an exit at goodbye."""
        kind = message.get("type")
        if kind == "hello":
            return (Ready(self.name),)
        if kind == "request":
            return self.steps
        if kind == "goodbye":
            return (Exit(0),)
        return ()


class Silent:
    """A bot that never writes anything (a hung bot): every wait for it times out."""

    def start(self) -> Sequence[Step | str]:
        """Nothing."""
        return ()

    def react(self, message: Mapping[str, Any]) -> Sequence[Step | str]:
        """Nothing."""
        return ()


class Script:
    """A bot that follows a script: `reactions[i]` is what it does on the i-th message wanting an answer.

    The messages wanting an answer are the hello (reaction 0) and each request, in order.
    A reaction is a sequence of steps (an empty one: silence, so the wait times out) or a
    single step. `at_start` is done before the hello (a banner, `Exit` for a crash at
    startup). Notices (hole_end, match_end) get no reaction, and goodbye an `Exit(0)`.
    Once the reactions run out, `then` (default: `EchoBrain`) decides.
    """

    def __init__(
        self,
        *reactions: Sequence[Step | str] | Step | str,
        at_start: Sequence[Step | str] = (),
        then: Brain | None = None,
    ) -> None:
        self._reactions = [r if isinstance(r, Sequence) and not isinstance(r, str) else (r,) for r in reactions]
        self._at_start = tuple(at_start)
        self._then: Brain = then if then is not None else EchoBrain()

    def start(self) -> Sequence[Step | str]:
        """The `at_start` steps."""
        return self._at_start

    def react(self, message: Mapping[str, Any]) -> Sequence[Step | str]:
        """The next reaction for a hello or a request; the fallback brain's once the script is done."""
        if message.get("type") in ("hello", "request") and self._reactions:
            return self._reactions.pop(0)
        return self._then.react(message)


class RequestPolicy(Protocol):
    """A decision from a request as a bot receives it: the request's JSON in, an action text out."""

    def __call__(self, request: Mapping[str, Any]) -> str:
        """The action to answer `request` with."""
        ...


class PolicyBrain:
    """A bot played by a Python object: a game `Policy` (given the seat's view) or a `RequestPolicy`.

    It sees only what a bot sees, the requests; a `Policy` gets the view rebuilt from the
    request (`seat_view_from_json`) and the legal actions parsed from it.
    """

    def __init__(self, policy: Policy | RequestPolicy, name: str = "policy", version: str | None = "1") -> None:
        self.policy = policy
        self.name = name
        self.version = version

    def start(self) -> Sequence[Step | str]:
        """Nothing before the hello."""
        return ()

    def react(self, message: Mapping[str, Any]) -> Sequence[Step | str]:
        """Ready on hello, the policy's choice on a request, an exit at goodbye."""
        kind = message.get("type")
        if kind == "hello":
            return (Ready(self.name, self.version),)
        if kind == "goodbye":
            return (Exit(0),)
        if kind != "request":
            return ()
        policy = self.policy
        if hasattr(policy, "choose"):
            legal = [Action.parse(text) for text in message["legal"]]
            return (Answer(str(policy.choose(seat_view_from_json(message["view"]), legal))),)
        return (Answer(policy(message)),)


# -- the bot -------------------------------------------------------------------------------


@dataclass(order=True)
class _Out:
    """A line the bot wrote at virtual time `at`, as the read that takes it will report it."""

    at: float
    order: int
    reacting_to: int = field(compare=False)  # how many sends had begun when it was written
    status: ReadStatus = field(compare=False)
    line: str | None = field(compare=False, default=None)
    raw: str = field(compare=False, default="")


class ScriptedBot:
    """A bot in this process, driven by a `Brain` on a `VirtualClock`: a `launch.StartedBot`.

    Its methods mean what they mean for a process (`launch`'s bot around a `BotProcess` in a
    `BotPool`); deadlines and timeouts are on the virtual clock, which a wait moves forward
    instead of sleeping.
    """

    def __init__(
        self,
        brain: Brain,
        *,
        seat: int,
        clock: VirtualClock,
        label: str | None = None,
        env: Mapping[str, str] | None = None,
        line_limit: int = LINE_LIMIT,
        stderr_limit: int = STDERR_LIMIT,
        check: Callable[[], None] | None = None,
    ) -> None:
        self.brain = brain
        self.received: list[dict[str, Any]] = []
        """Every message the bot was sent, decoded, in order (for tests to look at)."""
        self._stop_check = check
        self._seat = seat
        self._clock = clock
        self._label = label if label is not None else f"seat {seat}"
        self._env = bot_environment(env, seat)
        self._line_limit = line_limit
        self._stderr = CappedBytes(stderr_limit)
        self._started = False
        self._closed = False
        self._outs: list[_Out] = []  # written and not yet read, a heap by time
        self._count = 0  # ties keep the order of writing
        self._unasked: list[ReadResult] = []
        self._unasked_dropped = 0
        self._send_times: list[float] = []
        self._sent_at = 0.0
        self._waited = False  # whether the referee waited for the bot since the latest send
        self._stdout_end: float | None = None  # when stdout closed
        self._exit: tuple[float, int] | None = None  # (when, exit status)
        self._limit: str | None = None  # the sandbox limit it exited at
        self._stdin_end: float | None = None  # when it stopped reading
        self._request: Mapping[str, Any] | None = None  # the message being reacted to

    def __repr__(self) -> str:
        return f"<ScriptedBot {self._label} brain={type(self.brain).__name__}>"

    # -- what BotProcess also offers ---------------------------------------------------

    @property
    def seat(self) -> int:
        """The seat the bot plays, from 0."""
        return self._seat

    @property
    def label(self) -> str:
        """The bot's name in messages (``seat N`` unless another was given)."""
        return self._label

    @property
    def environment(self) -> dict[str, str]:
        """The environment a process in its place would run with (see `bot_environment`)."""
        return dict(self._env)

    @property
    def line_limit(self) -> int:
        """The longest line accepted, in bytes."""
        return self._line_limit

    @property
    def pid(self) -> None:
        """None: there is no process."""
        return None

    @property
    def sends(self) -> int:
        """How many `send` calls have begun (see `ReadResult.sends`)."""
        return len(self._send_times)

    @property
    def alive(self) -> bool:
        """Whether the bot has started and has neither exited nor been closed."""
        return self._started and not self._closed and not (self._exit is not None and self._due(self._exit[0]))

    @property
    def returncode(self) -> int | None:
        """The exit status once the bot has exited (by the clock), else None."""
        return self._exit[1] if self._exit is not None and self._due(self._exit[0]) else None

    @property
    def unasked_dropped(self) -> int:
        """How many lines were dropped because `UNASKED_LIMIT` lines were already waiting."""
        return self._unasked_dropped

    def stderr_text(self) -> str:
        """What the bot wrote to stderr, capped as a process's is."""
        return self._stderr.text()

    def follow_stderr(self, limit: int) -> None:
        """Keep what is written to stderr from now on for `take_stderr`, at most `limit` bytes between takes."""
        self._stderr.follow(limit)

    def take_stderr(self) -> tuple[bytes, int]:
        """The stderr written since the latest take (as far as read), and how many bytes more were cut."""
        return self._stderr.take()

    def read_stderr(self) -> str:
        """The same as `stderr_text`: nothing waits in a pipe."""
        return self._stderr.text()

    def start(self) -> None:
        """Start the bot: it does its brain's `start` steps."""
        if self._started:
            raise RuntimeError(f"{self!r} was already started")
        if self._closed:
            raise RuntimeError(f"{self!r} was closed")
        self._started = True
        self._sent_at = self._clock()
        self._perform(self.brain.start(), self._clock())

    def send(self, line: str, deadline: float | None = None) -> bool:
        """Hand `line` to the bot's brain; False if the bot no longer reads (stdin closed, or it exited)."""
        if "\n" in line or "\r" in line:
            raise ValueError(f"a line sent to a bot cannot contain a line break: {line[:80]!r}")
        if not self._started or self._closed:
            return False
        now = self._clock()
        # Whatever the bot wrote before this line was sent cannot answer it.
        self._set_aside(now)
        self._send_times.append(now)
        self._sent_at = now
        self._waited = False
        if self._due(self._stdin_end):
            return False
        message = json.loads(line)
        self.received.append(message)
        self._request = message
        self._perform(self.brain.react(message), now)
        return True

    def read_line(self, deadline: float) -> ReadResult:
        """The next line since the latest send, the end of stdout, or a timeout at `deadline` (virtual)."""
        self._check()
        if self._stop_check is not None:
            self._stop_check()  # the referee's stop, asked at every wait as a pool asks it
        now = self._clock()
        self._waited = True
        until = max(deadline, now)
        if self._outs and self._outs[0].at <= until:
            out = heapq.heappop(self._outs)
            self._clock.advance_to(out.at)
            return self._result(out)
        if self._stdout_end is not None and self._stdout_end <= until:
            self._clock.advance_to(self._stdout_end)
            return ReadResult(ReadStatus.EXITED, elapsed=self._clock() - self._sent_at)
        if self._closed:
            return ReadResult(ReadStatus.EXITED, elapsed=now - self._sent_at)
        self._clock.advance_to(deadline)
        return ReadResult(ReadStatus.TIMEOUT, elapsed=self._clock() - self._sent_at)

    def take_unasked(self) -> list[ReadResult]:
        """Return and forget every line written by now that no `read_line` returned, oldest first."""
        self._check()
        now = self._clock()
        taken = self._unasked
        self._unasked = []
        # What answers the latest send reaches the referee only once it waits for the bot:
        # a process needs that time to read the line and reply.
        sends = len(self._send_times)
        while self._outs and self._outs[0].at <= now and (self._waited or self._outs[0].reacting_to < sends):
            taken.append(self._result(heapq.heappop(self._outs)))
        return taken

    def wait_exit(self, timeout: float) -> int | None:
        """The exit status if the bot exits within `timeout` s (the clock moves to then), else None."""
        if self._exit is not None and self._exit[0] <= self._clock() + max(0.0, timeout):
            self._clock.advance_to(self._exit[0])
            return self._exit[1]
        if self._started and not self._closed:
            self._clock.advance_to(self._clock() + max(0.0, timeout))
        return None

    def limit_hit(self, code: int) -> str | None:
        """The sandbox limit its `Exit` named, or None."""
        return self._limit

    def close(self, grace: float = 0.5) -> None:
        """End the bot (idempotent); what it wrote and nobody read is dropped."""
        self._closed = True
        self._outs.clear()

    # -- inside --------------------------------------------------------------------------

    def _check(self) -> None:
        if not self._started and not self._closed:
            raise RuntimeError(f"{self!r} has not been started")

    def _due(self, when: float | None) -> bool:
        """Whether `when` (a time or never) has come."""
        return when is not None and when <= self._clock()

    def _result(self, out: _Out) -> ReadResult:
        sends = sum(1 for t in self._send_times if t <= out.at)
        return ReadResult(out.status, out.line, out.raw, max(0.0, out.at - self._sent_at), sends)

    def _set_aside(self, now: float) -> None:
        while self._outs and self._outs[0].at <= now:
            result = self._result(heapq.heappop(self._outs))
            if len(self._unasked) < UNASKED_LIMIT:
                self._unasked.append(result)
            else:
                self._unasked_dropped += 1

    def _write(self, at: float, status: ReadStatus, line: str | None = None, raw: str = "") -> None:
        if self._stdout_end is not None and at >= self._stdout_end:
            return  # stdout is closed: the write goes nowhere
        self._count += 1
        heapq.heappush(self._outs, _Out(at, self._count, len(self._send_times), status, line, raw))

    def _say(self, at: float, text: str) -> None:
        data = text.encode("utf-8", errors="surrogateescape")
        if len(data) > self._line_limit:
            self._write(at, ReadStatus.TOO_LONG, raw=short_repr(data, more=True))
        else:
            self._write(at, ReadStatus.LINE, text)

    def _perform(self, steps: Iterable[Step | str], at: float) -> None:
        request = self._request or {}
        for step in steps:
            if self._exit is not None and at >= self._exit[0]:
                return  # an ended bot does nothing more
            if isinstance(step, str):
                self._say(at, step)
            elif isinstance(step, Say):
                self._say(at, step.text)
            elif isinstance(step, Ready):
                ready: dict[str, Any] = {"type": "ready", "name": step.name}
                if step.version is not None:
                    ready["version"] = step.version
                self._say(at, json.dumps(ready))
            elif isinstance(step, Answer):
                action = step.action if step.action is not None else (request.get("legal") or ["stock"])[0]
                rid = step.id if step.id is not None else request.get("id", 0)
                self._say(at, json.dumps({"type": "answer", "id": rid, "action": action}))
            elif isinstance(step, NotUtf8):
                self._write(at, ReadStatus.NOT_UTF8, raw=short_repr(step.data))
            elif isinstance(step, Think):
                at += step.ms / 1000
            elif isinstance(step, Stderr):
                self._stderr.add(step.text.encode("utf-8"))
            elif isinstance(step, Exit):
                self._close_stdout(at)
                self._exit, self._limit = (at, step.code), step.limit
                self._stdin_end = at if self._stdin_end is None else self._stdin_end  # a dead bot reads nothing
            elif isinstance(step, CloseStdout):
                self._close_stdout(at)
            elif isinstance(step, CloseStdin):
                self._stdin_end = at if self._stdin_end is None else self._stdin_end
            else:  # pragma: no cover - every step is handled above
                raise TypeError(f"not a step: {step!r}")

    def _close_stdout(self, at: float) -> None:
        if self._stdout_end is None:
            self._stdout_end = at


@dataclass(frozen=True)
class CannotStart:
    """In place of a brain: the seat's bot fails to start, with this reason."""

    reason: str = "scripted not to start"


class ScriptedLauncher(InProcessLauncher[ScriptedBot]):
    """The door (`launch.Launcher`) for in-process bots: each external seat's `ScriptedBot`, on one clock.

    `brains` gives each seat that has a ``command`` in the config its brain (`CannotStart`:
    the start fails); the command itself is only recorded. Nothing is sandboxed or
    fingerprinted: the log records the sandbox as off and no fingerprint. The launcher is
    its own factory (`run_match(config, launcher=ScriptedLauncher({...}))`), for one match:
    its bots stay readable after it (`bots`, each with what it was sent).
    """

    def __init__(self, brains: Mapping[int, Brain | CannotStart], clock: VirtualClock | None = None) -> None:
        self.brains = dict(brains)
        self.clock = clock if clock is not None else VirtualClock()
        """The time the bots' deadlines are on, which the referee reads in place of ``time.monotonic``."""
        self.bots: dict[int, ScriptedBot] = {}
        """The bots started, by seat."""
        self._check: Callable[[], None] | None = None

    def __call__(self, check: Callable[[], None] | None) -> ScriptedLauncher:
        """This launcher, asking the referee's stop `check` at every wait (`launch.LauncherFactory`)."""
        self._check = check
        return self

    def fingerprint(self, seat: int, player: PlayerSpec, outputs: Sequence[Path]) -> dict[str, Any] | None:
        """None: there are no files to hash."""
        return None

    def start(self, seat: int, player: PlayerSpec) -> ScriptedBot:
        """The seat's bot, started (it does its brain's `start` steps); `StartFailed` for `CannotStart`."""
        brain = self.brains.get(seat)
        if brain is None:
            raise StartFailed(f"cannot start bot seat {seat}: no scripted bot for it")
        if isinstance(brain, CannotStart):
            raise StartFailed(f"cannot start bot seat {seat}: {brain.reason}")
        bot = ScriptedBot(brain, seat=seat, clock=self.clock, env=dict(player.env), check=self._check)
        bot.start()
        self.bots[seat] = bot
        return bot
