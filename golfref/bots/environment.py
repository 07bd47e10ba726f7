"""The environment a bot runs with: a few variables of the referee's, the protocol's and its seat.

A bot sees exactly these variables (`bot_environment`) and nothing else of the
referee's environment:

``PATH``                the referee's ``PATH`` (``os.defpath`` if it has none)
``HOME``                the referee's ``HOME`` (its user's home if it has none)
``LANG``, ``LC_ALL``    ``C.UTF-8``
``PYTHONUNBUFFERED``    ``1``, so Python bots need not flush by hand
``PYTHONIOENCODING``    ``utf-8``
``GOLFREF_PROTOCOL``    the protocol version (`golfref.PROTOCOL_VERSION`)
``GOLFREF_SEAT``        the bot's seat, counted from 0

plus the extras of the bot's configuration, which may replace any of these except the
``GOLFREF_`` ones (repeating them with the referee's own values is allowed, so building
an environment from a built one changes nothing).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from .. import PROTOCOL_VERSION

__all__ = ["bot_environment"]


def bot_environment(extra: Mapping[str, str] | None, seat: int) -> dict[str, str]:
    """Build the minimal environment a bot runs with (listed in the module docstring)."""
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
        raise ValueError(f"seat must be an integer >= 0, not {seat!r}")
    env = {
        "PATH": os.environ.get("PATH") or os.defpath,
        "HOME": os.environ.get("HOME") or os.path.expanduser("~"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    for key, value in (extra or {}).items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"environment entries must be strings: {key!r}={value!r}")
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise ValueError(f"invalid environment entry {key!r}={value!r}")
        env[key] = value
    for key, value in (("GOLFREF_PROTOCOL", str(PROTOCOL_VERSION)), ("GOLFREF_SEAT", str(seat))):
        if env.setdefault(key, value) != value:
            raise ValueError(f"{key} is set by the referee ({value!r}) and cannot be configured: {env[key]!r}")
    return env
