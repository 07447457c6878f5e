"""Floyd-Warshall family on the dense matrix: per-k launches, row-per-thread, CPU serial."""
