"""The stop signals shared by a match and a tournament (golfref.match.stopping)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import pytest

from golfref.match.stopping import STOP_SIGNALS, Stop, StopState, stop_on_signals


@pytest.fixture(autouse=True)
def _stop_signals_at_their_defaults() -> Iterator[None]:
    """Each test starts with the stop signals at Python's defaults, whatever this process
    inherited (a suite started in the background ignores SIGINT, which stop_on_signals keeps)."""
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL)
    try:
        yield
    finally:
        for sig, old in before.items():
            signal.signal(sig, old)


def _send(signum: int) -> None:
    os.kill(os.getpid(), signum)
    # The handler runs at the next bytecode boundary of the main thread; a call gives it one.
    signal.getsignal(signum)


@pytest.mark.parametrize("signum", STOP_SIGNALS)
def test_the_first_stop_signal_raises_stop_and_a_later_one_is_held_off(signum: int) -> None:
    with stop_on_signals() as stopped:
        with pytest.raises(Stop) as caught:
            _send(signum)
        assert caught.value.signum == signum and stopped.signum == signum
        stopped.cleaning = True
        _send(signal.SIGINT)  # during the cleanup: noted nowhere, raised nowhere
        assert stopped.signum == signum
        stopped.check()  # cleaning: nothing to raise again


def test_a_lost_stop_is_raised_again_by_check() -> None:
    state = StopState(signum=signal.SIGTERM)
    with pytest.raises(Stop) as caught:
        state.check()
    assert caught.value.signum == signal.SIGTERM
    StopState().check()  # no signal came: nothing raised


def test_the_handlers_are_put_back_and_an_ignored_signal_stays_ignored() -> None:
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    old_hup = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with stop_on_signals():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not before[signal.SIGTERM]
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, old_hup)
    assert {sig: signal.getsignal(sig) for sig in STOP_SIGNALS} == before


def test_off_the_main_thread_no_handler_is_taken() -> None:
    seen: list[object] = []

    def run() -> None:
        with stop_on_signals() as stopped:
            seen.append(signal.getsignal(signal.SIGTERM))
            seen.append(stopped)

    before = signal.getsignal(signal.SIGTERM)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen[0] is before and isinstance(seen[1], StopState)
