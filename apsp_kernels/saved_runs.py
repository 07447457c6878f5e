"""A sweep that saves its records after every run, so that a sitting killed part way (a device
call's time limit) is resumed by ``reproduce --resume`` from the runs it had finished: those are
taken from its records (:func:`apsp_kernels.report.reusable`) instead of measured again."""
from __future__ import annotations

from typing import Callable, Hashable, Iterable

from . import report
from .records import Record


def by_graph_and_method(r: Record) -> tuple:
    return r.graph, r.method


class SavedRuns:
    """The runs of ``experiment`` in ``out_dir`` (None: nothing saved, nothing reused).

    ``key``: what names a run, computed from each of its records (by default its graph and
    method); :meth:`run` is given the same key before it measures."""

    def __init__(self, out_dir, experiment: str, key: Callable[[Record], Hashable] = by_graph_and_method):
        self.out_dir, self.experiment = out_dir, experiment
        self.records: list[Record] = []
        self.finished: dict[Hashable, list[Record]] = {}
        for r in report.reusable(out_dir, experiment, partial=True) or []:
            self.finished.setdefault(key(r), []).append(r)

    def run(self, key: Hashable, measure: Callable[[], Record | Iterable[Record]]) -> list[Record]:
        """The records of the run named ``key``: those a killed sitting saved, else ``measure()``'s,
        saved with every record so far."""
        records = self.finished.pop(key, None)
        measured = records is None
        if measured:
            got = measure()
            records = [got] if isinstance(got, Record) else list(got)
        self.records += records
        if measured and self.out_dir is not None:
            report.save_records(self.records, self.out_dir, self.experiment)
        return records
