"""Betweenness with client= on dask-cuda workers (one per GPU of this host): the same bits as one GPU
in this process."""
import os

import pytest

from apsp_kernels import centrality as C
from apsp_kernels.centrality import brandes_run
from apsp_kernels.distributed import cluster
from apsp_kernels.gpu import visible_gpus
import helpers

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(bool(os.environ.get("APSP_TEST_SPREAD_GPUS")),
                                 reason="a dask-cuda cluster over all of the host's GPUs: run this file without "
                                        "APSP_TEST_SPREAD_GPUS, which gives each test worker one GPU")]


def test_every_gpu_gives_the_bits_of_one(monkeypatch):
    monkeypatch.setattr(brandes_run, "GRID", 1024)  # 5 blocks
    A = helpers.tied_road(5000, 12000, 3)
    said = []
    here = C.betweenness_centrality(A, explain=said.append)
    assert said[0].family == "brandes-gpu", str(said[0])
    client = cluster.local(gpus=len(visible_gpus()), set_as_default=False)
    try:
        said.clear()
        there = C.betweenness_centrality(A, client=client, explain=said.append)
    finally:
        cluster.close(client)
    assert "5 block(s)" in said[0].reason and "brandes-gpu on the workers" in said[0].reason, str(said[0])
    assert here.tobytes() == there.tobytes()
