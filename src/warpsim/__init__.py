"""warpsim: a cycle-level GPU performance simulator for architects and students."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("warpsim")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+local"

from warpsim.errors import InputError, WarpsimError  # noqa: E402

__all__ = ["__version__", "InputError", "WarpsimError"]
