"""Run a Python policy as a bot program: ``python -m golfref.kit.run module:object [--name NAME] [--version V]``.

The policy (`golfref.kit.policy`: an object with ``choose(view, legal)``, a class of such
objects, or a function) is imported from the current directory and played with
`golfbot.play`, so it sees over the protocol exactly what it sees in the referee's process.
A reference that does not name a policy is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys

from .golfbot import play
from .policy import PolicyError, choose_function, import_policy, policy_name


def main(argv: list[str] | None = None) -> int:
    """Play one match on stdin/stdout with the policy the first argument names."""
    parser = argparse.ArgumentParser(prog="python -m golfref.kit.run", description=__doc__.split("\n")[0])
    parser.add_argument("policy", help="module:object, imported from the current directory")
    parser.add_argument("--name", help="the name said in ready (default: the policy's name attribute, or object)")
    parser.add_argument("--version", default="1", help="the version said in ready (default: 1)")
    args = parser.parse_args(argv)
    try:
        obj = import_policy(args.policy, os.getcwd())
        choose = choose_function(obj)
    except PolicyError as e:
        print(f"golfref.kit.run: {e}", file=sys.stderr)
        return 2
    play(choose, name=args.name or policy_name(obj, args.policy), version=args.version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
