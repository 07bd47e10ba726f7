"""The game of Golf itself: cards, rule options and presets, scoring, the engine, a seat's view, the
built-in policies and the one narrator of public events (their words, for every screen).

May import: nothing of golfref outside this package (the standard library only; no rich: the narrator's
words carry no styling).
"""
