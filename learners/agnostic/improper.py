"""Private improper agnostic learner: Theorem 2.1, Algorithm 1 (Gaussian marginal) and its
log-concave variant, Theorem D.1 (known marginal, moment-matrix basis, Appendix D.1).

Algorithm 1 (as implemented; the seed lost the formulas, constants are ours unless cited):

1. Partition S value-independently into k training blocks, the logistic candidate's block (step
   2b), the subspace step's two blocks (together ⌊subspace_fraction·(n − m_val)⌋, halves) and a
   validation block of size m_val = ⌊validation_fraction·n⌋ (default 0.15;
   :mod:`dpledger.learners.agnostic.blocks`). k = ``n_blocks`` × (number of candidate degrees); the
   training and logistic blocks share the records left by weights: 1 for a training block,
   ``source_share`` for a block of the subspace step's source degree (step 3; default
   min(1, max(0.4, n/50 000)), a rule on the public n, :func:`source_block_share`) and
   ``logistic_share`` (default 1) for the logistic block. **Model selection** — ``degree`` is one
   degree (default 2, the lowest degree whose polynomial has a subspace for step 3) or a tuple of
   candidates; block j is fitted at degree D_{j mod |degrees|}, so the seed's own
   boosting-and-selection step (repeat on independent blocks, choose on validation) also chooses
   the degree, at no extra privacy cost (the blocks are disjoint). The theorem's D = ⌈1/α²⌉ is out
   of reach at d = 10.
2. On each training block j, features φ(x) (orthonormal, degree ≤ D_j, clipped to B = 2√F by
   default) and the private L1 regression over the ball ‖w‖ ≤ R (R = 1: Lemma B.10 puts a good
   approximation of every halfspace in the unit ball of Hermite coefficients; for
   Theorem D.1 the seed's radius constant from Lemma D.3 is unstated, so R stays a parameter,
   default 1 — a substitute) → w_j, (ε, δ)-DP on block j with T = ``steps`` (default 30; at n = 100 000, d = 10 thirty
   steps are as accurate as 300 — less noise per step — and ten times faster)
   adaptively composed discrete Gaussian steps (:mod:`dpledger.learners.agnostic.private_l1`); ``composition``
   = "optimal" (default: zCDP composition of the exact discrete Gaussian steps,
   Bun–Steinke 2016 / Canonne–Kamath–Steinke 2020) or "advanced" (Theorem 3.20) selects the rule the noise is
   calibrated to.
2b. **Logistic candidate** (ours, not in Algorithm 1; on unless ``logistic_share=None``): a private
   logistic regression on the degree-1 features (1, x) of its own block
   (:mod:`dpledger.learners.agnostic.private_logistic`: noisy clipped gradient descent, (ε, δ)-DP
   on its block), whose score p(x) = tanh(⟨w, φ(x)⟩/2) — the fitted E[y | x] — is thresholded in
   step 4 like the regression polynomials. Why: under random label flips the L1 polynomial's
   direction is the target's only under the Gaussian marginal; on the uniform cube or a
   heavy-tailed product marginal it is biased, the logistic fit is not (its module doc). Beside
   it a degree-1 L1 block only takes records from it, hence the default ``degree`` 2 (d = 10,
   random flips on Gaussian, uniform and Student-t(3) marginals, n ∈ {20 000, 100 000},
   ε ∈ {0.5, 1}, 3 datasets per cell: the largest median gap to diffprivlib's logistic regression
   was +0.0058 with degrees (1, 2), +0.0019 with degree 2).
3. **Subspace step** (ours; Gaussian marginal, largest candidate degree ≥ 2, on unless
   ``subspace_degree=None``): one more candidate polynomial, of degree ``subspace_degree``
   (default 5) in the single variable ⟨u, x⟩ — a degree-D polynomial of x restricted to a line,
   so still the seed's hypothesis class, fitted by the same private L1 regression. Its free choice,
   the direction u, is selected privately: V = the top-2 eigenvectors of E[∇p ∇pᵀ] of the first
   block of the largest degree (post-processing of its private w_j; the subspace of Diakonikolas
   et al. 2021a that the seed's Algorithm 2 uses, :func:`~dpledger.learners.agnostic.hermite.top_subspace`);
   candidates u = V(cos a, sin a) at ``n_directions`` (even, default 180: 2°) angles a = 2πi/n; the
   exponential mechanism on the first subspace block (ε-DP) with score −min_t #errors of
   sign(⟨u, x⟩ − t) over 121 values of t in [−3, 3] (a minimum of counts that each move by ≤ 1:
   sensitivity 1). The second half of the circle is the first negated, and for u = −u' the
   halfspaces are taken open (⟨u', x⟩ < −t, ties — probability 0 — negative), the complements of
   u''s: its errors are m − errors(u', −t), so one table over the half circle scores both; then the
   private L1 regression of degree ``subspace_degree`` in the Hermite features h_k(⟨u, x⟩) (⟨u, x⟩
   ∼ N(0, 1), so they are orthonormal) on the second subspace block ((ε, δ)-DP; ``subspace_steps``
   = 10 steps: with D + 1 = 6 features, as accurate as 30 at n = 20 000 and 100 000).
   Why: with flips far from the boundary on one side, the labels are the target XOR a far
   halfspace, and a low-degree L1 fit of all of x is pulled towards that second boundary (0.11
   above OPT at n = 100 000, without privacy too); along a line close to the target normal the pull
   is gone. **Substitute**: the direction selection is not in Algorithm 1 (it is Algorithm 2's
   step 7 over a cover of the unit circle of a 2-D subspace); Algorithm 1's own candidates are all
   still fitted and compete in step 5.
4. Candidates h_{j,θ}(x) = sign(p_j(x) − θ) for every training block, the logistic block and the
   subspace block (p_j(x) = ⟨w_j, φ_j(x)⟩, and tanh of half that for the logistic block), θ in
   n_thresholds (default 101) evenly spaced points of [−1, 1] (Kalai et al. 2008 threshold the
   regression polynomial at a θ ∈ [−1, 1]; a grid of 21 points cost up to 0.03 in error).
5. Exponential mechanism on the validation block over all (block — degree or loss —, θ), score
   −#errors (sensitivity 1): ε-DP. ``selections_`` shows the candidates and the choice of this step and of
   the subspace step's direction.

Privacy: every step touches one block and is (ε, δ)-DP on it (the logistic candidate too: its
steps are calibrated to the full (ε, δ)); the blocks are disjoint and value-independent, so the
learner is (ε, δ)-DP by parallel composition (Proposition C.1; Proposition D.2 for D.1). The budget
split is by records, not by ε: the logistic candidate costs its block's share of n. The
subspace step's choices depend on earlier blocks' outputs only (adaptive parallel composition,
:class:`~dpledger.accountant.events.ParallelComposition`).
Trace: Claim(Theorem 2.1 | D.1, ParallelComposition(regression_1, …, regression_k, [logistic,]
[EM(directions), regression_u,] EM)); ``block_losses_`` names each block's loss.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpledger.accountant.events import Event, ParallelComposition
from dpledger.learners.agnostic.base import HalfspaceLearnerBase, check_int, check_real, private_events
from dpledger.learners.agnostic.blocks import partition, weighted_blocks
from dpledger.learners.agnostic.hermite import HermiteBasis, clip_rows, top_subspace
from dpledger.learners.agnostic.logconcave_basis import (
    MomentBasis,
    ProductMarginal,
    clipped_features,
    make_basis,
)
from dpledger.learners.agnostic.private_l1 import private_l1_regression
from dpledger.learners.agnostic.private_logistic import logistic_candidate, logistic_score
from dpledger.learners.agnostic.selection import Selection, column_threshold_errors, grid_text, select
from dpledger.learners.calibration.agnostic_noise import COMPOSITION_METHODS

DIRECTION_RANGE = 3.0
"""Thresholds t of the direction score lie in [−3, 3]: ⟨u, x⟩ ∼ N(0, 1) for a unit u, and beyond
±3 a halfspace is within Φ(−3) < 0.0014 of constant (the proper learner's range)."""
DIRECTION_THRESHOLDS = 121
"""Spacing 0.05 of the direction score's threshold grid."""
SOURCE_SHARE_FLOOR = 0.4
SOURCE_SHARE_FULL_N = 50_000


class PrivateImproperLearner(HalfspaceLearnerBase):
    """Algorithm 1: blockwise private L1 polynomial regression, thresholds, private validation."""

    def __init__(
        self,
        epsilon: Any = 1.0,
        delta: Any = 1e-5,
        *,
        degree: int | tuple[int, ...] = 2,
        n_blocks: int = 1,
        n_thresholds: int = 101,
        validation_fraction: float = 0.15,
        steps: int = 30,
        clip_norm: float | None = None,
        radius: float = 1.0,
        marginal: ProductMarginal | None = None,
        composition: str = "optimal",
        subspace_degree: int | None = 5,
        n_directions: int = 180,
        subspace_fraction: float = 0.2,
        subspace_steps: int = 10,
        source_share: float | None = None,
        logistic_share: float | None = 1.0,
        labels: tuple[Any, Any] = (-1, 1),
        random_state: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.degree = degree
        self.n_blocks = n_blocks
        self.n_thresholds = n_thresholds
        self.validation_fraction = validation_fraction
        self.steps = steps
        self.clip_norm = clip_norm
        self.radius = radius
        self.marginal = marginal
        self.composition = composition
        self.subspace_degree = subspace_degree
        self.n_directions = n_directions
        self.subspace_fraction = subspace_fraction
        self.subspace_steps = subspace_steps
        self.source_share = source_share
        self.logistic_share = logistic_share
        self.labels = labels
        self.random_state = random_state

    def _statement(self) -> str:
        return "Theorem 2.1" if self.marginal is None or self.marginal.name == "gaussian" else "Theorem D.1"

    def _fit(
        self, X: np.ndarray, labels: np.ndarray, privacy: tuple[Fraction, Fraction] | None
    ) -> Event | None:
        k = check_int(self.n_blocks, "n_blocks", 1, 1000)
        n_thresholds = check_int(self.n_thresholds, "n_thresholds", 1, 10_000)
        steps = check_int(self.steps, "steps", 1, 100_000)
        fraction = check_real(self.validation_fraction, "validation_fraction", 0.0, 0.9)
        check_real(self.clip_norm, "clip_norm", 0.0, 1e12, optional=True)
        radius = check_real(self.radius, "radius", 0.0, 1e6)
        if self.composition not in COMPOSITION_METHODS:
            raise ValueError(f"composition must be one of {COMPOSITION_METHODS}, got {self.composition!r}")
        if self.marginal is not None and not isinstance(self.marginal, ProductMarginal):
            raise ValueError(f"marginal must be None or a ProductMarginal, got {self.marginal!r}")
        degrees = candidate_degrees(self.degree)
        subspace_degree = (
            None
            if self.subspace_degree is None
            else check_int(self.subspace_degree, "subspace_degree", 1, 50)
        )
        n_directions = check_int(self.n_directions, "n_directions", 2, 10_000)
        if n_directions % 2:
            raise ValueError(f"n_directions must be even (the cover holds u and −u), got {n_directions}")
        subspace_fraction = check_real(self.subspace_fraction, "subspace_fraction", 0.0, 0.9)
        subspace_steps = check_int(self.subspace_steps, "subspace_steps", 1, 100_000)
        source_share = check_real(self.source_share, "source_share", 0.0, 1.0, optional=True)
        logistic_share = check_real(self.logistic_share, "logistic_share", 0.0, 10.0, optional=True)
        n, dim = X.shape
        bases = [make_basis(self.marginal, dim, D) for D in degrees]
        n_val = max(1, int(fraction * n))
        blocks = k * len(degrees)
        half = int(subspace_fraction * (n - n_val)) // 2
        source = subspace_source(degrees, self.marginal, subspace_degree) if half >= 2 else None
        subspace = [] if source is None else [half, half]
        share = source_block_share(n) if source_share is None else source_share
        weights = [
            share if source is not None and degrees[j % len(degrees)] == source else 1.0
            for j in range(blocks)
        ]
        logistic = [] if logistic_share is None else [logistic_share]
        sizes = weighted_blocks(n - n_val - sum(subspace), weights + logistic, 2, "n")
        rng = self._sampler()
        *training, validation = partition(n, sizes + subspace + [n_val], rng)
        self.block_bases_ = [bases[j % len(degrees)] for j in range(blocks)]
        self.block_projections_: list[np.ndarray | None] = [None] * blocks
        self.block_degrees_ = np.array([degrees[j % len(degrees)] for j in range(blocks)])
        self.block_losses_ = ["l1"] * blocks
        self.clip_norms_ = np.zeros(blocks)
        events: list[Event | None] = []
        self.block_coefs_ = []
        self.noise_sigmas_ = np.zeros(blocks)
        regression: dict[str, Any] = {
            "radius": radius,
            "steps": steps,
            "rng": rng,
            "privacy": privacy,
            "composition": self.composition,
        }
        for j, block in enumerate(training[:blocks]):
            features, self.clip_norms_[j] = clipped_features(self.block_bases_[j], X[block], self.clip_norm)
            fit = private_l1_regression(
                features, labels[block], clip_norm=float(self.clip_norms_[j]), **regression
            )
            self.block_coefs_.append(fit.coef)
            self.noise_sigmas_[j] = fit.sigma
            events.append(fit.event)
        if logistic:
            events.append(self._fit_logistic_block(X[training[blocks]], labels[training[blocks]], regression))
        epsilon = None if privacy is None else privacy[0]
        self.selections_ = []
        self.subspace_: np.ndarray | None = None
        self.directions_: np.ndarray | None = None
        self.direction_: np.ndarray | None = None
        if source is not None:
            assert subspace_degree is not None  # a subspace block has a degree
            events += self._fit_subspace_block(
                X,
                labels,
                training[blocks + len(logistic) :],
                degrees.index(source),
                subspace_degree,
                n_directions,
                subspace_steps,
                epsilon,
                regression,
            )
        self.thresholds_ = np.linspace(-1.0, 1.0, n_thresholds)
        scores = np.column_stack(
            [self._block_scores(X[validation], j) for j in range(len(self.block_coefs_))]
        )
        errors = column_threshold_errors(scores, labels[validation], self.thresholds_).ravel()
        index, em_event = select(errors, epsilon, rng)
        self.block_, threshold = divmod(index, n_thresholds)
        self.degree_ = int(self.block_degrees_[self.block_])
        self.coef_ = self.block_coefs_[self.block_]
        self.threshold_ = float(self.thresholds_[threshold])
        names = [self._block_name(j) for j in range(len(self.block_coefs_))]
        self.selections_.append(
            Selection(
                "Algorithm 1, validation: block (degree, loss) and threshold",
                tuple(f"{name} × {grid_text(self.thresholds_)}" for name in names),
                len(names) * n_thresholds,
                f"{names[self.block_]}, θ = {self.threshold_:.4g}",
                privacy is not None,
            )
        )
        if privacy is None:
            return None
        return ParallelComposition(children=private_events(*events, em_event))

    def _fit_logistic_block(
        self, X: np.ndarray, labels: np.ndarray, regression: dict[str, Any]
    ) -> Event | None:
        """The logistic-loss candidate (module doc, step 2b): a private logistic regression on the
        degree-1 features of its own block."""
        fit, basis, clip_norm = logistic_candidate(
            X,
            labels,
            rng=regression["rng"],
            privacy=regression["privacy"],
            clip_norm=self.clip_norm,
            composition=regression["composition"],
        )
        self._append_block(basis, None, 1, "logistic", clip_norm, fit.sigma, fit.coef)
        return fit.event

    def _append_block(
        self,
        basis: HermiteBasis | MomentBasis,
        projection: np.ndarray | None,
        degree: int,
        loss: str,
        clip_norm: float,
        sigma: float,
        coef: np.ndarray,
    ) -> None:
        """A candidate block after the training blocks (the logistic and the subspace blocks)."""
        self.block_bases_.append(basis)
        self.block_projections_.append(projection)
        self.block_degrees_ = np.append(self.block_degrees_, degree)
        self.block_losses_.append(loss)
        self.clip_norms_ = np.append(self.clip_norms_, clip_norm)
        self.noise_sigmas_ = np.append(self.noise_sigmas_, sigma)
        self.block_coefs_.append(coef)

    def _block_name(self, block: int) -> str:
        along = "" if self.block_projections_[block] is None else ", along the selected direction"
        loss = (
            "; private logistic regression, a candidate of ours, not in Algorithm 1"
            if self.block_losses_[block] == "logistic"
            else ""
        )
        return f"block {block + 1} (degree {self.block_degrees_[block]}{along}{loss})"

    def _fit_subspace_block(
        self,
        X: np.ndarray,
        labels: np.ndarray,
        blocks: list[np.ndarray],
        source: int,
        degree: int,
        n_directions: int,
        steps: int,
        epsilon: Fraction | None,
        regression: dict[str, Any],
    ) -> list[Event | None]:
        """The subspace candidate (module doc, step 3): subspace of training block ``source``'s
        polynomial, direction chosen privately on ``blocks[0]``, 1-D regression on ``blocks[1]``."""
        direction_block, fit_block = blocks
        subspace = self.subspace_ = top_subspace(
            self.block_coefs_[source], self.block_bases_[source].indices, 2
        )
        directions = self.directions_ = circle_cover(subspace, n_directions)
        grid = np.linspace(-DIRECTION_RANGE, DIRECTION_RANGE, DIRECTION_THRESHOLDS)
        half = directions[: len(directions) // 2]
        projections = np.einsum("ij,kj->ik", X[direction_block], half)  # single-threaded (private_l1)
        chosen, direction_event = select(
            direction_scores(projections, labels[direction_block], grid), epsilon, regression["rng"]
        )
        direction = self.direction_ = directions[chosen]
        basis = HermiteBasis(1, degree)
        features, clip_norm = clipped_features(basis, X[fit_block] @ direction[:, None], self.clip_norm)
        fit = private_l1_regression(
            features, labels[fit_block], clip_norm=clip_norm, **{**regression, "steps": steps}
        )
        self._append_block(basis, direction[:, None], degree, "l1", clip_norm, fit.sigma, fit.coef)
        self.selections_.append(
            Selection(
                "subspace step (a substitute, not in Algorithm 1): direction u of the 1-D regression, in the top-2 "
                f"subspace of E[∇p∇pᵀ], p = block {source + 1}'s polynomial",
                (
                    (
                        f"{len(directions)} unit vectors u at angles 2πi/{len(directions)} in the subspace, "
                        f"score min over {grid_text(grid, 't')} of the errors of sign(⟨u, x⟩ − t)"
                    ),
                ),
                len(directions),
                f"direction {chosen + 1} (angle {360 * chosen / len(directions):.4g}°)",
                epsilon is not None,
            )
        )
        return [direction_event, fit.event]

    def _block_scores(self, X: np.ndarray, block: int) -> np.ndarray:
        """p_j(x) = ⟨w_j, clip(φ_j(x))⟩ for training block j (φ_j of the projection x·u for the subspace block)."""
        projection = self.block_projections_[block]
        features = self.block_bases_[block].features(X if projection is None else X @ projection)
        scores = np.einsum(
            "ij,j->i", clip_rows(features, self.clip_norms_[block]), self.block_coefs_[block]
        )  # single-threaded (private_l1)
        return logistic_score(scores) if self.block_losses_[block] == "logistic" else scores

    def decision_function(self, X: Any) -> np.ndarray:
        """p(x) − θ for the selected block's polynomial p and threshold θ."""
        return self._block_scores(self._checked(X), self.block_) - self.threshold_


def candidate_degrees(degree: Any) -> tuple[int, ...]:
    """``degree`` as a tuple of distinct candidate degrees in [1, 50] (an int is one candidate)."""
    values = degree if isinstance(degree, (tuple, list)) else (degree,)
    if not values:
        raise ValueError("degree must be an integer or a non-empty tuple of integers")
    checked = tuple(check_int(value, "degree", 1, 50) for value in values)
    if len(set(checked)) != len(checked):
        raise ValueError(f"degree candidates must be distinct, got {degree!r}")
    return checked


def subspace_source(
    degrees: tuple[int, ...], marginal: ProductMarginal | None, subspace_degree: int | None
) -> int | None:
    """The degree whose polynomial gives the subspace step its subspace: the largest candidate
    degree, when it is ≥ 2 (a degree-1 polynomial's E[∇p∇pᵀ] has rank 1), the marginal is Gaussian
    (the influence matrix and the 1-D Hermite features assume N(0, I_d)) and the step is on.
    The caller also skips the step when its blocks would hold fewer than 2 records each (n is public)."""
    gaussian = marginal is None or marginal.name == "gaussian"
    return max(degrees) if subspace_degree is not None and gaussian and max(degrees) >= 2 else None


def source_block_share(n: int) -> float:
    """The default size of the subspace source degree's blocks relative to the other blocks (weight
    1: other degrees' and, at ``logistic_share`` 1, the logistic block): min(1, max(0.4, n/50 000)) —
    a rule on the public n only. Under random noise the block the validation selects (the logistic
    candidate; the degree-1 L1 block when it is off) decides the error, and at small n its size
    matters most; from n = 50 000 on the blocks are equal, so the source's subspace stays accurate
    where the far one-sided flips need it."""
    return min(1.0, max(SOURCE_SHARE_FLOOR, n / SOURCE_SHARE_FULL_N))


def direction_scores(projections: np.ndarray, labels: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The subspace step's scores (module doc, step 3), as error counts: for each column u of
    ``projections`` (⟨u, x_i⟩ over the first half of the cover) min_t #errors of the closed
    halfspaces ⟨u, x⟩ ≥ t, then for each −u min_t #errors of the open ⟨−u, x⟩ > t — the complements,
    m − #errors(u, −t), so one table serves both. Each is a minimum of counts: sensitivity 1."""
    errors = column_threshold_errors(projections, labels, grid)
    return np.concatenate([errors.min(axis=1), labels.size - errors.max(axis=1)])


def circle_cover(subspace: np.ndarray, count: int) -> np.ndarray:
    """``count`` (even) unit vectors V(cos a, sin a) at the angles a = 2πi/count of the plane
    spanned by the orthonormal columns of the (d, 2) matrix V, as rows; row i + count/2 is exactly
    −(row i). For d = 1, V has one column and the cover is ±V."""
    if subspace.shape[1] == 1:
        return np.vstack([subspace[:, 0], -subspace[:, 0]])
    angles = 2 * np.pi * np.arange(count // 2) / count
    half = np.column_stack([np.cos(angles), np.sin(angles)]) @ subspace.T
    return np.vstack([half, -half])
