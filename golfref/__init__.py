"""golfref: a referee and match runner for bots that play the card game Golf."""

__version__ = "0.1.0"

PROTOCOL_VERSION = 3
"""The bot protocol's version: hello's `protocol` and a bot's ``GOLFREF_PROTOCOL``.

Here, beside the package version, because this module imports nothing: the process layer
announces the version without importing the messages (protocol.py) or the game below them.
Version 2 gave every field of hello's `rules` one JSON type (version 1 mixed "off" and
"double" with numbers). Version 3 added the house options to `rules` (`card_values`, the
whole card table, `suit_values`, `joker_count`, ... `tie_penalty`: docs/PROTOCOL.md).
"""
