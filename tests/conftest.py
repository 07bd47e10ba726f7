"""Shared test setup: hypothesis profiles, the path to test bots, known signal dispositions
for a child a test sends signals to, whether another user may read the checkout, and `--compiled`.

`pytest --compiled TESTS` runs TESTS against the compiled build in build/compiled (`make
compiled`, which `make test` runs), put first on sys.path before golfref is imported; every
test skips, saying why, where that build is missing or stale. Without it, the tests check
that they run against the pure package.

`make check` sets GOLFREF_TEST_NO_PROCESSES=1 and runs the tests not marked `process`: there,
a test that starts a process (subprocess, fork, spawn) fails at its end, naming what it
started, so the fast part of the suite stays free of bots, browsers and builds and the
`process` mark stays true.

Profiles: `ci` (the default: a fixed, moderate number of examples) and `thorough`
(on demand: `HYPOTHESIS_PROFILE=thorough make test`).
"""

from __future__ import annotations

import multiprocessing.util
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from bench import compiled

settings.register_profile(
    "ci",
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

TESTS = Path(__file__).parent
ROOT = TESTS.parent
BOTS = TESTS / "bots"
SYSTEM_BIN = "/usr/bin"


def system_first_path() -> str:
    """A PATH on which `python3` is the system's (/usr/bin/python3), as on a stock machine, for a test
    that runs a documented config naming a bare `python3` sandboxed: whatever the test's own PATH
    finds first (a pyenv shim, a virtual environment) would run on its base installation, which
    bubblewrap shows, but without bubblewrap a root referee's bot user cannot reach a pyenv under
    /root, and the example would be refused (docs/SANDBOX.md, "Which Python a sandboxed bot runs")."""
    rest = os.environ.get("PATH") or os.defpath
    if not os.path.exists(os.path.join(SYSTEM_BIN, "python3")):
        return rest
    return os.pathsep.join([SYSTEM_BIN, "/bin", rest])


def private_to_root(*files: str | os.PathLike[str]) -> str | None:
    """Why another user could not read `files` (a checkout or virtual environment in a 0700 folder),
    as a one-line skip reason; None when it could. Tests that run golfref as another user need this."""
    from golfref.bots.sandbox import Access, others_cannot

    for path in files:
        stop = others_cannot(path, Access.READ)
        if stop is not None:
            return f"another user cannot read {path} ({stop}): the checkout or its environment is private"
    return None


def default_signals(*ignored: signal.Signals) -> Callable[[], None]:
    """A preexec function: the child starts with the stop signals at their defaults, whatever
    the test process inherited (a suite started in the background ignores SIGINT), except
    `ignored`, which it starts ignoring (as under nohup)."""

    def reset() -> None:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN if sig in ignored else signal.SIG_DFL)

    return reset


NO_PROCESSES = "GOLFREF_TEST_NO_PROCESSES"  # set by `make check`


@pytest.fixture(autouse=True)
def _no_processes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Under `make check`, fail a test not marked `process` that starts one (see the module docstring).

    The start is recorded and let through, and the test fails at its end: failing at the start
    itself would leave a test hung whose process a thread of its own was starting."""
    if os.environ.get(NO_PROCESSES) != "1" or request.node.get_closest_marker("process") is not None:
        yield
        return
    started: list[str] = []

    def recorded(what: str, start: Callable[..., Any]) -> Callable[..., Any]:
        def starts(*args: Any, **kwargs: Any) -> Any:
            started.append(what)
            return start(*args, **kwargs)

        return starts

    monkeypatch.setattr(subprocess.Popen, "__init__", recorded("subprocess.Popen", subprocess.Popen.__init__))
    monkeypatch.setattr(
        multiprocessing.util, "spawnv_passfds", recorded("multiprocessing", multiprocessing.util.spawnv_passfds)
    )
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, recorded(f"os.{name}", getattr(os, name)))
    yield
    if started:
        pytest.fail(f"this test starts processes ({', '.join(sorted(set(started)))}): mark it pytest.mark.process")


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--compiled`: run against the compiled build (see the module docstring)."""
    parser.addoption("--compiled", action="store_true", help="run against the compiled build in build/compiled")


_compiled_skip: str | None = None  # why the tests of the compiled build skip


def pytest_configure(config: pytest.Config) -> None:
    """Put the compiled build first with `--compiled`; else make sure no compiled module shadows a source."""
    global _compiled_skip
    if config.getoption("--compiled"):
        _compiled_skip = compiled.unavailable()
        if _compiled_skip is None:
            compiled.use()
        return
    import golfref  # first imported here: from the sources, as the editable install has it

    for name in compiled.modules():
        module = __import__(name, fromlist=["_"])
        assert str(module.__file__).endswith(".py"), f"{name} is not the pure source: {module.__file__}"
    assert golfref.__file__ is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With `--compiled`: skip every test, saying why, when there is no compiled build to use.

    The `pure` tests look into the pure-Python classes, which compiled ones are not: they
    are deselected (they ran in the pure run), so that a skip always means something missing.
    """
    if not config.getoption("--compiled"):
        return
    pure = [item for item in items if item.get_closest_marker("pure") is not None]
    if pure:
        config.hook.pytest_deselected(items=pure)
        items[:] = [item for item in items if item.get_closest_marker("pure") is None]
    if _compiled_skip is not None:
        for item in items:
            item.add_marker(pytest.mark.skip(reason=_compiled_skip))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Say which build of golfref ran, in one line, when it was not the pure package."""
    if not config.getoption("--compiled"):
        return
    if _compiled_skip is not None:
        terminalreporter.write_line(f"compiled build: every test skipped: {_compiled_skip}")
    else:
        names = ", ".join(compiled.modules())
        terminalreporter.write_line(f"compiled build: {names} compiled, from {compiled.COMPILED}")


@pytest.fixture(params=["off", "on"])
def sandbox(request: pytest.FixtureRequest) -> bool:
    """Whether the match runs with the sandbox on (the config's `sandbox: {enabled: true}`): each test runs both ways.

    "on" skips, saying why, without root and a usable bubblewrap.
    """
    if request.param == "on":
        from golfref.bots.sandbox import bubblewrap_problem  # at use, not at collection: conftest imports no golfref

        problem = bubblewrap_problem()
        if problem is not None or os.geteuid() != 0:
            pytest.skip(f"needs root and a usable bubblewrap ({problem or 'not root'})")
    return bool(request.param == "on")


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user may enter (a bot's own user must reach its folder)."""
    folder = Path(tempfile.mkdtemp(prefix="golfref-sandbox-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write_examples(parent: Path) -> Path:
    """A folder of examples as the docs have a user make it, `golfref examples golf-examples` in `parent`:
    the docs' commands run from there."""
    from typer.testing import CliRunner  # at use, not at collection: conftest imports no golfref

    from golfref.cli.app import app

    folder = parent / "golf-examples"
    result = CliRunner().invoke(app, ["examples", str(folder)])
    assert result.exit_code == 0, result.output
    return folder


@pytest.fixture(scope="module")
def examples() -> Iterator[Path]:
    """A folder of examples (`write_examples`) for a module's doc tests, where every user may enter (as `shared`)."""
    parent = Path(tempfile.mkdtemp(prefix="golfref-examples-"))
    parent.chmod(0o755)
    try:
        yield write_examples(parent)
    finally:
        shutil.rmtree(parent, ignore_errors=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium (Playwright's Browser) for a whole test module; its tests are marked `needs_browser`."""
    from tests.browser import CHROMIUM, sync_playwright

    assert sync_playwright is not None and CHROMIUM is not None
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield b
        finally:
            b.close()
