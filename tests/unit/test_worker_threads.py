"""The worker's threads for blocking work: `WORKER_THREADS` of them, one per core by default."""

import os
import threading
import time

import pytest

from models.settings import Settings
from worker import blocking_work_threads


def most_at_once(threads_setting: int, jobs: int) -> int:
    """How many of `jobs` short blocking jobs the worker's executor ran at the same time."""
    lock = threading.Lock()
    running = peak = 0

    def job() -> None:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.05)
        with lock:
            running -= 1

    with blocking_work_threads(Settings(_env_file=None, worker_threads=threads_setting)) as executor:
        for future in [executor.submit(job) for _ in range(jobs)]:
            future.result()
    return peak


def test_the_worker_runs_as_many_blocking_jobs_at_once_as_it_has_threads() -> None:
    assert most_at_once(3, jobs=8) == 3


def test_by_default_the_worker_has_one_thread_per_core() -> None:
    cores = os.cpu_count() or 1
    assert most_at_once(0, jobs=cores + 4) == cores


def test_a_negative_thread_count_is_refused() -> None:
    with pytest.raises(ValueError, match="worker_threads"):
        Settings(_env_file=None, worker_threads=-1)
