"""Bots as processes: framing of JSON lines, multiplexing, the process tree's lifetime, the sandbox
and the fingerprint of a bot's files.

May import: golfref.game, golfref.config.
"""
