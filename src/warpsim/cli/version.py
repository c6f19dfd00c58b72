"""`warpsim version`."""

from __future__ import annotations

import typer

from warpsim import __version__
from warpsim.cli import app


@app.command()
def version() -> None:
    """Print the warpsim version."""
    typer.echo(__version__)
