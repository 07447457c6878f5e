"""Task-parallel SSSP-based APSP: N sources per vertex-thread group (okuyama)."""
