"""Folders golfref writes for a user: a bot project (`golfref init`) and the docs' examples (`golfref examples`).

A bot project is a folder that runs as it is, from a wheel-only install:

    README.md                       what to run and what to edit
    bot/                            the starter kit of the language: its library and the example bot,
                                    built where the language compiles (the bot's own folder: the
                                    sandbox shows it, its fingerprint covers it, and nothing else
                                    is in it)
    match.yaml                      one match against a built-in player
    tournament.yaml                 duplicate deals against the built-ins, gated against `random`
    ci.sh                           build, check-bot and the gated tournament, as CI runs them
    .github/workflows/golfref.yml   GitHub Actions: this golfref installed from ci/, then ci.sh
    ci/golfref-VERSION-py3-none-any.whl   this very golfref (golfref.tools.wheel)
    .gitignore                      logs, results and build outputs

The examples are the package data golfref.samples (the repository's sample_matches/): the
configs, bots and logs that the commands of docs/ name.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .. import __version__
from ..game.policies import POLICIES
from .kits import Kit, build, copy_kit, package_tree
from .wheel import WheelError, save_wheel, wheel_name

__all__ = ["BOT_FOLDER", "DEAL_SETS", "Project", "ProjectError", "init_project", "write_examples"]

BOT_FOLDER = "bot"
DEAL_SETS = 8
"""Deal sets of the project's tournament: enough for the example bot's gate against `random` to pass at 95%."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


class ProjectError(Exception):
    """A folder that cannot be written as asked: one line naming the folder and what is wrong."""


@dataclass(frozen=True)
class Project:
    """A bot project written by `init_project`."""

    folder: Path
    kit: Kit
    player: str
    """The bot's name as a player of match.yaml and tournament.yaml."""
    against: str
    files: tuple[str, ...]
    """Every file written, relative to `folder`, sorted (build outputs not included)."""


def _fresh(folder: Path) -> bool:
    """Whether `folder` is new (True) or an empty folder (False); ProjectError otherwise."""
    if not os.path.lexists(folder):
        return True
    if folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir()):
        return False
    raise ProjectError(f"{folder}: already there and not an empty folder; name a new one")


def _undo(folder: Path, new: bool) -> None:
    """Leave `folder` as it was before a write that failed: gone if it was new, else empty again (it was)."""
    if new:
        shutil.rmtree(folder, ignore_errors=True)
        return
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def _player_name(folder: Path) -> str:
    """The bot's player name: the folder's name where it is a plain one, else `mine`."""
    name = folder.resolve().name
    return name if _NAME.fullmatch(name) and name not in POLICIES else "mine"


def _match_yaml(kit: Kit, player: str, against: str) -> str:
    return f"""\
# One match of your bot against the built-in player `{against}`: golfref run match.yaml
# Its log goes to logs/; golfref replay logs/<the log>.json shows it turn by turn.
match: {player}-vs-{against}
rules:
  preset: standard          # or classic, knock, arena; any option of docs/RULES.md below it
  holes: 9
players:
  - name: {player}
    command: {kit.command_text()}{" " * max(1, 18 - len(kit.command_text()))}# run in its folder, bot/
    cwd: {BOT_FOLDER}
  - name: {against}
    builtin: {against}
time:
  startup_ms: 10000
  move_ms: 2000
log:
  path: logs/{{match_id}}.json
"""


def _tournament_yaml(kit: Kit, player: str, against: str) -> str:
    others = [against] if against == "random" else [against, "random"]
    pool = "".join(f"  - name: {name}\n    builtin: {name}\n" for name in others)
    return f"""\
# Your bot against the built-ins over duplicate deals: golfref tournament tournament.yaml
# It exits 0 when the gate passes: {player} is shown to score no worse than `random`
# (lower is better in Golf) at 95% confidence; 1 when it is not, or a fault ended a seat.
# Run again, it resumes from tournaments/; delete that folder to start afresh.
tournament: {player}
rules:
  preset: standard
  holes: 3
players:
  - name: {player}
    command: {kit.command_text()}
    cwd: {BOT_FOLDER}
{pool}format:
  type: round_robin
  table: 2
deal_sets: {DEAL_SETS}               # more deal sets narrow the intervals
# No seed: a secret one is drawn at the first run and kept in tournaments/ for the resume.
time:
  startup_ms: 10000
  move_ms: 2000
results: tournaments/{player}
gate:
  player: {player}
  baseline: random
  margin: 0
  confidence: 0.95
"""


def _ci_sh(kit: Kit, player: str) -> str:
    build_step = (
        f"( cd {BOT_FOLDER} && {kit.build_text()} )\n"
        if kit.compiled
        else "# The bot runs from its source: nothing to build.\n"
    )
    return f"""\
#!/bin/sh
# What CI runs (.github/workflows/golfref.yml), and what you can run yourself: sh ci.sh
# Builds the bot, checks it in every situation the match's rules can produce, then plays the
# gated tournament. Exits non-zero at the first step that fails. Reports: check-bot.xml and
# tournament.xml (JUnit), the tournament's results in tournaments/.
set -eu
cd "$(dirname "$0")"
if ! command -v golfref >/dev/null 2>&1; then
  echo "ci.sh: golfref is not installed: pip install ci/{wheel_name()}" >&2
  exit 2
fi
{build_step}golfref check-bot match.yaml --player {player} --junit check-bot.xml
golfref tournament tournament.yaml --quiet --junit tournament.xml
"""


