"""Opening files safely: every file golfref writes, and every user-named file it reads, goes through here.

Writing never follows a symbolic link at the last component of a path, so a bot that can
write the folder of a log or a transcript (no sandbox) cannot make golfref write through
a link to a file elsewhere: a link, or anything that is not a regular file, in the way of a
write is refused with `UnsafeFile` (`LinkRefused` for a link), one line naming the path. A
file written whole is a fresh temporary file in the same folder (created with O_EXCL, so
never through a link) renamed over the target: `os.replace` replaces a link itself, never
what it points to. Folders on the way may be links: they are the user's choice, not a bot's.

Reading opens a file without blocking, checks that it is a regular file, and caps its size
before reading a byte, so a FIFO, a device or a huge file gives `UnsafeFile` at once instead
of a hang or a MemoryError. A file the user names (a config, a log, a key) is read through a
link, as the user chose; a file golfref finds for itself (a transcript beside a log, a log
path kept in a results store) is read as the writers write, never through a link at its last
component (`read_capped(..., follow_links=False)`: `LinkRefused`, and what the link points to
is never opened); folders on the way may be links there too.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = [
    "UnsafeFile",
    "LinkRefused",
    "MIB",
    "CONFIG_MAX_BYTES",
    "LOG_MAX_BYTES",
    "KEY_MAX_BYTES",
    "refuse_link",
    "open_append",
    "create_new",
    "fresh_temp",
    "replace_file",
    "write_text",
    "read_capped",
    "read_text_capped",
]

MIB = 1 << 20
CONFIG_MAX_BYTES = 1 * MIB
"""The largest match or tournament config golfref reads."""
LOG_MAX_BYTES = 256 * MIB
"""The largest log golfref reads unless told otherwise (`--max-log-mb`)."""
KEY_MAX_BYTES = 64 * 1024
"""The largest key file golfref reads (an Ed25519 PEM is some 120 bytes)."""

_WRITE = os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafeFile(OSError):
    """A file golfref will not write through or read: a link, not a regular file, or too big; the message names it."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.path = os.fspath(path)
        self.reason = reason


class LinkRefused(UnsafeFile):
    """A symbolic link where golfref writes a file, or reads one it found for itself: refused, never followed."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _refused(path: str | os.PathLike[str], mode: int, doing: str) -> UnsafeFile:
    kind = LinkRefused if stat.S_ISLNK(mode) else UnsafeFile
    return kind(path, f"is {_kind(mode)}, not a regular file; golfref does not {doing} it")


def refuse_link(path: str | os.PathLike[str]) -> None:
    """Raise UnsafeFile if anything but a regular file (a link, a FIFO...) is at `path`; nothing there is fine."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise _refused(path, mode, "write over")


def _checked(fd: int, path: str | os.PathLike[str], doing: str) -> int:
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise _refused(path, mode, doing)
    return fd


def _open_write(path: str | os.PathLike[str], flags: int, mode: int) -> int:
    try:
        # O_NONBLOCK: a FIFO put in the way must not block the open; it is refused just after.
        fd = os.open(path, _WRITE | os.O_NONBLOCK | flags, mode)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise LinkRefused(path, "is a symbolic link; golfref does not write through links") from None
        if e.errno == errno.ENXIO:  # a FIFO that nobody reads
            raise UnsafeFile(path, "is a FIFO, not a regular file; golfref does not write through it") from None
        raise
    fd = _checked(fd, path, "write through")
    os.set_blocking(fd, True)
    return fd


def open_append(path: str | os.PathLike[str], mode: int = 0o600) -> int:
    """A descriptor appending to the regular file at `path` (created with `mode` if missing), never through a link."""
    return _open_write(path, os.O_APPEND | os.O_CREAT, mode)


def create_new(path: str | os.PathLike[str], mode: int = 0o600) -> int:
    """A descriptor for a new, empty file at `path`; FileExistsError if anything (a link included) is there."""
    return _open_write(path, os.O_CREAT | os.O_EXCL, mode)


def fresh_temp(target: str | os.PathLike[str]) -> tuple[int, str]:
    """A new temporary file beside `target` (O_EXCL, mode 0600): its descriptor and path, for `os.replace` onto it."""
    import tempfile  # here, not at the top: the command line imports this module at every start

    where = Path(target)
    # mkstemp opens with O_EXCL | O_NOFOLLOW | O_CLOEXEC under a random name.
    return tempfile.mkstemp(prefix=f".{where.name}.", suffix=".tmp", dir=where.parent)


def replace_file(target: str | os.PathLike[str], data: bytes, *, sync: bool = False, mode: int = 0o600) -> None:
    """Write `data` as the file at `target`, whole or not at all: a fresh file renamed over it.

    A link or a non-regular file at `target` is refused (UnsafeFile); a link appearing
    after that check is replaced by the rename, never written through.
    """
    refuse_link(target)
    fd, tmp = fresh_temp(target)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if mode != 0o600:
                os.fchmod(f.fileno(), mode)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(target: str | os.PathLike[str], text: str, *, mode: int = 0o644) -> None:
    """Write `text` (UTF-8) as the file at `target` with `replace_file`; readable by others by default (a report)."""
    replace_file(target, text.encode("utf-8"), mode=mode)


def _describe(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit >= MIB and limit % MIB == 0 else f"{limit} bytes"


def read_capped(
    path: str | os.PathLike[str], limit: int, what: str = "file", raise_limit: str = "", *, follow_links: bool = True
) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; UnsafeFile for anything else.

    Opened without blocking (a FIFO never waits for a writer) and checked with fstat
    before a byte is read. `what` names the file in an error, `raise_limit` says how to
    raise the cap (such as "give --max-log-mb"). `follow_links=False` for a file golfref
    found for itself: a link at `path` is `LinkRefused`, its target never opened.
    FileNotFoundError and other OSErrors of the open itself pass through.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ELOOP and not follow_links:
            found = f"is a symbolic link; golfref reads a {what} it finds by itself from a file, never through a link"
            raise LinkRefused(path, found) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(path, f"is {_kind(info.st_mode)}, not a regular file; golfref reads a {what} from a file")
        hint = f" ({raise_limit})" if raise_limit else ""
        too_big = UnsafeFile(path, f"the {what} is larger than golfref reads: more than {_describe(limit)}{hint}")
        if info.st_size > limit:
            raise too_big
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        left = limit + 1  # one byte more: a file that grew since fstat is caught too
        while left > 0:
            chunk = os.read(fd, min(left, MIB))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise too_big
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text_capped(path: str | os.PathLike[str], limit: int, what: str = "file") -> str:
    """`read_capped` decoded as UTF-8 (UnicodeDecodeError passes through)."""
    return read_capped(path, limit, what).decode("utf-8")
