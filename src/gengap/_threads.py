"""CPU threads: how many cores gengap may use, and torch's threads while a reference learner computes.

Small networks do not get faster from several intra-op threads, and on a machine whose cores are
busy with other work those threads wait for each other: a training step then costs many times its
CPU time. So gengap's reference learners train and predict on **one** torch thread (which also
makes their numbers independent of the machine's thread count), and the runner uses the cores by
training several learners side by side, one process each (:attr:`gengap.config.Execution.threads`).

Waiting OpenMP threads sleep instead of spinning (``OMP_WAIT_POLICY=PASSIVE``, set when gengap is
imported before torch, unless the variable is already set): a thread that spins burns a core
another process could use.

>>> usable_cores() >= 1
True
>>> resolve_threads(3), resolve_threads(None) == usable_cores()
(3, True)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["usable_cores", "resolve_threads", "one_torch_thread", "quiet_openmp", "thread_record"]


def quiet_openmp() -> None:
    """Make OpenMP threads sleep while they wait (only before torch is loaded, and only if unset)."""
    if "torch" not in sys.modules:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity, capped by a cgroup CPU quota (containers)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    try:
        with open("/sys/fs/cgroup/cpu.max", encoding="ascii") as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, int(int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cores)


def resolve_threads(threads: int | None) -> int:
    """The threads setting as a number: the value given, or :func:`usable_cores` for None."""
    return usable_cores() if threads is None else max(1, int(threads))


@contextmanager
def one_torch_thread(torch: Any) -> Iterator[None]:
    """``with one_torch_thread(torch):`` torch computes on one intra-op thread inside, as before after.

    One thread gives the same floating-point sums in the same order on every machine, and never
    waits for another thread that the operating system has paused.
    """
    before = torch.get_num_threads()
    if before != 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if before != 1:
            torch.set_num_threads(before)


def thread_record(threads: int) -> dict[str, Any]:
    """What a run stores about its threads: the setting, the cores it saw, and the torch threads per learner.

    >>> sorted(thread_record(2))
    ['learners_at_once', 'omp_wait_policy', 'torch_threads_per_learner', 'usable_cores']
    """
    return {"learners_at_once": threads, "torch_threads_per_learner": 1, "usable_cores": usable_cores(),
            "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "")}


quiet_openmp()  # on import: gengap's package imports this module before anything that loads torch
