"""Suite-wide settings: hypothesis runs a fixed, reproducible set of examples (same input, same result)."""

from hypothesis import settings

settings.register_profile("warpsim", derandomize=True, deadline=None)
settings.load_profile("warpsim")
