"""The uploaded bots archive (golfref/tournament/bundle.py): packed with run bits, unpacked without ever reaching
outside its folder, on every Python that pyproject.toml admits (no tarfile extraction filter used)."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from golfref.tournament.bundle import BundleError, pack, unpack


def _archive(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for info, content in members:
            if content is not None:
                info.size = len(content)
            tar.addfile(info, io.BytesIO(content) if content is not None else None)
    return data.getvalue()


def _file(name: str, content: bytes = b"x", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info, content


def _folder(name: str) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.mode = tarfile.DIRTYPE, 0o755
    return info, None


def _link(name: str, target: str, hard: bool = False) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = (tarfile.LNKTYPE if hard else tarfile.SYMTYPE), target
    return info, None


def _special(name: str, kind: bytes) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    return info, None


@pytest.fixture
def places(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """An empty folder to unpack into, and a folder beside it that nothing may reach."""
    dest, beside = tmp_path / "copy", tmp_path / "beside"
    dest.mkdir()
    beside.mkdir()
    yield dest, beside
    assert list(beside.iterdir()) == [], "something was written outside the folder"


def test_a_packed_folder_unpacks_with_its_run_bits_links_and_files(tmp_path: Path, places: tuple[Path, Path]) -> None:
    dest, _ = places
    bots = tmp_path / "bots"
    (bots / "lib" / "__pycache__").mkdir(parents=True)
    (bots / ".git").mkdir()
    (bots / "bot").write_text("#!/bin/sh\n", encoding="utf-8")
    (bots / "bot").chmod(0o755)
    (bots / "lib" / "data.txt").write_text("weights", encoding="utf-8")
    (bots / "lib" / "data.txt").chmod(0o664)
    (bots / "setid").write_text("s", encoding="utf-8")
    (bots / "setid").chmod(0o4777)
    (bots / "lib" / "__pycache__" / "x.pyc").write_bytes(b"cache")
    (bots / ".git" / "HEAD").write_text("ref", encoding="utf-8")
    (bots / "current").symlink_to("lib/data.txt")
    os.link(bots / "bot", bots / "bot-again")
    os.mkfifo(bots / "pipe")
    unpack(pack(bots), dest)
    found = sorted(str(p.relative_to(dest)) for p in dest.rglob("*"))
    assert found == ["bot", "bot-again", "current", "lib", "lib/data.txt", "setid"]
    assert stat.S_IMODE((dest / "bot").stat().st_mode) == 0o755
    assert stat.S_IMODE((dest / "lib" / "data.txt").stat().st_mode) == 0o644  # no group write
    assert stat.S_IMODE((dest / "setid").stat().st_mode) == 0o755  # no set-user-id
    assert os.readlink(dest / "current") == "lib/data.txt"
    assert (dest / "current").read_text(encoding="utf-8") == "weights"
    assert (dest / "bot-again").read_text(encoding="utf-8") == "#!/bin/sh\n"


def test_unpacking_uses_no_extraction_filter_of_tarfile(
    tmp_path: Path, places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.11.0 to 3.11.3 have no `filter=`: unpacking must not lean on tarfile's extraction at all."""

    def missing(*args: object, **kwargs: object) -> None:
        raise AssertionError("tarfile's extraction was used")

    for name in ("extractall", "extract", "_extract_member"):
        monkeypatch.setattr(tarfile.TarFile, name, missing)
    dest, _ = places
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "bot").write_text("b", encoding="utf-8")
    unpack(pack(tmp_path / "bots"), dest)
    assert (dest / "bot").read_text(encoding="utf-8") == "b"


