"""Private L1 regression over a coefficient ball: the role of Kulkarni–Lee–Liu (2021) in the seed
(Lemma B.4, used in Algorithm 1 and Theorem D.1).

**Substitute.** Kulkarni et al. give a subquadratic-gradient algorithm; we use the plain noisy
projected subgradient method instead (full-batch noisy gradient descent as in Bassily–Smith–
Thakurta 2014), whose privacy is exactly accountable:

    w₀ = 0;  w_{k+1} = Π_{‖w‖≤R}(w_k − η (g_k + z_k)),  z_k exact discrete Gaussian noise of scale σ on a grid
(:mod:`dpledger.learners.noise`; the float update is the grid release),  output w̄ = (1/T)Σ w_k

with g_k = (1/m)Σ_i sign(⟨w_k, φ_i⟩ − y_i) φ_i a subgradient of f(w) = (1/m)Σ_i |⟨w, φ_i⟩ − y_i|.
Features are clipped to ‖φ_i‖ ≤ B, so each term is B-Lipschitz and substituting one example
moves g_k by at most Δ = 2B/m in L2. The T steps use the *same* data, so they compose
adaptively: ``Composition(DiscreteGaussian(σ/γ, 2B/(mγ) + √F, δ/(2T)) × T, target_delta=δ)``
(:mod:`dpledger.learners.calibration.agnostic_noise`).

The products Φw and Φᵀs are single-threaded ``einsum`` contractions: a multithreaded BLAS
matrix–vector product of this shape costs about five times more user CPU on a loaded two-core
machine (0.49 s against 0.08 s for 30 steps at m = 34 000, F = 66), for no speed-up.

**Step size** (our choice): η = R/(G₀√T) with G₀² = 1 + Fσ². For orthonormal features the
population subgradient E[sign(·)φ(x)] has norm ≤ 1 by Bessel's inequality, so G₀ is the typical
size of g_k + z_k; the worst case B = 2√F would make η needlessly small. η is public.

**Excess risk** (empirical; Bubeck 2015, Theorem 6.1 with E‖g_k + z_k‖² ≤ G² = B² + Fσ²):
E f(w̄) − min_{‖w‖≤R} f ≤ R²/(2ηT) + ηG²/2 for any fixed η (= RG/√T at η = R/(G√T)). Over the ball the loss is
bounded by RB + 1 and the linear class has Rademacher complexity ≤ RB/√m, so with probability
1 − β the population excess adds 2(2RB/√m + (RB + 1)√(ln(2/β)/(2m))) (Shalev-Shwartz–Ben-David
2014, Theorem 26.5 and Lemma 26.10). :func:`excess_risk_bound` returns these terms.

The exact non-private optimum for comparison, :func:`exact_l1_regression`, is the LP
min Σ s_i s.t. −s ≤ Φw − y ≤ s (HiGHS). It drops the ball constraint, so its value is a lower
bound on min_{‖w‖≤R} f, with equality when its solution has ‖w‖ ≤ R.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import csr_matrix, eye, hstack, vstack

from dpledger.accountant.events import Event
from dpledger.learners.agnostic.noisy_descent import noisy_descent, step_noise
from dpledger.learners.randomness import Randomness


@dataclass(frozen=True)
class L1Fit:
    """Result of the (private) optimiser: averaged iterate, noise level used, its event."""

    coef: np.ndarray
    objective: float
    sigma: float
    steps: int
    event: Event | None


def l1_objective(coef: np.ndarray, features: np.ndarray, labels: np.ndarray) -> float:
    """f(w) = (1/m) Σ_i |⟨w, φ_i⟩ − y_i|."""
    return float(np.mean(np.abs(features @ coef - labels)))


def project_ball(w: np.ndarray, radius: float) -> np.ndarray:
    norm = np.linalg.norm(w)
    return w if norm <= radius else w * (radius / norm)


def private_l1_regression(
    features: np.ndarray,
    labels: np.ndarray,
    *,
    clip_norm: float,
    radius: float,
    steps: int,
    rng: Randomness,
    privacy: tuple[Fraction, Fraction] | None,
    composition: str = "optimal",
) -> L1Fit:
    """Noisy projected subgradient descent for L1 regression (module doc); ``privacy=None``
    runs it without noise (the non-private optimiser)."""
    m, n_features = features.shape
    if np.max(np.linalg.norm(features, axis=1)) > clip_norm * (1 + 1e-12):
        raise ValueError(f"features must be clipped to norm ≤ clip_norm={clip_norm}")
    sensitivity = 2 * Fraction(clip_norm) / m
    noise = step_noise(sensitivity, privacy, steps, composition, n_features)
    sigma = 0.0 if noise is None else noise.sigma
    eta = step_size(radius, n_features, sigma, steps)

    def subgradient(w: np.ndarray) -> np.ndarray:
        residual_signs = np.sign(np.einsum("ij,j->i", features, w) - labels)
        return np.asarray(np.einsum("ij,i->j", features, residual_signs) / m)

    iterates, event = noisy_descent(
        subgradient,
        lambda w, noisy: project_ball(w - eta * noisy, radius),
        np.zeros(n_features),
        steps,
        noise,
        rng,
    )
    coef = sum(iterates[:-1], np.zeros(n_features)) / steps
    return L1Fit(coef, l1_objective(coef, features, labels), sigma, steps, event)


def step_size(radius: float, n_features: int, sigma: float, steps: int) -> float:
    """η = R/(G₀√T), G₀² = 1 + Fσ² (module doc)."""
    return radius / (math.sqrt(1 + n_features * sigma**2) * math.sqrt(steps))


def excess_risk_bound(
    *, radius: float, clip_norm: float, n_features: int, sigma: float, steps: int, m: int, beta: float
) -> dict[str, float]:
    """The optimisation term R²/(2ηT) + η(B² + Fσ²)/2 at the η used (in expectation) and the
    uniform-convergence term (with probability 1 − β)."""
    eta = step_size(radius, n_features, sigma, steps)
    optimisation = radius**2 / (2 * eta * steps) + eta * (clip_norm**2 + n_features * sigma**2) / 2
    rb = radius * clip_norm
    generalisation = 2 * (2 * rb / math.sqrt(m) + (rb + 1) * math.sqrt(math.log(2 / beta) / (2 * m)))
    return {
        "optimisation": optimisation,
        "generalisation": generalisation,
        "total": optimisation + generalisation,
    }


def exact_l1_regression(features: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, float]:
    """The unconstrained least-absolute-deviations fit by the HiGHS LP: (coef, objective)."""
    m, n_features = features.shape
    phi = csr_matrix(features)
    identity = eye(m, format="csr")
    a_ub = vstack([hstack([phi, -identity]), hstack([-phi, -identity])]).tocsr()
    b_ub = np.concatenate([labels, -labels])
    cost = np.concatenate([np.zeros(n_features), np.ones(m) / m])
    bounds = [(None, None)] * n_features + [(0, None)] * m
    result = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if not result.success:
        raise RuntimeError(f"HiGHS failed: {result.message}")
    coef = result.x[:n_features]
    return coef, l1_objective(coef, features, labels)
