"""Issue 33's probe of numba-cuda's ``lto=`` (not a test: run on a GPU, prints one line per build):
compiles labkit.kernels.gemm_numba_mma with ``cuda.jit(lto=False)`` and with the default, and says
for each what the linker was handed (numba-cuda's private ``driver._Linker`` methods, wrapped to
record their calls), whether its code library had LTO on, whether the SASS calls the foreign function,
and its local loads and stores. On the H200 (numba-cuda 0.30.4) both printed LTO-IR inputs,
``library._lto True``, no CALL, 12 local operations (the epilogue's spills), 128 registers.

    python3 tests/gpu/numba_mma_lto_probe.py
"""

import re, numpy as np
from numba import cuda
from numba.cuda.cudadrv import driver
from labkit.kernels import gemm_numba_mma as g
calls = []
orig_add_cu = driver._Linker.add_cu
def add_cu(self, cu, name="<cudapy-cu>"):
    calls.append(("add_cu", name, "lto" if self.lto else "ptx"))
    return orig_add_cu(self, cu, name)
driver._Linker.add_cu = add_cu
orig_ptx = driver._Linker.add_ptx
def add_ptx(self, ptx, name="<cudapy-ptx>"):
    calls.append(("add_ptx", name, "extern numba_mma_warp_slice" if b"numba_mma_warp_slice" in (ptx if isinstance(ptx, bytes) else ptx.encode()) else ""))
    return orig_ptx(self, ptx, name)
driver._Linker.add_ptx = add_ptx
orig_ltoir = driver._Linker.add_ltoir
def add_ltoir(self, ltoir, name="<cudapy-ltoir>"):
    calls.append(("add_ltoir", name))
    return orig_ltoir(self, ltoir, name)
driver._Linker.add_ltoir = add_ltoir
for lto in (False, None):
    calls.clear()
    a = cuda.to_device(np.zeros((128, 32), np.float16)); b = cuda.to_device(np.zeros((32, 128), np.float16)); c = cuda.to_device(np.zeros((128, 128), np.float16))
    g.launch(a, b, c, 2, lto)
    k = g.compiled(2, lto)
    ov = next(iter(k.overloads.values()))
    lib = ov._codelibrary
    sass = ov.inspect_sass()
    print("lto", lto, "library._lto", lib._lto, "linker inputs", calls, "CALL foreign", bool(re.search(r"CALL.*numba_mma_warp_slice", sass)), "local ops", len(re.findall(r"\b(LDL|STL)\b", sass)), "regs", ov.regs_per_thread, "local bytes", ov.local_mem_per_thread, flush=True)
