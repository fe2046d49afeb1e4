"""numba-cuda's CUDA simulator as the labs run it: its threads as greenlets (threads), its
memory accesses recorded (trace)."""
