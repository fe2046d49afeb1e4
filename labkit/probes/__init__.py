"""GPU calibration probes: each measures on a GPU what one of labkit's models predicts without one."""
