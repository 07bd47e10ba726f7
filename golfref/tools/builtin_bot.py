"""A built-in policy as a bot program: `python -m golfref.tools.builtin_bot NAME [OPTION=VALUE]...`.

It speaks the protocol (docs/PROTOCOL.md) on stdin and stdout like any bot: `ready` on
`hello`, the policy's choice on each `request`, from the request's view alone (rebuilt as
the `SeatView` an in-process built-in sees, so the program and `builtin: NAME` play alike),
and it stops at `goodbye`. Options are those of `builtin: NAME` in a config
(docs/OPPONENTS.md), such as `python -m golfref.tools.builtin_bot expert iterations=400`.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .. import __version__
from ..game.engine import Action
from ..game.policies import POLICIES, Policy, make_policy, policy_settings
from ..game.rules import RulesError
from ..game.view import seat_view_from_json
from ..match.protocol import rules_from_hello

__all__ = ["parse_arguments", "serve", "main"]

USAGE = f"usage: python -m golfref.tools.builtin_bot NAME [OPTION=VALUE]... (NAME: {', '.join(POLICIES)})"


def parse_arguments(argv: Sequence[str]) -> tuple[str, dict[str, int]]:
    """The built-in's name and options from the command line; ValueError with a one-line reason."""
    if not argv:
        raise ValueError("name a built-in")
    name, *pairs = argv
    if name not in POLICIES:
        raise ValueError(f"unknown built-in {name!r} (built-ins: {', '.join(POLICIES)})")
    options: dict[str, int] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"option {pair!r}: write OPTION=VALUE")
        try:
            options[key] = int(text)
        except ValueError:
            raise ValueError(f"option {pair!r}: the value must be an integer") from None
    policy_settings(name, options)  # a bad option fails here, before any message is read
    return name, options


def serve(name: str, options: dict[str, int], stdin: TextIO, stdout: TextIO) -> None:
    """Play matches on `stdin`/`stdout` as the built-in `name` until `goodbye` or the end of input."""
    policy: Policy | None = None
    for line in stdin:
        message: Any = json.loads(line)
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "hello":
            rules = rules_from_hello(message["rules"])
            policy = make_policy(name, rules, random.Random(0), options)
            _send(stdout, {"type": "ready", "name": f"golfref-{name}", "version": __version__})
        elif kind == "request" and policy is not None:
            legal = [Action.parse(text) for text in message["legal"]]
            action = policy.choose(seat_view_from_json(message["view"]), legal)
            _send(stdout, {"type": "answer", "id": message["id"], "action": action.text})
        elif kind == "goodbye":
            return


def _send(out: TextIO, message: dict[str, Any]) -> None:
    out.write(json.dumps(message) + "\n")
    out.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bot program; 2 for a bad command line, 1 for input that is not the protocol."""
    try:
        name, options = parse_arguments(sys.argv[1:] if argv is None else argv)
    except ValueError as e:
        print(f"builtin_bot: {e}\n{USAGE}", file=sys.stderr)
        return 2
    try:
        serve(name, options, sys.stdin, sys.stdout)
    except (ValueError, KeyError, TypeError, RulesError) as e:
        # A referee never sends these; a person typing at the bot may.
        print(f"builtin_bot: not a golfref message: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