@pytest.mark.parametrize(
    ("members", "refusal"),
    [
        ([_file("/tmp/evil")], r"^/tmp/evil: an absolute path$"),
        ([_file("../beside/evil")], r"^\.\./beside/evil: a path with '\.\.'$"),
        ([_folder("a"), _file("a/../../beside/evil")], r"^a/\.\./\.\./beside/evil: a path with '\.\.'$"),
        ([_link("etc", "/etc")], r"^etc: a link to an absolute path \(/etc\)$"),
        ([_link("up", "../beside")], r"^up: a link out of the folder \(to \.\./beside\)$"),
        ([_folder("a"), _link("a/up", "../../beside")], r"^a/up: a link out of the folder"),
        ([_link("passwd", "/etc/passwd", hard=True)], r"^passwd: a hard link out of the folder \(to /etc/passwd\)$"),
        ([_link("evil", "../beside/x", hard=True)], r"^evil: a hard link out of the folder"),
        ([_link("evil", "later", hard=True), _file("later")], r"^evil: a hard link to later, which is no file"),
        ([_special("tty", tarfile.CHRTYPE)], r"^tty: a device, fifo or other special file$"),
        ([_special("disk", tarfile.BLKTYPE)], r"^disk: a device, fifo or other special file$"),
        ([_special("pipe", tarfile.FIFOTYPE)], r"^pipe: a device, fifo or other special file$"),
        ([_file("bot"), _file("./bot")], r"^bot: given twice$"),
        ([_link("bot", "sub"), _folder("sub"), _file("bot/x"), _file("sub/x")], r"^sub/x: another member is already"),
        # `x` leads inside when it is made, and out once `n` is there: writing through it is refused...
        ([_link("x", "n/.."), _link("n", "."), _file("x/beside/evil")], r"^x/beside/evil: leads out of the folder"),
        # ...and so is the link itself, checked again at the end.
        ([_link("x", "n/.."), _link("n", ".")], r"^x: a link out of the folder \(to n/\.\.\)$"),
    ],
)
def test_an_archive_reaching_outside_its_folder_is_refused_and_nothing_stays(
    places: tuple[Path, Path], members: list[tuple[tarfile.TarInfo, bytes | None]], refusal: str
) -> None:
    dest, _ = places
    with pytest.raises(BundleError, match=refusal):
        unpack(_archive(_file("fine.txt"), *members), dest)
    assert not dest.exists()  # removed, with what was unpacked before the refusal


def test_a_broken_archive_is_a_one_line_error(places: tuple[Path, Path]) -> None:
    dest, _ = places
    with pytest.raises(BundleError, match=r"^not a readable bots archive: ") as caught:
        unpack(b"\x1f\x8b not really gzip", dest)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("target", "problem"), [("/etc/hostname", "a link to an absolute path"),
                                                  ("../../outside", "a link out of the folder")])  # fmt: skip
def test_packing_refuses_a_link_out_of_the_folder(tmp_path: Path, target: str, problem: str) -> None:
    bots = tmp_path / "bots"
    (bots / "sub").mkdir(parents=True)
    (bots / "sub" / "lib").symlink_to(target)
    refusal = rf"^{bots}: sub/lib: {problem} .*; workers unpack only what stays inside it$"
    with pytest.raises(BundleError, match=refusal):
        pack(bots)


def test_packing_leaves_out_the_tournaments_results_inside_the_folder(
    tmp_path: Path, places: tuple[Path, Path]
) -> None:
    dest, _ = places
    bots = tmp_path / "bots"
    (bots / "tournaments" / "t" / "logs").mkdir(parents=True)
    (bots / "bot.py").write_text("b", encoding="utf-8")
    (bots / "tournaments" / "t" / "logs" / "m0.json").write_text("{}", encoding="utf-8")
    (bots / "tournaments" / "other.txt").write_text("kept", encoding="utf-8")
    unpack(pack(bots, leave_out=[bots / "tournaments" / "t", tmp_path / "elsewhere", bots]), dest)
    found = sorted(str(p.relative_to(dest)) for p in dest.rglob("*"))
    assert found == ["bot.py", "tournaments", "tournaments/other.txt"]


def test_a_member_the_standard_librarys_data_filter_refuses_is_refused(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where Python has `tarfile.data_filter` (3.11.4+), every member must pass it as well as this module's checks."""
    from golfref.tournament import bundle

    def refusing(info: tarfile.TarInfo, root: str) -> tarfile.TarInfo:
        if info.name == "odd":
            raise tarfile.TarError(f"{info.name!r} is refused by the filter")
        return info

    monkeypatch.setattr(bundle, "_DATA_FILTER", refusing)
    dest, _ = places
    with pytest.raises(BundleError, match=r"^odd: 'odd' is refused by the filter$"):
        unpack(_archive(_file("fine.txt"), _file("odd")), dest)
    assert not dest.exists()
