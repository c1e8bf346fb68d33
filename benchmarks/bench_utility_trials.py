"""The utility claims checked as statistical tests (:mod:`dpledger.verify.paper.utility_trials`):
every trial of the catalogue run, with its R, failures, the 95 % Clopper–Pearson bound on the
failure rate against β, the verdict and the CPU time, recorded in ``reports/utility-trials.json``
(read by ``dpledger report`` into ``reports/proofs.md``).

    python benchmarks/bench_utility_trials.py             # every trial, recorded
    python benchmarks/bench_utility_trials.py --only "LabelBoost on intervals" --no-record

The tests of ``tests/verify/test_utility_trials.py`` run the same trials; this script prints and
records their figures. Exit status 1 when a trial fails.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dpledger.verify.paper.registry import REPO_ROOT
from dpledger.verify.paper.utility_trials import TRIALS, TRIALS_FILE


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", metavar="NAME", help="only this trial (repeatable)")
    parser.add_argument("--no-record", action="store_true", help="print only; leave the record as it is")
    options = parser.parse_args(argv)
    unknown = set(options.only or ()) - set(TRIALS)
    if unknown:
        print(
            f"bench_utility_trials: no trial {min(unknown)!r} (known: {', '.join(TRIALS)})", file=sys.stderr
        )
        return 2
    path = Path(REPO_ROOT) / "reports" / TRIALS_FILE
    record = json.loads(path.read_text()) if path.exists() else {}
    failed = False
    for name, trial in TRIALS.items():
        if options.only and name not in options.only:
            continue
        result = trial.run()
        print(result.describe(), flush=True)
        record[name] = {**result.to_dict(), "setting": trial.setting, "statements": list(trial.statements)}
        failed |= not result.passes
    if not options.no_record:
        path.write_text(
            json.dumps({name: record[name] for name in TRIALS if name in record}, indent=1) + "\n"
        )
        print(f"recorded in {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
