"""GPU calibration probes: each holds one of labkit's models (the memory-access analyzer, the
occupancy calculator) to what a real GPU and its profiler report. The work is planned in pure,
CPU-tested functions; only the launch and the profiler touch the GPU.
"""
