"""The proof registry as a Markdown report: every numbered statement of both seeds, its check,
the tests that check it and its status — from the run recorded in the output folder's
``proofs-status.json`` (``dpledger proofs --run --status-file reports/proofs-status.json``), or
``not run`` without one (the report itself runs no test)."""
from __future__ import annotations

import json
from pathlib import Path

from dpledger.verify.reports import provenance

TITLE = "Proof registry (both seeds)"
STATUS_FILE = "proofs-status.json"
RECORD_COMMAND = f"dpledger proofs --run --status-file reports/{STATUS_FILE}"


def write(out: Path) -> tuple[list[Path], str]:
    """Write ``proofs.md``; returns its path and title."""
    from dpledger.verify.paper import registry

    record = out / STATUS_FILE
    results = registry.load_results(record)
    if results is None:
        source = f"no recorded run in this folder (record one with `{RECORD_COMMAND}`), so every checked statement is `not run`"
    else:
        version = json.loads(record.read_text()).get("dpledger_version", "unknown")
        source = (f"the run recorded in [`{STATUS_FILE}`]({STATUS_FILE}) by dpledger {version} (`{RECORD_COMMAND}`; "
                  "CI runs every one of these tests on each commit)")
    counts = registry.summary(registry.REGISTRY, results)
    lines = [f"# {TITLE}", "", provenance("dpledger report"), "",
             f"The same table: `dpledger proofs`. Status: {source}. Cited statements are never counted as verified.",
             "", "## Check kinds", ""]
    lines += [f"* **{kind}** — {meaning}" for kind, meaning in registry.CHECK_KINDS.items()]
    lines += ["", "## Counts", "", "| seed | axis | counts |", "|---|---|---|"]
    lines += [f"| {axis.split()[0]} | {axis.split()[1]} | " + ", ".join(f"{k} {v}" for k, v in sorted(t.items())) + " |"
              for axis, t in sorted(counts.items())]
    for seed, name in registry.SEED_FILES.items():
        lines += ["", f"## Seed {name}", "", "| statement | claim | check | status | checked by |", "|---|---|---|---|---|"]
        for s in registry.REGISTRY:
            if s.seed == seed:
                checked_by = "<br>".join(f"`{t.split('::')[1]}`" for t in s.tests) or "—"
                lines.append(f"| {s.id} | {s.statement} | {s.check} | {s.status(results)} | {checked_by} |")
    lines += ["", "## Findings", ""]
    lines += [f"* **{s.key}** ({f.kind}): {f.summary} Witness: {f.witness} Command: `{f.command}`."
              for s in registry.REGISTRY for f in s.findings]
    lines += ["", "## External findings (cited tools)", ""]
    lines += [f"* ({f.kind}) {f.summary} Witness: {f.witness} Command: `{f.command}`." for f in registry.EXTERNAL_FINDINGS]
    report = out / "proofs.md"
    report.write_text("\n".join(lines) + "\n")
    return [report], TITLE
