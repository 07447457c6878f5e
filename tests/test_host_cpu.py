"""Host-clock timings of notebooks side by side take turns (apsp_kernels.host_cpu)."""
import fcntl
import json
import os
import subprocess
import sys
import threading
import time

from apsp_kernels import host_cpu

HOLD = """
import json, sys, time
from apsp_kernels import host_cpu
with host_cpu.exclusive():
    with host_cpu.exclusive():  # re-entrant: a timing inside an oracle call, say
        start = time.time()
        time.sleep(0.4)
        end = time.time()
print(json.dumps([start, end]))
"""


def spans_of_two_processes(env) -> list:
    procs = [subprocess.Popen([sys.executable, "-c", HOLD], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    return sorted(json.loads(p.communicate(timeout=30)[0]) for p in procs)


def test_processes_sharing_the_lock_take_turns(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != host_cpu.ENV}
    first, second = spans_of_two_processes(env | {host_cpu.ENV: str(tmp_path / "cpu.lock")})
    assert second[0] >= first[1], "two processes held the host's CPU lock at once"
    first, second = spans_of_two_processes(env)  # without the lock they overlap: the check can tell
    assert second[0] < first[1]


def test_threads_of_one_process_take_turns(tmp_path, monkeypatch):
    monkeypatch.setenv(host_cpu.ENV, str(tmp_path / "cpu.lock"))
    spans = []

    def hold():
        with host_cpu.exclusive():
            start = time.time()
            time.sleep(0.2)
            spans.append((start, time.time()))

    threads = [threading.Thread(target=hold) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    (_, first_end), (second_start, _) = sorted(spans)
    assert second_start >= first_end


def test_the_runner_shares_one_lock_file_and_clears_it(tmp_path, monkeypatch):
    monkeypatch.delenv(host_cpu.ENV, raising=False)
    with host_cpu.shared_by_notebooks(tmp_path) as path:
        assert os.environ[host_cpu.ENV] == path and os.path.dirname(path) == str(tmp_path)
        with host_cpu.exclusive():
            assert os.path.exists(path)
    assert host_cpu.ENV not in os.environ and not os.path.exists(path)


def test_a_lock_named_by_the_caller_is_kept_for_runs_side_by_side(tmp_path, monkeypatch):
    outer = str(tmp_path / "outer.lock")
    monkeypatch.setenv(host_cpu.ENV, outer)
    with host_cpu.shared_by_notebooks(tmp_path / "run") as path:
        assert path == outer and os.environ[host_cpu.ENV] == outer
    assert os.environ[host_cpu.ENV] == outer


def wait_until_held(lock, timeout=30):
    """Until another process holds ``lock`` (a non-blocking try fails)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if lock.exists():
            with open(lock, "a") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return
                fcntl.flock(handle, fcntl.LOCK_UN)
        time.sleep(0.01)
    raise AssertionError("the other process never took the lock")


def test_the_budget_clock_leaves_out_waiting_for_the_lock(tmp_path, monkeypatch):
    lock = tmp_path / "cpu.lock"
    env = os.environ | {host_cpu.ENV: str(lock)}
    holder = subprocess.Popen([sys.executable, "-c", HOLD], env=env, stdout=subprocess.PIPE, text=True)
    wait_until_held(lock)
    monkeypatch.setenv(host_cpu.ENV, str(lock))
    wall, budget = time.perf_counter(), host_cpu.clock_without_waits()
    with host_cpu.exclusive():
        pass
    wall, budget = time.perf_counter() - wall, host_cpu.clock_without_waits() - budget
    holder.communicate(timeout=30)
    assert wall > 0.2 and budget < 0.05, (wall, budget)
