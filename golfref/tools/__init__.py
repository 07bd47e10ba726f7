"""Tools for bot authors and auditors: check-bot, re-running a seat, audit.

May import: golfref.game, golfref.config, golfref.bots, golfref.record, golfref.match.
"""
