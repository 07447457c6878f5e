"""All-pairs past one GPU on Dask: source blocks over the workers of a (dask-cuda) cluster.

* :func:`all_sources` (runner): reductions (eccentricity, closeness, harmonic, diameter, radius,
  distance histogram, reach counts; resumable from a ``checkpoint`` folder, :mod:`.checkpoint`)
  and/or every row into a resumable Zarr store (:class:`RowStore`), one task per block of
  sources, the graph sent once per worker.
* :func:`estimate`: dry run from a sample of sources (time, bytes on disk), labelled.
* :func:`bulk_instances`: Takafuji's bulk instances split across the workers.
* :mod:`.cluster`: ``local(gpus=2)`` (LocalCUDACluster), ``local(cpu_workers=4)``,
  ``connect(address)``.
"""
from . import cluster
from .bulk import bulk_instances
from .estimate import describe as describe_estimate
from .estimate import estimate
from .reductions import Reductions, default_bins
from .row_store import RowStore
from .runner import Run, all_sources

__all__ = ["all_sources", "estimate", "describe_estimate", "bulk_instances", "cluster", "RowStore",
           "Reductions", "Run", "default_bins"]
