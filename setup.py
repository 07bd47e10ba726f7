"""The build's one dynamic part: with GOLFREF_COMPILE=1, the hot modules are compiled by mypyc.

Everything else about the package is in pyproject.toml, the modules to compile included
(`[tool.golfref.mypyc]`). Without the variable, or where no C compiler or no Python headers
are found, the wheel is the pure-Python package; docs/PERFORMANCE.md ("The compiled build") says more.
The Makefile's `compiled` target imports this file for `missing_toolchain` and the module list.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def mypyc_settings() -> dict[str, list[str]]:
    """`[tool.golfref.mypyc]` of pyproject.toml: `modules` (paths to compile) and `requires` (mypy)."""
    with open(HERE / "pyproject.toml", "rb") as f:
        settings: dict[str, list[str]] = tomllib.load(f)["tool"]["golfref"]["mypyc"]
    return settings


def missing_toolchain() -> str | None:
    """Why C extensions cannot be built here (no compiler, no Python.h), or None when they can."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc}) on PATH"
    header = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not header.is_file():
        return f"no Python headers ({header} is missing: python3-dev on Debian)"
    return None


def _compiled() -> dict[str, Any]:
    """setup() arguments for the build the environment asks for: compiled, or pure (none)."""
    if os.environ.get("GOLFREF_COMPILE") != "1":
        return {}
    settings = mypyc_settings()
    reason = missing_toolchain()
    if reason is not None:
        print(f"golfref: GOLFREF_COMPILE=1, but {reason}: building the pure-Python package", file=sys.stderr)
        return {}
    try:
        from mypyc.build import mypycify
    except ImportError:
        # setuptools asks for the build requirements first by running this file: mypy is
        # named here, pip installs it into the build environment, and the build proper
        # runs this file again with it. Only a build without isolation can lack it then.
        print("golfref: GOLFREF_COMPILE=1, but mypy (mypyc) is not installed yet", file=sys.stderr)
        return {"setup_requires": settings["requires"]}
    return {"ext_modules": mypycify(settings["modules"], opt_level="3")}


if __name__ == "__main__":
    from setuptools import setup

    setup(**_compiled())
