"""Attack: two bots of one match talk through what every sandbox shares (issue 21, item 1).

Usage: channel_bot.py send|recv OUT TAG

The sender (seat 0) spells its private peek (the face-down cards of its own grid it may
see, at its first request) into file locks on system files every sandbox shows, three
ways: flock(), POSIX record locks (fcntl F_SETLK) and open-file-description locks
(F_OFD_SETLK), each on a set of its own of 33 files under /usr/lib/python3* (32 bits and
a "ready" bit). It also leaves a mark in every other shared object it can think of: an
abstract unix socket, a file and a named pipe in each folder it can write, a POSIX message
queue, SysV message queue, semaphore set and shared memory, an open of a watched file
(inotify), a read of a file whose access time the receiver watches, and a key in the
session keyring every bot inherits from the referee.

The receiver (seat 1) probes all of it at each of its requests and reports, at goodbye,
what it decoded or saw. TAG makes the names of this match's objects its own; `cleanup`
removes what a sender left (the test calls it).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import functools
import glob
import json
import os
import socket
import struct
import sys
from typing import Any

import hostile

BITS = 32
METHODS = ("flock", "posix", "ofd")
FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/run/shm", "/dev/mqueue")
_F_OFD_GETLK, _F_OFD_SETLK = 36, 37
_IN_OPEN, _IN_ACCESS, _IN_NONBLOCK = 0x20, 0x01, 0o4000
_IPC_CREAT, _IPC_RMID = 0o1000, 0
_libc = ctypes.CDLL(None, use_errno=True)
_ADD_KEY, _KEYCTL = (248, 250) if os.uname().machine == "x86_64" else (217, 219)  # else aarch64
_KEY_SPEC_SESSION_KEYRING, _KEYCTL_JOIN_SESSION_KEYRING, _KEYCTL_UNLINK, _KEYCTL_SEARCH = -3, 1, 9, 10


def new_session_keyring() -> None:
    """Give the calling process a session keyring of its own (an anonymous one), which its children inherit."""
    if _libc.syscall(_KEYCTL, _KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        raise OSError(ctypes.get_errno(), "keyctl(KEYCTL_JOIN_SESSION_KEYRING) failed")


def find_key(tag: str) -> int:
    """The id of this match's key in the session keyring, or -1 (errno set)."""
    return int(_libc.syscall(_KEYCTL, _KEYCTL_SEARCH, _KEY_SPEC_SESSION_KEYRING, b"user",
                             f"golfref-channel-{tag}".encode(), 0))  # fmt: skip


def files() -> list[str]:
    """The shared files both bots agree on: the same sorted list in every sandbox."""
    found = sorted(p for p in glob.glob("/usr/lib/python3*/**/*.py", recursive=True) if os.path.isfile(p))
    return found[: len(METHODS) * (BITS + 1) + 2]


def lock_files(method: str) -> list[str]:
    """The ready file, then one file per bit, of one lock method."""
    k = METHODS.index(method)
    return files()[k * (BITS + 1) : (k + 1) * (BITS + 1)]


def watched() -> str:
    """The file whose opens the receiver watches (inotify)."""
    return files()[-2]


def timed() -> str:
    """The file whose access time the receiver watches."""
    return files()[-1]


def _flock_struct(kind: int) -> bytes:
    return struct.pack("hhqqi", kind, os.SEEK_SET, 0, 0, 0) + b"\0" * 4  # struct flock (x86-64, aarch64)


def lock(method: str, fd: int) -> None:
    """Take a shared lock of `method` on `fd` (read-only)."""
    if method == "flock":
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    elif method == "posix":
        fcntl.fcntl(fd, fcntl.F_SETLK, _flock_struct(fcntl.F_RDLCK))
    else:
        fcntl.fcntl(fd, _F_OFD_SETLK, _flock_struct(fcntl.F_RDLCK))


def locked(method: str, fd: int) -> bool:
    """Whether someone else holds a lock of `method` on the file of `fd`."""
    if method == "flock":
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    got = fcntl.fcntl(fd, fcntl.F_GETLK if method == "posix" else _F_OFD_GETLK, _flock_struct(fcntl.F_WRLCK))
    return struct.unpack("h", got[:2])[0] != fcntl.F_UNLCK


