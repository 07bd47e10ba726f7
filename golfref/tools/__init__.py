"""Tools for bot authors and auditors: check-bot, re-running a seat, audit, writing a policy out as a bot.

May import: golfref.kit, golfref.game, golfref.config, golfref.bots, golfref.record, golfref.match.
"""
