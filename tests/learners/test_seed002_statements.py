"""Seed 002 statements checked on their own: Algorithms 2–4 (the pieces of each learner, as
implemented), the negative controls of Theorems 2.1, D.1 and 4.1's privacy checks, Lemma B.8 (the Hermite
basis), Claim 4.3 (the structure of the noisy gradient step of Algorithm 3) and Lemma C.2 (clipping the features raises the regression loss by at most the
clipping probability, which is small at the learner's bound).

Tested through the learners' public API only (``learners/agnostic/**`` is not edited here): the
semi-agnostic learner's steps are observed by wrapping, not replacing, the module's own
``noisy_mean`` and ``normalise`` (each wrapper calls the original and records its input/output).
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest

import dpledger.learners.agnostic.semi_agnostic as semi_agnostic
from dpledger.accountant import account
from dpledger.accountant.events import (
    Claim,
    Composition,
    DiscreteGaussian,
    DiscreteLaplace,
    Event,
    ExponentialMechanism,
    ParallelComposition,
)
from dpledger.learners.agnostic import (
    PrivateImproperLearner,
    PrivateProperLearner,
    PrivateSemiAgnosticLearner,
    ProductMarginal,
)
from dpledger.learners.agnostic.data import halfspace_data
from dpledger.learners.agnostic.hermite import (
    HermiteBasis,
    clip_rows,
    default_clip_norm,
    gradient_gram,
    multi_indices,
)
from dpledger.learners.agnostic.proper import sphere_cover
from dpledger.learners.randomness import Sampled


def _recorded_steps(monkeypatch: pytest.MonkeyPatch, epsilon: float | None, steps: int = 5):
    """Fit the semi-agnostic learner (one guess) and return, per gradient step k, the iterate w_k,
    the exact block-mean gradient g_k, the released (noisy) gradient ĝ_k and the vector v_{k+1}
    the learner normalises into w_{k+1}."""
    means: list[tuple[np.ndarray, np.ndarray]] = []
    normalised: list[tuple[np.ndarray, np.ndarray]] = []
    original_mean, original_normalise = semi_agnostic.noisy_mean, semi_agnostic.normalise

    def noisy_mean(vectors, sensitivity, privacy, rng):
        released, event = original_mean(vectors, sensitivity, privacy, rng)
        means.append((np.asarray(vectors).mean(axis=0).copy(), np.array(released, dtype=float)))
        return released, event

    def normalise(w):
        out = original_normalise(w)
        normalised.append((np.array(w, dtype=float), np.array(out, dtype=float)))
        return out

    monkeypatch.setattr(semi_agnostic, "noisy_mean", noisy_mean)
    monkeypatch.setattr(semi_agnostic, "normalise", normalise)
    sample = halfspace_data(4000, 6, 0.05, "random", Sampled(3))
    learner = PrivateSemiAgnosticLearner(
        epsilon=epsilon, delta=1e-5, n_guesses=1, steps=steps, max_step_noise=None, random_state=7
    )
    learner.fit(sample.X, sample.y)
    # call 0 of each: the initial direction u and w_0 = u/‖u‖; call k + 1: step k.
    assert len(means) == len(normalised) == steps + 1
    return [(normalised[k][1], means[k + 1][0], means[k + 1][1], normalised[k + 1][0]) for k in range(steps)]


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_claim_4_3_noisy_step_is_noiseless_step_plus_noise_orthogonal_to_the_iterate(monkeypatch, epsilon):
    """Claim 4.3 (the proof in F.3): the update is the non-private projected gradient step plus the
    Gaussian noise projected on w⊥: v_{k+1} = w_k − η_k(P_{w⊥}g_k + P_{w⊥}ξ_k), ξ_k = ĝ_k − g_k,
    η_k = η/√(k+1). So the step moves only in w_k⊥ and, by Pythagoras, ‖v_{k+1}‖² = 1 +
    η_k²‖P_{w⊥}ĝ_k‖² ≥ 1: projecting onto the unit ball is the normalisation the learner does.
    The noise is really there (ξ_k ≠ 0) at both privacy levels."""
    for k, (w, g, g_hat, v) in enumerate(_recorded_steps(monkeypatch, epsilon)):
        assert math.isclose(np.linalg.norm(w), 1.0, rel_tol=1e-12)
        eta = semi_agnostic.STEP_SIZE / math.sqrt(k + 1)
        xi = g_hat - g
        assert np.linalg.norm(xi) > 0
        tangent = g_hat - (g_hat @ w) * w  # ĝ = g + ξ projected onto w⊥
        assert np.allclose(v, w - eta * tangent, rtol=0, atol=1e-12)
        step = v - w
        assert abs(step @ w) <= 1e-12
        assert math.isclose(v @ v, 1 + step @ step, rel_tol=1e-12)
        assert v @ v >= 1 - 1e-12


def test_claim_4_3_without_privacy_the_step_is_the_noiseless_projected_gradient_step(monkeypatch):
    """The negative control of Claim 4.3: with epsilon=None no noise is added (ĝ_k = g_k exactly)
    and the update is exactly w_k − η_k P_{w⊥}g_k."""
    for k, (w, g, g_hat, v) in enumerate(_recorded_steps(monkeypatch, None)):
        assert np.array_equal(g_hat, g)
        eta = semi_agnostic.STEP_SIZE / math.sqrt(k + 1)
        assert np.allclose(v, w - eta * (g - (g @ w) * w), rtol=0, atol=1e-12)


@pytest.mark.parametrize("dim, degree", [(2, 3), (4, 2), (6, 1)])
def test_lemma_c_2_clipping_raises_the_l1_loss_by_at_most_the_clipping_probability(dim, degree):
    """Lemma C.2: for every coefficient vector c and label y ∈ {±1}, the L1 regression loss on the
    clipped features exceeds the loss on the raw features by at most 1{the point is clipped}
    (clipping scales φ by s ∈ (0, 1]; |s⟨c, φ⟩ − y| is convex in s, so ≤ max(|⟨c, φ⟩ − y|, |y|)).
    Hence on any distribution — here the empirical one of Gaussian points, exactly — the clipped
    population loss is ≤ the raw loss + Pr[clipped]. Checked for random c of several norms and
    clipping bounds from well below to the learner's default B = 2√F."""
    rng = np.random.default_rng(dim * 10 + degree)
    basis = HermiteBasis(dim, degree)
    X = rng.standard_normal((3000, dim))
    y = np.where(rng.random(3000) < 0.5, -1.0, 1.0)
    phi = basis.features(X)
    F = phi.shape[1]
    for bound in (0.5 * math.sqrt(F), math.sqrt(F), default_clip_norm(F)):
        clipped = clip_rows(phi, bound)
        was_clipped = np.linalg.norm(phi, axis=1) > bound
        assert np.all(np.linalg.norm(clipped, axis=1) <= bound * (1 + 1e-12))
        assert np.array_equal(clipped[~was_clipped], phi[~was_clipped])
        for scale in (0.1, 1.0, 10.0):
            c = rng.standard_normal(F)
            c *= scale / float(np.linalg.norm(c))
            raw, cut = np.abs(phi @ c - y), np.abs(clipped @ c - y)
            assert np.all(cut <= raw + was_clipped + 1e-9)
            assert cut.mean() <= raw.mean() + was_clipped.mean() + 1e-9