def peek(request: dict[str, Any]) -> str:
    """The face-down cards of this seat that it may see, as 4 characters."""
    view = request["view"]
    seat = view["seat"]
    cards = [c for c, up in zip(view["grids"][seat], view["face_up"][seat], strict=True) if c and not up]
    return ("".join(cards) + "----")[:4]


def key(tag: str, k: int) -> int:
    """A SysV IPC key of this match."""
    return (int(tag, 16) & 0x0FFF_FFFF) * 4 + k


def names(tag: str) -> dict[str, str]:
    """What the sender creates, by channel."""
    out = {f"file {d}": f"{d}/golfref-channel-{tag}" for d in FOLDERS}
    out |= {f"fifo {d}": f"{d}/golfref-channel-{tag}.fifo" for d in FOLDERS}
    return out


class Sender:
    def __init__(self, out: str, tag: str) -> None:
        self.out, self.tag = out, tag
        self.held: list[int] = []
        self.said: dict[str, Any] = {}

    def at_hello(self, _: dict[str, Any]) -> None:
        said = self.said
        try:
            self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.server.bind(f"\0golfref-channel-{self.tag}")
            self.server.listen(4)
            said["abstract"] = "listening"
        except OSError as e:
            said["abstract"] = hostile.error_name(e)
        for what, path in names(self.tag).items():
            try:
                if what.startswith("fifo"):
                    os.mkfifo(path, 0o666)
                else:
                    with open(path, "w") as f:
                        f.write("mark")
                said[what] = "made"
            except OSError as e:
                said[what] = hostile.error_name(e)
        made = _libc.syscall(_ADD_KEY, b"user", f"golfref-channel-{self.tag}".encode(), b"mark", 4,
                             _KEY_SPEC_SESSION_KEYRING)  # fmt: skip
        said["key"] = "made" if made >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
        mq = _libc.mq_open(f"/golfref-channel-{self.tag}".encode(), os.O_CREAT | os.O_RDWR, 0o666, None)
        said["mq"] = "made" if mq >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
        for k, (name, make) in enumerate(self._sysv()):
            said[f"sysv {name}"] = "made" if make(key(self.tag, k)) >= 0 else errno.errorcode.get(ctypes.get_errno())

    @staticmethod
    def _sysv() -> list[tuple[str, Any]]:
        return [
            ("msg", lambda k: _libc.msgget(k, _IPC_CREAT | 0o666)),
            ("sem", lambda k: _libc.semget(k, 1, _IPC_CREAT | 0o666)),
            ("shm", lambda k: _libc.shmget(k, ctypes.c_size_t(4096), _IPC_CREAT | 0o666)),
        ]

    def at_request(self, request: dict[str, Any]) -> None:
        if "peek" in self.said:
            return
        secret = peek(request)
        self.said["peek"] = secret
        bits = int.from_bytes(secret.encode("latin-1"), "big")
        for method in METHODS:
            ready, *slots = lock_files(method)
            try:
                for i, path in enumerate(slots):
                    if bits >> (BITS - 1 - i) & 1:
                        self._lock(method, path)
                self._lock(method, ready)
                self.said[method] = "sent"
            except OSError as e:
                self.said[method] = hostile.error_name(e)
        for _ in range(3):
            with open(watched(), "rb") as f:
                f.read(1)
        with open(timed(), "rb") as f:
            f.read(1)
        hostile.report(self.out, self.said)

    def _lock(self, method: str, path: str) -> None:
        fd = os.open(path, os.O_RDONLY)
        self.held.append(fd)  # closing any fd of the file would drop a POSIX lock
        lock(method, fd)

    def at_goodbye(self) -> None:
        hostile.report(self.out, self.said)
        cleanup(self.tag)


