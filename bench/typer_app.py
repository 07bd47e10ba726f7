"""A bare typer app shaped like `golfref run`: what typer costs a fresh process before golfref does anything.

bench/botstart.py starts it as `typer_app.py run CONFIG --quiet`: a subcommand with a string
argument, an optional int option and a flag, as `golfref run` has, and nothing done.
"""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer()


@app.command()
def run(
    config: Annotated[str, typer.Argument(help="The match config.")],
    seed: Annotated[int | None, typer.Option(help="Seed for the shuffles.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
) -> None:
    """Play nothing."""


@app.command()
def other() -> None:
    """A second command, so that `run` is a subcommand, as golfref's is."""


if __name__ == "__main__":
    app()
