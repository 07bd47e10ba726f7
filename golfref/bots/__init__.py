"""Bots as processes: `framing` of their lines, `multiplex` (many bots' pipes waited on at once),
`lifetime` (the process tree started, killed and reaped), `environment`, `bot_process` (one bot
program, `BotProcess`, built of those), the sandbox, `pythons` (which Python a sandboxed bot's
`python3` is, asked of it) and the fingerprint of a bot's files;
`launch`, the one door through which the match loop gets a started bot for a seat; `scripted`,
bots in the referee's own process (a script or a Python policy, on a virtual clock) behind the
same door; `policy_seat`, a config's python players in the referee's process on the real clock,
and `SeatLauncher`, the referee's default door that mixes them with processes.

May import: golfref.game, golfref.config, golfref.kit.
"""
