"""Mutation score of the privacy-critical code: every privacy mutant of the plan
(``verify/paper/statements/mutation.toml``; operators in :mod:`dpledger.verify.paper.mutants`) run
against the tests the registry names for its statements' privacy parts
(:mod:`dpledger.verify.paper.mutation_runs`), with the score per module and per statement
(killed / survived / equivalent / timeout) and the wall time, recorded in
``reports/mutation-status.json`` (only the modules run are replaced; each entry keeps its commit).

    python benchmarks/bench_privacy_mutants.py                     # the whole plan
    python benchmarks/bench_privacy_mutants.py --module learners/agnostic/proper.py
    python benchmarks/bench_privacy_mutants.py --list              # the mutants, nothing run
    python benchmarks/bench_privacy_mutants.py --only ID --status-file /tmp/m.json

Not part of ``dpledger report``: a run takes minutes to an hour (one pytest run per mutant and
statement). Survivors are printed with their site; one that cannot change what the privacy argument
needs is declared equivalent in the plan with the reason.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from dpledger.verify.paper.mutants import OPERATORS, generate, load_mutation_plan
from dpledger.verify.paper.mutation_runs import MUTATION_STATUS_FILE, counts, gates, record, run_mutants
from dpledger.verify.paper.registry import REPO_ROOT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", help="only this module (repeatable)")
    parser.add_argument("--only", action="append", metavar="ID", help="only this mutant id (repeatable)")
    parser.add_argument("--operator", action="append", choices=sorted(OPERATORS), help="only this operator")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--status-file", type=Path, default=REPO_ROOT / MUTATION_STATUS_FILE)
    options = parser.parse_args(argv)
    plan = load_mutation_plan()
    try:
        mutants = generate(REPO_ROOT, plan, options.module)
    except ValueError as error:
        print(f"bench_privacy_mutants: {error}", file=sys.stderr)
        return 2
    if options.only:
        unknown = set(options.only) - {m.id for m in mutants}
        if unknown:
            print(f"bench_privacy_mutants: no mutant {min(unknown)!r}", file=sys.stderr)
            return 2
        mutants = [m for m in mutants if m.id in options.only]
    if options.operator:
        mutants = [m for m in mutants if m.operator in options.operator]
    if options.list:
        for m in mutants:
            print(f"{m.id}  (line {m.line}): {m.original!r} -> {m.replacement!r}")
        print(f"{len(mutants)} mutants")
        return 0
    start = time.monotonic()
    results, baselines = run_mutants(mutants, plan, progress=lambda line: print(line, flush=True))
    seconds = time.monotonic() - start
    if options.only or options.operator:
        print(f"{len(results)} mutants in {seconds:.0f} s (a selection: not recorded)")
        return 0
    data = record(results, baselines, options.status_file, seconds=round(seconds, 1))
    entries = list(data["mutants"].values())
    print(f"\nwall time {seconds:.0f} s for {len(results)} mutants; recorded in {options.status_file}")
    print(f"\n{'module':<42} killed survived equivalent timeout not-run score")
    for module in plan.modules:
        table = counts(e for e in entries if e["module"] == module.path)
        print(
            f"{module.path:<42} {table['killed']:>6} {table['survived']:>8} {table['equivalent']:>10} "
            f"{table['timeout']:>7} {table['not run']:>7} {table['score']:>4}%"
        )
    print(f"\n{'statement':<30} {'gate':<16} killed survived equivalent timeout score")
    for key, row in gates(data, REPO_ROOT, plan).items():
        table = row["counts"]
        print(
            f"{key:<30} {row['gate']:<16} {table['killed']:>6} {table['survived']:>8} "
            f"{table['equivalent']:>10} {table['timeout']:>7} {table['score']:>4}%"
        )
    survivors = [e for e in entries if e["status"] in ("survived", "timeout")]
    print(f"\n{len(survivors)} survivors:")
    for e in survivors:
        print(f"  {e['id']} (line {e['line']}): {e['original']!r} -> {e['replacement']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
