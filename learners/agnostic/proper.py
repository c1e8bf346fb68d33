"""Private proper agnostic learner: Theorem 3.1, Algorithm 2 (subspace reduction of
Diakonikolas–Kane–Kontonis–Tzamos–Zarifis 2021a, privatised).

Algorithm 2 (as implemented; the seed lost the formulas, constants are ours unless cited):

1. Partition S value-independently into a training block T (size m), two validation blocks
   V₁, V₂ (together ⌊validation_fraction·n⌋, halves; default fraction 0.2: at d = 10, n = 20 000 the
   noise of step 2 costs more than the selections' sampling error — with the selections replaced
   by arg-min the error barely moves —, so the training blocks get 80 %) and the logistic
   candidate's block L (below; half of the 80 % by default).
2. Step 5, private polynomial (Lemma 3.4): with weighted Hermite features ψ_α(x) = λ_α φ_α(x)
   clipped to ‖ψ‖ ≤ B and the labels y ∈ {±1} (already inside the clipping interval [−1, 1] of
   Section 3.1), the weighted correlation vector (1/m)Σ_i y_i ψ(x_i) + exact discrete Gaussian
   noise on a grid (:mod:`dpledger.learners.noise`), divided by λ coordinatewise: ĉ. By
   orthonormality ĉ without noise is the least-squares polynomial of degree ≤ D (Section 3.1).
   Substituting one example moves the sum by ≤ 2B, so Δ₂ = 2B/m and σ is calibrated through zCDP
   (Canonne–Kamath–Steinke 2020) for (ε, δ), grid rounding included, certified by the accountant.
   The weights λ_α = λ^{max(|α| − 1, 0)} (``degree_decay`` λ, default 1/2) split the one Gaussian
   release's budget between the degrees: coordinate α carries noise σ/λ_α, and the default
   B = 2√(Σ_α λ_α²) (E‖ψ‖² = Σ_α λ_α² for orthonormal φ, so Markov bounds the clipping probability by
   1/4, the role of Lemma C.2) shrinks with λ. At d = 10, λ = 1 (every coefficient alike, B = 2√66)
   loads the degree-1 part — the Chow direction that wins under random noise — with the noise of
   all 66 coordinates; λ = 1/2 gives B = 2√24.75, so the degree-1 coordinates carry 0.61 times the
   noise and the degree-2 ones 1.23 times (n = 20 000, median error − OPT with the
   validation fraction 0.2: random flips, ε = 1, 0.018 → 0.012; far one-sided flips, ε = 0.5,
   0.025 → 0.023; λ = 1/4 did as well on random flips but cost the far flips' degree-2 part, 0.038).
3. Step 6, subspace (post-processing): for every candidate degree D' ≤ D (``degree``: one degree
   or a tuple, default (1, 2)) the polynomial p_{D'} is ĉ truncated to degree ≤ D' — by
   orthonormality the least-squares polynomial of degree D' (plus its share of the noise), so the
   one release serves every degree —, M = E[∇p ∇pᵀ] computed exactly
   (:func:`dpledger.learners.agnostic.hermite.gradient_gram`) and V_{D',k} = span of its top-k
   eigenvectors for every k in ``subspace_dim`` (one size or a tuple, default (1, 2); DKKTZ21a keep
   eigenvalues above a threshold — choosing k privately among small sizes is our substitute,
   keeping the cover finite and small; for D' = 1, M has rank 1, so only k = 1).
4. Cover: unit normals u = V a with a on the normalised surface grid of the cube [−1, 1]^k of
   spacing γ' = 2/⌈2/γ⌉ (a γ'√(k−1)-cover of S^{k−1}; the explicit cover of Fact B.11), and
   thresholds at n_thresholds (default 121, spacing 0.05) evenly spaced points of [−τ, τ] (τ = 3: beyond it a halfspace is
   within Φ(−3) < 0.0014 of constant); candidates sign(⟨u, x⟩ − t) for u in the union of the
   covers of all (D', k) — model selection of degree and subspace size inside Step 7.
5. Step 7, in two exponential mechanisms on disjoint blocks (each ε-DP, sensitivity 1): on V₁ the
   direction u, score −min_t #errors of sign(⟨u, x⟩ − t) (a minimum of counts that each move by
   ≤ 1 moves by ≤ 1); on V₂ the threshold t along the chosen u, score −#errors. The seed's single
   mechanism over (u, t) pairs is the same selection; splitting it keeps the exact sampler's
   work at (directions + thresholds) instead of their product (at d = 10: 3 s → 0.1 s).

**Logistic candidate** (ours, not in Algorithm 2; on unless ``logistic_fraction=None``): a block L of
⌊``logistic_fraction``·(n − |V₁| − |V₂|)⌋ records (default ½, taken from T) is spent on a private
logistic regression (:mod:`dpledger.learners.agnostic.private_logistic`, (ε, δ)-DP on L), and its
unit normal joins the cover directions in step 7's first exponential mechanism (one more candidate;
the threshold is then chosen on V₂ as for every direction). Why: the correlation vector of step 2
points along the target normal under random flips only for the Gaussian marginal; on the uniform
cube or a heavy-tailed product marginal its direction is biased, the logistic fit's is not. Under
far flips the cover directions are chosen and pay with a smaller T.

Privacy: step 2 touches only T, the logistic candidate only L, step 5 only V₁ and V₂, the rest is
post-processing; the blocks are disjoint and each step is (ε, δ)-DP on its block, so the learner is
(ε, δ)-DP (proof of Theorem 3.1, parallel composition): the candidate costs records, not ε.
Trace: Claim(Theorem 3.1, ParallelComposition(DiscreteGaussian, [logistic,] EM(directions), EM(thresholds)));
``selections_`` shows both selections' candidates and choices. ``degree_decay=1`` is the unweighted
release (every coefficient with the same noise).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpledger.accountant.events import DiscreteGaussian, Event, ParallelComposition
from dpledger.learners.agnostic.base import HalfspaceLearnerBase, check_int, check_real, private_events
from dpledger.learners.agnostic.blocks import partition
from dpledger.learners.agnostic.hermite import HermiteBasis, clip_rows, top_subspace
from dpledger.learners.agnostic.improper import candidate_degrees
from dpledger.learners.agnostic.private_logistic import LOGISTIC_GROUP, logistic_candidate, unit_normal
from dpledger.learners.agnostic.selection import Selection, grid_text, select, threshold_errors
from dpledger.learners.calibration.agnostic_noise import certified_ratio, sigma_for
from dpledger.learners.noise import gaussian_noise
from dpledger.learners.randomness import Randomness

MAX_CANDIDATES = 2_000_000


def sphere_cover(k: int, resolution: float) -> np.ndarray:
    """Unit vectors a/‖a‖ for a on the surface of the cube grid {−1, −1+γ', …, 1}^k."""
    cells = math.ceil(2 / resolution)
    axis = np.linspace(-1.0, 1.0, cells + 1)
    grid = np.stack(np.meshgrid(*([axis] * k), indexing="ij"), axis=-1).reshape(-1, k)
    surface = grid[np.max(np.abs(grid), axis=1) == 1.0]
    return surface / np.linalg.norm(surface, axis=1, keepdims=True)


def cover_size(k: int, resolution: float) -> int:
    """(s+1)^k − (s−1)^k surface grid points, s = ⌈2/γ⌉."""
    cells = math.ceil(2 / resolution)
    return (cells + 1) ** k - (cells - 1) ** k


def private_correlation(
    features: np.ndarray,
    labels: np.ndarray,
    clip_norm: float,
    privacy: tuple[Fraction, Fraction] | None,
    rng: Randomness,
) -> tuple[np.ndarray, DiscreteGaussian | None]:
    """Step 5: ĉ = (1/m)Σ y_i φ(x_i) + exact discrete Gaussian noise of scale σ on a grid
    (:func:`~dpledger.learners.noise.gaussian_noise`), Δ₂ = 2B/m (module doc)."""
    m, n_features = features.shape
    correlation = features.T @ labels / m
    if privacy is None:
        return correlation, None
    epsilon, delta = privacy
    sensitivity = 2 * Fraction(clip_norm) / m
    sigma = sigma_for(sensitivity, certified_ratio(epsilon, delta), n_features)
    noisy, event = gaussian_noise(correlation, sigma, sensitivity, delta, rng)
    return np.asarray(noisy), event


def degree_weights(indices: np.ndarray, decay: float) -> np.ndarray:
    """λ^{max(|α| − 1, 0)} for each Hermite multi-index α (module doc, step 2)."""
    return decay ** np.maximum(indices.sum(axis=1) - 1, 0).astype(float)


class PrivateProperLearner(HalfspaceLearnerBase):
    """Algorithm 2: private polynomial → subspace → finite cover → exponential mechanism."""

    statement = "Theorem 3.1"

    def __init__(
        self,
        epsilon: Any = 1.0,
        delta: Any = 1e-5,
        *,
        degree: int | tuple[int, ...] = (1, 2),
        subspace_dim: int | tuple[int, ...] = (1, 2),
        cover_resolution: float = 0.04,
        n_thresholds: int = 121,
        threshold_range: float = 3.0,
        validation_fraction: float = 0.2,
        clip_norm: float | None = None,
        degree_decay: float = 0.5,
        logistic_fraction: float | None = 0.5,
        labels: tuple[Any, Any] = (-1, 1),
        random_state: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.degree = degree
        self.subspace_dim = subspace_dim
        self.cover_resolution = cover_resolution
        self.n_thresholds = n_thresholds
        self.threshold_range = threshold_range
        self.validation_fraction = validation_fraction
        self.clip_norm = clip_norm
        self.degree_decay = degree_decay
        self.logistic_fraction = logistic_fraction
        self.labels = labels
        self.random_state = random_state

    def _fit(
        self, X: np.ndarray, labels: np.ndarray, privacy: tuple[Fraction, Fraction] | None
    ) -> Event | None:
        n, dim = X.shape
        degrees = candidate_degrees(self.degree)
        dims = sorted(
            {min(check_int(k, "subspace_dim", 1, 6), dim) for k in candidate_sizes(self.subspace_dim)}
        )
        resolution = check_real(self.cover_resolution, "cover_resolution", 0.0, 2.0)
        n_thresholds = check_int(self.n_thresholds, "n_thresholds", 1, 10_000)
        tau = check_real(self.threshold_range, "threshold_range", 0.0, 100.0)
        fraction = check_real(self.validation_fraction, "validation_fraction", 0.0, 0.9)
        clip_norm = check_real(self.clip_norm, "clip_norm", 0.0, 1e12, optional=True)
        decay = check_real(self.degree_decay, "degree_decay", 0.0, 1.0)
        logistic_fraction = check_real(self.logistic_fraction, "logistic_fraction", 0.0, 0.9, optional=True)
        subspaces = sorted({(D, k if D > 1 else 1) for D in degrees for k in dims})  # D = 1: M has rank 1
        candidates = sum(cover_size(k, resolution) for _, k in subspaces)
        if candidates > MAX_CANDIDATES:
            raise ValueError(
                f"cover_resolution={resolution} in subspace_dim={max(dims)} gives {candidates} candidate "
                f"directions, more than {MAX_CANDIDATES}"
            )
        basis = HermiteBasis(dim, max(degrees))
        n_val = max(2, int(fraction * n))
        n_logistic = 0 if logistic_fraction is None else int(logistic_fraction * (n - n_val))
        if n - n_val - n_logistic < 2 or (logistic_fraction is not None and n_logistic < 2):
            raise ValueError(f"n={n} leaves a training block of fewer than 2 records; increase n")
        rng = self._sampler()
        train, first, second, *logistic = partition(
            n,
            [n - n_val - n_logistic, n_val // 2, n_val - n_val // 2] + ([n_logistic] if n_logistic else []),
            rng,
        )
        weights = degree_weights(basis.indices, decay)
        self.clip_norm_ = 2.0 * math.sqrt(float(np.sum(weights**2))) if clip_norm is None else clip_norm
        features = clip_rows(basis.features(X[train]) * weights, self.clip_norm_)
        weighted, gaussian = private_correlation(features, labels[train], self.clip_norm_, privacy, rng)
        self.polynomial_ = weighted / weights
        degree_of = basis.indices.sum(axis=1)
        groups: list[tuple[str, np.ndarray]] = []
        for D, k in subspaces:
            subspace = top_subspace(np.where(degree_of <= D, self.polynomial_, 0.0), basis.indices, k)
            groups.append((f"degree {D}, top-{k} subspace", sphere_cover(k, resolution) @ subspace.T))
        events: list[Event | None] = [gaussian]
        self.logistic_coef_: np.ndarray | None = None
        if logistic:
            fit, _, _ = logistic_candidate(X[logistic[0]], labels[logistic[0]], rng=rng, privacy=privacy)
            self.logistic_coef_ = fit.coef
            groups.append((LOGISTIC_GROUP, unit_normal(fit.coef)[None, :]))
            events.append(fit.event)
        self.directions_ = np.concatenate([cover for _, cover in groups])
        self.thresholds_ = np.linspace(-tau, tau, n_thresholds)
        epsilon = None if privacy is None else privacy[0]
        projections = X[first] @ self.directions_.T
        best = [threshold_errors(p, labels[first], self.thresholds_).min() for p in projections.T]
        direction, direction_event = select(np.array(best), epsilon, rng)
        self.coef_ = self.directions_[direction]
        threshold, threshold_event = select(
            threshold_errors(X[second] @ self.coef_, labels[second], self.thresholds_), epsilon, rng
        )
        self.intercept_ = -float(self.thresholds_[threshold])
        group = int(
            np.searchsorted(np.cumsum([cover.shape[0] for _, cover in groups]), direction, side="right")
        )
        self.selections_ = [
            Selection(
                "Algorithm 2, step 7 on V₁: direction (degree, subspace size, cover point; or the logistic candidate)",
                tuple(
                    f"{name}: {cover.shape[0]} direction{'s' if cover.shape[0] > 1 else ''}"
                    for name, cover in groups
                ),
                self.directions_.shape[0],
                f"direction {direction + 1}, from {groups[group][0]}",
                privacy is not None,
            ),
            Selection(
                "Algorithm 2, step 7 on V₂: threshold along the chosen direction",
                (grid_text(self.thresholds_, "t"),),
                n_thresholds,
                f"t = {self.thresholds_[threshold]:.4g}",
                privacy is not None,
            ),
        ]
        if privacy is None:
            return None
        return ParallelComposition(children=private_events(*events, direction_event, threshold_event))

    def decision_function(self, X: Any) -> np.ndarray:
        """⟨w, x⟩ + b for the selected unit normal w and intercept b = −t."""
        return self._checked(X) @ self.coef_ + self.intercept_


def candidate_sizes(value: object) -> tuple[object, ...]:
    """``subspace_dim`` as a non-empty tuple of candidates (an int is one candidate)."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not values:
        raise ValueError("subspace_dim must be an integer or a non-empty tuple of integers")
    return values
