"""A bots folder as one archive and back: what `golfref tournament --cluster-upload` sends to workers.

`pack` makes a gzipped tar of a folder (run bits kept, caches and version-control folders
left out, links that lead out of the folder refused); `unpack` writes such an archive into
an empty folder and refuses, naming the member, anything that would reach outside it: an
absolute path, a `..`, a link (symbolic or hard) leading out, a device or a fifo. Set-id,
sticky and group or other write bits are dropped; files belong to the unpacking user.

The checks and the extraction are this module's own, on every Python golfref runs on: the
standard library's extraction filters (PEP 706, `tarfile.data_filter`) exist only from
Python 3.11.4, and Debian 12's own python3 (3.11.2-6+deb12u6) has none. Where the
interpreter has the "data" filter, each member must pass it too, as a second opinion (its
refusal is a BundleError like ours). This module imports nothing of Dask, so it is tested
without it.
"""

from __future__ import annotations

import io
import os
import posixpath
import shutil
import stat
import tarfile
import zlib
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from ..bots.fingerprint import DIRECTORY_CAP_BYTES, SKIPPED_FOLDERS

__all__ = ["BundleError", "KEPT_MODE", "pack", "unpack"]

KEPT_MODE = 0o755
"""The mode bits an unpacked file keeps: its owner's, and others' read and run bits (no set-id,
sticky, or group and other write)."""


class BundleError(ValueError):
    """A folder that cannot be packed, or an archive that would reach outside its folder (one line)."""


def _problem(info: tarfile.TarInfo) -> str | None:
    """What makes a member unsafe by its own name, type and link target, or None."""
    if info.name.startswith("/"):
        return "an absolute path"
    if ".." in PurePosixPath(info.name).parts:
        return "a path with '..'"
    if info.issym():
        if info.linkname.startswith("/"):
            return f"a link to an absolute path ({info.linkname})"
        target = posixpath.normpath(posixpath.join(posixpath.dirname(info.name), info.linkname))
        if target == ".." or target.startswith("../"):
            return f"a link out of the folder (to {info.linkname})"
    elif info.islnk():
        if info.linkname.startswith("/") or ".." in PurePosixPath(info.linkname).parts:
            return f"a hard link out of the folder (to {info.linkname})"
    elif not (info.isfile() or info.isdir()):
        return "a device, fifo or other special file"
    return None


def pack(root: Path, leave_out: Iterable[Path] = ()) -> bytes:
    """The folder `root` as a gzipped tar (modes kept), without caches and version-control folders.

    Special files (fifos, devices) are left out: they are no bot's files (a fingerprint
    covers regular files only), and so is whatever of `leave_out` lies inside `root` (the
    tournament's results folder: its logs are no bot's files either, as for the fingerprint).
    A link that leads out of the folder is a BundleError.
    """
    real = os.path.realpath(root)
    skipped = set()
    for path in leave_out:
        inside = os.path.realpath(path)
        if inside.startswith(real + os.sep):
            skipped.add(PurePosixPath(os.path.relpath(inside, real)).parts)

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        parts = PurePosixPath(info.name).parts
        if SKIPPED_FOLDERS.intersection(parts) or any(parts[: len(s)] == s for s in skipped):
            return None
        if not (info.isfile() or info.isdir() or info.issym() or info.islnk()):
            return None
        problem = _problem(info)
        if problem is not None:
            name = info.name.removeprefix("./")
            raise BundleError(f"{root}: {name}: {problem}; workers unpack only what stays inside it")
        return info

    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        tar.add(root, arcname=".", filter=keep)
    if data.tell() > DIRECTORY_CAP_BYTES:
        raise BundleError(
            f"{root}: {data.tell()} bytes packed, more than {DIRECTORY_CAP_BYTES}: "
            "put the bots on the workers by the same path instead"
        )
    return data.getvalue()


_DATA_FILTER = getattr(tarfile, "data_filter", None)
"""The standard library's "data" extraction filter, where the interpreter has it (3.11.4+)."""


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