@pytest.mark.parametrize("dim, degree", [(2, 3), (4, 2), (3, 4)])
def test_lemma_c_2_clipping_probability_at_the_learners_bound_is_at_most_a_quarter(dim, degree):
    """The 'which is small' half of Lemma C.2 as the learner uses it: features orthonormal under
    N(0, I) have E‖φ‖² = F, so B = 2√F gives Pr[clipped] ≤ F/B² = 1/4 (Markov). Checked
    empirically (20 000 Gaussian points, fixed seed): E‖φ‖² within 10% of F, and the clipping
    fraction ≤ 1/4."""
    rng = np.random.default_rng(100 + dim + degree)
    phi = HermiteBasis(dim, degree).features(rng.standard_normal((20000, dim)))
    F = phi.shape[1]
    norms2 = np.einsum("ij,ij->i", phi, phi)
    assert abs(norms2.mean() / F - 1) < 0.1
    assert np.mean(norms2 > default_clip_norm(F) ** 2) <= 0.25


def test_algorithm_2_returns_a_cover_halfspace_in_the_top_subspace_of_its_private_polynomials_gradient_gram():
    """Algorithm 2, step by step as implemented (the seed lost the formulas): the released
    polynomial p (step 5, one discrete Gaussian) gives V = the top-k eigenvectors of E[∇p∇pᵀ]
    (step 6, :func:`gradient_gram`, checked against Monte Carlo gradients elsewhere); the candidate
    normals are the sphere cover mapped into V; the output is one candidate normal with one of the
    candidate thresholds, chosen by two exponential mechanisms on disjoint halves of the validation
    block: the direction over exactly all candidate normals, then the threshold over all thresholds
    (the learner's logistic candidate, not in the seed, off)."""
    sample = halfspace_data(3000, 4, 0.1, "random", Sampled(3))
    learner = PrivateProperLearner(
        4, "1e-6", degree=2, subspace_dim=2, cover_resolution=0.25, logistic_fraction=None, random_state=3
    )
    learner.fit(sample.X, sample.y)
    _, vectors = np.linalg.eigh(gradient_gram(learner.polynomial_, HermiteBasis(4, 2).indices))
    top = vectors[:, ::-1][:, :2]  # the two largest eigenvalues, largest first
    assert np.allclose(learner.directions_, sphere_cover(2, 0.25) @ top.T, atol=1e-9)
    assert np.isclose(np.linalg.norm(learner.directions_, axis=1), 1).all()
    assert any(np.array_equal(learner.coef_, normal) for normal in learner.directions_)
    assert -learner.intercept_ in learner.thresholds_.tolist()
    gaussian, direction, threshold = _releases(learner)
    assert isinstance(gaussian, DiscreteGaussian)
    assert isinstance(direction, ExponentialMechanism) and isinstance(threshold, ExponentialMechanism)
    assert direction.candidates == len(learner.directions_) and threshold.candidates == learner.n_thresholds


