"""The `warpsim` command line: a thin typer layer over the Python API.

Each sub-module of this package registers its commands on `app` with `@app.command()`;
they are imported here, so a new command is a new file and touches nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer
from rich.console import Console
from rich.text import Text

from warpsim.errors import WarpsimError

app = typer.Typer(
    name="warpsim",
    help="Cycle-level GPU simulation with trace- and execution-driven frontends and sampled simulation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)


@app.callback()
def _root() -> None:
    """warpsim: cycle-level GPU simulation (see `warpsim COMMAND --help`)."""


def _load_commands() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")


_load_commands()


def main() -> None:
    """Console-script entry point: user errors become one clear message and exit code 2."""
    try:
        app()
    except WarpsimError as exc:
        console.print(Text("error: ", style="bold red") + Text(str(exc)), highlight=False)
        sys.exit(2)
