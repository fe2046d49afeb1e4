"""What Numba does not spell directly, for lab 03's and lab 06's kernels: 16-byte loads and stores,
and the SM's clocks.

- ``load4(a, i)`` / ``store4(a, i, v)``: the four float32 ``a[4i] .. a[4i + 3]`` (``a`` C-contiguous,
  of any shape, counted in its flat order) as one 16-byte access (PTX ``ld.global.v4.f32`` /
  ``st.global.v4.f32``; ``a`` must be 16-byte aligned, as every device allocation is).
  ``load4_shared`` / ``store4_shared``: the same on a shared array (``ld.shared.v4.f32``, 16-byte
  aligned offsets: a shared array starts aligned, so 4i must be the flat index of its element). One instruction moves 16 bytes per thread, 512 bytes per warp:
  four times what a float32 access moves, for the same issue slot and the same register for
  the address. ``load4_streaming`` / ``store4_streaming`` add the "evict first" cache hint
  (``.cs``), for data touched once.
- ``follow(chain, p)``: one step of a pointer chase, the 8-byte word at address ``p`` (which
  points into ``chain``): a load whose address is the previous load's value, with no arithmetic
  between them, so a step costs exactly one load's latency. In the simulator, where no address
  can be followed, ``p`` is an index into ``chain`` instead (see labkit.kernels.chase).
- ``clock64()``: the SM's cycle counter (PTX ``%clock64``), ``globaltimer()``: the GPU's
  nanosecond timer (PTX ``%globaltimer``). Both are read in the kernel, so a measurement by
  them includes no launch and no host.

On a GPU these are Numba intrinsics that emit exactly those instructions; in the simulator they
are plain Python with the same results (the clocks then read the host's nanosecond counter:
no cycle count means anything there).
"""

from __future__ import annotations

import time

from labkit.gpu import SIMULATED

#: PTX cache operators the vector accesses take ("" is the default, cache at all levels).
STREAMING = ".cs"


def _simulated():
    import numpy as np

    def load4(array, index):
        return tuple(array[np.unravel_index(4 * index + k, array.shape)] for k in range(4))

    def store4(array, index, values):
        for k in range(4):
            array[np.unravel_index(4 * index + k, array.shape)] = values[k]

    def follow(chain, p):
        return chain[p]

    def clock():
        return time.perf_counter_ns()

    return load4, store4, load4, store4, load4, store4, follow, clock, clock


def _on_gpu():
    """The intrinsics (numba.cuda is imported here, after labkit.gpu chose the GPU)."""
    from llvmlite import ir
    from numba.cuda import types
    from numba.cuda.extending import intrinsic

    float4 = ir.VectorType(ir.FloatType(), 4)
    quad = types.UniTuple(types.float32, 4)

    GLOBAL, SHARED = 1, 3   # NVPTX address spaces

    def space_address(context, builder, array_type, array, index, space):
        """&array[4 * index] (flat order) in the ``space`` address space."""
        data = context.make_array(array_type)(context, builder, value=array).data
        element = builder.gep(data, [builder.mul(index, ir.Constant(index.type, 4))])
        return builder.addrspacecast(element, ir.PointerType(ir.FloatType(), space))

    def vector_load(cache: str, space: int = GLOBAL):
        @intrinsic
        def load4(typingctx, array, index):
            def codegen(context, builder, signature, args):
                address = space_address(context, builder, signature.args[0], *args, space)
                if not cache:
                    vector = builder.load(builder.bitcast(address, ir.PointerType(float4, space)), align=16)
                    values = [builder.extract_element(vector, ir.Constant(ir.IntType(32), k)) for k in range(4)]
                else:
                    asm = ir.InlineAsm(ir.FunctionType(ir.LiteralStructType([ir.FloatType()] * 4), [ir.IntType(64)]),
                                       f"ld.global{cache}.v4.f32 {{$0, $1, $2, $3}}, [$4];", "=f,=f,=f,=f,l",
                                       side_effect=True)
                    loaded = builder.call(asm, [builder.ptrtoint(address, ir.IntType(64))])
                    values = [builder.extract_value(loaded, k) for k in range(4)]
                return context.make_tuple(builder, quad, values)

            return quad(array, index), codegen

        return load4

    def vector_store(cache: str, space: int = GLOBAL):
        @intrinsic
        def store4(typingctx, array, index, values):
            def codegen(context, builder, signature, args):
                address = space_address(context, builder, signature.args[0], args[0], args[1], space)
                parts = [builder.extract_value(args[2], k) for k in range(4)]
                if not cache:
                    vector = ir.Constant(float4, ir.Undefined)
                    for k, part in enumerate(parts):
                        vector = builder.insert_element(vector, part, ir.Constant(ir.IntType(32), k))
                    builder.store(vector, builder.bitcast(address, ir.PointerType(float4, space)), align=16)
                else:
                    asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [ir.IntType(64)] + [ir.FloatType()] * 4),
                                       f"st.global{cache}.v4.f32 [$0], {{$1, $2, $3, $4}};", "l,f,f,f,f",
                                       side_effect=True)
                    builder.call(asm, [builder.ptrtoint(address, ir.IntType(64)), *parts])
                return context.get_dummy_value()

            return types.void(array, index, values), codegen

        return store4

    @intrinsic
    def follow(typingctx, chain, p):
        def codegen(context, builder, signature, args):
            pointer = builder.inttoptr(args[1], ir.PointerType(ir.IntType(64), 1))
            return builder.load(pointer, align=8)

        return types.uint64(chain, p), codegen

    def special_register(name: str):
        @intrinsic
        def read(typingctx):
            def codegen(context, builder, signature, args):
                asm = ir.InlineAsm(ir.FunctionType(ir.IntType(64), []), f"mov.u64 $0, %{name};", "=l",
                                   side_effect=True)
                return builder.call(asm, [])

            return types.uint64(), codegen

        return read

    return (vector_load(""), vector_store(""), vector_load(STREAMING), vector_store(STREAMING),
            vector_load("", SHARED), vector_store("", SHARED), follow,
            special_register("clock64"), special_register("globaltimer"))


(load4, store4, load4_streaming, store4_streaming, load4_shared, store4_shared, follow,
 clock64, globaltimer) = _simulated() if SIMULATED else _on_gpu()
