#!/usr/bin/env python3
"""A Golf bot that plays by the book but mishandles its stdout: `stdout_bot.py MODE` (README.md).

- `no-flush`: writes through a 64 KiB stdout buffer it never flushes, whatever
  PYTHONUNBUFFERED says: nothing reaches the pipe before it exits.
- `debug`: prints `debug: ...` lines on stdout, one before ready, one before and one after
  each answer.

Otherwise it acts like echo_bot.py: ready on hello, legal[0] on each request, exit on goodbye or EOF.
"""

import json
import sys


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("no-flush", "debug"):
        sys.exit(f"stdout_bot: unknown mode {mode!r}; modes: debug no-flush")
    flush = mode != "no-flush"
    out = open(1, "w", buffering=1 << 16, closefd=False)  # noqa: SIM115 - stdout for the process's life

    def write(text: str) -> None:
        out.write(text)
        if flush:
            out.flush()

    if mode == "debug":
        write("debug: starting\n")
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "goodbye":
            break
        if kind == "hello":
            write(json.dumps({"type": "ready", "name": f"stdout-{mode}", "version": "1"}) + "\n")
        elif kind == "request":
            rid, action = message["id"], message["legal"][0]
            answer = json.dumps({"type": "answer", "id": rid, "action": action}) + "\n"
            if mode == "debug":
                # One write: the debug line and the answer reach the pipe together.
                write(f"debug: request {rid}: thinking\n{answer}")
                write(f"debug: request {rid}: answered {action}\n")
            else:
                write(answer)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
