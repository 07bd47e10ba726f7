"""Statistics of results: per-match records, ratings and intervals, the SPRT, tables.

May import: golfref.game, golfref.config, golfref.record.
"""
