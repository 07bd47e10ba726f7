"""Run every benchmark section: `python -m bench [--quick] [--compiled] [SECTION...]`.

`--compiled` runs against the compiled build in build/compiled (`make compiled`) instead of
the pure package; `make bench` runs the engine and referee sections so once more.
"""

from __future__ import annotations

import sys

from . import compiled


def main(argv: list[str]) -> None:
    """Run the named sections (all by default)."""
    quick = "--quick" in argv
    if "--compiled" in argv:
        reason = compiled.unavailable()
        if reason is not None:
            sys.exit(f"bench: --compiled: {reason}")
        compiled.use()  # before the sections import golfref
        print(f"bench: the compiled build: {', '.join(compiled.modules())} compiled by mypyc, from {compiled.COMPILED}")
    from . import (
        botstart,
        cluster,
        engine,
        env,
        pagecache,
        referee,
        replay,
        sandbox,
        startup,
        tournament,
        viewer,
        wholerun,
    )

    SECTIONS = {
        "startup": startup.run, "engine": engine.run, "env": env.run, "referee": referee.run, "replay": replay.run,
        "viewer": viewer.run, "wholerun": wholerun.run, "botstart": botstart.run, "tournament": tournament.run,
        "sandbox": sandbox.run, "pagecache": pagecache.run, "cluster": cluster.run,
    }  # fmt: skip
    names = [a for a in argv if not a.startswith("-")] or list(SECTIONS)
    for name in names:
        if name not in SECTIONS:
            sys.exit(f"bench: unknown section {name!r} (sections: {', '.join(SECTIONS)})")
        SECTIONS[name](quick=quick)


if __name__ == "__main__":
    main(sys.argv[1:])
