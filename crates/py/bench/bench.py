"""Speed of the Python package (build it with --release first: maturin develop --release, see README.md):

- skein512().update() of 1 MiB: the binding against the Rust library in the same process
  (goal: within 5%) and against pyskein 1.0 (goal: at least as fast);
- simulate(): golden cycle records delivered into Python per second (goal: >= 1 million),
  beside the same batches drained in Rust alone.

The contenders are timed in turn, round after round, and each keeps its best round: on a
shared machine they then see the same load. The hashes run on the calling thread (the binding
and the Rust loop release the GIL but stay on it), so they are timed by that thread's CPU time
(time.thread_time), which leaves out the time the scheduler hands to other processes; the
simulation is a pipeline of two threads (the simulator's and Python's), timed by the wall clock,
and by the CPU time of both threads together (time.process_time: cycles per CPU-second, what one
core would deliver running both in turn, the figure a loaded machine does not blur), with the
Python thread's own CPU time per cycle beside it.

Run: target/venv-bench/bin/python crates/py/bench/bench.py
"""

import time

import skeinhw
from skeinhw import _native

MIB = bytes(range(256)) * 4096
N = 20
ROUNDS = 9
SIM_MESSAGE = bytes(256 << 10)


def timed(f, clock=time.perf_counter):
    t = clock()
    f()
    return clock() - t


def cpu(f):
    return timed(f, time.thread_time)


def main():
    def ours():
        for _ in range(N):
            h = skeinhw.skein512()
            h.update(MIB)
            h.digest()

    try:
        import skein as pyskein
    except ImportError:
        pyskein = None

    def theirs():
        for _ in range(N):
            h = pyskein.skein512()
            h.update(MIB)
            h.digest()

    def rust():
        _native._bench_rust_skein512(MIB, N)

    best = {"ours": 1e9, "rust": 1e9, "pyskein": 1e9}
    for _ in range(ROUNDS):
        best["ours"] = min(best["ours"], cpu(ours))
        best["rust"] = min(best["rust"], cpu(rust))
        if pyskein:
            best["pyskein"] = min(best["pyskein"], cpu(theirs))
    mibs = lambda t: N / t  # noqa: E731
    print(f"skein512 1 MiB  skeinhw (Python): {mibs(best['ours']):8.1f} MiB/s")
    print(f"skein512 1 MiB  Rust library:     {mibs(best['rust']):8.1f} MiB/s  "
          f"(binding/Rust time ratio {best['ours'] / best['rust']:.3f})")
    if pyskein:
        print(f"skein512 1 MiB  pyskein 1.0:      {mibs(best['pyskein']):8.1f} MiB/s  "
              f"(skeinhw is {best['pyskein'] / best['ours']:.2f}x pyskein)")
    else:
        print("pyskein not installed: no comparison")

    cycles = {}

    def drain():
        n = 0
        for _ in skeinhw.simulate("ath-1r", [SIM_MESSAGE]):
            n += 1
        cycles["n"] = n

    def read():
        acc = 0
        for r in skeinhw.simulate("ath-1r", [SIM_MESSAGE]):
            acc ^= r["slot0_state_0"]
        return acc

    best = {k: 1e9 for k in ("drain", "read", "rust", "drain_cpu", "read_cpu", "drain_all",
                             "read_all")}
    for _ in range(ROUNDS):
        for name, f in (("drain", drain), ("read", read)):
            t, c, a = time.perf_counter(), time.thread_time(), time.process_time()
            f()
            best[name + "_all"] = min(best[name + "_all"], time.process_time() - a)
            best[name + "_cpu"] = min(best[name + "_cpu"], time.thread_time() - c)
            best[name] = min(best[name], time.perf_counter() - t)
        best["rust"] = min(best["rust"], _native._bench_rust_simulate("ath-1r", SIM_MESSAGE))
    c = cycles["n"]
    m = lambda t: c / t / 1e6  # noqa: E731
    ns = lambda t: t / c * 1e9  # noqa: E731
    print(f"simulate ath-1r ({c} cycles): {m(best['drain']):.2f} million cycles/s into Python "
          f"({m(best['read']):.2f} reading one field of each); the same batches in Rust alone "
          f"{m(best['rust']):.2f} million/s")
    print(f"simulate, per CPU-second of both threads: {m(best['drain_all']):.2f} million cycles "
          f"({m(best['read_all']):.2f} reading one field of each)")
    print(f"simulate, the Python thread's CPU time per cycle: {ns(best['drain_cpu']):.0f} ns "
          f"(next record), {ns(best['read_cpu']):.0f} ns (and one field read)")


if __name__ == "__main__":
    main()
