"""Speed of the Python package (build it with --release first: maturin develop --release, see README.md):

- skein512().update() of 1 MiB: the binding against the Rust library in the same process
  (goal: within 5%) and against pyskein 1.0 (goal: at least as fast);
- simulate(): golden cycle records delivered into Python per second (goal: >= 1 million).

Run: target/venv-bench/bin/python crates/py/bench/bench.py
"""

import statistics
import time

import skeinhw
from skeinhw import _native

MIB = bytes(range(256)) * 4096


def best(f, reps=7):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def main():
    n = 20

    def ours():
        for _ in range(n):
            h = skeinhw.skein512()
            h.update(MIB)
            h.digest()

    t_ours, _ = best(ours)
    t_rust = min(_native._bench_rust_skein512(MIB, n) for _ in range(7))
    mibs = lambda t: n / t  # noqa: E731
    print(f"skein512 1 MiB  skeinhw (Python): {mibs(t_ours):8.1f} MiB/s")
    print(f"skein512 1 MiB  Rust library:     {mibs(t_rust):8.1f} MiB/s  "
          f"(binding/Rust time ratio {t_ours / t_rust:.3f})")
    try:
        import skein as pyskein

        def theirs():
            for _ in range(n):
                h = pyskein.skein512()
                h.update(MIB)
                h.digest()

        t_py, _ = best(theirs)
        print(f"skein512 1 MiB  pyskein 1.0:      {mibs(t_py):8.1f} MiB/s  "
              f"(skeinhw is {t_py / t_ours:.2f}x pyskein)")
    except ImportError:
        print("pyskein not installed: no comparison")

    def cycles():
        count = 0
        for _ in skeinhw.simulate("ath-1r", [bytes(256 << 10)]):
            count += 1
        return count

    t = time.perf_counter()
    c = cycles()
    dt = time.perf_counter() - t
    print(f"simulate ath-1r: {c} cycles in {dt:.2f} s = {c / dt / 1e6:.2f} million cycles/s into Python")


if __name__ == "__main__":
    main()
