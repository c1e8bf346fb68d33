"""Halfspaces over the grid [[±X]]^d with the coordinate oracles of seed 000, Sections 8.1–8.3:
``--class halfspaces --dim D --grid X --oracle ipconcave|qcopt|exponential [--blocks T]``.
QCOpt and IPConcave's PrivateIP are exponential-mechanism substitutes, named in the oracle line.

Supported: d ∈ {1, 2} (exact Q_i^S and traces; d = 3 has counted traces but no oracle, so it is refused here), X ∈ [1, 256] (domain sizes stay below 2^62).
Points are drawn uniformly from the grid; no perturbation (Definition C.5) is applied, so
general position is not enforced (utility only; privacy does not depend on it).
"""

from __future__ import annotations

from collections.abc import Callable

from dpledger.verify.paper.setups import ClassSetup, Problem

ORACLES = ("ipconcave", "qcopt", "exponential")


def _build(
    *,
    alpha: float,
    beta: float,
    dim: int | None = None,
    grid: int | None = None,
    oracle: str | None = None,
    blocks: int | None = None,
) -> Problem:
    """Halfspaces in dimension ``dim`` (default 2) over [[±``grid``]]^d (default 16) with the
    coordinate ``oracle`` (default ipconcave; ``blocks``: its number of blocks t); the oracles
    take (α, β) from the learner."""
    from dpledger.learners.halfspaces import (
        ExponentialDepthOracle,
        GridHalfspaces,
        IPConcaveOracle,
        QCOptOracle,
    )
    from dpledger.learners.halfspaces.depth import SUPPORTED_DIMENSIONS

    dimension = 2 if dim is None else dim
    bound = 16 if grid is None else grid
    if dimension not in SUPPORTED_DIMENSIONS:  # GridHalfspaces(3, X) has (counted) traces but no oracle
        raise ValueError(
            f"dimension must be one of {SUPPORTED_DIMENSIONS} for the coordinate oracles "
            f"(exact Q_i^S), got {dimension!r}"
        )
    concept_class = GridHalfspaces(dimension, bound)
    name = oracle or "ipconcave"
    if name not in ORACLES:
        raise ValueError(f"oracle must be one of {', '.join(ORACLES)}, got {name!r}")
    if blocks is not None and name != "ipconcave":
        raise ValueError("blocks: --blocks applies to --oracle ipconcave only")
    oracles: dict[str, Callable[[], IPConcaveOracle | QCOptOracle | ExponentialDepthOracle]] = {
        "ipconcave": lambda: IPConcaveOracle(blocks=blocks, telemetry=True),
        "qcopt": lambda: QCOptOracle(telemetry=True),
        "exponential": lambda: ExponentialDepthOracle(telemetry=True),
    }  # with telemetry: the run prints each call's depth (exact, noise-free)
    component_oracle = oracles[name]()
    description = f"{name}: {component_oracle.description}; ε_A = {component_oracle.epsilon}"
    return Problem(
        concept_class,
        component_oracle,
        description,
        lambda rng, n: rng.integers(-bound, bound + 1, size=(n, dimension)),
    )


SETUPS = [
    ClassSetup(
        "halfspaces",
        "halfspaces on [[±X]]^d with depth oracles (Sections 8.1–8.3)",
        ("dim", "grid", "oracle", "blocks"),
        _build,
    )
]