def test_algorithms_3_and_4_one_run_per_geometric_guess_then_one_selection_among_the_runs():
    """Algorithm 4: guesses ŏ_j = ŏ₀·2^{−j} (j < J), one run of Algorithm 3 per guess, then one
    exponential mechanism over the J runs' iterates w₀, …, w_T and the candidate thresholds; the
    output is one run's iterate with one threshold. Each run of Algorithm 3 releases, in order, one
    discrete Gaussian (the initial direction, step 11), one exponential mechanism (step 7's
    threshold by a private ERM along that direction) and one discrete Gaussian per gradient step
    (the learner's logistic candidate, not in the seed, off)."""
    sample = halfspace_data(4000, 3, 0.05, "random", Sampled(5))
    learner = PrivateSemiAgnosticLearner(
        4,
        "1e-6",
        n_guesses=3,
        first_guess=0.25,
        steps=3,
        max_step_noise=None,
        logistic_fraction=None,
        random_state=5,
    )
    learner.fit(sample.X, sample.y)
    assert learner.schedule_ == (3, 3)
    assert learner.guesses_.tolist() == [0.25, 0.125, 0.0625]
    assert learner.iterates_.shape == (3, 4, 3) and np.array_equal(
        learner.run_coefs_, learner.iterates_[:, -1]
    )
    assert any(np.array_equal(learner.coef_, w) for w in learner.iterates_.reshape(-1, 3))
    assert -learner.intercept_ in learner.thresholds_.tolist()
    *runs, em = _releases(learner)
    assert (
        len(runs) == 3
        and isinstance(em, ExponentialMechanism)
        and em.candidates == 3 * 4 * learner.n_thresholds
    )
    for run in runs:
        assert isinstance(run, (Composition, ParallelComposition))
        kinds = [type(event) for event in run.children]
        assert kinds == [DiscreteGaussian, ExponentialMechanism] + [DiscreteGaussian] * 3


