"""One match: the referee loop, the protocol's messages, what each seat is sent, clocks and outputs.

May import: golfref.game, golfref.config, golfref.bots, golfref.record.
"""
