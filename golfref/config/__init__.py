"""Match and tournament configs: the settings as values, read from YAML and checked, with errors that
name the key and line.

May import: golfref.game.
"""
