"""SSSP over a contraction hierarchy: one-off host preprocessing, then two level sweeps on the GPU."""
