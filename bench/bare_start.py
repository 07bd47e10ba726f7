"""The least a referee must do to start and stop its bots: the baseline of bench/botstart.py.

Run as a fresh program (`python bench/bare_start.py SPEC`, SPEC a JSON file: each seat's
command, folder and the two lines golfref sent it first, its hello and its first request), so
the interpreter's own start counts here as it does in `golfref run`. It starts every bot with
subprocess, sends each its hello and reads its ready, sends each its first request and reads
the answer, then sends goodbye, waits for every bot, and prints what each bot wrote to stderr
(its stamps) on one line of stdout per seat.
"""

import json
import subprocess
import sys


def main(spec_path: str) -> None:
    """Start the seats' bots, one exchange each, stop them, print their stderr."""
    with open(spec_path, encoding="utf-8") as f:
        seats = json.load(f)
    bots = [
        subprocess.Popen(
            s["command"], cwd=s["cwd"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for s in seats
    ]
    for bot, seat in zip(bots, seats, strict=True):
        bot.stdin.write((seat["hello"] + "\n").encode())
        bot.stdin.flush()
    for bot in bots:
        json.loads(bot.stdout.readline())
    for bot, seat in zip(bots, seats, strict=True):
        bot.stdin.write((seat["request"] + "\n").encode())
        bot.stdin.flush()
    for bot in bots:
        json.loads(bot.stdout.readline())
    for bot in bots:
        bot.stdin.write(b'{"type":"goodbye"}\n')
        bot.stdin.close()
    for bot in bots:
        bot.wait()
        print(bot.stderr.read().decode().strip())


if __name__ == "__main__":
    main(sys.argv[1])
