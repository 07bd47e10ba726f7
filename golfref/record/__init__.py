"""The match log: fault vocabulary, writing, reading, validation and signing.

May import: golfref.game, golfref.config; never the process layer or the sandbox.
"""
