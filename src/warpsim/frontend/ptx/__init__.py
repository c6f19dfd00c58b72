"""Execution-driven frontend: PTX parser, vectorised functional emulator, launch API (no GPU needed)."""
