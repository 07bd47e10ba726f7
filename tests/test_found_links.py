"""Files golfref finds for itself are never read through a symbolic link (issue 38, item 4).

A bot running without the sandbox can write the folder of its match's log, and in a tournament
the results directory: it can put a link where golfref later looks for a transcript (beside a
log) or a log (at a path the results store keeps). Each test builds that layout from a real
match or tournament, the link pointing at a stand-in for /etc/shadow, and runs `audit`,
`replay --html`, `replay-bot` and `standings` (text, --json, --html, --junit) on it. The
stand-in is watched with inotify: any open of it, by any process, is seen, so "never opened"
is asserted directly (no strace, no timing). A path the user names keeps working through a
link.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from golfref.files import LinkRefused, read_capped

from .test_audit import play
from .test_sandbox_attacks import golfref

pytestmark = pytest.mark.process

SECRET = "root:$6$stand-in-for-etc-shadow$not-to-be-read:19000:0:99999:7:::\n"
_IN_OPEN = 0x20  # <sys/inotify.h>


class OpenWatch:
    """Every open of one file, by any process, as inotify reports it (IN_OPEN)."""

    def __init__(self, path: Path) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        if libc.inotify_add_watch(self.fd, os.fsencode(path), _IN_OPEN) < 0:
            os.close(self.fd)
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {path}")

    def opened(self) -> bool:
        """Whether the file was opened since the last call (the events are read, so counted once)."""
        seen = False
        while True:
            try:
                seen = bool(os.read(self.fd, 4096)) or seen
            except BlockingIOError:
                return seen

    def close(self) -> None:
        """Stop watching."""
        os.close(self.fd)


@pytest.fixture
def secret(tmp_path: Path) -> Iterator[tuple[Path, OpenWatch]]:
    """The stand-in for /etc/shadow, outside every match's folder, and a watch on its opens."""
    path = tmp_path / "outside" / "shadow"
    path.parent.mkdir()
    path.write_text(SECRET, encoding="utf-8")
    path.chmod(0o600)
    watch = OpenWatch(path)
    try:
        path.read_text(encoding="utf-8")
        assert watch.opened(), "inotify does not see an open of the stand-in: the test could not fail"
        yield path, watch
    finally:
        watch.close()


def shows_nothing_of(secret: Path, *texts: str) -> None:
    """No line of the secret is in any of `texts`."""
    for text in texts:
        assert SECRET.strip() not in text and "stand-in-for-etc-shadow" not in text, text[:2000]


# -- the one opener ------------------------------------------------------------------------------


def test_a_found_file_is_never_read_through_a_link_a_named_one_is(
    tmp_path: Path, secret: tuple[Path, OpenWatch]
) -> None:
    target, watch = secret
    link = tmp_path / "found.jsonl"
    link.symlink_to(target)
    with pytest.raises(LinkRefused, match=r"found\.jsonl: is a symbolic link; golfref reads a transcript it finds"):
        read_capped(link, 1000, "transcript", follow_links=False)
    assert not watch.opened()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    to_fifo = tmp_path / "to-fifo"
    to_fifo.symlink_to(fifo)
    with pytest.raises(LinkRefused):
        read_capped(to_fifo, 1000, follow_links=False)
    assert read_capped(link, 1000) == SECRET.encode()  # named by the user: the link is the user's choice
    assert watch.opened()


# -- transcripts beside a log --------------------------------------------------------------------


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 2-hole match of two bots with transcripts."""
    return play(tmp_path_factory.mktemp("played"), {"preset": "standard", "layout": "2x2", "holes": 2})


@pytest.fixture
def match(played: Path, tmp_path: Path) -> Path:
    """A private copy of the played match, in tmp_path/logs."""
    folder = tmp_path / "logs"
    folder.mkdir()
    for path in played.parent.glob("m.*"):
        if path.suffix in (".json", ".jsonl"):
            shutil.copy(path, folder / path.name)
    return folder / "m.json"


def transcript(log: Path, seat: int) -> Path:
    return log.with_name(f"{log.stem}.seat{seat}.transcript.jsonl")


def link_transcript(log: Path, seat: int, target: Path) -> Path:
    """Replace a seat's transcript with a link to `target`, as a bot without the sandbox can."""
    path = transcript(log, seat)
    path.unlink()
    path.symlink_to(target)
    return path


def test_audit_counts_a_transcript_link_as_missing_and_never_opens_it(
    match: Path, secret: tuple[Path, OpenWatch]
) -> None:
    target, watch = secret
    link_transcript(match, 0, target)
    done = golfref("audit", str(match))
    assert done.returncode == 1, done.stdout + done.stderr  # not clean: a seat was not audited
    assert done.stderr == ""
    warning = next(line for line in done.stdout.splitlines() if "seat 0" in line)
    assert warning == (
        f"{match}: warning: mismatch: seat 0: m.seat0.transcript.jsonl is a symbolic link; golfref reads a "
        "transcript it finds by itself from a file, never through a link: not audited"
    )
    assert "messages to 1 seat checked" in done.stdout.splitlines()[-1], done.stdout  # seat 1's is audited
    assert not watch.opened()
    shows_nothing_of(target, done.stdout, done.stderr)


