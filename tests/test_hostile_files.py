"""Hostile files (issue 21, items 4 and 6): no write follows a link a bot placed, and hostile
configs, logs and keys get one-line errors in bounded time and memory.

Item 4 plays real matches: `tests/bots/hostile/link_bot.py` replaces its transcript or the log
with a symbolic link to a file outside the match, with the sandbox off (where it can reach
them) and on (where it cannot), and the file outside must be left as it was.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from golfref.files import UnsafeFile, create_new, open_append, read_capped, replace_file

from .conftest import BOTS, default_signals
from .test_sandbox_attacks import WAIT, bot, hostile

HOSTILE_ECHO = BOTS / "echo_bot.py"
PRECIOUS = "precious: not the referee's to write\n"


def run(tmp_path: Path, config: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    """`golfref run` on `config` (written to tmp_path/match.yaml), in its own process group."""
    path = tmp_path / "match.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    referee = subprocess.Popen(
        [sys.executable, "-m", "golfref", "run", str(path), "--quiet", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        start_new_session=True, preexec_fn=default_signals(),
    )  # fmt: skip
    try:
        stdout, stderr = referee.communicate(timeout=WAIT)
    finally:
        if referee.poll() is None:
            os.killpg(referee.pid, signal.SIGKILL)  # its own group: the referee and nothing else of ours
            referee.wait()
    return subprocess.CompletedProcess(referee.args, referee.returncode, stdout, stderr)


def link_match(tmp_path: Path, what: str, sandbox: bool) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """A 2-hole match of link_bot.py (seat 0, swapping `what`) against echo play; the target and the log."""
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "victim.txt"
    target.write_text(PRECIOUS, encoding="utf-8")
    log_path = tmp_path / "logs" / "log.json"
    config: dict[str, Any] = {
        "match": "links",
        "seed": 11,
        "rules": {"preset": "standard", "layout": "2x2", "holes": 2},
        "players": [
            {"name": "linker", "command": bot("link_bot.py", what, log_path, target, tmp_path / "report.json")},
            {"name": "honest", "command": bot("victim_bot.py", tmp_path / "victim.json")},
        ],
        "time": {"startup_ms": 20000, "move_ms": 10000},
        "log": {"path": str(log_path), "transcript": True},
    }
    if sandbox:
        config["sandbox"] = {"enabled": True}
    return run(tmp_path, config), target, log_path


def one_error_line(stderr: str) -> str:
    """The single `golfref: error:` line of `stderr` (no traceback)."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("golfref: error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.mark.process
def test_a_transcript_swapped_for_a_link_is_not_written_through(tmp_path: Path, sandbox: bool) -> None:
    done, target, log_path = link_match(tmp_path, "transcript", sandbox)
    assert target.read_text(encoding="utf-8") == PRECIOUS
    log = json.loads(log_path.read_text(encoding="utf-8"))
    report = hostile_report(log)
    transcript = log_path.with_name("log.seat0.transcript.jsonl")
    if sandbox:
        # The log's folder is hidden from a sandboxed bot: nothing to swap.
        assert report["result"] != "done", report
        assert done.returncode == 0, done.stderr
        assert log["status"] == "finished"
    else:
        assert report["result"] == "done", report
        assert transcript.is_symlink()
        assert done.returncode == 3, done.stderr
        line = one_error_line(done.stderr)
        assert f"cannot write {transcript}: is a symbolic link" in line, line
        assert log["status"] == "error" and str(transcript) in log["error"], log["error"]


@pytest.mark.process
def test_a_log_swapped_for_a_link_is_not_written_through(tmp_path: Path, sandbox: bool) -> None:
    done, target, log_path = link_match(tmp_path, "log", sandbox)
    assert target.read_text(encoding="utf-8") == PRECIOUS
    if sandbox:
        log = json.loads(log_path.read_text(encoding="utf-8"))
        assert hostile_report(log)["result"] != "done"
        assert done.returncode == 0, done.stderr
    else:
        # The journal goes on into the file the referee made; the final log refuses the link.
        assert log_path.is_symlink()
        assert done.returncode == 3, done.stderr
        line = one_error_line(done.stderr)
        assert f"cannot write {log_path}: is a symbolic link" in line, line


