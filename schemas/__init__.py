"""The JSON Schemas of golfref's files and messages, installed as the package golfref.schemas.

`golfref.config.load_schema` reads them through importlib.resources, so they are found
wherever the package is installed (a wheel, an editable install) and nowhere else.
"""