def test_audit_refuses_a_link_even_to_the_genuine_transcript(match: Path, tmp_path: Path) -> None:
    # What the link points at does not matter: a link where the referee writes a file is not trusted.
    for seat in (0, 1):
        genuine = tmp_path / f"genuine{seat}.jsonl"
        shutil.copy(transcript(match, seat), genuine)
        link_transcript(match, seat, genuine)
    done = golfref("audit", str(match), "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    (result,) = json.loads(done.stdout)
    texts = [f["text"] for f in result["findings"]]
    assert [f["seat"] for f in result["findings"]] == [0, 1]
    assert all("is a symbolic link" in t and t.endswith(": not audited") for t in texts), texts


def test_audit_follows_a_link_the_user_names(match: Path, tmp_path: Path) -> None:
    # The folder on the way is the user's link; the transcripts beside the log are plain files.
    alias = tmp_path / "alias"
    alias.symlink_to(match.parent, target_is_directory=True)
    done = golfref("audit", str(alias / "m.json"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "clean" in done.stdout.splitlines()[-1], done.stdout


def test_replay_html_notes_a_transcript_link_and_never_opens_it(
    match: Path, tmp_path: Path, secret: tuple[Path, OpenWatch]
) -> None:
    target, watch = secret
    link_transcript(match, 1, target)
    page = tmp_path / "page.html"
    done = golfref("replay", str(match), "--html", str(page))
    assert done.returncode == 0, done.stdout + done.stderr
    html = page.read_text(encoding="utf-8")
    assert "m.seat1.transcript.jsonl: is a symbolic link; golfref reads a transcript it finds by itself" in html
    assert not watch.opened()
    shows_nothing_of(target, html, done.stdout, done.stderr)


def test_replay_bot_refuses_a_transcript_link_in_one_line(match: Path, secret: tuple[Path, OpenWatch]) -> None:
    target, watch = secret
    link = link_transcript(match, 1, target)
    done = golfref("replay-bot", str(match), "--seat", "1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"golfref: error: {link}: is a symbolic link; golfref reads a transcript it finds by itself from a file, "
        "never through a link"
    ]
    assert not watch.opened()
    shows_nothing_of(target, done.stdout, done.stderr)


# -- log paths a results store keeps -------------------------------------------------------------


QUITTER = """import json, sys
sys.stdin.readline()
print(json.dumps({"type": "ready", "name": "quitter"}), flush=True)
sys.stdin.readline()
sys.stderr.write("leaving now\\n")
sys.exit(3)
"""


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tournament (two matches) of a bot that says why it leaves and exits at its first request,
    against a built-in; its results."""
    tmp = tmp_path_factory.mktemp("tournament")
    (tmp / "quit.py").write_text(QUITTER, encoding="utf-8")
    quitter = [sys.executable, str(tmp / "quit.py")]
    (tmp / "t.yaml").write_text(
        "tournament: t\nrules: {preset: standard, layout: 2x2, holes: 1}\n"
        f"players:\n  - {{name: quitter, command: {json.dumps(quitter)}}}\n  - {{name: house, builtin: greedy}}\n"
        "deal_sets: 1\nseed: 3\nresults: out\nsandbox: {enabled: false}\n",
        encoding="utf-8",
    )
    done = golfref("tournament", str(tmp / "t.yaml"), "-q")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert sorted(p.name for p in (tmp / "out" / "logs").glob("*.json")) == ["m00000-d0.json", "m00001-d0.json"]
    return tmp / "out"


def test_a_link_at_a_stored_log_path_is_never_opened(tournament: Path, tmp_path: Path) -> None:
    results = tmp_path / "out"
    shutil.copytree(tournament, results)
    junit = tmp_path / "before.xml"
    before = {
        "text": golfref("standings", str(results)),
        "json": golfref("standings", str(results), "--json"),
        "junit": golfref("standings", str(results), "--junit", str(junit)),
    }
    # The bot's stderr tail is read from a stored log: the summary quotes it (a path that opens logs).
    assert "its stderr in match 0" in before["text"].stderr, before["text"].stderr
    # A link inside the results directory (a link out of it the store's reader refuses first), to the secret.
    target = results / "shadow"
    target.write_text(SECRET, encoding="utf-8")
    watch = OpenWatch(target)
    try:
        log = results / "logs" / "m00000-d0.json"
        log.unlink()
        log.symlink_to(target)
        # And the tournament's logs have no transcripts: one planted beside the other match's log is found.
        for seat in (0, 1):
            transcript(results / "logs" / "m00001-d0.json", seat).symlink_to(target)
        after = {
            "text": golfref("standings", str(results)),
            "json": golfref("standings", str(results), "--json"),
            "junit": golfref("standings", str(results), "--junit", str(tmp_path / "after.xml")),
        }
        report = tmp_path / "report.html"
        html = golfref("standings", str(results), "--html", str(report))
        assert not watch.opened()
    finally:
        watch.close()
    for mode, done in after.items():
        assert done.returncode == before[mode].returncode, (mode, done.stdout + done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
    # The stderr tail now comes from the one log still read, match 1's.
    assert "its stderr in match 0" not in after["text"].stderr and "its stderr in match 1" in after["text"].stderr
    assert html.returncode == before["text"].returncode, html.stdout + html.stderr
    warnings = [line for line in html.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "golfref: warning: no replay for logs/m00000-d0.json: not a log: is a symbolic link; golfref reads a log it "
        "finds by itself from a file, never through a link"
    ], html.stderr
    pages = [report, *sorted((tmp_path / "report-replays").iterdir())]
    assert len(pages) == 1 + 3  # the report, and match 1's replay and its two seat pages
    texts = [page.read_text(encoding="utf-8") for page in pages]
    whole = next(t for p, t in zip(pages, texts, strict=True) if p.name == "m00001-d0.html")
    assert "m00001-d0.seat" in whole and "is a symbolic link; golfref reads a transcript it finds by itself" in whole
    shows_nothing_of(target, *texts, *(d.stdout + d.stderr for d in after.values()), html.stdout + html.stderr)
    shows_nothing_of(target, (tmp_path / "after.xml").read_text(encoding="utf-8"))
