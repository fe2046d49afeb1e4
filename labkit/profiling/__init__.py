"""Profilers and what the course reads from them: Nsight Compute and Nsight Systems runners and
parsers, labkit's own CUDA-event timeline, SASS facts, and chapter 4's diagnosis (Speed of Light
quadrant, memory workload, stall reasons with their remedies, rules by Est. Speedup)."""
