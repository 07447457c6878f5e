"""Many shortest-path trees in one pass: a (min,+) SpMM pull over K-wide distance rows (okuyama's APSP)."""
from .pull import bytes_needed, multi_source_distances

__all__ = ["bytes_needed", "multi_source_distances"]
