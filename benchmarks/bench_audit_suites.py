"""DP-Sniper's and StatDP's mechanism suites side by side with dpledger's Monte Carlo audit
(issue 18, item 6): per mechanism the true ε, dpledger's certified lower bound at 10⁵, 10⁶ (and
with ``--full`` 10⁷) runs per input (one stage, 95% confidence, DP-Sniper's input pair), the
optimal-statistic limit at 10⁶ and DP-Sniper's published bound. The suites, their sources and the
limit are described in :mod:`dpledger.verify.audit.montecarlo.suites`.

Run: ``python benchmarks/bench_audit_suites.py [--full] [--only NAME ...]``.
"""
from __future__ import annotations

import argparse
import math
import time

from dpledger.verify.audit.montecarlo import local_processes
from dpledger.verify.audit.montecarlo.suites import CONFIDENCE, LIMIT_SAMPLES, audit_row, suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also 10^7 runs per input (minutes per mechanism)")
    parser.add_argument("--only", action="append", help="only this mechanism (repeatable)")
    options = parser.parse_args()
    sizes = [10**5, 10**6] + ([10**7] if options.full else [])
    rows = [row for row in suite() if not options.only or row.name in options.only]
    header = ("| mechanism | suites | true ε | " + " | ".join(f"dpledger 10^{int(math.log10(s))}" for s in sizes)
              + " | optimal statistic 10^6 | DP-Sniper (published) | seconds |")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    with local_processes(2) as executor:
        for row in rows:
            started = time.perf_counter()
            bounds = [audit_row(row, s, executor).real_epsilon_lower for s in sizes]
            limit = "—" if row.limit is None else f"{row.limit(LIMIT_SAMPLES, CONFIDENCE):.4f}"
            print(f"| {row.name} | {row.suites} | {row.true_text} | " + " | ".join(f"{b:.4f}" for b in bounds)
                  + f" | {limit} | {row.dp_sniper} | {time.perf_counter() - started:.0f} |", flush=True)


if __name__ == "__main__":
    main()
