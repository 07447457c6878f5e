"""One notebook per GPU on Dask (apsp_kernels.multi_gpu), on the CPU: a local cluster whose
workers see fake GPU ids through CUDA_VISIBLE_DEVICES, as dask-cuda's workers do."""
import json
import time
from pathlib import Path

import pytest

from apsp_kernels import multi_gpu

pytest.importorskip("distributed")
from fake_gpus import fake_gpu_client  # noqa: E402

FAKE_GPUS = ["3", "5"]


def fake_notebook(job):
    """Runs on a worker: notes where and when it ran, 'sleeps' its duration, or fails."""
    name, seconds, log_dir = job
    start = time.time()
    time.sleep(seconds)
    entry = {"name": name, "gpu": multi_gpu.gpu_identity(), "start": start, "end": time.time()}
    with open(Path(log_dir) / f"{name}.jsonl", "a") as log:
        log.write(json.dumps(entry) + "\n")
    if name.startswith("broken"):
        raise RuntimeError(f"{name} failed")
    return entry


def test_every_job_runs_once_longest_first_one_per_gpu(tmp_path):
    durations = {"short": 0.05, "long": 0.8, "broken": 0.1, "middle": 0.4, "never_timed": 0.6}
    expected = {"long": 8.0, "middle": 4.0, "broken": 1.0, "short": 0.5, "never_timed": None}
    jobs = multi_gpu.longest_first([(name, s, str(tmp_path)) for name, s in durations.items()],
                                   lambda job: expected[job[0]])
    assert [job[0] for job in jobs] == ["never_timed", "long", "middle", "broken", "short"]

    announced = {}
    results = multi_gpu.run_on_gpus(jobs, fake_notebook, FAKE_GPUS, fake_gpu_client,
                                    on_start=lambda job, gpu_id: announced.setdefault(job[0], gpu_id),
                                    on_error=lambda job, exc: f"failed: {exc}")

    logs = {job[0]: (tmp_path / f"{job[0]}.jsonl").read_text().splitlines() for job in jobs}
    assert all(len(lines) == 1 for lines in logs.values()), "a notebook ran more than once"
    runs = {name: json.loads(lines[0]) for name, lines in logs.items()}
    assert results[3] == "failed: broken failed"
    assert [r["name"] for i, r in enumerate(results) if i != 3] == ["never_timed", "long", "middle", "short"]

    # the GPU each job was sent to is the one it saw, and both GPUs worked
    assert {name: run["gpu"]["index"] for name, run in runs.items()} == announced
    assert set(announced.values()) == set(FAKE_GPUS)
    # longest first: the first two start together, each later one after every earlier one
    by_start = [name for name, _ in sorted(runs.items(), key=lambda item: item[1]["start"])]
    assert set(by_start[:2]) == {"never_timed", "long"} and by_start[2:] == ["middle", "broken", "short"]
    # never two jobs on one GPU at once
    for gpu_id in FAKE_GPUS:
        spans = sorted((r["start"], r["end"]) for r in runs.values() if r["gpu"]["index"] == gpu_id)
        assert all(later[0] >= earlier[1] for earlier, later in zip(spans, spans[1:]))


def test_why_not_parallel(monkeypatch):
    assert multi_gpu.why_not_parallel([], 3) == "no CUDA GPU"
    assert multi_gpu.why_not_parallel(["0"], 3) == "one GPU"
    assert multi_gpu.why_not_parallel(["0", "1"], 1) == "one notebook"
    monkeypatch.setitem(__import__("sys").modules, "dask_cuda", None)
    why = multi_gpu.why_not_parallel(["0", "1"], 3)
    assert why.startswith("2 GPUs but dask-cuda does not import") and "distributed-gpu" in why


def test_gpu_identity_is_the_first_visible_gpu(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "5,2")
    monkeypatch.setattr(multi_gpu, "nvidia_smi_row", lambda device: {})
    assert multi_gpu.gpu_identity()["index"] == "5"
    monkeypatch.setattr(multi_gpu, "nvidia_smi_row",
                        lambda device: {"index": device, "name": "NVIDIA H200", "uuid": "GPU-abc"})
    assert multi_gpu.gpu_identity() == {"index": "5", "name": "NVIDIA H200", "uuid": "GPU-abc"}
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert multi_gpu.gpu_identity() == {}


def test_fake_gpu_workers_keep_dask_nvml_monitor_off():
    """On a GPU host the monitor would look the fake ids up in NVML and the workers fail to start."""
    import dask
    with fake_gpu_client(FAKE_GPUS) as client:
        seen = client.run(lambda: dask.config.get("distributed.diagnostics.nvml"))
    assert list(seen.values()) == [False, False]
