"""C-contiguous N-d views of a flat array, without numpy's reshape.

The hierarchy's entry points rebuild two dozen named views of its packed buffer at every call
(memory/hierarchy/pack.py). numba lowers `a[o:o + n].reshape(shape)` through its general reshape
helper (a C call that checks whether a copy is needed), about 45 ns per view here: with 23 views
per call, `entry.issue` spent more time unpacking than `hier_issue` spent deciding (a perf profile
of polybench/2dconv with a numba symbol map: 20 % of the simulation against 16 %). A flat C array
always has a C-contiguous view of any shape that fits, so `c_view` builds it directly (data
pointer, shape, C strides; the source's meminfo and parent, borrowed): ~1 ns.

Under NUMBA_DISABLE_JIT `c_view` is numpy's slice and reshape.
"""

from __future__ import annotations

import numpy as np
from numba import config, types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


def _c_view_py(flat: np.ndarray, offset: int, shape: tuple[int, ...]) -> np.ndarray:
    return flat[offset:offset + int(np.prod(shape))].reshape(shape)


@intrinsic
def _c_view(typingctx, flat, offset, shape):
    if not (isinstance(flat, types.Array) and flat.ndim == 1 and flat.layout == "C"
            and isinstance(shape, types.UniTuple) and isinstance(shape.dtype, types.Integer)):
        return None
    nd = shape.count

    def codegen(context, builder, sig, args):
        flat_t, off_t, shape_t = sig.args
        src = make_array(flat_t)(context, builder, args[0])
        out = make_array(sig.return_type)(context, builder)
        nbytes = context.get_abi_sizeof(context.get_data_type(flat_t.dtype))
        itemsize = context.get_constant(types.intp, nbytes)
        data = builder.gep(src.data, [context.cast(builder, args[1], off_t, types.intp)])
        dims = [context.cast(builder, d, shape_t.dtype, types.intp)
                for d in cgutils.unpack_tuple(builder, args[2], nd)]
        strides = []
        step = itemsize
        for d in reversed(dims):
            strides.append(step)
            step = builder.mul(step, d)
        strides.reverse()
        populate_array(out, data=data, shape=cgutils.pack_array(builder, dims),
                       strides=cgutils.pack_array(builder, strides), itemsize=itemsize,
                       meminfo=src.meminfo, parent=src.parent)
        return impl_ret_borrowed(context, builder, sig.return_type, out._getvalue())

    return types.Array(flat.dtype, nd, "C")(flat, offset, shape), codegen


# flat[offset : offset + prod(shape)] seen as a C-contiguous array of `shape` (no copy); called
# directly from compiled code (an overload returning the view would be a function returning an
# array it did not receive, which numba refuses without reference counting)
c_view = _c_view_py if config.DISABLE_JIT else _c_view
