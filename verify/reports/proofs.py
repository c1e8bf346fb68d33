"""The proof registry as a Markdown report: the counts first, under the provenance line (statements per seed, parts passed,
not checked and cited, against the goal), then every numbered statement of both seeds split into
the parts it claims, each part's check, tests and status, the tightness of every audited bound,
and the findings — from the run recorded in the output folder's ``proofs-status.json``
(``dpledger proofs --run --status-file reports/proofs-status.json``), with that run's commit and
date, or ``not run`` without one — and the privacy-mutant score per statement from the folder's
``mutation-status.json`` (``python benchmarks/bench_privacy_mutants.py``), which gates the privacy
parts (:func:`dpledger.verify.paper.mutation_runs.gates`), and the utility trials' figures from the
folder's ``utility-trials.json`` (``python benchmarks/bench_utility_trials.py``). The report runs
no test and reads no clock: given the status files and the source tree it is deterministic."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dpledger.verify.reports import provenance

TITLE = "Proof registry (both seeds)"
STATUS_FILE = "proofs-status.json"
MUTATION_FILE = "mutation-status.json"
TRIALS_FILE = "utility-trials.json"
RECORD_COMMAND = f"dpledger proofs --run --status-file reports/{STATUS_FILE}"
GOAL = "every checkable part of every statement of both seeds checked"


def write(out: Path) -> tuple[list[Path], str]:
    """Write ``proofs.md``; returns its path and title."""
    from dpledger.verify.paper import registry
    from dpledger.verify.paper.mutation_runs import MUTANT_STATUSES, load_status, recorded_gates
    from dpledger.verify.service.proofs import counts_lines

    recorded = registry.load_run(out / STATUS_FILE)
    results = None if recorded is None else recorded.results
    mutation = recorded_gates(out / MUTATION_FILE)
    gates = None if mutation is None else {key: row["gate"] for key, row in mutation.items()}
    if recorded is None:
        source = f"no recorded run in this folder (record one with `{RECORD_COMMAND}`), so every checked part is `not run`"
    else:
        source = (
            f"the run recorded in [`{STATUS_FILE}`]({STATUS_FILE}) at {recorded.describe()} "
            f"(`{RECORD_COMMAND}`; CI runs every one of these tests on each commit)"
        )
    counts = registry.summary(registry.REGISTRY, results, gates)
    lines = [f"# {TITLE}", "", provenance("dpledger report"), ""] + [
        f"* {line}" for line in counts_lines(counts)
    ]
    lines += [
        (
            f"* Goal: {GOAL}. A statement is `passed` only when every part is; `partial` names the parts "
            "that are not; cited statements are listed but never counted as checked."
        ),
        "",
        f"The same table: `dpledger proofs`. Status: {source}.",
        "",
        "## Part kinds and check kinds",
        "",
    ]
    lines += [f"* **{kind}** — {meaning}" for kind, meaning in registry.PART_KINDS.items()]
    lines += [""] + [f"* **{kind}** — {meaning}" for kind, meaning in registry.CHECK_KINDS.items()]
    lines += [
        "",
        "## Tightness",
        "",
        (
            "Measured privacy loss over the statement's bound, on the instance the command "
            "audits (1: tight; small: the constant has room)."
        ),
        "",
        "| statement | instance | audit | measured ε | bound | ratio | command |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {s.key} | {t.instance} | {t.audit} | {t.measured:.4f} | {t.bound_text} = {t.bound:.4f} | "
        f"{t.ratio:.2f} | `{t.command}` |"
        for s in registry.REGISTRY
        for t in s.tightness
    ]
    lines += _mutation_lines(mutation, load_status(out / MUTATION_FILE), MUTANT_STATUSES)
    lines += _trial_lines(out / TRIALS_FILE)
    for seed, name in registry.SEED_FILES.items():
        lines += [
            "",
            f"## Seed {name}",
            "",
            "| statement | status | part | claim | check | part status | checked by |",
            "|---|---|---|---|---|---|---|",
        ]
        for s in registry.REGISTRY:
            if s.seed != seed:
                continue
            status = s.status(results, gates)
            missing = [part.kind for part in s.unchecked(results, gates)] if status == "partial" else []
            head = f"**{s.id}**: {s.statement}"
            lines.append(
                f"| {head} | {status}{' (not: ' + ', '.join(missing) + ')' if missing else ''} |  |  |  |  |  |"
            )
            for part in s.parts:
                checked_by = "<br>".join(f"`{t.split('::')[1]}`" for t in part.tests) or part.note
                lines.append(
                    f"|  |  | {part.kind} | {part.claim} | {part.check} | {part.status(results, s.gate(gates))} | {checked_by} |"
                )
    lines += ["", "## Findings", ""]
    lines += [
        f"* **{s.key}** ({f.kind}): {f.summary} Witness: {f.witness} Command: `{f.command}`."
        for s in registry.REGISTRY
        for f in s.findings
    ]
    lines += ["", "## External findings (cited tools)", ""]
    lines += [
        f"* ({f.kind}) {f.summary} Witness: {f.witness} Command: `{f.command}`."
        for f in registry.EXTERNAL_FINDINGS
    ]
    report = out / "proofs.md"
    report.write_text("\n".join(lines) + "\n")
    return [report], TITLE


def _trial_lines(path: Path) -> list[str]:
    """The section on utility trials: per trial its statements, setting, R, failures, bound, β,
    verdict and CPU time, from the record ``benchmarks/bench_utility_trials.py`` writes."""
    from dpledger.verify.paper.utility_trials import CONFIDENCE

    lines = [
        "",
        "## Utility trials",
        "",
        (
            "Probability claims (“with probability ≥ 1 − β the error is ≤ α”) tested as such: R "
            "independent runs, each from its own seed, and a one-sided Clopper–Pearson upper bound on "
            f"the failure rate at {CONFIDENCE:.0%} confidence; the part passes only when the bound is "
            f"below β. Figures recorded in [`{TRIALS_FILE}`]({TRIALS_FILE}) by "
            "`python benchmarks/bench_utility_trials.py`; the tests run the same trials."
        ),
        "",
    ]
    if not path.exists():
        return [*lines, "No trials recorded in this folder."]
    lines += [
        "| trial | statements | setting | R | failures | bound | β | verdict | CPU s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, row in json.loads(path.read_text()).items():
        lines.append(
            f"| {name} | {', '.join(row['statements'])} | {row['setting']} | {row['runs']} | "
            f"{row['failures']} | {row['upper']:.4f} | {row['beta']:g} | "
            f"{'passes' if row['passes'] else 'FAILS'} | {row['seconds']} |"
        )
    return lines


def _mutation_lines(
    mutation: dict[str, dict[str, Any]] | None, status: dict[str, Any] | None, statuses: tuple[str, ...]
) -> list[str]:
    """The section on privacy mutants: the runs recorded, and per statement of the plan its
    mutants by status, score and gate."""
    lines = ["", "## Privacy mutants", ""]
    if mutation is None:
        return [*lines, "Not shown outside a source checkout (the record is compared with the source)."]
    runs = (status or {}).get("runs", [])
    recorded = "; ".join(
        f"{', '.join(r['modules'])} at commit {r['commit'][:12]}{' (uncommitted changes)' if r['dirty'] else ''}, "
        f"{r['date']}, {r['seconds']} s"
        for r in runs
    )
    lines += [
        (
            "Planted privacy bugs (`dpledger.verify.paper.mutants`: a sensitivity halved, noise halved "
            "at the draw, ε doubled, a clipping bound widened, a block read twice, noise dropped, a "
            "derived ε halved) run against the tests the registry names for the statements' privacy "
            "parts. A privacy part is `passed` only while those tests kill every mutant of the code it "
            f"rests on. Recorded in [`{MUTATION_FILE}`]({MUTATION_FILE}) by "
            f"`python benchmarks/bench_privacy_mutants.py`: {recorded or 'no run recorded'}."
        ),
        "",
        "| statement | gate | " + " | ".join(statuses) + " | score | modules |",
        "|---|---|" + "---|" * len(statuses) + "---|---|",
    ]
    for key, row in mutation.items():
        table = row["counts"]
        why = "; ".join(row["stale"] + [f"no record for {m}" for m in row["missing"]])
        lines.append(
            f"| {key} | {row['gate']}{' (' + why + ')' if why else ''} | "
            + " | ".join(str(table[s]) for s in statuses)
            + f" | {table['score']} % | {', '.join(f'`{m}`' for m in row['modules'])} |"
        )
    return lines