def unpack(data: bytes, dest: Path) -> None:
    """Unpack an archive made by `pack` into the empty folder `dest`, run bits kept.

    A member that would reach outside `dest` (see the module docstring), or one given twice,
    is a BundleError naming it; `dest` is then removed with whatever was unpacked.
    """
    root = os.path.realpath(dest)
    try:
        _unpack(data, root)
    except BundleError:
        shutil.rmtree(root, ignore_errors=True)
        raise
    except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
        shutil.rmtree(root, ignore_errors=True)
        said = str(e).splitlines()
        raise BundleError(f"not a readable bots archive: {said[0] if said else type(e).__name__}") from None


def _unpack(data: bytes, root: str) -> None:
    state = _Unpacking(root)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for info in tar:
            try:
                state.member(tar, info)
            except FileExistsError:
                raise BundleError(f"{info.name}: another member is already in its place") from None
    # Each link was checked when made, but a later one can redirect an earlier one (`a -> b/..`,
    # then `b -> .`): where every link leads is checked again once all are there.
    for name, path in state.links:
        if not _inside(os.path.realpath(path), root):
            raise BundleError(f"{name}: a link out of the folder (to {os.readlink(path)})")
    for folder, mode in state.folders.items():
        if os.path.isdir(folder) and not os.path.islink(folder):
            os.chmod(folder, (mode & KEPT_MODE) | stat.S_IRWXU)


class _Unpacking:
    """What one `unpack` has written so far."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.seen: set[str] = set()
        self.files: dict[str, str] = {}
        """Member name -> where its file was written (hard links point at these)."""
        self.links: list[tuple[str, str]] = []
        self.folders: dict[str, int] = {root: 0o755}
        """Each folder's mode, set once everything is in it."""

    def member(self, tar: tarfile.TarFile, info: tarfile.TarInfo) -> None:
        """Unpack one member, or raise a BundleError naming it."""
        root = self.root
        problem = _problem(info)
        if problem is not None:
            raise BundleError(f"{info.name}: {problem}")
        parts = PurePosixPath(info.name).parts
        name = "/".join(parts) or "."
        if name in self.seen:
            raise BundleError(f"{name}: given twice")
        self.seen.add(name)
        if not parts:  # the folder itself
            self.folders[root] = info.mode
            return
        # Where the member goes, through the links unpacked so far, is checked before any
        # folder on the way is made.
        real_parent = os.path.realpath(os.path.join(root, *parts[:-1]))
        if not _inside(real_parent, root):
            raise BundleError(f"{name}: leads out of the folder through a link")
        os.makedirs(real_parent, mode=0o755, exist_ok=True)  # only for an archive that lists no folders
        target = os.path.join(real_parent, parts[-1])
        if info.issym() and not _inside(os.path.realpath(os.path.join(real_parent, info.linkname)), root):
            raise BundleError(f"{name}: a link out of the folder (to {info.linkname})")
        if _DATA_FILTER is not None:  # after ours, whose messages say it in fewer words
            try:
                _DATA_FILTER(info, root)
            except tarfile.TarError as e:  # tarfile.FilterError's subclasses
                raise BundleError(f"{name}: {e}") from None
        if info.isdir():
            if not os.path.isdir(target) or os.path.islink(target):
                os.mkdir(target, 0o700)
            self.folders[target] = info.mode
        elif info.issym():
            os.symlink(info.linkname, target)
            self.links.append((name, target))
        elif info.islnk():
            source = self.files.get("/".join(PurePosixPath(info.linkname).parts))
            if source is None:
                raise BundleError(f"{name}: a hard link to {info.linkname}, which is no file unpacked before it")
            os.link(source, target, follow_symlinks=False)
            self.files[name] = target
        else:
            extracted = tar.extractfile(info)
            assert extracted is not None  # a regular file
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as out, extracted:
                shutil.copyfileobj(extracted, out)
                os.fchmod(out.fileno(), info.mode & KEPT_MODE)
            self.files[name] = target
