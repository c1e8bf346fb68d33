"""Exact audits (LabelBoost releases of Lemmas 3.14, 3.15, 3.17 and the selected hypothesis;
CarryForwardLearner's macro-block, Lemma 6.2), a short Monte Carlo catalog run, with verdicts, and
StatDP's and DP-Sniper's suites side by side with DP-Sniper's published bounds, from the committed
results of ``benchmarks/bench_audit_suites.py`` (10⁵, 10⁶ and 10⁷ runs, false alarms over repeated
audits), and the ``audit suites`` command rerun at 10⁵ runs."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from scipy import stats

from dpledger.accountant.numerics.certified import lower_bound_text
from dpledger.verify.reports import provenance
from dpledger.verify.reports.commands import Command
from dpledger.verify.service import audit

TITLE = "Exact and Monte Carlo audits"
LABELBOOST = [
    Command(
        (
            "audit",
            "labelboost",
            "--class",
            "intervals",
            "--domain-size",
            "4",
            "--labeled",
            "2",
            "--unlabeled",
            "2",
            "--release",
            release,
        ),
        audit.labelboost,
        {"class_name": "intervals", "domain_size": 4, "labeled": 2, "unlabeled": 2, "release": release},
    )
    for release in ("carrier", "weights", "continuation", "hypothesis")
]
BLOCKS = [
    Command(
        ("audit", "macro-block", "--class", "intervals", "--domain-size", "4", "--m", "2", "--block", block),
        audit.macro_block,
        {"concept": "intervals", "domain_size": 4, "m": 2, "block": block},
    )
    for block in ("macro", "init", "oracle")
]
CATALOG = Command(
    ("audit", "catalog", "--samples", "20000", "--seed", "0", "--workers", "2"),
    audit.catalog,
    {"samples": 20000, "seed": 0, "workers": 2},
)
SUITES = Command(
    ("audit", "suites", "--samples", "100000", "--seed", "0", "--workers", "2"),
    audit.suites,
    {"samples": 100000, "seed": 0, "workers": 2},
)
SUITES_RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "audit_suites.json"
VERDICT = {True: "holds", False: "**violated**", None: "undecided"}


def _number(value: float | str | None) -> str:
    """A payload number for a table: 4 significant digits, '—' when the payload has none."""
    return "—" if value is None else value if isinstance(value, str) else f"{value:.4g}"


def _lower(value: float) -> str:
    """A certified lower bound for a table: 4 significant digits, rounded down."""
    return lower_bound_text(value, 4)


def write(out: Path) -> tuple[list[Path], str]:
    """Write ``audits.md``; returns its path and title."""
    lines = [
        f"# {TITLE}",
        "",
        provenance("dpledger report"),
        "",
        "## Exact audits (worst case over all neighbour pairs, certified)",
        "",
        "| command | statement | exact ε (upper end) | bound | verdict | pairs |",
        "|---|---|---|---|---|---|",
    ]
    for command in LABELBOOST + BLOCKS:
        result = command.payload()
        lines.append(
            f"| `{command.line}` | {result['statement']} | {result['epsilon_exact']} | {result['bound_expr']} = "
            f"{result['bound']:.6g} | {VERDICT[result['holds']]} | {result['pairs']} |"
        )
    catalog = CATALOG.payload()
    lines += [
        "",
        "The `hypothesis` release is covered by no lemma: ε = ∞ is the expected verdict (the seed says the "
        "selected hypothesis is not private; see `proofs.md`, Lemma 3.17).",
        "",
        "## Monte Carlo catalog (empirical lower bounds at 95% confidence)",
        "",
        f"`{CATALOG.line}`",
        "",
        "| mechanism | correct | true ε | claimed ε | ε lower bound | verdict | as expected |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {m['name']} | {m['correct']} | {_number(m['true_epsilon'])} | {_number(m['claimed_epsilon'])} | "
        f"{_lower(m['epsilon_lower'])} | {m['verdict']} | {m['as_expected']} |"
        for m in catalog["mechanisms"]
    ]
    lines += ["", f"All as expected: **{catalog['all_as_expected']}**.", ""]
    lines += suites_section(SUITES_RESULTS)
    report = out / "audits.md"
    report.write_text("\n".join(lines))
    return [report], TITLE


def _bound(run: dict[str, Any]) -> str:
    """A benchmark cell: the bound, ⚑ when the audit flagged the mechanism, or why the size was not run."""
    if "skipped" in run:
        return f"not run ({run['skipped']})"
    return _lower(run["epsilon_lower"]) + (" ⚑" if run["flagged"] else "")


def suites_section(results_file: Path) -> list[str]:
    """The suites table from ``benchmarks/bench_audit_suites.py``'s results and the ``audit suites``
    command rerun at 10⁵ runs."""
    if not results_file.exists():
        raise ValueError(
            f"no suites results: run benchmarks/bench_audit_suites.py --full first ({results_file})"
        )
    rerun = SUITES.payload()
    return [
        *suites_benchmark_lines(json.loads(results_file.read_text())),
        f"`{SUITES.line}`, rerun now: buggy mechanisms flagged {rerun['buggy_flagged']} of {rerun['buggy']}, "
        f"correct ones flagged {rerun['correct_flagged']} of {rerun['correct']}, every bound at most the true ε: "
        f"**{rerun['all_sound']}**.",
        "",
    ]


def suites_benchmark_lines(results: dict[str, Any]) -> list[str]:
    """The suites table of the benchmark's results, the flags per size and the false alarms."""
    from dpledger.verify.audit.montecarlo.catalogs.suites import verdict_text

    sizes = [str(size) for size in results["sizes"]]
    seeds = max((len(m.get("seeds", {}).get("bounds", [])) for m in results["mechanisms"]), default=0)
    powers = " | ".join(f"dpledger 10{_superscript(size)}" for size in sizes)
    lines = [
        "## StatDP's and DP-Sniper's suites, side by side (95% confidence)",
        "",
        "From `benchmarks/results/audit_suites.json`, written by `python benchmarks/bench_audit_suites.py --full` "
        "(mechanisms, parameters and sources in `dpledger.verify.audit.montecarlo.catalogs.suites`). What is audited is "
        "dpledger's re-implementation of each mechanism from its paper "
        "(`dpledger.verify.audit.montecarlo.catalogs.suites`, `suite_mechanisms`), its continuous releases snapped to the "
        "grid 2⁻¹⁰ (post-processing, which removes the floating-point artefacts), not DP-Sniper's or StatDP's "
        "code. Each mechanism is audited against its claim on the input pair DP-Sniper's search found, in one "
        "stage; ⚑: flagged (verdict not `NO VIOLATION FOUND`). The size columns are seed 0; the 10⁶ spread is "
        f"the median [minimum, maximum] over {seeds} seeds. The optimal-statistic limit is the bound the best "
        "event fixed in advance would give at the same runs per input, at the *expected* hit counts (of the "
        "mechanism before snapping): a typical value, not a ceiling — a draw can exceed it; the ratio is the "
        "median's. DP-Sniper's figures are its published lower bounds "
        "(`eval_sp2021/reference-results/dd_search_reg_data.log` of github.com/eth-sri/dp-sniper, logistic "
        "regression). Verdict at the largest size run; seconds: wall time per size on 2 cores.",
        "",
        f"| mechanism | suites | claimed ε | true ε | {powers} | 10⁶ over {seeds} seeds: median [min, max] | "
        "optimal-statistic limit 10⁶ (typical) | median / limit | DP-Sniper (published) | verdict | seconds |",
        "|" + "---|" * (len(sizes) + 10),
    ]
    notes: dict[str, int] = {}
    for m in results["mechanisms"]:
        runs = [m["runs"][size] for size in sizes]
        last = [run for run in runs if "skipped" not in run][-1]
        if m["limit"] is None:
            notes.setdefault(m["limit_note"], len(notes) + 1)
        limit = f"—{notes[m['limit_note']]}" if m["limit"] is None else f"{m['limit']:.4f}"
        bounds = m.get("seeds", {}).get("bounds", [])  # '—' until the benchmark has run the seeds
        median = statistics.median(bounds) if bounds else None
        spread = "—" if median is None else f"{median:.4g} [{_lower(min(bounds))}, {_lower(max(bounds))}]"
        ratio = "—" if m["limit"] is None or median is None else f"{median / m['limit']:.2f}"
        seconds = " / ".join(f"{run['seconds']:.1f}" for run in runs if "skipped" not in run)
        lines.append(
            f"| {m['name']} | {m['suites']} | {m['claimed_epsilon']:.4g} | {m['true_epsilon']} | "
            + " | ".join(_bound(run) for run in runs)
            + f" | {spread} | {limit} | {ratio} | {m['dp_sniper']} | {verdict_text({**m, 'flagged': last['flagged']})} | {seconds} |"
        )
    lines += [""] + [f"—{number}: {note}." for note, number in notes.items()] + [""]
    for size in sizes:
        done = [m for m in results["mechanisms"] if "skipped" not in m["runs"][size]]
        buggy = [m for m in done if m["buggy"]]
        correct = [m for m in done if not m["buggy"]]
        lines.append(
            f"* 10{_superscript(size)} runs per input: buggy mechanisms flagged "
            f"{sum(m['runs'][size]['flagged'] for m in buggy)} of {len(buggy)}; correct ones flagged "
            f"{sum(m['runs'][size]['flagged'] for m in correct)} of {len(correct)}."
        )
    alarms = results["false_alarms"]
    audits_run = alarms["repeats"] * len(alarms["per_mechanism"])
    per = ", ".join(f"{name} {count}" for name, count in alarms["per_mechanism"].items())
    flagged = sum(alarms["per_mechanism"].values())
    rate = stats.beta.ppf(results["confidence"], flagged + 1, audits_run - flagged) if audits_run else 1.0
    lines += [
        f"* False alarms: {flagged} of {audits_run} audits of the correct mechanisms at {alarms['samples']:,} "
        f"runs per input ({alarms['repeats']} seeds each: {per}; {alarms['seconds']:.0f} s); the rate is at "
        f"most {rate:.2%} at {results['confidence']:.0%} confidence (Clopper–Pearson), where a sound audit "
        f"allows 1 − confidence = {1 - results['confidence']:.0%} per audit.",
        "",
    ]
    return lines


def _superscript(size: str) -> str:
    """``100000`` → ``⁵`` (the exponent of a power of ten)."""
    return str(len(size) - 1).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
