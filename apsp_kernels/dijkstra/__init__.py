"""Dijkstra: one GPU thread per source (bodra) and CPU baselines (liu, okuyama)."""
