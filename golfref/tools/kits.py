"""The starter kits: one entry per language, what it needs installed, how its bot is built and run.

The kits' files are the folder kits/ of the repository, shipped in the wheel as the package
data golfref.kits (pyproject.toml maps it as it maps schemas/). Each kit is a folder: a small
library that does the protocol and an example bot (`Kit.example`) built on it. A bot of a kit
is that folder's files with the example rewritten; `build` runs the kit's build command in
such a folder, and `Kit.run` is the command that plays the bot from it. `golfref init` writes
a bot project from a kit (golfref.tools.init), and the tests build the kits, their echo bots
and their broken bots through this one table.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

__all__ = ["KITS", "Kit", "KitError", "Tool", "build", "copy_kit", "kit", "kit_files", "package_tree"]

BUILD_TIMEOUT = 600
"""Seconds a kit's build may take (a cold Rust or Java build on a slow machine takes well under this)."""


class KitError(Exception):
    """A kit cannot be used here (a tool is missing) or its build failed: one line, or the build's output after it."""


@dataclass(frozen=True)
class Tool:
    """A program a kit needs on PATH, and where a Debian or Ubuntu machine gets it."""

    program: str
    debian: str
    """The Debian package that installs it."""

    def missing(self) -> bool:
        """Whether `program` is absent from PATH."""
        return shutil.which(self.program) is None


@dataclass(frozen=True)
class Kit:
    """One language's starter kit: its folder in golfref.kits, tools, example bot, build and run commands."""

    name: str
    """What `golfref init --lang` takes: python, javascript, c, rust, java, go, cpp."""
    title: str
    folder: str
    """Its folder among the kits."""
    needs: tuple[Tool, ...]
    example: str
    """The example bot's file, relative to the kit's folder: the file a bot author rewrites."""
    run: tuple[str, ...]
    """The command that plays the bot, run in its folder (a config's `command:`)."""
    build_argv: tuple[str, ...] = ()
    """The build command, run in the bot's folder; empty where the bot runs from its source."""
    outputs: tuple[str, ...] = ()
    """What the build writes into the folder (files or folders), which is not the kit's source."""
    strict: tuple[str, ...] = ()
    """Flags the tests add after the compiler's name: every warning is an error there."""
    check: tuple[str, ...] = ()
    """A command run in the bot's folder after a strict build, failing it on any warning: for a
    compiler that has no flag to make warnings errors (Go's `go vet`)."""
    env: Mapping[str, str] | None = None
    aliases: tuple[str, ...] = ()
    """Other names `golfref init --lang` takes for it (`c++` for cpp)."""
    """Variables the build sets over the caller's (Go: nothing fetched). A caller without HOME builds
    with a fresh temporary one, where toolchains keep their caches."""

    @property
    def compiled(self) -> bool:
        """Whether the bot must be built before it runs."""
        return bool(self.build_argv)

    def missing(self) -> list[Tool]:
        """The tools this kit needs that are not on PATH."""
        return [tool for tool in self.needs if tool.missing()]

    def needs_text(self) -> str:
        """What the kit needs installed, in words: `javac and java (Debian: openjdk-17-jdk-headless)`."""
        programs = " and ".join(tool.program for tool in self.needs)
        packages = ", ".join(dict.fromkeys(tool.debian for tool in self.needs))
        return f"{programs} (Debian: {packages})"

    def command_text(self) -> str:
        """`run` as a config's `command:` string."""
        return " ".join(self.run)

    def build_text(self) -> str:
        """`build_argv` as a shell command, or an empty string where the kit needs no build."""
        return " ".join(self.build_argv)


# The JVM sized for a bot. Inside a sandbox the JVM sees the machine, not the bot's limits
# (RLIMIT_DATA = memory_mb, RLIMIT_AS = 4x that): by itself it reserves a 1 GiB class space and a
# quarter of the machine's memory for its heap, so it cannot start below memory_mb 1024, and a bot
# that fills its heap dies of a failed native allocation, its report on stdout. With these flags
# it starts down to memory_mb 192, and a full heap is a java.lang.OutOfMemoryError (a
# resource_limit fault) down to 320; the serial collector keeps it at 14 threads (G1's grow with
# the cores), and C1 alone takes about a quarter less CPU over a match. A bot that needs a larger
# heap raises -Xmx, below its sandbox's memory_mb.
_JVM = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms16m", "-Xmx256m", "-XX:CompressedClassSpaceSize=64m")
_PYTHON = Tool("python3", "python3")
_CC = Tool("cc", "gcc")

