"""Deterministic PNG figures for reports (Agg backend, no timestamps in the metadata)."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def line_plot(path: Path, title: str, xlabel: str, ylabel: str, x: list[float],
              series: dict[str, list[float]], log_x: bool = False, log_y: bool = True) -> Path:
    """One figure with a line per series."""
    figure, axes = plt.subplots(figsize=(6, 4))
    for label, values in series.items():
        axes.plot(x, values, marker="o", label=label)
    if log_x:
        axes.set_xscale("log")
    if log_y:
        axes.set_yscale("log")
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, metadata={"Software": None})
    plt.close(figure)
    return path
