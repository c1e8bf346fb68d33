"""Benchmark: `dpledger calibrate …` end to end (target: under 2 s each).

Prints the wall time of the whole command (process start, imports, chain, tight calibration)
for the Lemma 6.12 calibration at a few targets and for each theorem's sample-size calibration.
Run: python benchmarks/bench_calibrate.py
"""

from __future__ import annotations

import subprocess
import sys
import time

COMMANDS = [
    ["carry-forward", "--n", "100000000", "--k", "4", "--epsilon", "1", "--delta", "1e-6"],
    ["carry-forward", "--n", "100000000", "--k", "32", "--epsilon", "0.5", "--delta", "1e-8"],
    ["carry-forward", "--n", "1000000000", "--k", "2", "--epsilon", "0.1", "--delta", "1e-6"],
    ["5.1", "--class", "intervals"],
    ["5.1", "--oracle-m", "5000", "--k", "32", "--vc", "32"],
    ["8.5", "--oracle", "exponential", "--dimension", "2"],
    ["8.8", "--dimension", "10"],
    ["8.14", "--dimension", "10"],
    ["8.19", "--k", "3", "--components", "thresholds,intervals,thresholds"],
    ["2.1"],
    ["3.1", "--degree", "2"],
    ["4.1"],
]


def main() -> None:
    print(f"{'dpledger calibrate …':<72} seconds")
    for argv in COMMANDS:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "dpledger.verify.cli.main", "calibrate", *argv, "--json"],
            check=True,
            capture_output=True,
        )
        print(f"{' '.join(argv):<72} {time.perf_counter() - start:.2f}")


if __name__ == "__main__":
    main()
