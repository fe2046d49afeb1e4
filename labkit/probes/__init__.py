"""GPU calibration probes: programs run once on a real GPU to hold labkit's arithmetic to the hardware.

Each probe plans its work in pure, CPU-tested functions and touches the GPU through one small
class; it writes a results file that the tests under ``tests/labs`` check once recorded.
"""
