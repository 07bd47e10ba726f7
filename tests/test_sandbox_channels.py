"""Issue 21, item 1: no channel between two sandboxed bots of one match.

The sender (seat 0, tests/bots/hostile/channel_bot.py) spells its private peek into file
locks on system files every sandbox shows (flock, POSIX and OFD locks) and marks every
other shared object it can reach; the receiver (seat 1) decodes and looks. Without the
sandbox all of it works, as asserted here (both bots run as the referee's user, in its
namespaces); with it, nothing gets through. What is left is timing (docs/SANDBOX.md).
"""

from __future__ import annotations

import importlib
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from golfref.bots import sandbox as sandbox_module
from golfref.bots import seccomp
from golfref.config.match import parse_config
from golfref.match.referee import run_match

from .test_sandbox import _config, _reachable_python, needs_root
from .test_sandbox_attacks import HOSTILE, Match, bot, hostile, play  # noqa: F401 - a fixture

channel_bot = importlib.import_module("channel_bot")  # tests/bots/hostile: test_sandbox_attacks puts it on sys.path

SENDER, RECEIVER = 0, 1
NO_FILTER = seccomp.filter_problem()
needs_filter = pytest.mark.skipif(NO_FILTER is not None, reason=f"no system-call filter: {NO_FILTER}")

pytestmark = pytest.mark.process


@pytest.fixture
def tag() -> Iterator[str]:
    """A name for this match's objects; whatever a sender left outside a sandbox is removed."""
    name = uuid.uuid4().hex[:8]
    yield name
    channel_bot.cleanup(name)


def reports(match: Match) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the sender said it did, and what the receiver saw."""
    sent, seen = match.report(SENDER), match.report(RECEIVER)
    assert sent is not None and seen is not None, match.log["players"]
    return sent, seen


def test_two_bots_have_no_channel_through_shared_objects(
    tmp_path: Path, sandbox: bool, tag: str
) -> None:
    # The referee gets a session keyring of its own, as under a login (pam_keyinit) or a systemd
    # service: every bot inherits it.
    sender = bot("channel_bot.py", "send", tmp_path / "sent.json", tag)
    receiver = bot("channel_bot.py", "recv", tmp_path / "seen.json", tag)
    match = play(tmp_path, sandbox, sender, receiver, before=channel_bot.new_session_keyring)
    sent, seen = reports(match)
    assert match.log["status"] == "finished" and match.log["faults"] == [], match.log["faults"]
    assert len(sent["peek"]) == 4
    if sandbox and NO_FILTER is not None:
        pytest.skip(f"no system-call filter: {NO_FILTER}")
    if sandbox:
        for method in channel_bot.METHODS:  # file locks: the filter denies them, to both sides
            assert sent[method] == "ENOLCK" and seen[method] == "ENOLCK", (method, sent, seen)
        assert seen["inotify"] == "ENOSYS"
        assert sent["key"] == "ENOSYS" and seen["key"] == "ENOSYS"  # the filter: no key store
        assert seen["atime_changed"] is False  # the system folders are bound read-only: no access time
        assert seen["abstract"] != "connected"  # a network namespace of its own
        assert not any(seen[what] for what in channel_bot.names(tag))  # /tmp, /dev/shm: its own; the rest read-only
        assert seen["mq"] is False and not any(seen[f"sysv {k}"] for k in ("msg", "sem", "shm"))  # IPC namespace
        assert seen["sender_pids"] == []  # PID namespace
    else:
        for method in channel_bot.METHODS:
            assert sent[method] == "sent" and seen[method] == sent["peek"], (method, sent, seen)
        assert seen["inotify"] > 0
        assert sent["key"] == "made" and seen["key"] is True
        assert seen["abstract"] == "connected"
        assert seen["file /tmp"] and seen["fifo /tmp"]
        assert seen["mq"] and seen["sysv msg"] and seen["sysv sem"] and seen["sysv shm"]
        assert seen["sender_pids"] != []


@needs_root
@needs_filter
def test_without_bubblewrap_file_locks_are_denied_too(
    shared: Path, monkeypatch: pytest.MonkeyPatch, tag: str  # noqa: F811 - the fixture
) -> None:
    """A root referee without bubblewrap runs each bot as a user of its own: the same filter is
    loaded in the bot's process before it starts, so the locks of the system files say nothing."""
    monkeypatch.setattr(sandbox_module, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    for name in ("channel_bot.py", "hostile.py"):
        shutil.copy(HOSTILE / name, shared)  # where its user may read it: the checkout may be private
    python = _reachable_python()
    players = [
        {"name": "send", "command": [python, str(shared / "channel_bot.py"), "send", str(shared / "s.json"), tag]},
        {"name": "recv", "command": [python, str(shared / "channel_bot.py"), "recv", str(shared / "r.json"), tag]},
    ]
    config = parse_config(_config(shared, players, {"enabled": True}), base_dir=shared)
    result = run_match(config)
    log = result.log
    texts = [p["stderr"] for p in log["players"]]
    sent, seen = ([channel_bot.json.loads(line[len(hostile.REPORT_PREFIX):]) for line in t.splitlines()
                   if line.startswith(hostile.REPORT_PREFIX)][-1] for t in texts)  # fmt: skip
    assert log["players"][0]["sandbox"]["bubblewrap"] is False and log["players"][0]["sandbox"]["user"]
    for method in channel_bot.METHODS:
        assert sent[method] == "ENOLCK" and seen[method] == "ENOLCK", (method, sent, seen)
    assert seen["inotify"] == "ENOSYS"
