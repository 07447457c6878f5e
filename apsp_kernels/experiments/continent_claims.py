"""The scale notebook's verdicts on every source past one GPU (issue 45): the same bits on every
GPU count, the scaling from one GPU, and on the 16M stand-in a tree against its memory bound, the
reductions' share of a block and every source on four GPUs; with the EVIDENCE each rests on (the
graph's records of :mod:`.continent`)."""
from __future__ import annotations

import re

from ..verdicts import Evidence, beside_goal
from .continent import EXPERIMENT, USA_SIZE, stand_in_label

GOALS = {2: 1.9, 4: 3.6}  # issue 45: every source on this many GPUs against one, on NY, BAY and 16M
BOUND_GOAL = 1.3  # issue 45: a tree of the 16M stand-in within this factor of its K-wide memory bound
REDUCTIONS_SHARE_GOAL = 0.30  # issue 45: the reductions at most this share of a block's time
EVERY_SOURCE_GOAL_S = 480.0  # issue 45: every source of the 16M stand-in on four GPUs
GOAL_N = 1 << 24
GOAL_GPUS = 4


def verdicts(records, unit: str = "GPUs") -> list[dict]:
    """Issue 45's goals on these records: the same bits on every GPU count, the scaling from one
    GPU, and on the 16M stand-in the bound, the reductions' share and every source on four GPUs
    (``unit``: what the workers were, e.g. CPU workers in the smoke profile)."""
    out = []
    for graph in dict.fromkeys(r.graph for r in records):
        by = {r.param("workers"): r for r in records if r.graph == graph}
        out += [_same_bits(graph, by, unit), *_scaling(graph, by, unit)]
        top = by[max(by)]
        if top.n == GOAL_N and top.stat("in_place"):
            out += _at_the_goal_size(graph, top, by.get(GOAL_GPUS))
    return out


def _same_bits(graph: str, by: dict, unit: str) -> dict:
    same = all(r.stat("same_bits_as_first") for r in by.values())
    first = next(iter(by.values()))
    return dict(claim=f"{graph}: every reduction the same bits on {', '.join(map(str, sorted(by)))} {unit}",
                published="bit for bit (issue 45)", measured="the same" if same else "DIFFERENT",
                holds=same if len(by) > 1 else None,
                note=f"{first.param('sources'):,} sources; reductions.same_as on every frame and scalar")


def _scaling(graph: str, by: dict, unit: str) -> list[dict]:
    out = []
    for count, goal in GOALS.items():
        if 1 in by and count in by:
            one, many = by[1].time_ms_median / 1e3, by[count].time_ms_median / 1e3
            out.append(dict(claim=f"{graph}: every source, {count} {unit} >= {goal:g}x one",
                            published=f">= {goal:g}x (issue 45)", measured=f"{beside_goal(one / many, goal)}x",
                            holds=one / many >= goal,
                            note=f"wall {one:.3g} s on one, {many:.3g} s on {count}; outside the blocks "
                                 f"{by[count].stat('outside_blocks_s'):.2g} s"))
    return out


def _at_the_goal_size(graph: str, top, four) -> list[dict]:
    """The bound and the reductions' share of the run on the most GPUs; every source on four."""
    ratio, share = top.stat("ratio_to_bound"), top.stat("reductions_share")
    out = [dict(claim=f"{graph}: a tree within {BOUND_GOAL:g}x of the K-wide memory bound",
                published=f"<= {BOUND_GOAL:g}x (issue 45)", measured=f"{beside_goal(ratio, BOUND_GOAL)}x",
                holds=ratio <= BOUND_GOAL, note=f"sweeps {top.stat('sweep_us_per_tree'):.3g} µs a tree (with the "
                                                 f"reductions run beside them), bound "
                                                 f"{top.stat('bound_us_per_tree'):.3g} µs on {top.device}"),
           dict(claim=f"{graph}: the reductions at most {REDUCTIONS_SHARE_GOAL:.0%} of a block's time",
                published=f"<= {REDUCTIONS_SHARE_GOAL:.0%} (issue 45)", measured=f"{share:.0%}",
                holds=share <= REDUCTIONS_SHARE_GOAL,
                note="in-place reductions after the sweeps (what the sweeps did not hide) over the blocks' "
                     "time, the workers' CUDA events")]
    if four is not None:
        full = four.stat("every_source")
        seconds = four.time_ms_median / 1e3 if full else four.stat("every_source_estimate_s")
        how = "measured" if full else f"estimated from {four.param('sources'):,} sources in whole blocks"
        out.append(dict(claim=f"{graph}: every source on {GOAL_GPUS} GPUs in <= {EVERY_SOURCE_GOAL_S / 60:g} min",
                        published=f"<= {EVERY_SOURCE_GOAL_S:g} s (issue 45)", measured=f"{seconds:.0f} s",
                        holds=seconds <= EVERY_SOURCE_GOAL_S, note=f"{how} on {four.device}"))
    return out


def evidence(roads=("NY", "BAY"), stand_ins=(1 << 20, 1 << 22, 1 << 24, USA_SIZE)) -> list:
    """The records each of :func:`verdicts`' claims rests on: its graph's continent records (a road
    graph's, or the smoke profile's stand-in for it)."""
    graphs = [(rf"{road}(-stand-in-\d+)?",
               {"where": f"graph == '{road}' or graph.str.startswith('{road}-stand-in')"}) for road in roads]
    graphs += [(re.escape(name), {"graph": name}) for name in map(stand_in_label, stand_ins)]
    claims = ("every reduction the same bits", r"every source, \d+ .* >= ", "a tree within",
              "the reductions at most", "every source on")
    return [Evidence(rf"{name}: {claim}", EXPERIMENT, correctness=claim.startswith("every reduction"), **select)
            for name, select in graphs for claim in claims]


EVIDENCE = evidence()