def _releases(learner) -> tuple[Event, ...]:
    """The releases under a fitted learner's claim (its trace), in the order it made them."""
    assert isinstance(learner.trace_, Claim)
    child = learner.trace_.child
    assert isinstance(child, (Composition, ParallelComposition))
    return child.children


def _noise_halved(event):
    """The event tree with every discrete Gaussian's σ and every discrete Laplace's scale halved."""
    if isinstance(event, DiscreteGaussian):
        return dataclasses.replace(event, sigma_units=event.sigma_units / 2)
    if isinstance(event, DiscreteLaplace):
        return dataclasses.replace(event, scale_units=event.scale_units / 2)
    changes = {}
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        if isinstance(value, Event):
            changes[field.name] = _noise_halved(value)
        elif isinstance(value, tuple) and value and all(isinstance(child, Event) for child in value):
            changes[field.name] = tuple(_noise_halved(child) for child in value)
    return dataclasses.replace(event, **changes) if changes else event


@pytest.mark.parametrize(
    "statement, make",
    [
        ("Theorem 2.1", lambda: PrivateImproperLearner(1, "1e-6", n_blocks=2, steps=10, random_state=0)),
        (
            "Theorem D.1",
            lambda: PrivateImproperLearner(
                1, "1e-6", degree=2, steps=10, marginal=ProductMarginal("laplace"), random_state=0
            ),
        ),
        ("Theorem 4.1", lambda: PrivateSemiAgnosticLearner(1, "1e-6", n_guesses=2, steps=3, random_state=0)),
    ],
)
def test_theorems_2_1_d_1_4_1_privacy_check_fails_with_half_the_calibrated_noise(statement, make):
    """The negative control of each learner's privacy check: the accountant certifies (ε, δ) from
    the learner's own trace, and no longer does once every noise draw in that trace has half its
    calibrated scale — so the chain checks the noise the learner draws, not a constant."""
    sample = halfspace_data(1200, 3, 0.1, "random", Sampled(4))
    learner = make().fit(sample.X, sample.y)
    assert learner.trace_.statement == statement
    assert account(learner.trace_).guarantee.meets(1, "1e-6").holds
    assert not account(_noise_halved(learner.trace_)).guarantee.meets(1, "1e-6").holds


@pytest.mark.parametrize("dim, degree", [(1, 6), (2, 4), (3, 3)])
def test_lemma_b_8_hermite_features_are_an_orthonormal_basis_of_the_polynomials_of_degree_at_most_d(
    dim, degree
):
    """Lemma B.8: every polynomial of degree ≤ D on R^d is a combination of the Hermite features.
    The features are polynomials of total degree ≤ D (their multi-indices), C(d + D, D) of them —
    the dimension of that space — and orthonormal under N(0, I_d): their Gram matrix under the
    tensor Gauss–Hermite rule (exact for these degrees) is the identity to 10⁻¹⁰, so they are
    independent, hence a basis."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(degree + 1)
    weights = weights / weights.sum()  # the standard normal's quadrature, exact to degree 2D + 1
    grid = np.array(list(itertools.product(nodes, repeat=dim)))
    mass = np.prod(np.array(list(itertools.product(weights, repeat=dim))), axis=1)
    indices = multi_indices(dim, degree)
    features = HermiteBasis(dim, degree).features(grid)
    assert features.shape[1] == len(indices) == math.comb(dim + degree, degree)
    assert indices.sum(axis=1).max() == degree and len({tuple(row) for row in indices.tolist()}) == len(
        indices
    )
    gram = features.T @ (mass[:, None] * features)
    assert np.abs(gram - np.eye(len(indices))).max() < 1e-10
