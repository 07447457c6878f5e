"""The workers' per-vertex sums of a wave combined on the workers, pairwise, as a tree.

On one host each worker's last block hands its sums to the client, which adds them as they come in
(:mod:`.worker_sums`): one payload a worker through the client, cheap over the host's own memory.
Where the workers span :data:`TREE_FROM_HOSTS` hosts, the client's network link would carry a
payload from every remote worker, one after another, so the sums are combined where they are
instead: every worker's accumulator is taken by a task pinned to it
(:func:`.worker_sums.start_collect`), then each pair of them is added by a task on the first one's
worker (:func:`combine`), level by level, and the client fetches and adds only the root: one payload
of ``n`` vertices, after ``ceil(log2(workers))`` rounds of transfers that run side by side. The
workers are paired in address order, so the first rounds pair workers of the same host.

Fixed point adds in any order, so the tree gives the bits of the client's adds. Every combined sum
carries the blocks it holds: an accumulator holding a block already held by the other side is left
out whole (a task that ran on two live workers), as the client does, and any sums that were lost (a
worker gone, a broken accumulator) travel as their errors; the client then runs those blocks again
(:func:`.worker_sums.gather`). A worker that leaves while the tree waits on it loses the tree's sums
not yet fetched: their blocks run again, none is counted twice.
"""
from __future__ import annotations

import uuid

from . import sums_wire, worker_sums

TREE_FROM_HOSTS = 2  # a wave's sums are combined as a tree when the workers span this many hosts


def wanted(addresses) -> bool:
    """Whether workers at ``addresses`` combine their sums as a tree: they span :data:`TREE_FROM_HOSTS` hosts."""
    from distributed.comm import get_address_host
    return len({get_address_host(address) for address in addresses}) >= TREE_FROM_HOSTS


def combine(kept, other):
    """``kept`` plus ``other``, each what :func:`.worker_sums.hand_over` gave (``{"blocks", "scales",
    "packed"}``, None, or the exception that lost them) or an earlier :func:`combine`: the sums of
    both, ``"errors"`` listing what was lost or left out; None when both hold nothing."""
    errors = [*_errors(kept), *_errors(other)]
    a, b = (None if isinstance(x, BaseException) or x is None or x["packed"] is None else x for x in (kept, other))
    if a is None or b is None:
        out = a or b
    elif a["blocks"] & b["blocks"]:
        errors.append(f"the sums of blocks {sorted(b['blocks'])} were left out: blocks "
                      f"{sorted(a['blocks'] & b['blocks'])} were counted on another worker")
        out = a
    else:
        if list(a["scales"]) != list(b["scales"]):
            raise RuntimeError(f"blocks {sorted(b['blocks'])} were summed with fixed-point scales "
                               f"{list(b['scales'])}, blocks {sorted(a['blocks'])} with {list(a['scales'])}")
        totals = b["packed"].add_into(a["packed"].unpack())
        out = {"blocks": a["blocks"] | b["blocks"], "scales": a["scales"], "packed": sums_wire.pack(totals)}
    if out is None and not errors:
        return None
    return {"blocks": set(), "scales": None, "packed": None, **(out or {}), "errors": errors}


def _errors(got) -> list:
    if isinstance(got, BaseException):
        return [repr(got)]
    return list(got.get("errors", ())) if isinstance(got, dict) else []


def collect_tree(client, key: tuple) -> dict:
    """``{address: the combined sums of run key}`` (:func:`combine`'s, as the root's worker holds
    them, or the exception that lost them), as :func:`.worker_sums.collect_all` gives each worker's:
    the workers' accumulators taken by a task pinned to each and combined pairwise on the workers,
    the root fetched straight from its worker."""
    leaves = worker_sums.start_collect(client, key, worker_sums.hand_over)
    level, needs = sorted(leaves.items()), {a: [(a, f)] for a, f in leaves.items()}
    token, made = uuid.uuid4().hex[:12], 0
    while len(level) > 1:
        up = []
        for i in range(0, len(level) - 1, 2):
            (a, fa), (b, fb) = level[i], level[i + 1]
            future = client.submit(combine, fa, fb, workers=[a], allow_other_workers=False, pure=False,
                                   priority=worker_sums.FIRST, key=f"apsp-combine-sums-{token}-{made}")
            made += 1
            needs[a] = [*needs[a], *needs.pop(b), (a, future)]
            up.append((a, future))
        level = up + level[len(level) - len(level) % 2:]
    root, future = level[0]
    return worker_sums.fetch_collected(client, {root: future}, needs)
