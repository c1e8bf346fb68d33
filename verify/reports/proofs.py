"""The proof registry as a Markdown report: every numbered statement of both seeds, its check,
the tests that check it and its status (no test run here: ``dpledger proofs --run`` records one)."""
from __future__ import annotations

from pathlib import Path

from verify.reports import provenance

TITLE = "Proof registry (both seeds)"


def write(out: Path) -> tuple[list[Path], str]:
    """Write ``proofs.md``; returns its path and title."""
    from verify import registry

    counts = registry.summary(registry.REGISTRY, None)
    lines = [f"# {TITLE}", "", provenance("dpledger report"), "",
             "The same table: `dpledger proofs`; with outcomes: `dpledger proofs --run` (status is recorded only by a "
             "run, so this report shows `not run` for every checked statement). Cited statements are never counted as "
             "verified.", "", "## Check kinds", ""]
    lines += [f"* **{kind}** — {meaning}" for kind, meaning in registry.CHECK_KINDS.items()]
    lines += ["", "## Counts", "", "| seed | axis | counts |", "|---|---|---|"]
    lines += [f"| {axis.split()[0]} | {axis.split()[1]} | " + ", ".join(f"{k} {v}" for k, v in sorted(t.items())) + " |"
              for axis, t in sorted(counts.items())]
    for seed, name in registry.SEED_FILES.items():
        lines += ["", f"## Seed {name}", "", "| statement | claim | check | status | checked by |", "|---|---|---|---|---|"]
        for s in registry.REGISTRY:
            if s.seed == seed:
                checked_by = "<br>".join(f"`{t.split('::')[1]}`" for t in s.tests) or "—"
                lines.append(f"| {s.id} | {s.statement} | {s.check} | {s.status(None)} | {checked_by} |")
    lines += ["", "## Findings", ""]
    lines += [f"* **{s.key}** ({f.kind}): {f.summary} Witness: {f.witness} Command: `{f.command}`."
              for s in registry.REGISTRY for f in s.findings]
    lines += ["", "## External findings (cited tools)", ""]
    lines += [f"* ({f.kind}) {f.summary} Witness: {f.witness} Command: `{f.command}`." for f in registry.EXTERNAL_FINDINGS]
    report = out / "proofs.md"
    report.write_text("\n".join(lines) + "\n")
    return [report], TITLE
