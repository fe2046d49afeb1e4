"""How lab 05's mystery kernels (labkit.kernels.mysteries) are launched: numbers the kernels are
compiled with, kept apart from them so that reading lab 05's results (which sizes its grids from
them) and the chapter's figures need no CUDA toolchain.
"""

#: Threads per block of the lab's one-dimensional kernels (kernel_f's shared histogram has a column
#: per thread, so it is also a compile-time shape).
THREADS = 256
#: kernel_g's twin: the same function compiled with at most this many registers per thread.
REPAIRED_MAX_REGISTERS = 32
#: kernel_e: elements each thread has in flight (a compile-time unroll; chapter 5 cites it).
IN_FLIGHT = 4
