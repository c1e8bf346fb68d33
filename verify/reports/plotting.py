"""Deterministic PNG figures for reports (Agg backend, no timestamps in the metadata)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import NullFormatter


def line_plot(
    path: Path,
    title: str,
    xlabel: str,
    ylabel: str,
    x: list[float],
    series: dict[str, list[float]],
    log_x: bool = False,
    log_y: bool = True,
    paired: bool = False,
) -> Path:
    """One figure with a line per series; ``paired``: consecutive series (paper, tight) share a
    colour, the second dashed."""
    figure, axes = plt.subplots(figsize=(7, 4.5) if paired else (6, 4))
    for index, (label, values) in enumerate(series.items()):
        style: dict[str, Any] = (
            {"color": f"C{index // 2}", "linestyle": "--" if index % 2 else "-"} if paired else {}
        )
        axes.plot(x, values, marker="o", label=label, **style)
    if log_x:
        axes.set_xscale("log")
        axes.set_xticks(x, [f"{value:g}" for value in x])
        axes.xaxis.set_minor_formatter(NullFormatter())
    if log_y:
        axes.set_yscale("log")
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7 if paired else None)
    figure.tight_layout()
    figure.savefig(path, metadata={"Software": None})
    plt.close(figure)
    return path
