"""Benchmarks for `make bench`; run as `python -m bench [SECTION...]`."""
