"""Run every benchmark section: `python -m bench [--quick] [SECTION...]`."""

from __future__ import annotations

import sys

from . import cluster, engine, referee, replay, sandbox, startup, tournament

SECTIONS = {
    "startup": startup.run, "engine": engine.run, "referee": referee.run, "replay": replay.run,
    "tournament": tournament.run, "sandbox": sandbox.run, "cluster": cluster.run,
}


def main(argv: list[str]) -> None:
    """Run the named sections (all by default)."""
    quick = "--quick" in argv
    names = [a for a in argv if not a.startswith("-")] or list(SECTIONS)
    for name in names:
        if name not in SECTIONS:
            sys.exit(f"bench: unknown section {name!r} (sections: {', '.join(SECTIONS)})")
        SECTIONS[name](quick=quick)


if __name__ == "__main__":
    main(sys.argv[1:])
