"""The proof registry as a Markdown report: the counts first, under the provenance line (statements per seed, parts passed,
not checked and cited, against the goal), then every numbered statement of both seeds split into
the parts it claims, each part's check, tests and status, the tightness of every audited bound,
and the findings — from the run recorded in the output folder's ``proofs-status.json``
(``dpledger proofs --run --status-file reports/proofs-status.json``), with that run's commit and
date, or ``not run`` without one. The report runs no test and reads no clock: given the status file
it is deterministic."""

from __future__ import annotations

from pathlib import Path

from dpledger.verify.reports import provenance

TITLE = "Proof registry (both seeds)"
STATUS_FILE = "proofs-status.json"
RECORD_COMMAND = f"dpledger proofs --run --status-file reports/{STATUS_FILE}"
GOAL = "every checkable part of every statement of both seeds checked"


def write(out: Path) -> tuple[list[Path], str]:
    """Write ``proofs.md``; returns its path and title."""
    from dpledger.verify.paper import registry
    from dpledger.verify.service.proofs import counts_lines

    recorded = registry.load_run(out / STATUS_FILE)
    results = None if recorded is None else recorded.results
    if recorded is None:
        source = f"no recorded run in this folder (record one with `{RECORD_COMMAND}`), so every checked part is `not run`"
    else:
        source = (
            f"the run recorded in [`{STATUS_FILE}`]({STATUS_FILE}) at {recorded.describe()} "
            f"(`{RECORD_COMMAND}`; CI runs every one of these tests on each commit)"
        )
    counts = registry.summary(registry.REGISTRY, results)
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
            status = s.status(results)
            missing = [part.kind for part in s.unchecked(results)] if status == "partial" else []
            head = f"**{s.id}**: {s.statement}"
            lines.append(
                f"| {head} | {status}{' (not: ' + ', '.join(missing) + ')' if missing else ''} |  |  |  |  |  |"
            )
            for part in s.parts:
                checked_by = "<br>".join(f"`{t.split('::')[1]}`" for t in part.tests) or part.note
                lines.append(
                    f"|  |  | {part.kind} | {part.claim} | {part.check} | {part.status(results)} | {checked_by} |"
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