# Ubuntu 24.04's GitHub-hosted runner has every kit's toolchain: gcc, g++, node, rustc, Go, and a JDK 17
# as its default java under /usr/lib/jvm, where the sandbox shows it (a setup-java JDK under /opt it would
# not: the sandbox runs only a Python from outside what it shows, on its own installation).
_RUNNER = "ubuntu-24.04"


def _workflow(kit: Kit) -> str:
    return f"""\
# The bot's CI: build it, check it, gate it against the built-ins (ci.sh), on every push.
# golfref comes from ci/, the wheel `golfref init` saved: the very version that wrote this project.
name: golfref
on: [push, pull_request]
jobs:
  gate:
    runs-on: {_RUNNER}    # gcc, g++, node, rustc, Go and a JDK 17 are on it already
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5   # golfref's Python (a Python bot runs on it too, sandboxed)
        with: {{python-version: "3.12"}}
      - name: Install bubblewrap, the bots' sandbox
        run: sudo apt-get update -q && sudo apt-get install -y -q bubblewrap
      - name: Install golfref
        run: python -m pip install ci/{wheel_name()}
      - name: Build, check and gate the bot
        run: sh ci.sh
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: golfref
          path: |
            check-bot.xml
            tournament.xml
            tournaments/
"""


def _gitignore(kit: Kit) -> str:
    outputs = "".join(f"{BOT_FOLDER}/{name}\n" for name in kit.outputs)
    return f"logs/\ntournaments/\ncheck-bot.xml\ntournament.xml\n{outputs}"


def _readme(kit: Kit, player: str, against: str) -> str:
    build = (
        f"""
The bot is built already. After each change, build it again in `{BOT_FOLDER}/`:

```sh
cd {BOT_FOLDER} && {kit.build_text()}
```
"""
        if kit.compiled
        else ""
    )
    return f"""\
# {player}: a Golf bot in {kit.title}

Made by `golfref init` (golfref {__version__}) from the {kit.title} starter kit. The bot is
the folder `{BOT_FOLDER}/`: the kit's library, which speaks golfref's protocol, and
`{BOT_FOLDER}/{kit.example}`, the bot's own decisions. Rewrite `choose` there; it gets what
your seat sees and the legal choices, and returns one of them.
{build}
## Run it

```sh
golfref run match.yaml                            # one match against `{against}`
golfref check-bot match.yaml --player {player}{" " * max(1, 9 - len(player))}# every situation the rules can produce
golfref tournament tournament.yaml                # duplicate deals, with a gate against `random`
golfref replay logs/<the log>.json --html match.html   # a match, to step through in a browser
```

The tournament plays the bot sandboxed where bubblewrap is installed (`apt-get install
bubblewrap`); add `--no-sandbox` to play it as yourself. Its gate passes (exit 0) while your
bot scores no worse than `random`; raise the bar in `tournament.yaml` (`baseline: {against}`).

## CI

`sh ci.sh` builds the bot, runs check-bot and the gated tournament, and fails at the first
step that does. `.github/workflows/golfref.yml` runs it on GitHub Actions, with golfref
installed from `ci/{wheel_name()}`, the very golfref that made this folder.

The rules, the protocol and how to write a bot are in the docs/ folder of golfref's source
(RULES.md, PROTOCOL.md, WRITING_A_BOT.md); `golfref examples DIR` writes the files their
examples use, and `golfref COMMAND --help` says what each command takes.
"""


def init_project(folder: Path, kit: Kit, against: str = "greedy") -> Project:
    """Write a bot project of `kit` into `folder` (new or empty), its bot built; see the module docstring.

    ProjectError for a folder that is not new or empty, an unknown built-in, or a tool the
    kit needs that is missing (nothing written then); KitError when the build fails, the files
    left in place to fix.
    """
    if against not in POLICIES:
        raise ProjectError(f"--against {against}: not a built-in player (the built-ins: {', '.join(POLICIES)})")
    absent = kit.missing()
    if absent:
        raise ProjectError(
            f"the {kit.title} kit needs {kit.needs_text()}: {absent[0].program} is not installed, so no bot was written"
        )
    new = _fresh(folder)
    player = _player_name(folder)
    texts = {
        "README.md": _readme(kit, player, against),
        "match.yaml": _match_yaml(kit, player, against),
        "tournament.yaml": _tournament_yaml(kit, player, against),
        "ci.sh": _ci_sh(kit, player),
        ".github/workflows/golfref.yml": _workflow(kit),
        ".gitignore": _gitignore(kit),
    }
    try:
        folder.mkdir(parents=True, exist_ok=True)
        written = [path.relative_to(folder).as_posix() for path in copy_kit(kit, folder / BOT_FOLDER)]
        for name, text in texts.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(name)
        (folder / "ci.sh").chmod(0o755)
        written.append(save_wheel(folder / "ci").relative_to(folder).as_posix())
    except (OSError, WheelError) as e:
        _undo(folder, new)
        said = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise ProjectError(f"{folder}: cannot write the project: {said}") from e
    build(kit, folder / BOT_FOLDER)  # KitError: the files stay, for the author to fix and build
    return Project(folder, kit, player, against, tuple(sorted(written)))


def write_examples(folder: Path) -> list[str]:
    """Write the docs' examples (golfref.samples) into `folder` (new or empty); returns the files, relative."""
    new = _fresh(folder)
    written = []
    try:
        for name, source in package_tree(resources.files("golfref.samples")):
            if name == "__init__.py":
                continue  # what makes the folder a package, no example
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            written.append(name)
    except OSError as e:
        _undo(folder, new)
        raise ProjectError(f"{folder}: cannot write the examples: {e.strerror or e}") from e
    return written
