/* What the C files of warpsim's CUDA runtime share: the bridge into the Python runtime object.
 * Every entry point turns its arguments into plain integers and calls one method of
 * warpsim.frontend.cudart.runtime.Runtime (see cudart_shim.c). */
#ifndef WARPSIM_CUDART_SHIM_H
#define WARPSIM_CUDART_SHIM_H

#include <Python.h>
#include <cuda_runtime_api.h>
#include <stdint.h>

typedef unsigned long long u64;

int warpsim_ensure_py(void);                                   /* non-zero: the runtime failed to start */
long warpsim_call_rt(const char *meth, const char *fmt, ...);  /* Runtime.<meth>(...) -> cudaError_t */
PyObject *warpsim_call_obj(const char *meth, const char *fmt, ...);   /* ... -> a new reference (GIL held) */
long long warpsim_dget(PyObject *d, const char *key);          /* d[key] as an integer, 0 if absent */
int warpsim_unsupported(const char *name);
void warpsim_finish_last(void);                                /* keep the exit handler the last one */

#define RT(meth, fmt, ...) ((cudaError_t)warpsim_call_rt(meth, "(" fmt ")", ##__VA_ARGS__))
#define P(x) ((u64)(uintptr_t)(x))

#endif
