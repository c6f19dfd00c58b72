"""Suite-wide settings: hypothesis runs a fixed, reproducible set of examples (same input, same result)."""

from hypothesis import settings

settings.register_profile("warpsim", derandomize=True, deadline=None)
settings.load_profile("warpsim")


def pytest_configure(config):
    """The timing core's background compile (warpsim.timing.precompile) is off for the suite: a test
    that points the compile marker at a temporary directory would start one per test.
    tests/timing/test_precompile.py turns it on where it tests it."""
    import os

    os.environ.setdefault("WARPSIM_BACKGROUND_COMPILE", "0")
