"""Everything that shows: the text printer, the human seat's screen, the HTML replay and report,
JUnit, progress, and the words of the commands' reports (a tournament's results, check-bot's,
replay --check's and audit's lines).

May import: every package but golfref.cli.
"""
