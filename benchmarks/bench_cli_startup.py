"""CPU time of starting the ``dpledger`` command: ``--version``, ``--help``, one command's
``--help`` (which imports that command's module alone) and ``import dpledger``.

Each figure is the median over ``--repeats`` fresh processes of the child's user + system CPU
seconds (``resource.getrusage(RUSAGE_CHILDREN)``): CPU, not wall time, because the machine is
shared and wall time measures the neighbours. The target for ``--version`` and ``--help`` is
0.3 s: the command modules (sympy, scipy.stats, the learners) are imported only for the command
that runs (:data:`dpledger.verify.cli.commands.SUMMARIES` lists the others).

    python benchmarks/bench_cli_startup.py --repeats 7
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
from pathlib import Path

DPLEDGER = str(Path(sys.executable).with_name("dpledger"))
CASES = {
    "dpledger --version": [DPLEDGER, "--version"],
    "dpledger --help": [DPLEDGER, "--help"],
    "dpledger compose --help": [DPLEDGER, "compose", "--help"],
    "dpledger audit --help": [DPLEDGER, "audit", "--help"],
    "python -c 'import dpledger'": [sys.executable, "-c", "import dpledger"],
}


def cpu_seconds(argv: list[str]) -> float:
    """User + system CPU seconds of one run of ``argv`` (its output discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per case (default 5)")
    repeats = parser.parse_args().repeats
    print(f"{'command':<32} {'median CPU s':>12} {'min':>7} {'max':>7}   ({repeats} runs each)")
    for name, argv in CASES.items():
        times = [cpu_seconds(argv) for _ in range(repeats)]
        print(f"{name:<32} {statistics.median(times):>12.3f} {min(times):>7.3f} {max(times):>7.3f}")


if __name__ == "__main__":
    main()
