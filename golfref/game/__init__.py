"""The game of Golf itself: cards, rule options and presets, scoring, the engine, a seat's view and
the built-in policies.

May import: nothing of golfref outside this package (the standard library only).
"""