def hostile_report(log: dict[str, Any]) -> dict[str, Any]:
    """link_bot's attack report, from its stderr kept in the log."""
    text = log["players"][0]["stderr"] or ""
    lines = [x for x in text.splitlines() if x.startswith(hostile.REPORT_PREFIX)]
    assert lines, text
    return dict(json.loads(lines[-1][len(hostile.REPORT_PREFIX) :]))


# -- golfref.files, the one place that opens files ---------------------------------------


def test_writes_refuse_links_and_fifos(tmp_path: Path) -> None:
    target = tmp_path / "victim.txt"
    target.write_text(PRECIOUS, encoding="utf-8")
    link = tmp_path / "out.txt"
    link.symlink_to(target)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (link, fifo):
        with pytest.raises(UnsafeFile, match="not a regular file|symbolic link"):
            replace_file(path, b"x")
        with pytest.raises(UnsafeFile, match="not a regular file|symbolic link"):
            os.close(open_append(path))
        with pytest.raises(FileExistsError):
            os.close(create_new(path))
    assert target.read_text(encoding="utf-8") == PRECIOUS
    assert link.is_symlink() and fifo.is_fifo()


def test_reads_refuse_fifos_devices_and_big_files(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeFile, match="is a FIFO"):
        read_capped(fifo, 100)  # never blocks waiting for a writer
    with pytest.raises(UnsafeFile, match="is a device"):
        read_capped("/dev/zero", 100)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(UnsafeFile, match="larger than golfref reads: more than 100 bytes"):
        read_capped(big, 100)
    assert read_capped(big, 101) == b"x" * 101


# -- item 6: hostile configs, logs and keys: one line, exit 2, bounded time and memory -----------------

TWO_PLAYERS = "players:\n  - {name: a, builtin: greedy}\n  - {name: b, builtin: random}\n"
BIG = "9" * 5000


def laughs(levels: int = 10) -> str:
    """A billion-laughs YAML: each alias level nine times the one before."""
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


MATCH_CONFIGS = {
    "holes-5000-digits": (f"rules: {{holes: {BIG}}}\n" + TWO_PLAYERS, "rules.holes: a number of 5,000 digits"),
    "seed-5000-digits": (f"seed: {BIG}\n" + TWO_PLAYERS, "seed: a number of 5,000 digits"),
    "seed-65-bits": (f"seed: {2**64 + 1}\n" + TWO_PLAYERS, "seed: 18446744073709551617 is greater than the maximum"),
    "holes-4000-digits": ("rules: {holes: " + "9" * 4000 + "}\n" + TWO_PLAYERS, "rules.holes: must be 1 to 36"),
    "holes-infinite": ("rules: {holes: 1.0e+309}\n" + TWO_PLAYERS, "rules.holes: 1.0e+309 is not a finite number"),
    "seed-nan": ("seed: .nan\n" + TWO_PLAYERS, "seed: .nan is not a finite number"),
    "long-name": (
        "players:\n  - {name: " + "n" * 500_000 + ", builtin: greedy}\n  - {name: b, builtin: random}\n",
        "players[0].name: 500,000 characters is too long: at most 40",
    ),
    "bidi-name": (
        'players:\n  - {name: "evil\\u202etxt.exe", builtin: greedy}\n  - {name: b, builtin: random}\n',
        "players[0].name: 'evil\\u202etxt.exe': a name may not hold control characters",
    ),
    "long-command": (
        "players:\n  - {name: a, command: [python3, " + "x" * 5000 + "]}\n  - {name: b, builtin: random}\n",
        "players[0].command",
    ),
    "many-env": (
        "players:\n  - name: a\n    command: [python3, bot.py]\n    env: {"
        + ", ".join(f"V{i}: x" for i in range(300))
        + "}\n  - {name: b, builtin: random}\n",
        "players[0].env: 300 entries is too many: at most 256",
    ),
    "many-sandbox-paths": (
        "sandbox: {paths: [" + ", ".join(["."] * 100) + "]}\n" + TWO_PLAYERS,
        "sandbox.paths: 100 items is too many: at most 64",
    ),
    "sandbox-proc-root": (
        "sandbox: {paths: [/proc/1/root]}\n" + TWO_PLAYERS,
        "sandbox.paths[0]: /proc/1/root is under /proc",
    ),
    "sandbox-dev": ("sandbox: {paths: [/dev]}\n" + TWO_PLAYERS, "sandbox.paths[0]: /dev is under /dev"),
    "sandbox-root": ("sandbox: {paths: [/]}\n" + TWO_PLAYERS, "sandbox.paths[0]: / shows the whole file system"),
    "player-sandbox-sys": (
        "players:\n  - {name: a, command: [python3, bot.py], sandbox: {paths: [/sys]}}\n"
        "  - {name: b, builtin: random}\n",
        "players[0].sandbox.paths[0]: /sys is under /sys",
    ),
    "billion-laughs": (laughs() + TWO_PLAYERS, "the YAML expands to more than 100,000 values"),
    "nested-lists": ("players: " + "[" * 100_000 + "]" * 100_000 + "\n", "the YAML is nested too deeply"),
    "two-megabytes": (
        "# " + "x" * (2 << 20) + "\n" + TWO_PLAYERS,
        "the config is larger than golfref reads: more than 1 MiB",
    ),
}

