"""Tools for bot authors and auditors: check-bot, re-running a seat, audit, writing a policy out as a bot,
the starter kits and the bot projects `golfref init` writes from them, the docs' examples, golfref as a wheel.

May import: golfref.kit, golfref.game, golfref.config, golfref.bots, golfref.record, golfref.match.
"""
