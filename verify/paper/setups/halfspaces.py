"""Halfspaces over the grid [[±X]]^d with the coordinate oracles of seed 000, Sections 8.1–8.3:
``--class halfspaces --dim D --grid X --oracle ipconcave|qcopt|exponential|ipconcave-em [--blocks T]``.
QCOpt is RecConcave and IPConcave's PrivateIP the RecConcave interior point (at these grids' domain
sizes their plans have depth 0: the exponential mechanism); ``exponential`` and ``ipconcave-em`` are
the exponential-mechanism baselines. The oracle line names each.

Supported: d ∈ {1, 2, 3} (exact Q_i^S and traces), X ∈ [1, 256] for d ≤ 2 and X ∈ [1, 14] for d = 3
(the coordinate domains stay below 2^62 pairs).
Points are drawn uniformly from the grid; no perturbation (Definition C.5) is applied, so
general position is not enforced (utility only; privacy does not depend on it).
"""

from __future__ import annotations

from collections.abc import Callable

from dpledger.verify.paper.setups import ClassSetup, Problem

ORACLES = ("ipconcave", "qcopt", "exponential", "ipconcave-em")

DOMAIN_GRID_3D = 14
"""Largest grid bound X for d = 3 whose coordinate domains (≈ 7·10⁴·X¹² pairs for a_3) stay below 2^62."""


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
    from dpledger.learners.halfspaces.domains import coordinate_domain

    dimension = 2 if dim is None else dim
    bound = 16 if grid is None else grid
    if dimension not in SUPPORTED_DIMENSIONS:
        raise ValueError(
            f"dimension must be one of {SUPPORTED_DIMENSIONS} for the coordinate oracles "
            f"(exact Q_i^S), got {dimension!r}"
        )
    concept_class = GridHalfspaces(dimension, bound)
    largest = coordinate_domain(dimension, bound, (1,) + (0,) * (dimension - 1)).size
    if largest >= 2**62:  # the last coordinate's domain, the largest of Definition C.3
        raise ValueError(
            f"grid: the coordinate domains of d = {dimension} on [[±{bound}]] reach {largest:.2e} pairs "
            f"(at most 2^62 are drawn by index; d = 3 needs X ≤ {DOMAIN_GRID_3D})"
        )
    name = oracle or "ipconcave"
    if name not in ORACLES:
        raise ValueError(f"oracle must be one of {', '.join(ORACLES)}, got {name!r}")
    if blocks is not None and not name.startswith("ipconcave"):
        raise ValueError("blocks: --blocks applies to --oracle ipconcave or ipconcave-em only")
    oracles: dict[str, Callable[[], IPConcaveOracle | QCOptOracle | ExponentialDepthOracle]] = {
        "ipconcave": lambda: IPConcaveOracle(blocks=blocks, telemetry=True),
        "ipconcave-em": lambda: IPConcaveOracle(blocks=blocks, telemetry=True, interior_point="exponential"),
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
