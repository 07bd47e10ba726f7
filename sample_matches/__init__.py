"""The sample matches, bots and logs the docs use, installed as the package data golfref.samples.

`golfref examples DIR` writes them out (golfref.tools.examples); this file only makes the
folder importable as a package, so that importlib.resources finds it in a wheel and in an
editable install alike, and is not written out.
"""
