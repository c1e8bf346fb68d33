"""``dpledger proofs``: the proof registry — every numbered statement of both seeds, how it is
checked, and its status from the last recorded run (:mod:`dpledger.verify.paper.registry`); a run
of the checks is recorded by :func:`dpledger.verify.paper.proof_runs.record_run`."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from dpledger.verify.service import Output

if TYPE_CHECKING:  # the registry loads the statement data when a command runs
    from dpledger.verify.paper.registry import Statement


def proofs(*, run: bool = False, slow: bool = True, only: Sequence[str] | None = None,
           status_file: Path | None = None, findings: bool = False) -> Output:
    """The statements ``only`` names (default: all) with their checks and their status from
    ``status_file`` (default: :func:`~dpledger.verify.paper.registry.default_status_file`), after
    running their tests when ``run`` is set (``slow``: the tests marked slow too); ``findings``:
    the findings about the seeds and the cited tools instead of the table."""
    from dpledger.verify.paper import registry
    from dpledger.verify.paper.proof_runs import record_run

    statements = registry.select(only)
    status_file = status_file or registry.default_status_file()
    if run:
        record_run(statements, status_file, slow=slow)
    results = registry.load_results(status_file)
    if findings:
        return _findings_output(statements)
    rows = [s.to_dict(results) for s in statements]
    counts = registry.summary(statements, results)
    lines = [f"{len(rows)} statements; status from {status_file if results is not None else 'no run yet'}", ""]
    for row in rows:
        lines.append(f"{row['key']:<28} {row['check']:<10} {row['status']:<11} {row['statement']}")
        lines += [f"{'':<28} finding ({f['kind']}): {f['summary']} Witness: {f['witness']} [{f['command']}]"
                  for f in row["findings"]]
    lines += [""] + [f"{axis}: " + ", ".join(f"{k} {v}" for k, v in sorted(table.items()))
                     for axis, table in sorted(counts.items())]
    return Output(rows, "\n".join(lines))


def _findings_output(statements: tuple[Statement, ...]) -> Output:
    from dpledger.verify.paper import registry

    seed = [{"key": s.key, **f.to_dict()} for s in statements for f in s.findings]
    external = [f.to_dict() for f in registry.EXTERNAL_FINDINGS]
    lines = ["Findings about the seeds:"]
    lines += [f"  {f['key']} ({f['kind']}): {f['summary']}\n    witness: {f['witness']}\n    command: {f['command']}"
              for f in seed]
    lines += ["External findings (cited tools):"]
    lines += [f"  ({f['kind']}) {f['summary']}\n    witness: {f['witness']}\n    command: {f['command']}" for f in external]
    return Output({"seed_findings": seed, "external_findings": external}, "\n".join(lines))
