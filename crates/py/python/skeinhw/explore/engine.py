"""Running jobs: on Ray (Ray Core tasks, one per point) or serially in this process.

The driver submits every job as a task that asks Ray for its flow's CPUs and memory; a worker
or node that dies takes its task with it, and Ray runs it again elsewhere (``max_retries``,
bounded). Results come back to the driver, which alone writes the store, one record as each
task ends. Ctrl-C cancels what is still running and stops with the store consistent: the next
run of the study picks up the points that did not finish.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable

from . import flows
from .errors import ExploreError

Record = dict[str, Any]
OnResult = Callable[[dict[str, Any], Record], None]

# Ray's own environment for a study that must stay on this machine and say nothing outside.
QUIET_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_DISABLE_IMPORT_WARNING": "1"}


class Progress:
    """done, failed, running, ETA: one line on stderr, rewritten in place on a terminal."""

    def __init__(self, total: int, parallel: int, enabled: bool = True):
        self.total, self.parallel, self.enabled = total, max(1, parallel), enabled
        self.done = self.failed = 0
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()

    def update(self, ok: bool, pending: int) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        left = self.total - self.done
        eta = elapsed / self.done * left if self.done else 0.0
        line = (f"explore: {self.done}/{self.total} done, {self.failed} failed, "
                f"{min(pending, self.parallel)} running, ETA {fmt_time(eta)}")
        end = "\r" if self.tty and left else "\n"
        print(line.ljust(70), end=end, file=sys.stderr, flush=True)


def fmt_time(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def run_serial(jobs: list[dict[str, Any]], on_result: OnResult, progress: bool) -> None:
    """Every job in this process, one after another (no Ray)."""
    p = Progress(len(jobs), 1, progress)
    for i, job in enumerate(jobs):
        r = flows.run_job(job)
        on_result(job, r)
        p.update(r["status"] == "ok", len(jobs) - i - 1)


def connect(address: str | None, num_cpus: int | None = None) -> None:
    """Starts Ray here (no address: bound to the loopback, no dashboard) or joins a cluster
    (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``); an unreachable one is an error."""
    for k, v in QUIET_ENV.items():
        os.environ.setdefault(k, v)
    try:
        import ray
    except ImportError:
        raise ExploreError(
            "ray is not installed: pip install './crates/py[explore]' (or use --serial)"
        ) from None
    if address and address != "auto":
        check_reachable(address)
    kwargs: dict[str, Any] = {"logging_level": "WARNING", "log_to_driver": False}
    if address is None:
        kwargs.update(include_dashboard=False, _node_ip_address="127.0.0.1",
                      num_cpus=num_cpus)
    elif not address.startswith("ray://") and loopback(address):
        # A cluster on this machine's loopback: the driver's node is there too.
        kwargs.update(_node_ip_address="127.0.0.1")
    try:
        ray.init(address=address, **kwargs)
    except (ConnectionError, TimeoutError, RuntimeError, ValueError) as e:
        where = address or "local"
        raise ExploreError(f"--address {where}: cannot reach the Ray cluster: "
                           f"{' '.join(str(e).split())[:200]}") from None


def loopback(address: str) -> bool:
    host = address.rpartition(":")[0]
    return host in ("127.0.0.1", "localhost")


def check_reachable(address: str) -> None:
    """``HOST:PORT`` is tried with one TCP connection first (Ray itself waits 30 s or more)."""
    import socket

    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=5):
            pass
    except (OSError, ValueError) as e:
        raise ExploreError(f"--address {address}: cannot reach the Ray cluster: {e}") from None


def cluster_cpus() -> int:
    import ray

    return int(ray.cluster_resources().get("CPU", 1))


def run_ray(jobs: list[dict[str, Any]], on_result: OnResult, max_retries: int,
            progress: bool) -> None:
    """Every job as a Ray task; results handed to ``on_result`` in the order they end."""
    import ray

    task = ray.remote(flows.run_job)
    refs: dict[Any, dict[str, Any]] = {}
    for job in jobs:
        spec = flows.FLOWS[job["flow"]]
        ref = task.options(num_cpus=spec.num_cpus, memory=spec.memory,
                           max_retries=max_retries, retry_exceptions=False).remote(job)
        refs[ref] = job
    p = Progress(len(jobs), cluster_cpus(), progress)
    pending = list(refs)
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1, timeout=None)
            for ref in ready:
                r = outcome(ref)
                on_result(refs[ref], r)
                p.update(r["status"] == "ok", len(pending))
    except KeyboardInterrupt:
        for ref in pending:
            ray.cancel(ref)  # KeyboardInterrupt in the task: its tool killed, its dir removed
        ray.wait(pending, num_returns=len(pending), timeout=5)
        raise


def outcome(ref) -> dict[str, Any]:
    """A task's result; a task Ray gave up on (retries spent) is a failure record."""
    import ray

    try:
        return ray.get(ref)
    except ray.exceptions.OutOfMemoryError as e:
        return lost("oom", e)
    except ray.exceptions.RayError as e:
        return lost("failed", e)


def lost(status: str, e: BaseException) -> dict[str, Any]:
    text = " ".join(str(e).split())
    return {"status": status, "reason": f"{type(e).__name__}: {text[:300]}",
            "log_tail": str(e)[-2000:], "figures": {}, "wall_s": None, "node": None}


def shutdown() -> None:
    try:
        import ray

        if ray.is_initialized():
            ray.shutdown()
    except ImportError:
        pass
