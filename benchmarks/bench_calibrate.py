"""Benchmark: `dpledger calibrate carry-forward` end to end (target: under 2 s).

Prints the wall time of the whole command (process start, imports, chain, tight calibration)
for a few targets. Run: python benchmarks/bench_calibrate.py
"""
from __future__ import annotations

import subprocess
import sys
import time

TARGETS = [
    ("100000000", "4", "1", "1e-6"),
    ("100000000", "32", "0.5", "1e-8"),
    ("1000000000", "2", "0.1", "1e-6"),
]


def main() -> None:
    print(f"{'n':>12} {'k':>4} {'ε':>5} {'δ':>6}  seconds")
    for n, k, eps, delta in TARGETS:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "verify.cli", "calibrate", "carry-forward", "--n", n, "--k", k,
                        "--epsilon", eps, "--delta", delta, "--json"], check=True, capture_output=True)
        print(f"{n:>12} {k:>4} {eps:>5} {delta:>6}  {time.perf_counter() - start:.2f}")


if __name__ == "__main__":
    main()
