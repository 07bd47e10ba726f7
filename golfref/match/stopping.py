"""The stop signals, and turning the first of them into a `Stop` raised wherever the code is.

A match (`referee.run_match`) and a tournament (`runner.run_tournament`) stop alike on
SIGINT, SIGTERM or SIGHUP: the first signal raises `Stop` (like KeyboardInterrupt), and any
later one is held off while the stop is cleaned up, so the cleanup cannot be cut short.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["STOP_SIGNALS", "Stop", "StopState", "stop_on_signals"]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a match or a tournament cleanly: bots closed, logs saved as interrupted."""


class Stop(BaseException):
    """Raised by the signal handler, once, wherever the code is (like KeyboardInterrupt)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@dataclass
class StopState:
    """The stop signals of one run: the first one raises `Stop`; `cleaning` once it was caught."""

    signum: int | None = None
    """The first stop signal, once one came."""
    cleaning: bool = False

    def check(self) -> None:
        """Raise the stop again if its first raise was lost (a handler run inside a fork hook or a
        finalizer cannot raise: Python reports the exception as unraisable and goes on)."""
        if self.signum is not None and not self.cleaning:
            raise Stop(self.signum)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[StopState]:
    """Turn the first stop signal into `Stop` and hold off any later one while the run is cleaned up.

    The handler itself decides, so no window is left between a first signal and the
    cleanup in which a second one could cut the cleanup short. Yields the run's
    `StopState`: the caller sets `cleaning` once it is cleaning up, and calls `check` where
    it waits (a stop whose exception was lost is raised there). A signal that was ignored
    when the run started (``nohup``) is left ignored.
    """
    state = StopState()

    def handler(signum: int, frame: object) -> None:
        if state.signum is not None:
            return  # already stopping: the cleanup must run to its end
        state.signum = signum
        raise Stop(signum)

    try:
        # A signal ignored when golfref started (nohup, a background job) stays ignored.
        taken = [sig for sig in STOP_SIGNALS if signal.getsignal(sig) is not signal.SIG_IGN]
        previous = {sig: signal.signal(sig, handler) for sig in taken}
    except ValueError:  # not the main thread: signals are not ours to handle
        yield state
        return
    try:
        yield state
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
