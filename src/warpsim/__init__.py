"""warpsim: a cycle-level GPU performance simulator for architects and students."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("warpsim")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+local"

from warpsim._jit_cache import configure as _configure_jit_cache  # noqa: E402
from warpsim.errors import InputError, WarpsimError  # noqa: E402

_configure_jit_cache()

__all__ = ["__version__", "InputError", "WarpsimError"]


def __getattr__(name: str):
    """Lazy host API (`warpsim.load_ptx`, `warpsim.Device`) so `import warpsim` stays light."""
    if name in ("load_ptx", "Device", "DeviceArray", "Module"):
        from warpsim import host
        return getattr(host, name)
    raise AttributeError(f"module 'warpsim' has no attribute {name!r}")