TOURNAMENT_CONFIGS = {
    "deal-sets-5000-digits": (f"deal_sets: {BIG}\n", "deal_sets: a number of 5,000 digits"),
    "seed-65-bits": (f"seed: {2**64}\n", "seed: 18446744073709551616 is greater than the maximum"),
    "sprt-infinite": (
        "stop: {sprt: {player: a, baseline: b, d0: .inf, d1: 1.0}}\n",
        "stop.sprt.d0: .inf is not a finite number",
    ),
    "gate-margin-huge": ("gate: {player: a, baseline: b, margin: 1.0e+300}\n", "gate.margin: 1e+300 is greater than"),
    "too-many-players": (
        "players:\n" + "".join(f"  - {{name: p{i}, builtin: random}}\n" for i in range(100)),
        "players: 100 items is too many: at most 64",
    ),
    "bidi-name": (
        'players:\n  - {name: "a\\u2067b", builtin: random}\n  - {name: b, builtin: greedy}\n',
        "players[0].name: 'a\\u2067b': a name may not hold control characters",
    ),
}


def golfref_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """One golfref command to its end (a hang fails the test at WAIT seconds)."""
    return subprocess.run(
        [sys.executable, "-m", "golfref", *args], capture_output=True, text=True, timeout=WAIT, cwd=cwd
    )


def assert_refused(done: subprocess.CompletedProcess[str], fragment: str, code: int = 2) -> None:
    """Exit `code`, one short `golfref: error:` line on stderr naming `fragment`, no traceback."""
    assert done.returncode == code, done.stdout + done.stderr
    line = one_error_line(done.stderr)
    assert fragment in line, line
    assert len(line) < 400, line[:400]


@pytest.mark.process
@pytest.mark.parametrize("case", list(MATCH_CONFIGS))
def test_a_hostile_match_config_is_one_line_exit_2(tmp_path: Path, case: str) -> None:
    text, fragment = MATCH_CONFIGS[case]
    (tmp_path / "bot.py").write_text("", encoding="utf-8")
    config = tmp_path / "match.yaml"
    config.write_text(f"match: hostile\n{text}" if "players: [" not in text else text, encoding="utf-8")
    for command in ("check-config", "run"):
        assert_refused(golfref_cli(command, str(config), cwd=tmp_path), fragment)


@pytest.mark.process
@pytest.mark.parametrize("case", list(TOURNAMENT_CONFIGS))
def test_a_hostile_tournament_config_is_one_line_exit_2(tmp_path: Path, case: str) -> None:
    text, fragment = TOURNAMENT_CONFIGS[case]
    players = (
        ""
        if text.startswith("players:")
        else "players:\n  - {name: a, builtin: random}\n  - {name: b, builtin: greedy}\n"
    )
    config = tmp_path / "cup.yaml"
    config.write_text(f"tournament: hostile\n{players}{text}", encoding="utf-8")
    assert_refused(golfref_cli("check-config", str(config), cwd=tmp_path), fragment)


