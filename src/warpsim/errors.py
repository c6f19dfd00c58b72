"""Errors a user can act on: they name the file, the line and what is wrong."""

from __future__ import annotations


class WarpsimError(Exception):
    """Base class of every error warpsim raises on purpose (the CLI prints these without a traceback)."""


class InputError(WarpsimError):
    """Bad user input: a malformed trace, unsupported PTX, an impossible configuration.

    The message always carries where (file and line, or file and key) and what.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 text: str | None = None, key: str | None = None) -> None:
        self.path = path
        self.line = line
        self.text = text
        self.key = key
        where = ""
        if path is not None:
            where = str(path)
            if line is not None:
                where += f":{line}"
            if key is not None:
                where += f" [{key}]"
        elif key is not None:
            where = f"[{key}]"
        full = f"{where}: {message}" if where else message
        if text is not None:
            shown = text if len(text) <= 200 else text[:200] + "..."
            full += f"\n    offending text: {shown!r}"
        super().__init__(full)
        self.message = message


class ResourceError(WarpsimError):
    """A run would need more memory than the machine has: raised before the OS kills the process,
    with what needed it and what the user can change."""
