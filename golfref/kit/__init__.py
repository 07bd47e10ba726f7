"""The Python bot kit, importable from golfref: `golfbot`, the protocol for Python bots.

golfbot.py is standard library only and imports nothing of golfref, so that it runs wherever a
bot runs, sandboxed, with nothing but its own folder: `make samples` copies it to
kits/python/golfbot.py (the starter kit a bot author copies) and sample_matches/bots/golfbot.py
(the sample greedy bot's), and tests/test_kits.py holds all three identical. golfref imports it
for what an in-process policy sees: the very `View` a bot program builds from its request.

May import: the standard library only (the lowest layer; tests/test_kits.py checks its imports).
"""
