"""The command line (typer): each command parses, calls the library, shows and exits through one
exit policy.

`app` holds the typer app, its commands in --help's order and `main()`; the commands live by
group (`rules_commands`, `match_commands`, `log_commands`, `bot_commands`,
`tournament_commands`); `exits` owns every exit status; `options`, `inputs` and `output` are
what several commands share; `cmdline` keeps the seed off the process's command line.

May import: every package; nothing imports it but golfref.__main__.
"""
