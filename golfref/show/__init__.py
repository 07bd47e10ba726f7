"""Everything that shows: the text printer, the human seat's screen, the HTML replay and report,
JUnit, progress.

May import: every package but golfref.cli.
"""