@pytest.mark.process
@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("command", ["check-config", "run", "tournament"])
def test_a_config_that_is_no_regular_file_is_refused_unread(tmp_path: Path, kind: str, command: str) -> None:
    path = tmp_path / "config.yaml"
    if kind == "fifo":
        os.mkfifo(path)  # nobody writes it: reading would wait for ever
    target = str(path) if kind == "fifo" else "/dev/zero"  # /dev/zero: reading would never end
    what = "a FIFO" if kind == "fifo" else "a device"
    assert_refused(golfref_cli(command, target, cwd=tmp_path), f"{target}: is {what}, not a regular file")


def a_log(tmp_path: Path) -> Path:
    """A real log of a 1-hole match of two built-ins."""
    config = tmp_path / "m.yaml"
    config.write_text(f"match: m\nrules: {{holes: 1}}\nseed: 3\nlog: {{path: m.json}}\n{TWO_PLAYERS}", encoding="utf-8")
    done = golfref_cli("run", str(config), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path / "m.json"


@pytest.mark.process
@pytest.mark.parametrize("kind", ["fifo", "device", "too-big"])
@pytest.mark.parametrize("command", [("replay", "--check"), ("replay", "--json"), ("replay",), ("audit",)])
def test_a_log_that_is_no_regular_file_or_too_big_is_refused_unread(
    tmp_path: Path, kind: str, command: tuple[str, ...]
) -> None:
    if kind == "fifo":
        path = str(tmp_path / "log.json")
        os.mkfifo(path)
        fragment = f"{path}: is a FIFO, not a regular file"
    elif kind == "device":
        path, fragment = "/dev/zero", "/dev/zero: is a device, not a regular file"
    else:
        path = str(tmp_path / "log.json")
        Path(path).write_bytes(b" " * (2 << 20))
        command = (*command, "--max-log-mb", "1")
        fragment = f"{path}: the log is larger than golfref reads: more than 1 MiB"
    done = golfref_cli(*command, path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    if command[:2] == ("replay", "--check"):
        assert done.stdout.startswith(fragment), done.stdout
    elif command[:2] == ("replay", "--json"):
        assert fragment.split(": ", 1)[1] in json.loads(done.stdout)[0]["message"]
    else:
        assert fragment in one_error_line(done.stderr)


@pytest.mark.process
def test_max_log_mb_raises_the_cap(tmp_path: Path) -> None:
    log = a_log(tmp_path)
    assert golfref_cli("replay", "--check", "--max-log-mb", "1", str(log)).returncode == 0
    assert golfref_cli("replay", "--check", "--max-log-mb", "0", str(log)).returncode == 2


@pytest.mark.process
def test_a_transcript_that_is_a_fifo_is_refused_by_audit(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "log.json"
    config = tmp_path / "m.yaml"
    config.write_text(
        "match: m\nrules: {holes: 1}\nseed: 3\nlog: {path: logs/log.json, transcript: true}\n"
        f"players:\n  - {{name: a, command: [{sys.executable}, {HOSTILE_ECHO}]}}\n  - {{name: b, builtin: random}}\n",
        encoding="utf-8",
    )
    assert golfref_cli("run", str(config), "--quiet", cwd=tmp_path).returncode == 0
    transcript = log.with_name("log.seat0.transcript.jsonl")
    transcript.unlink()
    os.mkfifo(transcript)
    done = golfref_cli("audit", str(log))
    # A transcript that is no regular file counts as missing: audit never opens it.
    assert done.returncode == 2, done.stdout + done.stderr
    assert "no transcripts next to it" in one_error_line(done.stderr)


@pytest.mark.process
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_key_that_is_no_regular_file_is_refused_unread(tmp_path: Path, kind: str) -> None:
    log = a_log(tmp_path)
    key = str(tmp_path / "key.pub")
    if kind == "fifo":
        os.mkfifo(key)
    else:
        key = "/dev/zero"
    what = "a FIFO" if kind == "fifo" else "a device"
    assert_refused(golfref_cli("replay", "--check", "--trust", key, str(log)), f"--trust {key}: is {what}")
    assert_refused(golfref_cli("audit", "--trust", key, str(log)), f"--trust {key}: is {what}")


@pytest.mark.process
@pytest.mark.parametrize(
    ("name", "fragment"),
    [("x" * 5_000_000, "players[0].name: 5,000,000 characters, at most 40"), ("a\x1bb", "players[0].name: 'a\\x1bb'")],
)
def test_a_log_with_a_hostile_player_name_is_invalid(tmp_path: Path, name: str, fragment: str) -> None:
    from golfref.record.log import read_log, write_log

    doc = read_log(a_log(tmp_path))
    doc["players"][0]["name"] = name
    doc.pop("digest")
    hostile_log = tmp_path / "hostile.json"
    write_log(hostile_log, doc)  # sealed with its own digest: only the bound refuses it
    done = golfref_cli("replay", "--check", str(hostile_log))
    assert done.returncode == 1, done.stdout + done.stderr
    line = done.stdout.strip()
    assert "\n" not in line and len(line) < 400 and ": invalid: " in line and fragment in line, line[:400]


# -- item 8a: bidirectional controls are shown escaped, on the terminal and in HTML -----------------

BIDI = (
    "\u061c",
    "\u200e",
    "\u200f",
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
)


def raw_bidi(text: str) -> list[str]:
    """The bidirectional controls found raw in `text`."""
    return [f"U+{ord(c):04X}" for c in BIDI if c in text]


def test_terminal_and_html_escape_bidi_controls_by_one_function() -> None:
    from golfref.show.html_replay import json_for_script
    from golfref.show.terminal import BIDI_CONTROLS, page_text, sanitize

    assert set(BIDI) == BIDI_CONTROLS
    for ch in BIDI:
        text = f"a{ch}b\n"
        assert sanitize(text) == f"a\\u{ord(ch):04x}b\\x0a"
        assert page_text(text) == f"a\\u{ord(ch):04x}b\n"  # a page keeps the newline
        assert json.loads(json_for_script({"name": text})) == {"name": page_text(text)}


def test_the_config_name_pattern_refuses_every_bidi_control() -> None:
    from golfref.config.schemas import load_schema

    pattern = load_schema("match-config.schema.json")["properties"]["players"]["items"]["properties"]["name"]["pattern"]
    tournament = load_schema("tournament.schema.json")["properties"]["players"]["items"]["properties"]["name"]
    assert tournament["pattern"] == pattern
    import re

    assert all(re.search(pattern, f"a{ch}b") is None for ch in BIDI)
    assert re.search(pattern, "plain name") is not None


@pytest.mark.process
def test_a_bots_bidi_controls_reach_neither_terminal_nor_html_raw(tmp_path: Path, sandbox: bool) -> None:
    log_path = tmp_path / "logs" / "bidi.json"
    config: dict[str, Any] = {
        "match": "bidi",
        "seed": 5,
        "rules": {"preset": "standard", "layout": "2x2", "holes": 1},
        "players": [{"name": "bidi", "command": bot("bidi_bot.py")}, {"name": "house", "builtin": "greedy"}],
        "time": {"startup_ms": 20000, "move_ms": 10000},
        "faults": {"policy": "fallback", "fallback": "greedy", "max_faults": 10},
        "log": {"path": str(log_path), "transcript": True},
    }
    if sandbox:
        config["sandbox"] = {"enabled": True}
    done = run(tmp_path, config)
    log = json.loads(log_path.read_text(encoding="utf-8"))
    player = log["players"][0]
    # The log keeps what the bot sent, as it sent it: the bounds above are what shows it.
    assert "\u202e" in player["reported_name"] and "\u2066" in (player["stderr"] or "")
    assert any("\u202e" in (f.get("line") or "") for f in log["faults"]), log["faults"]
    assert raw_bidi(done.stdout + done.stderr) == [], done.stdout + done.stderr
    outputs = [done.stdout + done.stderr]
    for args in (["replay", str(log_path)], ["replay", "--check", str(log_path)], ["audit", str(log_path)]):
        shown = golfref_cli(*args)
        assert shown.returncode in (0, 1), shown.stderr
        outputs.append(shown.stdout + shown.stderr)
    page = tmp_path / "bidi.html"
    assert golfref_cli("replay", str(log_path), "--html", str(page)).returncode == 0
    html = page.read_text(encoding="utf-8")
    for text in [*outputs, html]:
        assert raw_bidi(text) == [], text[:2000]
    assert "\\\\u202etxt.exe" in html  # shown, escaped (a JSON string in the page: its backslash doubled)
    assert any("\\u202e" in text for text in outputs)
