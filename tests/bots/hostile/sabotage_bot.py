#!/usr/bin/env python3
"""Attack 3: sabotage the opponent and the referee.

`sabotage_bot.py MODE OUT`, at its first request (every bot is ready by then):

| mode | attack |
| --- | --- |
| `junk` | writes `junk from the opponent` and a newline into each opponent's stdout through /proc/<pid>/fd/1 |
| `stop-kill` | stops each opponent (SIGSTOP), reads its state from /proc, then kills it (SIGKILL) |
| `term-referee` | sends SIGTERM to the referee, its parent |

Report: {"opponents": [pid, ...], "junk" / "stop" / "kill": {pid: "done" or an errno name},
"stopped_state": {pid: state letter}, "term": "sent" or an errno name, "referee": pid}; no
opponent and "no referee" when its parent is no golfref process (see `hostile.referee`).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Any

import hostile

JUNK = b"junk from the opponent\n"


def attempt(what: Any) -> str:
    """Run `what()`: 'done' or the errno's name."""
    try:
        what()
        return "done"
    except OSError as e:
        return hostile.error_name(e)


def write_junk(pid: int) -> None:
    fd = os.open(f"/proc/{pid}/fd/1", os.O_WRONLY)
    try:
        os.write(fd, JUNK)
    finally:
        os.close(fd)


def state(pid: int) -> str:
    """The process's state letter (T when stopped), or '?'."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        return stat[stat.rindex(b")") + 2 :].split()[0].decode()
    except OSError:
        return "?"


def main() -> int:
    mode, out = sys.argv[1], sys.argv[2]
    if mode not in ("junk", "stop-kill", "term-referee"):
        sys.exit(f"sabotage_bot.py: unknown mode {mode!r}")

    def attack(request: dict[str, Any]) -> None:
        result: dict[str, Any] = {"mode": mode, "referee": hostile.referee()}
        try:
            targets = hostile.opponents()
        except OSError as e:
            targets, result["opponents_error"] = [], hostile.error_name(e)
        result["opponents"] = targets
        if mode == "junk":
            result["junk"] = {str(p): attempt(lambda p=p: write_junk(p)) for p in targets}
        elif mode == "stop-kill":
            result["stop"] = {str(p): attempt(lambda p=p: os.kill(p, signal.SIGSTOP)) for p in targets}
            deadline = time.monotonic() + 2.0  # a signal is delivered asynchronously
            while any(state(p) not in "T?" for p in targets) and time.monotonic() < deadline:
                time.sleep(0.01)
            result["stopped_state"] = {str(p): state(p) for p in targets}
            result["kill"] = {str(p): attempt(lambda p=p: os.kill(p, signal.SIGKILL)) for p in targets}
        else:
            referee = hostile.referee()
            if referee is None:
                result["term"] = "no referee"
            else:
                done = attempt(lambda: os.kill(referee, signal.SIGTERM))
                result["term"] = "sent" if done == "done" else done
        hostile.report(out, result)

    return hostile.play("sabotage", at_first_request=attack)


if __name__ == "__main__":
    sys.exit(main())
