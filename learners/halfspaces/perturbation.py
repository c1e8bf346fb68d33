"""Perturbation into general position (seed 000, Definition C.5, Lemmas C.6–C.7).

:func:`paper_resolution` gives Lemma C.7's Δ = ⌈d n^{d+1}/(2β_GP)⌉ and Δ′ = ⌈2ΔX′√d⌉ with
Kaplan et al.'s margin bound X′ = 2d²·(d!)^{d³}·X^{d⁶} (exact integers; astronomically large —
d = 2, X = 16: X′ has 81 digits — so the grid after rescaling, X̃ = Δ′(X + Δ), is far beyond
what the arrangement code handles). :func:`perturb` applies Definition C.5 with any (Δ, Δ′)
and rescales by Δ′ onto the integer grid [[±(Δ′X + Δ)]]^d; :func:`in_general_position` is the
exact check of "no d + 1 points on one hyperplane" (Kaplan et al.), O(n^{d+1}) for d ≤ 2.

What the learner uses instead: no perturbation (the ``halfspaces`` setup samples the grid
directly); general position is then not guaranteed and only Corollary C.10's +d slack is at
stake (utility), while the property the proof needs from the domains — a full-depth
coordinate in Ỹ_i on realizable states (Lemma C.4) — is checked on every oracle call
(:attr:`dpledger.learners.halfspaces.oracles.OracleRound.full_depth_in_domain`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from dpledger.learners.randomness import Randomness


def margin_bound(dimension: int, grid: int) -> int:
    """X′ = 2d²·(d!)^{d³}·X^{d⁶} (Kaplan et al., Lemma B.5, as used in Lemma C.7)."""
    d = dimension
    return 2 * d * d * math.factorial(d) ** (d**3) * grid ** (d**6)


def paper_resolution(dimension: int, n: int, grid: int, beta_gp: float) -> tuple[int, int]:
    """(Δ, Δ′) of Lemma C.7: Δ = ⌈d n^{d+1}/(2β_GP)⌉, Δ′ = ⌈2ΔX′√d⌉ (exact: ⌈√(4Δ²X′²d)⌉)."""
    if not 0 < beta_gp < 1:
        raise ValueError(f"beta_gp must be in (0, 1), got {beta_gp}")
    delta = math.ceil(dimension * n ** (dimension + 1) / (2 * beta_gp))
    square = 4 * delta * delta * margin_bound(dimension, grid) ** 2 * dimension
    root = math.isqrt(square)
    return delta, root if root * root == square else root + 1


def perturb(points: np.ndarray, delta: int, delta_prime: int, rng: Randomness) -> np.ndarray:
    """Definition C.5 with A = [[±Δ]]/Δ′, then the rescaling by Δ′: Δ′·x + z with every coordinate
    of z uniform on [[±Δ]] (labels are untouched by the caller)."""
    for name, value in (("delta", delta), ("delta_prime", delta_prime)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer ≥ 1, got {value!r}")
    array = np.asarray(points, dtype=np.int64)
    noise = np.array([rng.integer(2 * delta + 1) - delta for _ in range(array.size)], dtype=np.int64)
    return delta_prime * array + noise.reshape(array.shape)


def in_general_position(points: np.ndarray) -> bool:
    """No d + 1 of the points (with repetitions) on one affine hyperplane, exactly (d ≤ 2)."""
    array = np.asarray(points, dtype=np.int64)
    array = array.reshape(len(array), -1)
    n, d = array.shape
    if d > 2:
        raise ValueError(f"points: the general-position check supports d ≤ 2, got d = {d}")
    if d == 1:
        return len(np.unique(array[:, 0])) == n
    for i, j in itertools.combinations(range(n), 2):  # is some later point on the line through x_i, x_j?
        u, v = array[j] - array[i], array[j + 1 :] - array[i]
        if np.any(u[0] * v[:, 1] - u[1] * v[:, 0] == 0):
            return False
    return True
