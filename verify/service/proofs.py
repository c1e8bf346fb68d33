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


def proofs(
    *,
    run: bool = False,
    slow: bool = True,
    only: Sequence[str] | None = None,
    status_file: Path | None = None,
    findings: bool = False,
    mutation_status_file: Path | None = None,
) -> Output:
    """The statements ``only`` names (default: all), each with its parts, their checks and status
    from ``status_file`` (default: :func:`~dpledger.verify.paper.registry.default_status_file` —
    the committed record in a checkout), after running their tests when ``run`` is set (``slow``:
    the tests marked slow too); ``findings``: the findings about the seeds and the cited tools
    instead of the table. A privacy part whose tests passed shows its statement's mutation gate
    instead unless every privacy mutant of the code it rests on is killed, read from
    ``mutation_status_file`` (default: the committed ``reports/mutation-status.json``; in a source
    checkout only: :func:`~dpledger.verify.paper.mutation_runs.recorded_gates`)."""
    from dpledger.verify.paper import registry
    from dpledger.verify.paper.mutation_runs import gate_text, recorded_gates
    from dpledger.verify.paper.proof_runs import record_run

    statements = registry.select(only)
    status_file = status_file or registry.default_status_file()
    if run:
        check_writable(status_file)  # before the tests run, not after
        record_run(statements, status_file, slow=slow)
    recorded = registry.load_run(status_file)
    if findings:
        return _findings_output(statements)
    results = None if recorded is None else recorded.results
    mutation = recorded_gates(mutation_status_file)
    gates = None if mutation is None else {key: row["gate"] for key, row in mutation.items()}
    rows = [s.to_dict(results, gates) for s in statements]
    for row in rows:
        row["mutation"] = None if mutation is None else mutation.get(row["key"])
    lines = [f"{len(rows)} statements; status from {_source(status_file, recorded)}", ""]
    for s, row in zip(statements, rows, strict=True):
        lines.append(f"{row['key']:<28} {row['status']:<15} {row['statement']}")
        lines += [
            f"{'':<28}   {p['kind']:<11} {p['check']:<14} {p['status']:<15} {p['claim']}"
            for p in row["parts"]
        ]
        if row["mutation"] is not None:
            lines.append(f"{'':<28}   privacy mutants: {gate_text(row['mutation'])}")
        lines += [
            f"{'':<28}   tightness: {t.measured:.4g} of {t.bound_text} = {t.bound:.4g} (ratio {t.ratio:.2f}), "
            f"{t.instance} [{t.command}]"
            for t in s.tightness
        ]
        lines += [
            f"{'':<28}   finding ({f['kind']}): {f['summary']} Witness: {f['witness']} [{f['command']}]"
            for f in row["findings"]
        ]
    lines += ["", *counts_lines(registry.summary(statements, results, gates))]
    return Output(rows, "\n".join(lines))


def counts_lines(counts: dict[str, dict[str, int]]) -> list[str]:
    """One line per seed: its statements by status, its parts by status (cited apart) and, where
    it has utility parts, how many passed as statistical tests."""
    from dpledger.verify.paper.registry import COUNTED_STATUSES, PART_STATUSES

    lines = []
    for seed, table in counts.items():
        statuses = ", ".join(
            f"{table[status]} {status}" for status in (*COUNTED_STATUSES, "cited") if table[status]
        )
        parts = ", ".join(
            f"{table[f'parts {status}']} {status}"
            for status in (*PART_STATUSES, "cited")
            if table[f"parts {status}"]
        )
        utility = (
            f"; utility parts: {table['utility parts']}, {table['utility statistical passed']} passed as "
            "statistical tests"
            if table["utility parts"]
            else ""
        )
        lines.append(f"seed {seed}: {table['statements']} statements ({statuses}); parts: {parts}{utility}")
    return lines


def check_writable(path: Path) -> None:
    """Refuse, before any test runs, a status file that cannot be written: its folder missing (and
    not creatable) or read-only, the file read-only, or the path a folder — found by creating the
    folder and opening the file for appending, as the record will.

    Args:
        path: the status file ``--run`` records into.

    Raises:
        ValueError: the file cannot be written, naming it and why.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"--status-file {path} is a folder, not a file")
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a"):  # opened for appending: an existing record is left as it is
            pass
        if not existed:
            path.unlink()
    except OSError as error:
        raise ValueError(f"--status-file {path} cannot be written: {error.strerror}") from None


def _source(status_file: Path, recorded: object) -> str:
    """Where the statuses come from, or, without a record, where the recorded run lives."""
    from dpledger.verify.paper import registry

    if isinstance(recorded, registry.Run):
        return f"{status_file} ({recorded.describe()})"
    if registry.in_checkout():
        return (
            f"no run yet in {status_file}: checked parts show 'not run' (record one: "
            f"dpledger proofs --run --status-file {registry.RECORDED_STATUS_FILE})"
        )
    return (
        f"no run recorded here ({status_file} does not exist; this is an installed package, without the "
        f"tests): checked parts show 'not run'. The recorded run lives in the source repository, "
        f"{registry.RECORDED_STATUS_FILE} and reports/proofs.md"
    )


def _findings_output(statements: tuple[Statement, ...]) -> Output:
    from dpledger.verify.paper import registry

    seed = [{"key": s.key, **f.to_dict()} for s in statements for f in s.findings]
    external = [f.to_dict() for f in registry.EXTERNAL_FINDINGS]
    lines = ["Findings about the seeds:"]
    lines += [
        f"  {f['key']} ({f['kind']}): {f['summary']}\n    witness: {f['witness']}\n    command: {f['command']}"
        for f in seed
    ]
    lines += ["External findings (cited tools):"]
    lines += [
        f"  ({f['kind']}) {f['summary']}\n    witness: {f['witness']}\n    command: {f['command']}"
        for f in external
    ]
    return Output({"seed_findings": seed, "external_findings": external}, "\n".join(lines))
