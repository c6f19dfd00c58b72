MemcpyHtoD,0x00007f3000000000,262144
MemcpyHtoD,0x00007f3100000000,262144
kernel-1.traceg.xz
kernel-2.traceg.xz
