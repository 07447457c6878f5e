"""Blocked Floyd-Warshall in one persistent kernel: Takafuji et al.'s ``single`` (Sec. IV,
Fig. 3), Table I rows "提案シングル kernel"; bulk version (Sec. V, Fig. 4) via :mod:`.bulk`.

B blocks take tile tasks from an atomic counter in the order of
:func:`.task_schedule.task_order` and wait on per-tile flags in global memory; see
persistent.cu for the rules, why they are race free, and why no B can hang it. The
counter and flags are zeroed in ``reset`` (untimed). A watchdog (``spin_limit`` clock
cycles per wait) turns a hang into an error raised by ``solution``/``check``.
"""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..errors import InputError
from .round_kernels import DenseBlockedFW, load
from .task_schedule import task_order

_CU = gpu.cu_path(__file__, "persistent.cu")
DEFAULT_SPIN_LIMIT = 2**34  # clock cycles (about 10 s at 1.7 GHz) before a wait is a hang


class SingleKernelHang(RuntimeError):
    """The persistent kernel's watchdog fired (a wait exceeded spin_limit cycles)."""


def single_kernel(threads: int, paths: bool):
    return load(_CU).get_function(f"fw_single{'_paths' if paths else ''}_t{threads}")


def co_resident_blocks(threads: int, paths: bool = False) -> int:
    """How many blocks of the single kernel fit on the GPU at once (occupancy x SMs)."""
    kernel = single_kernel(threads, paths)
    sms = gpu.device_info()["sm_count"]
    try:
        from cupy_backends.cuda.api import driver
        per_sm = driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, threads, 0)
    except Exception:  # an upper bound from the thread limit alone
        per_sm = max(1, 2048 // threads)
    return int(per_sm) * int(sms)


class SingleKernelRun:
    """Task table, counter, flags and launch of the single kernel for m instances of N^2 tiles."""

    def __init__(self, N: int, m: int, threads: int, blocks=None, paths=False,
                 spin_limit=DEFAULT_SPIN_LIMIT, method="single"):
        self.N, self.m, self.threads, self.paths = int(N), int(m), int(threads), bool(paths)
        self.tasks = self.m * self.N ** 3
        if self.tasks >= 2**62:
            raise InputError(f"{method}: {self.tasks} tasks overflow the task counter")
        if blocks is not None and int(blocks) < 1:
            raise InputError(f"{method}: blocks must be >= 1, got {blocks}")
        self.blocks_param = None if blocks is None else int(blocks)
        self.spin_limit = int(spin_limit)

    def bytes_needed(self) -> int:
        return 3 * 4 * self.m * self.N * self.N + 64

    def setup(self):
        cp = gpu.cupy()
        self.kernel = single_kernel(self.threads, self.paths)
        self.co_resident = co_resident_blocks(self.threads, self.paths)
        # default: fill the GPU, but no more blocks than one round has tiles
        self.blocks = self.blocks_param or max(1, min(self.co_resident, self.m * self.N * self.N))
        self.order = cp.asarray(task_order(self.N, self.m))
        self.done = cp.zeros(self.m * self.N * self.N, dtype=cp.int32)
        self.reads = cp.zeros_like(self.done)
        self.counter = cp.zeros(1, dtype=cp.uint64)
        self.status = cp.zeros(1, dtype=cp.int32)

    def stats(self) -> dict:
        return {"launches": 1, "blocks": self.blocks, "co_resident_blocks": self.co_resident,
                "threads": self.threads, "tasks": self.tasks, "registers": self.kernel.num_regs,
                "local_bytes": self.kernel.local_size_bytes}

    def reset(self):
        for a in (self.done, self.reads, self.counter, self.status):
            a.fill(0)

    def launch(self, d, via):
        via_arg = via if self.paths else np.intp(0)
        self.kernel((self.blocks, 1, 1), (self.threads, 1, 1),
                    (d, via_arg, self.order, self.counter, self.done, self.reads, self.status,
                     np.int32(self.N * 32), np.int32(self.N), np.int32(self.m),
                     np.int64(self.spin_limit)))

    def check(self):
        """Raise when the watchdog fired or a tile did not finish every round (syncs)."""
        if int(self.status.get()[0]) != 0:
            raise SingleKernelHang(
                f"single kernel (T={self.threads}, B={self.blocks}, N={self.N}, m={self.m}): a wait "
                f"exceeded {self.spin_limit} cycles; the protocol hung (results are invalid)")
        unfinished = int((self.done != self.N).sum())
        if unfinished:
            raise SingleKernelHang(f"single kernel: {unfinished} tiles did not finish all {self.N} "
                                   f"rounds (counter {int(self.counter.get()[0])} of {self.tasks})")


class BlockedFWSingle(DenseBlockedFW):
    """Takafuji et al. ``single``: one persistent kernel for all rounds; ``blocks`` = B
    (default: as many as fit on the GPU at once, at most one per tile of a round)."""

    def __init__(self, graph, sources=None, threads=256, blocks=None, paths=False,
                 spin_limit=DEFAULT_SPIN_LIMIT):
        super().__init__(graph, sources, threads=threads, paths=paths)
        self.run = SingleKernelRun(self.N, 1, self.threads, blocks, self.paths, spin_limit,
                                   method=type(self).__name__)

    def bytes_needed(self) -> int:
        return super().bytes_needed() + self.run.bytes_needed()

    def setup(self):
        super().setup()
        self.run.setup()
        self.stats = dict(self.run.stats(), tiles_per_side=self.N, n_padded=self.P, paths=self.paths)

    def reset(self):
        super().reset()
        self.run.reset()

    def compute(self):
        self.run.launch(self.d, self.via)

    def solution(self):
        self.run.check()
        return super().solution()

