"""Bundled GPU descriptions (data only; a package so the .toml files ship with the wheel)."""
