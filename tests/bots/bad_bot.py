#!/usr/bin/env python3
"""A Golf bot that misbehaves in one chosen way: `bad_bot.py MODE [N]` (modes in README.md).

Apart from its misbehaviour it acts like echo_bot.py: ready on hello, legal[0] on each
request, exit on goodbye or EOF.
"""

import json
import os
import signal
import sys
import time

MODES = {
    "sleep-forever", "exit-mid-match", "crash-at-startup", "never-ready", "garbage", "non-utf8",
    "truncated-json", "huge-line", "huge-line-then-answer", "stderr-flood", "wrong-id",
    "answer-twice", "unasked", "illegal", "fork-child", "ignore-sigterm", "setsid-child",
    "setsid-orphan", "slow-ready", "trickle", "crlf", "partial-exit", "print-env", "chatter",
    "long-garbage", "invalid-answer", "late-answer", "answer-twice-at-once",
    "close-stdout-exit", "close-stdout-stay", "banner", "stale-flood", "early-answer", "huge-id", "close-stdin-exit",
}
HUGE = 10 * 1024 * 1024
LONG = 100_000  # under the referee's line limit, far over what a fault keeps


def write(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def encode(message: dict) -> bytes:
    return (json.dumps(message) + "\n").encode()


def answer(request_id: int, action: str) -> bytes:
    return encode({"type": "answer", "id": request_id, "action": action})


def sleep_forever() -> None:
    while True:
        time.sleep(3600)


def spawn_sleeper(escape: bool, orphan: bool) -> None:
    """Leave a descendant that sleeps forever holding stdout and stderr; return once it exists."""
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            if escape:
                os.setsid()
            if orphan and os.fork() != 0:
                os._exit(0)  # the grandchild is orphaned: its parent is gone
            os.write(ready_w, b"x")
            os.close(ready_w)
            sleep_forever()
        finally:
            os._exit(0)
    os.close(ready_w)
    os.read(ready_r, 1)
    os.close(ready_r)
    if orphan:
        os.waitpid(pid, 0)


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in MODES:
        sys.exit(f"bad_bot: unknown mode {mode!r}; modes: {' '.join(sorted(MODES))}")
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    if mode == "crash-at-startup":
        raise RuntimeError("bad_bot: crashing at startup on purpose")
    if mode == "close-stdin-exit":
        # Whether the hello is written before stdin closes, or fails on it, is up to timing.
        os.close(0)
        time.sleep(0.5)
        os._exit(3)
    if mode == "stderr-flood":
        err = sys.stderr.buffer
        err.write(b"FLOOD-START\n")
        block = b"e" * (1024 * 1024)
        for _ in range(50):
            err.write(block)
        err.write(b"\nFLOOD-END\n")
        err.flush()
    if mode in ("fork-child", "setsid-child", "setsid-orphan"):
        spawn_sleeper(escape=mode != "fork-child", orphan=mode == "setsid-orphan")
    if mode == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if mode == "banner":
        write(b"loading the model...\n")  # a debug print on stdout before ready

    answered = 0
    held = None  # late-answer: the request id whose answer is held back
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "goodbye":
            return 0
        if kind == "hello":
            if mode == "never-ready":
                continue
            if mode == "slow-ready":
                time.sleep(2)
            ready = encode({"type": "ready", "name": f"bad-{mode}", "version": "1"})
            if mode == "unasked":
                write(ready + answer(0, "stock"))  # one write: both lines reach the pipe together
            elif mode == "early-answer":
                write(ready + answer(1, "stock"))  # an answer to request 1 before it was sent
            elif mode == "chatter":
                # under PIPE_BUF (4096 bytes), so the pipe takes all 101 lines in one piece
                write(ready + b"".join(encode({"type": "chatter", "n": n}) for n in range(100)))
            else:
                write(ready)
            if mode == "ignore-sigterm":
                sleep_forever()
            continue
        if kind != "request":
            continue
        rid, legal = message["id"], message["legal"]
        if mode == "sleep-forever":
            asleep = os.environ.get("BAD_BOT_ASLEEP")
            if asleep:  # a file that tells a test a request is open: a hole is in play
                open(asleep, "w").close()
            sleep_forever()
        if mode == "exit-mid-match" and answered >= count:
            return 3
        if mode in ("close-stdout-exit", "close-stdout-stay"):
            # stdout closes well before the process ends (or it never does): the referee must
            # wait for the exit status, not read it too early.
            os.close(1)
            if mode == "close-stdout-stay":
                sleep_forever()
            time.sleep(0.5)
            os._exit(3)
        if mode == "stale-flood":
            if rid == 1:
                continue  # let request 1 time out
            write(answer(1, legal[0]) * 1000 + answer(rid, legal[0]))
            answered += 1
            continue
        if mode == "garbage":
            write(b"hello world\n")
        elif mode == "non-utf8":
            write(b"\xff\xfe\n")
        elif mode == "truncated-json":
            write(b'{"type":"answer","id":\n')
        elif mode == "huge-line":
            write(b"x" * HUGE)
            sleep_forever()
        elif mode == "huge-line-then-answer":
            write(b"x" * HUGE + b"\n" + answer(rid, legal[0]))
        elif mode == "wrong-id":
            write(answer(rid + 1000, legal[0]))
        elif mode == "huge-id":
            write(answer(10**3999, legal[0]))
        elif mode == "answer-twice":
            write(answer(rid, legal[0]))
            write(answer(rid, legal[0]))
        elif mode == "illegal":
            write(answer(rid, "swap:99"))
        elif mode == "trickle":
            while True:
                write(b"x")
                time.sleep(0.02)
        elif mode == "crlf":
            write(answer(rid, legal[0])[:-1] + b"\r\n")
        elif mode == "partial-exit":
            write(answer(rid, legal[0])[:-1])
            return 0
        elif mode == "answer-twice-at-once":
            write(answer(rid, legal[0]) * 2)  # one write: both copies reach the pipe together
        elif mode == "long-garbage":
            write(b"y" * LONG + b"\n")
        elif mode == "invalid-answer":
            write(encode({"type": "answer", "id": rid}))  # no action
        elif mode == "late-answer":
            if answered == 0 and held is None:
                held = rid  # the first request gets no answer until the next one arrives
                continue
            if held is not None:
                write(answer(held, legal[0]) + answer(rid, legal[0]))
                held = None
            else:
                write(answer(rid, legal[0]))
        elif mode == "print-env":
            write(encode({"type": "answer", "id": rid, "action": legal[0], "env": dict(os.environ)}))
        else:
            write(answer(rid, legal[0]))
        answered += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
