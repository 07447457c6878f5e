"""Iterative SSSP on the GPU: Bellman-Ford variants (bodra), Harish & Narayanan (okuyama), (min,+) SpMV (liu)."""
