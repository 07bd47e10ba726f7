"""The running golfref saved as a wheel, so that a bot project's CI installs the very golfref that made it.

`golfref init` writes one into the project's ci/ folder, and the project's GitHub Actions
workflow installs it (golfref is published nowhere else). The wheel is the pure-Python
package: every file of golfref's packages that a wheel built from the sources holds (code,
schemas, kits, the viewer's pages), and golfref's own metadata (its name, version,
dependencies and the `golfref` command) from the installed distribution, whether golfref
came from a wheel or from an editable install of a checkout. A compiled build's extension
modules are left out: their Python sources run the same, on any platform.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from importlib import metadata, resources
from pathlib import Path

from .. import __version__
from .kits import package_tree

__all__ = ["WheelError", "save_wheel", "wheel_name"]

_PACKAGES = ("golfref", "golfref.schemas", "golfref.kits", "golfref.samples")
"""The import packages whose folders a wheel holds; the last two are folders of the checkout mapped in."""
_COMPILED = (".so", ".pyd")
_WHEEL = "Wheel-Version: 1.0\nGenerator: golfref (tools.wheel)\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


class WheelError(Exception):
    """The running golfref cannot be saved as a wheel (its metadata or a source is missing)."""


def wheel_name() -> str:
    """The wheel's file name: `golfref-VERSION-py3-none-any.whl`."""
    return f"golfref-{__version__}-py3-none-any.whl"


def _shipped(name: str) -> bool:
    """Whether a file of the golfref package folder is in a wheel: as pyproject.toml's package data says,
    its modules, py.typed and the viewer's pages (no stray file of a checkout's folder)."""
    return name.endswith(".py") or name == "golfref/py.typed" or name.startswith("golfref/show/viewer/")


def _package_files() -> dict[str, bytes]:
    """Every file of golfref's packages by its path in a wheel. In an editable install golfref/ has no
    schemas/ or kits/ (they are the checkout's top-level folders): each package is read where it imports from."""
    found: dict[str, bytes] = {}
    for package in _PACKAGES:
        prefix = package.replace(".", "/") + "/"
        for name, entry in package_tree(resources.files(package), prefix):
            if package != "golfref" or _shipped(name) and not name.endswith(_COMPILED):
                found.setdefault(name, entry.read_bytes())
    return found


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def save_wheel(folder: Path) -> Path:
    """Write the running golfref as a pure-Python wheel into `folder` (made if need be); returns its path."""
    try:
        dist = metadata.distribution("golfref")
    except metadata.PackageNotFoundError as e:
        raise WheelError("golfref is not installed as a distribution (no metadata to put in a wheel)") from e
    # PKG-INFO: the same fields, where golfref runs from a checkout that holds its egg-info.
    meta = dist.read_text("METADATA") or dist.read_text("PKG-INFO")
    if meta is None:
        raise WheelError(f"golfref's installed metadata has no METADATA file ({dist.locate_file('')})")
    info = f"golfref-{__version__}.dist-info"
    files = _package_files()
    if "golfref/__init__.py" not in files:
        raise WheelError("golfref's sources are not installed (a compiled build without them): use the pure package")
    files[f"{info}/METADATA"] = meta.encode()
    entry_points = dist.read_text("entry_points.txt")
    if entry_points:
        files[f"{info}/entry_points.txt"] = entry_points.encode()
    for licence in ("licenses/LICENSE", "LICENSE"):
        text = dist.read_text(licence)
        if text:
            files[f"{info}/licenses/LICENSE"] = text.encode()
            break
    files[f"{info}/WHEEL"] = _WHEEL.encode()
    record = [_record_line(name, data) for name, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / wheel_name()
    partial = path.with_name(path.name + ".part")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            entry = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))  # the same bytes at every save
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            wheel.writestr(entry, data)
    partial.replace(path)
    return path
