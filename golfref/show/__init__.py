"""Everything that shows: the terminal screen (screen), the log printer (pretty), the human seat,
the HTML replay and report, JUnit, progress, and the words of the commands' reports (a
tournament's results, check-bot's, replay --check's and audit's lines). The words for the
game's events come from golfref.game.narrate; this package decides how they look.

May import: every package but golfref.cli.
"""
