"""The starter kits, one folder per language, installed as the package data golfref.kits.

golfref.tools.kits describes each kit (its tools, build and run commands); `golfref init`
writes a bot project from one. This file only makes the folder importable as a package,
so that importlib.resources finds it in a wheel and in an editable install alike.
"""
