"""golfref: a referee and match runner for bots that play the card game Golf."""

__version__ = "0.1.0"
