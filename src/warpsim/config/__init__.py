"""GPU descriptions: bundled TOML files, their typed schema, loading with overrides (DESIGN §7).

    >>> from warpsim.config import load_gpu
    >>> cfg = load_gpu("QV100", ["l2.sets=64"])
    >>> cfg.sm.count, cfg.l2.size_bytes
    (80, 12582912)
"""

from warpsim.config.dump import to_toml
from warpsim.config.loader import list_gpus, load_dict, load_gpu
from warpsim.config.schema import GPUConfig

__all__ = ["GPUConfig", "list_gpus", "load_dict", "load_gpu", "to_toml"]
