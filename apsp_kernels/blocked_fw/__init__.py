"""Blocked (tiled) Floyd-Warshall: 3-phase tiled (bodra), multi-kernel vs single persistent kernel and bulk (takafuji)."""
