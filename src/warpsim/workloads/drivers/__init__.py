"""Host drivers, one module per group of workloads; importing a module registers its workloads."""
