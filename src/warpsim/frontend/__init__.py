"""Frontends turn a workload (Accel-Sim trace, PTX + host driver) into the IR kernel stream."""
