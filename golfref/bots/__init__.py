"""Bots as processes: framing of JSON lines, multiplexing, the process tree's lifetime, the sandbox
and the fingerprint of a bot's files; `launch`, the one door through which the match loop gets a
started bot for a seat; `scripted`, bots in the referee's own process (a script or a Python policy,
on a virtual clock) behind the same door.

May import: golfref.game, golfref.config.
"""
