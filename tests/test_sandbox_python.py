"""Which Python a sandboxed bot runs (golfref/bots/pythons.py, bots/sandbox.py; docs/SANDBOX.md,
"Which Python a sandboxed bot runs").

Real interpreters, asked and run: a virtual environment made over the system's python3, first
on the bot's PATH; a copy of the system's Python installed outside /usr (standing in for a
pyenv version, conda, /opt and CI's setup-python), named by its path; a pyenv-style shim on
PATH that picks that copy by the `.python-version` of the bot's working directory; and a
`#!/usr/bin/env python3` script found through that shim. Four such bots play one match with
the sandbox on (with bubblewrap, and without it) and off, as root and as an ordinary user.
Each says on stderr, which the log keeps, which interpreter ran it and what it could import
(tests/bots/which_python_bot.py). Where only golfref's decision is tested, a fake `python3`
(a shell script printing an answer) stands in for the interpreter asked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from golfref.bots import pythons, sandbox
from golfref.config.match import ConfigError, parse_config
from golfref.config.programs import Shebang
from golfref.match.referee import run_match
from golfref.record.faults import FaultKind, kind_hint, missing_module

from .conftest import BOTS, ROOT, private_to_root
from .test_cli_run import TOKEN, leftovers
from .test_sandbox import (
    HOUSE,
    SYSTEM_PYTHON,
    _boxes,
    _close,
    _config,
    _play,
    _program,
    _system_python_matches,
    needs_bubblewrap,
    needs_root,
)

LAYOUTS = ("venv", "prefix", "shim", "script")
"""The four bots of a match, seat by seat (the module docstring says what each is)."""
MODULES = ("golfref", "typer", "yaml", "golfref_base_marker", "golfref_venv_marker")
"""What each bot tries to import: the referee's packages, and a module of each installation's site-packages."""


@dataclass(frozen=True)
class Pythons:
    """The interpreters of these tests, in a folder every user may enter."""

    root: Path
    system: str
    """The system's python3, as a real path (/usr/bin/python3.11)."""
    version: str
    prefix: Path
    """A copy of the system's installation outside /usr, with `golfref_base_marker` in its site-packages."""
    python: Path
    """The copy's interpreter, by its real path."""
    site: Path
    """The copy's site-packages, holding `golfref_base_marker`."""
    venv: Path
    """A virtual environment over the system's python3, with `golfref_venv_marker`."""
    prefix_venv: Path
    """A virtual environment over the copy, with `golfref_venv_marker`."""
    shims: Path
    """A folder holding a pyenv-style `python3` shim: the copy where `.python-version` says `copy`, else the
    system's."""


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=300, check=False)


