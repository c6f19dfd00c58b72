"""The `warpsim` command line: a thin typer layer over the Python API.

Each sub-module of this package registers its commands on `app` with `@app.command()`;
they are imported here, so a new command is a new file and touches nothing else.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()   # what a command's user waited for counts from here (wall_seconds)

import importlib  # noqa: E402
import pkgutil  # noqa: E402
import sys  # noqa: E402

import typer  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.text import Text  # noqa: E402

from warpsim.errors import WarpsimError  # noqa: E402

app = typer.Typer(
    name="warpsim",
    help="Cycle-level GPU simulation with trace- and execution-driven frontends and sampled simulation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},   # inherited by every command
)
console = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        from warpsim import __version__

        typer.echo(f"warpsim {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True,
                                 help="print the warpsim version and exit"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="every command: no progress or tables on the "
                               "terminal (errors still shown)"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="every command: say more (what was written "
                                 "where, why results are reused)"),
) -> None:
    """warpsim: cycle-level GPU simulation (see `warpsim COMMAND --help`)."""
    from warpsim.cli import _common

    _common.verbosity.update(quiet=quiet, verbose=verbose)


def _load_commands() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")


_load_commands()


GLOBAL_FLAGS = ("-q", "--quiet", "-v", "--verbose", "-V", "--version")


def hoist_global_flags(argv: list[str]) -> list[str]:
    """`warpsim CMD ... -q` works for every command: a global flag that CMD does not define itself
    is moved in front of CMD (where the root options read it)."""
    group = typer.main.get_command(app)
    pos = next((i for i, a in enumerate(argv) if not a.startswith("-")), None)
    if pos is None or argv[pos] not in getattr(group, "commands", {}):
        return argv
    own = {o for p in group.commands[argv[pos]].params for o in (*p.opts, *p.secondary_opts)}
    rest = argv[pos + 1:]
    if "--" in rest:
        rest, tail = rest[:rest.index("--")], rest[rest.index("--"):]
    else:
        tail = []
    moved = [a for a in rest if a in GLOBAL_FLAGS and a not in own]
    kept = [a for a in rest if not (a in GLOBAL_FLAGS and a not in own)]
    return [*argv[:pos], *moved, argv[pos], *kept, *tail]


def main() -> None:
    """Console-script entry point: user errors become one clear message and exit code 2."""
    try:
        app(args=hoist_global_flags(sys.argv[1:]), prog_name="warpsim")
    except WarpsimError as exc:
        console.print(Text("error: ", style="bold red") + Text(str(exc)), highlight=False)
        sys.exit(2)