class Receiver:
    def __init__(self, out: str, tag: str) -> None:
        self.out, self.tag = out, tag
        self.seen: dict[str, Any] = {m: None for m in METHODS}
        self.events = 0

    def at_hello(self, _: dict[str, Any]) -> None:
        self.atime = os.stat(timed()).st_atime_ns
        fd = _libc.inotify_init1(_IN_NONBLOCK)
        if fd < 0:
            self.inotify: int | str = errno.errorcode.get(ctypes.get_errno(), "?")
            return
        if _libc.inotify_add_watch(fd, watched().encode(), _IN_OPEN | _IN_ACCESS) < 0:
            self.inotify = errno.errorcode.get(ctypes.get_errno(), "?")
            os.close(fd)
            return
        self.inotify = fd

    def at_request(self, _: dict[str, Any]) -> None:
        for method in METHODS:
            self.seen[method] = self._decode(method)
        if isinstance(self.inotify, int):
            try:
                self.events += len(os.read(self.inotify, 4096)) // 16  # at least 16 bytes an event
            except BlockingIOError:
                pass
        self.seen["inotify"] = self.events if isinstance(self.inotify, int) else self.inotify
        self.seen["atime_changed"] = os.stat(timed()).st_atime_ns != self.atime
        if self.seen.get("abstract") != "connected":
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.setblocking(False)  # a full backlog must not hang the bot
            try:
                client.connect(f"\0golfref-channel-{self.tag}")
                self.seen["abstract"] = "connected"
            except OSError as e:
                self.seen["abstract"] = hostile.error_name(e)
            finally:
                client.close()
        for what, path in names(self.tag).items():
            self.seen[what] = os.path.lexists(path)
        mq = _libc.mq_open(f"/golfref-channel-{self.tag}".encode(), os.O_RDONLY, 0, None)
        self.seen["mq"] = mq >= 0
        if mq >= 0:
            _libc.mq_close(mq)
        found = find_key(self.tag)
        self.seen["key"] = found >= 0 if found >= 0 or ctypes.get_errno() != errno.ENOSYS else "ENOSYS"
        self.seen["sysv msg"] = _libc.msgget(key(self.tag, 0), 0) >= 0
        self.seen["sysv sem"] = _libc.semget(key(self.tag, 1), 0, 0) >= 0
        self.seen["sysv shm"] = _libc.shmget(key(self.tag, 2), ctypes.c_size_t(0), 0) >= 0
        self.seen["sender_pids"] = [
            int(p) for p in os.listdir("/proc") if p.isdigit() and "send" in hostile.cmdline(int(p))[-3:-2]
        ]

    def _decode(self, method: str) -> str | None:
        """The sender's 4 characters, None before it is ready, or the errno name of a failed probe."""
        ready, *slots = lock_files(method)
        fds = []
        try:
            for path in [ready, *slots]:
                fds.append(os.open(path, os.O_RDONLY))
            if not locked(method, fds[0]):
                return None
            bits = 0
            for fd in fds[1:]:
                bits = bits << 1 | locked(method, fd)
            return bits.to_bytes(4, "big").decode("latin-1")
        except OSError as e:
            return hostile.error_name(e)
        finally:
            for fd in fds:
                os.close(fd)  # a POSIX lock probe holds nothing; closing drops none of the sender's

    def at_goodbye(self) -> None:
        hostile.report(self.out, self.seen)


def cleanup(tag: str) -> None:
    """Remove whatever a sender of `tag` left outside a sandbox (a sandbox's own go with it)."""
    for path in names(tag).values():
        try:
            os.unlink(path)
        except OSError:
            pass
    _libc.mq_unlink(f"/golfref-channel-{tag}".encode())
    found = find_key(tag)
    if found >= 0:
        _libc.syscall(_KEYCTL, _KEYCTL_UNLINK, found, _KEY_SPEC_SESSION_KEYRING)
    k = functools.partial(key, tag)
    for ident, remove in (
        (_libc.msgget(k(0), 0), lambda i: _libc.msgctl(i, _IPC_RMID, None)),
        (_libc.semget(k(1), 0, 0), lambda i: _libc.semctl(i, 0, _IPC_RMID)),
        (_libc.shmget(k(2), ctypes.c_size_t(0), 0), lambda i: _libc.shmctl(i, _IPC_RMID, None)),
    ):
        if ident >= 0:
            remove(ident)


def main() -> int:
    role, out, tag = sys.argv[1:4]
    bot = Sender(out, tag) if role == "send" else Receiver(out, tag)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            bot.at_hello(message)
            hostile.say({"type": "ready", "name": f"channel-{role}", "version": "1"})
        elif kind == "request":
            bot.at_request(message)
            hostile.say({"type": "answer", "id": message["id"], "action": message["legal"][0]})
        elif kind == "goodbye":
            break
    bot.at_goodbye()
    return 0


if __name__ == "__main__":
    sys.exit(main())
