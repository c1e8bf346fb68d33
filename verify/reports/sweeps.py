"""n against one parameter, the paper's chain beside the tight calibration: the Markdown table
and the figure the calibration reports share."""

from __future__ import annotations

from pathlib import Path

from dpledger.verify.reports.plotting import line_plot

Sweeps = dict[str, list[tuple[int, int]]]
"""Per theorem, (n paper, n tight) at each value of the swept parameter."""


def paper_tight_table(label: str, values: list, sweeps: Sweeps) -> list[str]:
    """Markdown rows: the swept value, then paper and tight n for each theorem."""
    lines = [
        f"| {label} | " + " | ".join(f"{name} paper | tight" for name in sweeps) + " |",
        "|---|" + "---|---|" * len(sweeps),
    ]
    for i, value in enumerate(values):
        lines.append(
            f"| {value} | "
            + " | ".join(f"{rows[i][0]:.3g} | {rows[i][1]:.3g}" for rows in sweeps.values())
            + " |"
        )
    return lines


def paper_tight_section(heading: str, label: str, values: list, sweeps: Sweeps, plot: Path) -> list[str]:
    """A report section: heading, the paper-against-tight table and the figure."""
    return [
        f"## {heading}",
        "",
        *paper_tight_table(label, values, sweeps),
        "",
        f"![{heading}]({plot.name})",
        "",
    ]


def paper_tight_plot(
    path: Path, title: str, xlabel: str, x: list[float], sweeps: Sweeps, log_x: bool = False
) -> Path:
    """n against one parameter: per theorem, the paper's n (solid) and the tight n (dashed)."""
    series: dict[str, list[float]] = {}
    for name, rows in sweeps.items():
        series[f"{name} paper"] = [float(paper) for paper, _ in rows]
        series[f"{name} tight"] = [float(tight) for _, tight in rows]
    return line_plot(path, title, xlabel, "n", x, series, log_x=log_x, paired=True)
