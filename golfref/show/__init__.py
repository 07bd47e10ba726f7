"""Everything that shows: the terminal screen (screen), the log printer (pretty), the human seat,
the HTML replay and report, JUnit, progress. The words for the game's events come from
golfref.game.narrate; this package decides how they look.

May import: every package but golfref.cli.
"""