def _venv(python: str, folder: Path) -> Path:
    """A virtual environment made by `python` (without pip: fast), with `golfref_venv_marker` in its site-packages."""
    made = _run([python, "-m", "venv", "--without-pip", str(folder)], folder.parent)
    if made.returncode != 0:
        pytest.skip(f"{python} -m venv --without-pip fails here: {made.stderr.strip()[-200:]}")
    (site,) = folder.glob("lib/python3*/site-packages")
    (site / "golfref_venv_marker.py").write_text("", encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def interpreters() -> Iterator[Pythons]:
    """The interpreters, made once per test process: a copy of the system's Python takes a second."""
    if not os.path.exists(SYSTEM_PYTHON):
        pytest.skip(f"needs {SYSTEM_PYTHON}, whose installation these tests copy")
    root = Path(tempfile.mkdtemp(prefix="golfref-pythons-"))
    root.chmod(0o755)  # the bots' own users must reach it
    try:
        said = _run([SYSTEM_PYTHON, "-I", "-c", "import json, os, sys, sysconfig; print(json.dumps(["
                     "os.path.realpath(sys.executable), sysconfig.get_paths()['stdlib'], sys.version.split()[0]]))"],
                    root)  # fmt: skip
        system, stdlib, version = json.loads(said.stdout)
        major_minor = ".".join(version.split(".")[:2])
        # Python finds its prefix from its executable's place, by the landmark lib/pythonX.Y/os.py.
        prefix = root / "opt" / f"python{major_minor}"
        (prefix / "bin").mkdir(parents=True)
        python = prefix / "bin" / f"python{major_minor}"
        shutil.copy2(system, python)
        (prefix / "bin" / "python3").symlink_to(python.name)
        skip = shutil.ignore_patterns("config-*", "__pycache__", "test", "tests", "idlelib", "tkinter", "turtledemo",
                                      "lib2to3", "pydoc_data", "ensurepip")  # fmt: skip
        shutil.copytree(stdlib, prefix / "lib" / f"python{major_minor}", symlinks=True, ignore=skip)
        asked = _run([str(python), "-I", "-c", "import json, site, sys; print(json.dumps([sys.prefix, "
                      "site.getsitepackages()]))"], root)  # fmt: skip
        if asked.returncode != 0 or json.loads(asked.stdout)[0] != str(prefix):
            pytest.skip(f"a copy of {system} does not run from another folder here: {asked.stderr.strip()[-200:]}")
        site = Path(json.loads(asked.stdout)[1][0])
        site.mkdir(parents=True, exist_ok=True)
        (site / "golfref_base_marker.py").write_text("", encoding="utf-8")
        shims = root / "shims"
        _program(shims / "python3", (
            "#!/bin/sh\n# As pyenv's: the version PYENV_VERSION or the working directory's .python-version names.\n"
            'version=${PYENV_VERSION:-$(cat .python-version 2>/dev/null)}\n'
            f'if [ "$version" = copy ]; then exec {prefix}/bin/python3 "$@"; fi\n'
            f'exec {SYSTEM_PYTHON} "$@"\n'
        ))  # fmt: skip
        yield Pythons(root, system, version, prefix, python, site, _venv(SYSTEM_PYTHON, root / "venv"),
                      _venv(str(python), root / "prefix-venv"), shims)  # fmt: skip
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _players(p: Pythons, folder: Path) -> list[dict[str, Any]]:
    """The four bots, seat by seat (`LAYOUTS`), each in a folder of its own under `folder`."""
    players = []
    for layout in LAYOUTS:
        bots = folder / "bots" / layout
        bots.mkdir(parents=True)
        shutil.copy(BOTS / "which_python_bot.py", bots / "bot.py")  # run bits kept: the script is run by name
        if layout in ("shim", "script"):
            (bots / ".python-version").write_text("copy\n", encoding="utf-8")
        first = {"venv": f"{p.venv}/bin:", "prefix": ""}.get(layout, f"{p.shims}:")
        path = f"{first}/usr/bin:/bin"
        command = {"venv": ["python3", "bot.py"], "prefix": [str(p.python), "bot.py"], "shim": ["python3", "bot.py"],
                   "script": ["./bot.py"]}[layout]  # fmt: skip
        players.append({"name": layout, "command": [*command, *MODULES], "cwd": str(bots), "env": {"PATH": path}})
    return players


def _said(log: dict[str, Any], seat: int) -> dict[str, str]:
    """What the seat's which_python_bot.py said on stderr, by key (`executable`, `import yaml`, ...)."""
    return dict(re.findall(r"^which ([^:]+): (.*)$", log["players"][seat]["stderr"] or "", flags=re.M))


def _check(p: Pythons, log: dict[str, Any], how: str) -> None:
    """Each bot ran the Python it should have, saw what it should, and the log says so."""
    shown_base = how != "bubblewrap"  # the copy's site-packages: covered under bubblewrap only
    for seat, layout in enumerate(LAYOUTS):
        said = _said(log, seat)
        assert said, f"{layout}: {log['players'][seat]['stderr']}"
        if layout == "venv" and how == "off":
            python, prefix, sees = str(p.venv / "bin" / "python3"), str(p.venv), {"golfref_venv_marker"}
        elif layout == "venv":  # the installation the environment was made from: the system's
            python, prefix, sees = p.system, "/usr", set()
        else:
            python, prefix, sees = str(p.python), str(p.prefix), {"golfref_base_marker"} if shown_base else set()
        assert os.path.realpath(said["executable"]) == os.path.realpath(python), (layout, said)
        assert said["prefix"] == prefix, (layout, said)
        assert said["version"] == p.version
        for module in MODULES:
            where = said[f"import {module}"]
            if module in sees:
                assert where != "missing", (layout, module)
            elif module == "yaml":  # the system's own python3-yaml may be installed under /usr: never golfref's
                assert where == "missing" or where.startswith("/usr/"), (layout, where)
            else:
                assert where == "missing", (layout, module, where)
        assert not any(Path(entry).is_relative_to(sys.prefix) for entry in json.loads(said["path"]) if entry)
        box = log["players"][seat]["sandbox"]
        if how == "off":
            assert "interpreter" not in box
            continue
        program = {"venv": p.venv / "bin" / "python3", "prefix": p.python}.get(layout, p.shims / "python3")
        shown = [str(p.prefix)] if how == "bubblewrap" and layout != "venv" else []
        covered = [str(p.site)] if shown else []
        assert box["interpreter"] == {"program": str(program), "executable": python, "version": p.version,
                                      "shown": shown, "covered": covered}, layout  # fmt: skip


# -- the four bots, as root (the referee in this process) -------------------------------------


@pytest.mark.process
@needs_root
@pytest.mark.parametrize("how", [pytest.param("bubblewrap", marks=needs_bubblewrap), "no-bubblewrap", "off"])
def test_each_bot_runs_its_pythons_installation_as_root(
    interpreters: Pythons, shared: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "no-bubblewrap":
        monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    text = _config(shared, _players(interpreters, shared), {"enabled": how != "off"})
    result, log = _play(shared, text)
    assert result.faults == (), [p["stderr"] for p in log["players"]]
    _check(interpreters, log, how)
    users = [p["sandbox"]["user"] for p in log["players"]]
    assert all(u not in (None, 0) for u in users) if how != "off" else users == [None] * 4


# -- the same bots, the referee run as an ordinary user --------------------------------------


def _cannot_run_as_nobody() -> str | None:
    """Why the referee cannot be run here as an ordinary user (nobody), or None."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return "needs root and setpriv, to run the referee as an ordinary user"
    if not _system_python_matches():
        return f"needs a system python3 of this version ({sys.version_info[:2]}), to run golfref as nobody"
    return private_to_root(ROOT / "golfref" / "__init__.py", Path(yaml.__file__), BOTS / "which_python_bot.py")


@pytest.mark.process
@pytest.mark.parametrize("how", [pytest.param("bubblewrap", marks=needs_bubblewrap), "no-bubblewrap", "off"])
def test_each_bot_runs_its_pythons_installation_under_an_ordinary_user(
    interpreters: Pythons, shared: Path, how: str
) -> None:
    """The referee as nobody (65534): bubblewrap in a user namespace of its own, or no bubblewrap (none on its
    PATH), or no sandbox; the bots run as the referee's user and get the same Pythons as under root."""
    reason = _cannot_run_as_nobody()
    if reason is not None:
        pytest.skip(reason)
    shared.chmod(0o777)  # the referee's user writes the log there
    config = shared / "match.yaml"
    config.write_text(_config(shared, _players(interpreters, shared), {"enabled": how != "off"}), encoding="utf-8")
    config.chmod(0o644)
    site_packages = next(p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    code = (
        f"import site, sys; site.addsitedir({site_packages!r}); sys.path.insert(0, {str(ROOT)!r}); "
        f"sys.argv = ['golfref', 'run', {str(config)!r}, '--quiet']; from golfref.__main__ import main; main()"
    )
    empty = shared / "no-bwrap"  # a PATH without bubblewrap (the bots' PATHs are their own)
    empty.mkdir()
    path = str(empty) if how == "no-bubblewrap" else "/usr/bin:/bin"
    setpriv = shutil.which("setpriv")
    assert setpriv is not None
    done = subprocess.run(
        [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", SYSTEM_PYTHON, "-c", code],
        capture_output=True, text=True, cwd=shared, timeout=300, check=False,
        env={"PATH": path, "HOME": str(shared), "LANG": "C.UTF-8"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (log_path,) = (shared / "logs").glob("*.json")
    log = json.loads(log_path.read_text(encoding="utf-8"))
    _check(interpreters, log, how)
    for player in log["players"]:
        assert player["sandbox"]["user"] is None  # the referee's own: nobody
        assert player["sandbox"]["bubblewrap"] is (how == "bubblewrap")


# -- a virtual environment the sandbox shows --------------------------------------------------


@pytest.mark.process
@needs_bubblewrap
def test_a_virtual_environment_in_the_players_paths_runs_as_it_is_over_its_installation(
    interpreters: Pythons, shared: Path
) -> None:
    """The recipe over a Python outside /usr: the environment's own interpreter and packages, its base
    installation shown for it with that installation's site-packages covered."""
    (bot,) = _players(interpreters, shared)[:1]
    bot["env"] = {"PATH": f"{interpreters.prefix_venv}/bin:/usr/bin:/bin"}
    bot["sandbox"] = {"paths": [str(interpreters.prefix_venv)]}
    result, log = _play(shared, _config(shared, [bot, HOUSE], {"enabled": True}))
    assert result.faults == (), log["players"][0]["stderr"]
    said = _said(log, 0)
    assert said["executable"] == str(interpreters.prefix_venv / "bin" / "python3")
    assert said["prefix"] == str(interpreters.prefix_venv)
    assert said["import golfref_venv_marker"] != "missing" and said["import golfref_base_marker"] == "missing"
    assert said["import golfref"] == said["import typer"] == "missing"
    venv_python = str(interpreters.prefix_venv / "bin" / "python3")
    assert log["players"][0]["sandbox"]["interpreter"] == {
        "program": venv_python, "executable": venv_python, "version": interpreters.version,
        "shown": [str(interpreters.prefix)], "covered": [str(interpreters.site)],
    }  # fmt: skip


# -- this machine's own pyenv, where it has one ------------------------------------------------


def _pyenv_shim() -> Path | None:
    """The pyenv shim `python3` is on this test's PATH, if it is one."""
    found = shutil.which("python3")
    if found is None or Path(found).parent.name != "shims" or not (Path(found).parents[1] / "versions").is_dir():
        return None
    return Path(found)


needs_pyenv = pytest.mark.skipif(_pyenv_shim() is None, reason="python3 on this test's PATH is no pyenv shim")


@pytest.mark.process
@needs_bubblewrap
@needs_pyenv
def test_this_machines_pyenv_python3_plays_sandboxed_on_its_version(shared: Path) -> None:
    shim = _pyenv_shim()
    assert shim is not None
    bots = shared / "bot"
    bots.mkdir()
    shutil.copy(BOTS / "which_python_bot.py", bots / "bot.py")
    player = {"name": "pyenv", "command": ["python3", "bot.py", *MODULES], "cwd": str(bots),
              "env": {"PATH": f"{shim.parent}:/usr/bin:/bin"}}  # fmt: skip
    result, log = _play(shared, _config(shared, [player, HOUSE], {"enabled": True}))
    assert result.faults == (), log["players"][0]["stderr"]
    ran = log["players"][0]["sandbox"]["interpreter"]
    said = _said(log, 0)
    assert ran["program"] == str(shim) and Path(ran["executable"]).is_relative_to(shim.parents[1] / "versions")
    assert os.path.realpath(said["executable"]) == ran["executable"] and said["version"] == ran["version"]
    assert all(said[f"import {m}"] == "missing" for m in ("golfref", "typer", "yaml"))  # its site-packages: covered


# -- what golfref refuses, and what it runs, decided from an interpreter's answer ---------------


@pytest.fixture
def bubblewrap_present(monkeypatch: pytest.MonkeyPatch) -> None:
    """bubblewrap looks usable: the sandboxes' command lines are built, never run."""
    monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: None)
    monkeypatch.setattr(sandbox, "_bwrap", lambda: "/nonexistent/bwrap")


def _fake_python(path: Path, base: Path, *, executable: Path | None = None, sites: tuple[Path, ...] = ()) -> Path:
    """A `python3` that answers golfref's question as an installation in `base` would (its interpreter
    `executable`, by default itself), made with a stand-in interpreter at that place."""
    executable = executable or path
    if executable != path:
        _program(executable)
    answer = {"executable": str(executable), "base_executable": str(executable), "prefix": str(base),
              "base_prefix": str(base), "base_exec_prefix": str(base), "version": "3.99.0",
              "site_packages": [str(s) for s in sites], "home": None}  # fmt: skip
    return _program(path, f"#!/bin/sh\ncat <<'EOF'\n{json.dumps(answer)}\nEOF\n")


def _refusal(shared: Path, player: dict[str, Any], hide: tuple[Path, ...] = ()) -> str:
    with pytest.raises(ConfigError) as caught:
        _boxes(_config(shared, [player, HOUSE], {"enabled": True}), shared, hide)
    return str(caught.value)


INSTEAD = "install that Python in a folder of its own (pyenv, /opt/python3.X, conda) or use one under /usr"


@pytest.mark.process
def test_an_installation_a_sandbox_cannot_show_whole_is_refused_in_one_line(
    shared: Path, bubblewrap_present: None
) -> None:
    (shared / "bots").mkdir()
    whole = _fake_python(shared / "root-python" / "python3", Path("/"))
    said = _refusal(shared, {"name": "p", "command": [str(whole), "-c", "pass"], "cwd": str(shared / "bots")})
    assert said == (f"sandbox: seat 0: its program {whole} runs Python 3.99.0 installed in /, the whole file system, "
                    f"which a sandbox never shows; {INSTEAD}")  # fmt: skip
    home = shared / "home"
    _fake_python(home / "bin" / "python3", home)
    player = {"name": "p", "command": ["python3", "-c", "pass"], "cwd": str(shared / "bots"),
              "env": {"PATH": f"{home}/bin:/usr/bin:/bin", "HOME": str(home)}}  # fmt: skip
    assert _refusal(shared, player) == (
        f"sandbox: seat 0: its program python3 runs Python 3.99.0 installed in {home}, the home folder {home}: a "
        f"sandbox shows a Python's installation whole, and never a home folder; {INSTEAD}"
    )
    place = shared / "place"
    key = place / "key.pem"
    _fake_python(place / "bin" / "python3", place)
    key.write_text("secret", encoding="utf-8")
    player = {"name": "p", "command": [str(place / "bin" / "python3"), "-c", "pass"], "cwd": str(shared / "bots")}
    assert _refusal(shared, player, hide=(key,)) == (
        f"sandbox: seat 0: its program {place}/bin/python3 runs Python 3.99.0 installed in {place}, which holds the "
        f"referee's {key} (no bot may see it); {INSTEAD}"
    )


@pytest.mark.process
def test_an_installation_is_shown_with_its_site_packages_covered_the_referees_among_them(
    shared: Path, bubblewrap_present: None
) -> None:
    """golfref installed in that Python without a virtual environment: its site-packages is the
    installation's, covered, not a reason to refuse."""
    place = shared / "place"
    site = place / "lib" / "python3.99" / "site-packages"
    site.mkdir(parents=True)
    python = _fake_python(place / "bin" / "python3", place, sites=(site, place / "lib" / "nowhere"))
    bots = shared / "bots"
    bots.mkdir()
    (bots / "bot.py").write_text("", encoding="utf-8")
    player = {"name": "p", "command": [str(python), "bot.py"], "cwd": str(bots)}
    boxes = _boxes(_config(shared, [player, HOUSE], {"enabled": True}), shared, hide=(site,))
    try:
        argv = boxes[0].argv
        assert [str(place), str(place)] in [argv[i + 1 : i + 3] for i, a in enumerate(argv) if a == "--ro-bind"]
        assert ["--tmpfs", str(site)] in [argv[i : i + 2] for i in range(len(argv))]
        assert argv[-2:] == [str(python), "bot.py"]
        assert boxes[0].protections.interpreter == sandbox.PythonRun(
            str(python), str(python), "3.99.0", (str(place),), (str(site),))
    finally:
        _close(boxes)


@pytest.mark.process
@pytest.mark.parametrize(
    ("line", "run"),
    [
        ("#!/usr/bin/env python3", []),
        ("#!/usr/bin/env -S python3 -u -X dev", ["-u", "-X", "dev"]),
        ("#!{python} -u", ["-u"]),
    ],
)
def test_a_scripts_python_runs_the_script_as_its_line_would(
    shared: Path, bubblewrap_present: None, line: str, run: list[str]
) -> None:
    place = shared / "place"
    python = _fake_python(place / "bin" / "python3", place)
    bots = shared / "bots"
    _program(bots / "bot", line.format(python=python) + "\n")
    player = {"name": "p", "command": ["./bot", "--fast"], "cwd": str(bots), "env": {"PATH": f"{place}/bin:/usr/bin"}}
    boxes = _boxes(_config(shared, [player, HOUSE], {"enabled": True}), shared)
    try:
        assert boxes[0].argv[-(len(run) + 3) :] == [str(python), *run, "./bot", "--fast"]
    finally:
        _close(boxes)


@pytest.mark.process
def test_a_scripts_line_giving_env_more_than_the_python_is_refused(shared: Path, bubblewrap_present: None) -> None:
    place = shared / "place"
    python = _fake_python(place / "bin" / "python3", place)
    bots = shared / "bots"
    _program(bots / "bot", "#!/usr/bin/env -i python3\n")
    player = {"name": "p", "command": ["./bot"], "cwd": str(bots), "env": {"PATH": f"{place}/bin:/usr/bin"}}
    assert _refusal(shared, player) == (
        "sandbox: seat 0: the #! line of its program ./bot gives env more than the Python to run (-i python3), "
        f"which golfref cannot pass on when it runs {python} itself; name the interpreter in the command instead"
    )


@pytest.mark.process
@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("echo boom >&2; exit 3", "it exited with code 3: boom"),
        ("echo hello", "its answer is not a Python's: it printed 'hello'"),
        ("head -c 100000 /dev/zero | tr '\\0' x", f"it printed more than {pythons.ANSWER_BYTES} bytes"),
        ("exec sleep 600", "it did not answer within 1 s"),
        ("exec >&- 2>&-; exec sleep 600", "it did not end within 1 s"),
    ],
    ids=["fails", "garbage", "floods", "hangs", "lingers"],
)
def test_a_python_that_cannot_say_where_it_is_installed_is_refused_and_left_behind_by_nothing(
    shared: Path, bubblewrap_present: None, monkeypatch: pytest.MonkeyPatch, body: str, why: str
) -> None:
    monkeypatch.setattr(pythons, "ASK_SECONDS", 1.0)
    python = _program(shared / "odd" / "python3", f"#!/bin/sh\n{body}\n")
    (shared / "bots").mkdir()
    token = uuid.uuid4().hex
    player = {"name": "p", "command": [str(python), "-c", "pass"], "cwd": str(shared / "bots"), "env": {TOKEN: token}}
    assert _refusal(shared, player) == (
        f"sandbox: seat 0: its program {python} is a Python the sandbox does not show ({python}), and it cannot say "
        f"where it is installed: {why}; check that `{python} -c 'import sys; print(sys.base_prefix)'` runs in the "
        "bot's working directory, or name an interpreter under /usr"
    )
    assert leftovers(token) == []


@pytest.mark.process
def test_an_interpreter_is_asked_once_per_program_working_directory_and_environment(shared: Path) -> None:
    place = shared / "place"
    python = _fake_python(place / "bin" / "python3", place)
    text = python.read_text(encoding="utf-8")
    python.write_text(text.replace("#!/bin/sh\n", f"#!/bin/sh\necho asked >> {shared}/asked\n"), encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "GOLFREF_SEAT": "0"}
    first = pythons.ask(python, str(shared), env)
    assert pythons.ask(python, str(shared), {**env, "GOLFREF_SEAT": "1"}) is first  # the referee's own, left out
    assert (shared / "asked").read_text(encoding="utf-8").count("asked") == 1
    pythons.ask(python, str(place), env)
    pythons.ask(python, str(shared), {**env, "PYENV_VERSION": "3.12"})
    assert (shared / "asked").read_text(encoding="utf-8").count("asked") == 3


# -- without bubblewrap, as root: the bot's own user must reach its Python ---------------------


@pytest.mark.process
@needs_root
def test_without_bubblewrap_a_python_its_own_user_cannot_reach_is_refused_as_the_docs_show(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pyenv-style shim others may run, whose version lies in a 0700 folder (as ~/.pyenv under /root)."""
    monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    private = shared / "private"
    private.mkdir(mode=0o700)
    private.chmod(0o700)
    version = private / "versions" / "3.99.0"
    base = version / "bin" / "python3.99"
    _fake_python(shared / "shims" / "python3", version, executable=base)
    (shared / "bots").mkdir()
    shutil.copy(BOTS / "echo_bot.py", shared / "bots")
    player = {"name": "p", "command": ["python3", "echo_bot.py"], "cwd": str(shared / "bots"),
              "env": {"PATH": f"{shared}/shims:/usr/bin:/bin"}}  # fmt: skip
    config = parse_config(_config(shared, [player, HOUSE], {"enabled": True}), base_dir=shared)
    with pytest.raises(ConfigError) as caught:
        run_match(config)
    text = (ROOT / "docs" / "SANDBOX.md").read_text(encoding="utf-8")
    (shown,) = re.findall(r"^golfref: error: (sandbox: seat 0: the bot's own user .* the Python of its .*)$", text,
                          flags=re.M)  # fmt: skip
    expected = shown.replace("/root/.pyenv/versions/3.11.7/bin/python3.11", str(base))
    assert str(caught.value) == expected.replace("/root (mode 0700)", f"{private} (mode 0700)")


# -- golfref's own packages --------------------------------------------------------------------


def test_golfref_installed_without_a_virtual_environment_keeps_its_site_packages_from_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sys.prefix != sys.base_prefix:
        assert pythons.referee_packages() == (Path(sys.prefix),)  # a virtual environment: hidden whole
    site = tmp_path / "site-packages"
    (site / "golfref" / "bots").mkdir(parents=True)
    monkeypatch.setattr(sys, "base_prefix", sys.prefix)  # as if no virtual environment
    monkeypatch.setattr(pythons, "__file__", str(site / "golfref" / "bots" / "pythons.py"))  # pip install --user
    found = pythons.referee_packages()
    assert site in found
    assert all(Path(p) in found for p in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
               if os.path.isdir(p))  # fmt: skip


@pytest.mark.process
@needs_bubblewrap
def test_golfrefs_site_packages_under_usr_are_covered_for_the_systems_python(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """golfref installed into the system's Python (its packages under /usr, which every sandbox shows)."""
    from golfref.bots import launch

    found = _run([SYSTEM_PYTHON, "-c", "import yaml; print(yaml.__file__)"], shared)
    if found.returncode != 0:
        pytest.skip(f"{SYSTEM_PYTHON} has no yaml here to stand for golfref's packages")
    packages = Path(found.stdout.strip()).parents[1]
    shutil.copy(BOTS / "which_python_bot.py", shared / "bot.py")
    player = {"name": "system", "command": [SYSTEM_PYTHON, "bot.py", "yaml"], "cwd": str(shared)}
    monkeypatch.setattr(launch, "referee_packages", lambda: (packages,))
    result, log = _play(shared, _config(shared, [player, HOUSE], {"enabled": True}))
    assert result.faults == () and _said(log, 0)["import yaml"] == "missing"
    monkeypatch.undo()
    result, log = _play(shared, _config(shared, [player, HOUSE], {"enabled": True}))
    assert _said(log, 0)["import yaml"].startswith(str(packages))  # the same, as the system shows it


# -- the #! line, and the hint for a missing module (no process) --------------------------------


@pytest.mark.parametrize(
    ("line", "arguments"),
    [
        (Shebang("/usr/bin/python3"), ()),
        (Shebang("/usr/bin/python3", "-u"), ("-u",)),
        (Shebang("/usr/bin/python3", "-u -X dev"), ("-u -X dev",)),  # the kernel passes one argument, unsplit
        (Shebang("/usr/bin/env", "python3"), ()),
        (Shebang("/usr/bin/env", "-S python3 -u"), ("-u",)),
        (Shebang("/usr/bin/env", "-Spython3 -u"), ("-u",)),
        (Shebang("/usr/bin/env", "python3 -u"), None),  # without -S, env looks for a program called "python3 -u"
        (Shebang("/usr/bin/env", "-i python3"), None),
        (Shebang("/usr/bin/env", "-S A=1 python3"), None),
        (Shebang("/usr/bin/env"), None),
    ],
)
def test_a_shebang_says_what_its_interpreter_is_given_before_the_script(
    line: Shebang, arguments: tuple[str, ...] | None
) -> None:
    assert line.arguments() == arguments


TRACEBACK = 'Traceback (most recent call last):\n  File "bot.py", line 1, in <module>\n    import numpy\n'


def test_a_bot_that_ends_on_a_module_it_lacks_is_told_to_get_an_environment_of_its_own() -> None:
    stderr = TRACEBACK + "ModuleNotFoundError: No module named 'numpy'\n"
    assert missing_module(stderr) == "numpy"
    hint = kind_hint(FaultKind.EXITED, "the bot exited (code 1) before its ready", None, stderr)
    assert hint.startswith("its Python has no module 'numpy': ") and "sandbox.paths" in hint
    assert kind_hint(FaultKind.EXITED, "the bot exited (code 1)", None, TRACEBACK + "ImportError: x\n") == (
        kind_hint(FaultKind.EXITED)
    )
    assert missing_module(stderr + "\n".join(f"later line {i}" for i in range(20))) is None  # not in the report's tail
