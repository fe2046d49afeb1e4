"""Lab 99's program: the scale kernel checked against NumPy, then timed with L2 flushed."""

from __future__ import annotations

import numpy as np

from labkit.gpu import cuda
from labkit.kernels import throwaway as k
from labkit.labs.base import Bench, Check, Program
from labkit.labs.lab99.results import Lab99Results, Sizes

FACTOR = np.float32(1.5)


class Lab99Program(Program[Sizes, Lab99Results]):
    def check(self, sizes: Sizes) -> list[Check]:
        x = np.random.default_rng().random(sizes.elements, dtype=np.float32)
        out = cuda.to_device(np.full_like(x, np.nan))             # poisoned: a skipped element shows
        k.scale[k.blocks(x.size), k.THREADS](cuda.to_device(x), out, FACTOR)
        return [Check(name="scale", passed=bool(np.allclose(out.copy_to_host(), k.scale_reference(x, FACTOR))))]

    def measure(self, bench: Bench, sizes: Sizes) -> Lab99Results:
        from labkit.labs.lab99 import LAB

        bench.progress("checks against NumPy")
        checks = self.check(LAB.simulator_sizes)
        bench.progress("the scale kernel, L2 flushed")
        x = cuda.to_device(np.ones(sizes.elements, dtype=np.float32))
        out = cuda.device_array_like(x)
        timing = bench.time_gpu(lambda: k.scale[k.blocks(sizes.elements), k.THREADS](x, out, FACTOR),
                                warmup=3, repeats=sizes.repeats, flush_l2=True)
        return Lab99Results(sizes=sizes, checks=checks, hbm_peak_gbps=bench.facts.hbm_peak_gbps, scale=timing)
