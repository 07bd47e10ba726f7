"""The command line (typer): each command parses, calls the library, shows and exits through one
exit policy.

May import: every package; nothing imports it but golfref.__main__.
"""
