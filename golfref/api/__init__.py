"""golfref from Python: load or build a match config, run a match, read its typed result (docs/PYTHON_API.md).

Each seat is a bot command, a built-in player or a Python policy: a ``module:object``
reference or the policy object itself (anything with ``choose(view, legal)``, a class of
such objects, or a function). `run` plays the match through the same referee, the same
one gate for views and the same log as ``golfref run``.

May import: every layer below the command line (show, tournament, tools, stats, match, record, bots, config,
game, kit); not cli, and not typer.
"""

from ..config.match import ConfigError, MatchConfig, PlayerSpec
from ..match.referee import MatchInterrupted
from ..record.faults import Fault, FaultKind, SeatStatus
from ..record.matchlog import MatchLog
from .matches import MatchOutcome, PlayerLike, load_config, match_config, run

__all__ = [
    "ConfigError",
    "Fault",
    "FaultKind",
    "MatchConfig",
    "MatchInterrupted",
    "MatchLog",
    "MatchOutcome",
    "PlayerLike",
    "PlayerSpec",
    "SeatStatus",
    "load_config",
    "match_config",
    "run",
]
