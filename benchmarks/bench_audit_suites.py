"""DP-Sniper's and StatDP's mechanism suites side by side with dpledger's Monte Carlo audit
: per mechanism its claim, the true ε, dpledger's certified lower bound and
verdict at 10⁵, 10⁶ (and with ``--full`` 10⁷) runs per input (one stage, 95% confidence,
DP-Sniper's input pair), the optimal-statistic limit at 10⁶, DP-Sniper's published bound and the
wall time, and the spread over ``--seeds`` seeds (0, 1, …) at 10⁶ — median, minimum and maximum, so
that the table shows a typical bound and not one seed's luck; then the false alarms: ``--repeats`` audits at 10⁵ runs (seeds 1, 2, …) of every
correct mechanism, counted beside the bound 1 − confidence. The suites, their sources and the
limit are described in :mod:`dpledger.verify.audit.montecarlo.catalogs.suites`.

Writes ``benchmarks/results/audit_suites.json`` (``--out``), which ``dpledger report`` turns into
the suites table of ``reports/audits.md``.

Run: ``python benchmarks/bench_audit_suites.py --full`` (about 15 minutes on 2 cores, most of it
the 10⁷ column); ``--only NAME`` (repeatable) for some mechanisms, ``--repeats 0`` to skip the
false alarms. A size whose estimated time (10× the previous size's) exceeds ``--max-seconds`` is
not run and is marked so in the table and the JSON.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from dpledger.verify.audit.montecarlo import local_processes
from dpledger.verify.audit.montecarlo.catalogs.suites import (
    CONFIDENCE,
    LIMIT_SAMPLES,
    audit_row,
    false_alarms,
    select,
)

RESULTS = Path(__file__).parent / "results" / "audit_suites.json"
FALSE_ALARM_SAMPLES = 10**5


def measure(row: Any, sizes: list[int], executor: Any, max_seconds: float) -> dict[str, Any]:
    """The audits of one row at each size, in order; a size estimated to exceed ``max_seconds`` is skipped."""
    runs: dict[str, Any] = {}
    estimate = 0.0
    for size in sizes:
        if estimate > max_seconds:
            runs[str(size)] = {"skipped": f"estimated {estimate:.0f} s > {max_seconds:.0f} s"}
            continue
        started = time.perf_counter()
        result = audit_row(row, size, executor)
        seconds = time.perf_counter() - started
        runs[str(size)] = {
            "epsilon_lower": result.real_epsilon_lower,
            "verdict": result.verdict,
            "flagged": result.violation,
            "seconds": seconds,
        }
        estimate = 10 * seconds
    return runs


def cell(run: dict[str, Any]) -> str:
    return (
        f"too slow ({run['skipped']})"
        if "skipped" in run
        else f"{run['epsilon_lower']:.4f}" + (" ⚑" if run["flagged"] else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also 10^7 runs per input")
    parser.add_argument("--only", action="append", help="only this mechanism (repeatable)")
    parser.add_argument(
        "--repeats", type=int, default=20, help="audits per correct mechanism for the false alarms"
    )
    parser.add_argument(
        "--max-seconds", type=float, default=900.0, help="skip a size estimated to take longer"
    )
    parser.add_argument("--seeds", type=int, default=10, help="seeds of the audits at 10^6 (default 10)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="the JSON results file")
    options = parser.parse_args()
    sizes = [10**5, 10**6] + ([10**7] if options.full else [])
    rows = select(options.only)
    print(
        "| mechanism | claimed ε | true ε | "
        + " | ".join(f"dpledger {s:.0e}" for s in sizes)
        + " | limit 1e6 | DP-Sniper | seconds |"
    )
    print("|" + "---|" * (len(sizes) + 6))
    entries = []
    with local_processes(2) as executor:
        for row in rows:
            runs = measure(row, sizes, executor, options.max_seconds)
            first = runs[str(LIMIT_SAMPLES)].get("epsilon_lower")
            bounds = [first] + [
                audit_row(row, LIMIT_SAMPLES, executor, seed).real_epsilon_lower
                for seed in range(1, options.seeds)
            ]
            limit = None if row.limit is None else row.limit(LIMIT_SAMPLES, CONFIDENCE)
            entries.append(
                {
                    "name": row.name,
                    "suites": row.suites,
                    "claimed_epsilon": row.claimed,
                    "true_epsilon": row.true_text,
                    "buggy": row.buggy,
                    "runs": runs,
                    "seeds": {"samples": LIMIT_SAMPLES, "bounds": bounds if first is not None else []},
                    "limit": limit,
                    "limit_note": row.limit_note if limit is None else "",
                    "dp_sniper": row.dp_sniper,
                    "pair": [row.a, row.b],
                }
            )
            seconds = " / ".join(f"{r['seconds']:.1f}" for r in runs.values() if "seconds" in r)
            print(
                f"| {row.name} | {row.claimed:.4g} | {row.true_text} | "
                + " | ".join(cell(r) for r in runs.values())
                + f" | {'—' if limit is None else format(limit, '.4f')} | {row.dp_sniper} | {seconds} |",
                flush=True,
            )
        started = time.perf_counter()
        alarms = false_alarms(rows, FALSE_ALARM_SAMPLES, options.repeats, executor) if options.repeats else {}
        alarm_seconds = time.perf_counter() - started
    total = sum(alarms.values())
    print(
        f"false alarms at {FALSE_ALARM_SAMPLES:.0e} runs: {total} of {options.repeats * len(alarms)} audits of "
        f"correct mechanisms (bound {1 - CONFIDENCE:.2f} per audit); {alarm_seconds:.0f} s"
    )
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(
        json.dumps(
            {
                "confidence": CONFIDENCE,
                "sizes": sizes,
                "limit_samples": LIMIT_SAMPLES,
                "mechanisms": entries,
                "false_alarms": {
                    "samples": FALSE_ALARM_SAMPLES,
                    "repeats": options.repeats,
                    "per_mechanism": alarms,
                    "seconds": alarm_seconds,
                },
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {options.out}")


if __name__ == "__main__":
    main()
