"""Bots as processes: framing of JSON lines, multiplexing, the process tree's lifetime, the sandbox
and the fingerprint of a bot's files; `launch`, the one door through which the match loop gets a
started bot for a seat.

May import: golfref.game, golfref.config.
"""
