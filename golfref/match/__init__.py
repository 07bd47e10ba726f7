"""One match: the referee loop, the protocol's messages, what each seat is sent, what a seat at the
terminal must offer (`seat`: the command line passes the human seat in), clocks and outputs.

May import: golfref.game, golfref.config, golfref.bots, golfref.record.
"""
