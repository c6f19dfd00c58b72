"""`warpsim bench`: deterministic generated kernels that measure the simulator's own speed."""
