"""Tournaments: the runner, the schedule of duplicate deals and the rule its matches are handed out by,
executors (local and Dask), the results store, the results with their verdicts.

May import: golfref.game, golfref.config, golfref.bots, golfref.record, golfref.match, golfref.stats.
"""
