"""bodra's space (:mod:`apsp_kernels.experiments.bodra`): the methods each table times, the
graphs it names and the labels and colours every table and figure shows them by."""
from __future__ import annotations

PAPER = "bodra"
BF_METHODS = ("bf_naive", "bf_stride", "bf_stride_flag")
FW_METHODS = ("fw_naive", "fw_super_naive", "fw_super_naive_shared", "fw_tiled", "fw_tiled_shared")
ROAD_GRAPHS = ("NY", "BAY", "COL", "FLA", "NE", "E")
GNUTELLA = ("gnutella04", "gnutella25", "gnutella30")
LABELS = {
    "bf_serial": "CPU (serial, numba)", "bf_naive": "naive", "bf_stride": "stride",
    "bf_stride_flag": "stride with flag",
    "dijkstra_serial": "CPU (SciPy, one core)", "dijkstra_naive_apsp": "naive GPU",
    "fw_serial": "CPU (serial, numba)", "fw_naive": "naive", "fw_super_naive": "super naive",
    "fw_super_naive_shared": "super naive shared", "fw_tiled": "tiled",
    "fw_tiled_shared": "tiled with shared memory",
}
COLORS = {name: f"C{i}" for i, name in enumerate(LABELS)}


def road_order(name: str) -> int:
    """A road graph's place in Table 1 (smallest first); other names after them."""
    return ROAD_GRAPHS.index(name) if name in ROAD_GRAPHS else len(ROAD_GRAPHS)
