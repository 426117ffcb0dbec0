"""Speed of the Python package (build it with --release first: maturin develop --release, see README.md):

- skein512().update() of 1 MiB: the binding against the Rust library in the same process
  (goal: within 5%) and against pyskein 1.0 (goal: at least as fast);
- simulate(): golden cycle records delivered into Python per second (goal: >= 1 million),
  beside the same batches drained in Rust alone.

The contenders are timed in turn, round after round, and each keeps its best round: on a
shared machine they then see the same load.

Run: target/venv-bench/bin/python crates/py/bench/bench.py
"""

import time

import skeinhw
from skeinhw import _native

MIB = bytes(range(256)) * 4096
N = 20
ROUNDS = 9
SIM_MESSAGE = bytes(256 << 10)


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


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

    best = {"ours": 1e9, "rust": 1e9, "pyskein": 1e9}
    for _ in range(ROUNDS):
        best["ours"] = min(best["ours"], timed(ours))
        best["rust"] = min(best["rust"], _native._bench_rust_skein512(MIB, N))
        if pyskein:
            best["pyskein"] = min(best["pyskein"], timed(theirs))
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

    best = {"drain": 1e9, "read": 1e9, "rust": 1e9}
    for _ in range(5):
        best["drain"] = min(best["drain"], timed(drain))
        best["read"] = min(best["read"], timed(read))
        best["rust"] = min(best["rust"], _native._bench_rust_simulate("ath-1r", SIM_MESSAGE))
    c = cycles["n"]
    m = lambda t: c / t / 1e6  # noqa: E731
    print(f"simulate ath-1r ({c} cycles): {m(best['drain']):.2f} million cycles/s into Python "
          f"({m(best['read']):.2f} reading one field of each); the same batches in Rust alone "
          f"{m(best['rust']):.2f} million/s")


if __name__ == "__main__":
    main()