KITS: tuple[Kit, ...] = (
    Kit("python", "Python 3.11+", "python", (_PYTHON,), "bot.py", ("python3", "bot.py"), aliases=("py",)),
    Kit(
        "javascript", "JavaScript (Node.js)", "javascript", (Tool("node", "nodejs"),), "bot.js", ("node", "bot.js"),
        aliases=("js", "node"),
    ),
    Kit(
        "c", "C (C11)", "c", (_CC,), "bot.c", ("./bot",),
        build_argv=("cc", "-std=c11", "-O2", "-o", "bot", "bot.c", "golfbot.c", "json.c"),
        outputs=("bot",), strict=("-Wall", "-Wextra", "-Werror"),
    ),
    Kit(
        "rust", "Rust", "rust", (Tool("rustc", "rustc"),), "src/main.rs", ("./bot",),
        build_argv=("rustc", "--edition", "2021", "-O", "-o", "bot", "src/main.rs"),
        outputs=("bot",), strict=("-D", "warnings"),
    ),
    Kit(
        "cpp", "C++17", "cpp", (Tool("g++", "g++"),), "bot.cpp", ("./bot",), aliases=("c++",),
        build_argv=("g++", "-std=c++17", "-O2", "-o", "bot", "bot.cpp"),
        outputs=("bot",), strict=("-Wall", "-Wextra", "-Werror", "-pedantic"),
    ),
    Kit(
        "go", "Go 1.19+", "go", (Tool("go", "golang-go"),), "bot.go", ("./bot",),
        build_argv=("go", "build", "-buildvcs=false", "-o", "bot", "."),
        outputs=("bot",), check=("go", "vet", "."),
        # Nothing fetched: no module proxy, no other toolchain, no go.work of a folder above.
        env={"GOPROXY": "off", "GOTOOLCHAIN": "local", "GOWORK": "off", "GOFLAGS": "-mod=readonly"},
    ),
    Kit(
        "java", "Java 17", "java",
        (Tool("javac", "openjdk-17-jdk-headless"), Tool("java", "openjdk-17-jre-headless")), "Bot.java",
        ("java", *_JVM, "-cp", "classes", "Bot"),
        build_argv=("javac", "--release", "17", "-d", "classes", "Bot.java", "GolfBot.java", "Json.java"),
        outputs=("classes",), strict=("-Xlint:all", "-Werror"),
    ),
)  # fmt: skip
"""Every kit, in the order `golfref init --list` shows them."""


def kit(name: str) -> Kit:
    """The kit called `name`; KitError naming the kits there are where none is."""
    for candidate in KITS:
        if name in (candidate.name, *candidate.aliases):
            return candidate
    raise KitError(f"{name}: no kit for that language (the kits: {', '.join(k.name for k in KITS)})")


def package_tree(root: Traversable, prefix: str = "") -> Iterator[tuple[str, Traversable]]:
    """Each file under the package data folder `root` as (its path from `root`, after `prefix`; the file),
    sorted, without Python's caches: what golfref ships of kits and samples, wherever it is installed."""
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name == "__pycache__" or entry.name.endswith((".pyc", ".pyo")):
            continue
        if entry.is_dir():
            yield from package_tree(entry, f"{prefix}{entry.name}/")
        else:
            yield f"{prefix}{entry.name}", entry


def kit_files(which: Kit) -> Iterator[tuple[str, Traversable]]:
    """Each file of the kit's folder as (its path relative to the folder, the file), sorted."""
    return package_tree(resources.files("golfref.kits").joinpath(which.folder))


def copy_kit(which: Kit, folder: Path, *, example: bool = True) -> list[Path]:
    """Write the kit's files into `folder` (made if need be), the example bot too unless `example` is
    false (a caller that writes a bot of its own in its place); returns the files written."""
    written = []
    for relative, source in kit_files(which):
        if relative == which.example and not example:
            continue
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
        if relative == which.example and which.run[0] == f"./{Path(relative).name}":
            target.chmod(0o755)  # a script run by its #! line
        written.append(target)
    return written


def build(which: Kit, folder: Path, *, strict: bool = False, timeout: float = BUILD_TIMEOUT) -> None:
    """Build the bot in `folder` with the kit's build command (nothing for a kit that needs none);
    KitError with the compiler's output where a tool is missing or the build fails.

    `strict` adds the kit's `strict` flags and runs its `check` after the build (every warning
    an error), as the tests build."""
    if not which.compiled:
        return
    absent = which.missing()
    if absent:
        raise KitError(f"the {which.title} kit needs {which.needs_text()}: {absent[0].program} is not installed")
    argv = list(which.build_argv)
    if strict:
        argv[1:1] = which.strict
    env = {**os.environ, **(which.env or {})}
    with tempfile.TemporaryDirectory(prefix="golfref-build-home-") as home:
        # A toolchain keeps its caches under HOME (Go's build cache, which Go cannot build without):
        # where the caller has none, a fresh one for this build, not the bot's own folder.
        if not env.get("HOME"):
            env["HOME"] = home
        _run(argv, folder, env, timeout)
        if strict and which.check:
            _run(list(which.check), folder, env, timeout)


def _run(argv: list[str], folder: Path, env: Mapping[str, str], timeout: float) -> None:
    """Run one build command in `folder`; KitError with its output where it fails."""
    try:
        done = subprocess.run(
            argv, cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as e:
        raise KitError(f"{' '.join(argv)} did not finish within {timeout:g} s in {folder}") from e
    except OSError as e:
        raise KitError(f"{' '.join(argv)} cannot be run in {folder}: {e.strerror or e}") from e
    if done.returncode != 0:
        said = (done.stderr + done.stdout).strip()
        raise KitError(f"{' '.join(argv)} failed in {folder} (exit {done.returncode}):\n{said}")
