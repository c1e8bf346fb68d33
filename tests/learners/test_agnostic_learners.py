"""Mathematical unit checks and input validation of the agnostic learners (seed 002)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from scipy.stats import norm

from dpledger.learners.agnostic import (
    PrivateImproperLearner,
    PrivateProperLearner,
    PrivateSemiAgnosticLearner,
)
from dpledger.learners.agnostic.data import halfspace_data
from dpledger.learners.agnostic.hermite import HermiteBasis, multi_indices, top_subspace
from dpledger.learners.agnostic.proper import cover_size, private_correlation, sphere_cover
from dpledger.learners.agnostic.semi_agnostic import RHO, private_threshold
from dpledger.learners.calibration.agnostic_noise import certified_ratio, sigma_for
from dpledger.learners.noise import grid
from dpledger.learners.randomness import Sampled

LEARNERS = [PrivateImproperLearner, PrivateProperLearner, PrivateSemiAgnosticLearner]


def test_noiseless_subspace_step_recovers_the_target_direction() -> None:
    sample = halfspace_data(20_000, 6, 0.0, "random", Sampled(0))
    basis = HermiteBasis(6, 2)
    features = basis.features(sample.X)
    coef, event = private_correlation(features, sample.y, 1e9, None, Sampled(0))
    assert event is None
    direction = top_subspace(coef, multi_indices(6, 2), 1)[:, 0]
    assert abs(direction @ sample.w) > 0.99


def test_private_subspace_step_still_recovers_the_direction_at_moderate_epsilon() -> None:
    sample = halfspace_data(20_000, 6, 0.1, "random", Sampled(1))
    features = HermiteBasis(6, 2).features(sample.X)
    bound = float(np.max(np.linalg.norm(features, axis=1)))
    coef, event = private_correlation(
        features, sample.y, bound, (Fraction(4), Fraction(1, 10**5)), Sampled(1)
    )
    assert event is not None  # privacy on
    sensitivity = 2 * Fraction(bound) / 20_000
    sigma = sigma_for(sensitivity, certified_ratio(Fraction(4), Fraction(1, 10**5)), features.shape[1])
    gamma = Fraction(grid(sigma))  # the exact discrete Gaussian on grid γ: Δ′ = Δ₂/γ + √F
    assert event.sensitivity_units == sympy.Rational(sensitivity / gamma) + sympy.sqrt(features.shape[1])
    assert event.sigma_units == sympy.Rational(Fraction(sigma) / gamma)
    assert abs(top_subspace(coef, multi_indices(6, 2), 1)[:, 0] @ sample.w) > 0.9


@pytest.mark.parametrize("k", [1, 2, 3])
def test_sphere_cover_is_a_cover_of_the_stated_resolution(k: int) -> None:
    resolution = 0.2
    cover = sphere_cover(k, resolution)
    assert cover.shape == (cover_size(k, resolution), k)
    assert np.allclose(np.linalg.norm(cover, axis=1), 1)
    points = np.random.default_rng(k).normal(size=(2000, k))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    nearest = np.min(np.linalg.norm(points[:, None, :] - cover[None, :, :], axis=2), axis=1)
    assert np.max(nearest) <= resolution * max(np.sqrt(k - 1), 1)


def test_threshold_estimate_is_unbiased_to_second_order() -> None:
    rng = Sampled(0)
    t = 0.4
    labels = np.where(np.asarray(rng.gaussian(1.0, 2000)) >= t, 1.0, -1.0)
    empirical = norm.ppf((1 - labels.mean()) / 2)
    scale = 2 / (2000 * 0.5)
    estimates = np.array(
        [private_threshold(labels, (Fraction(1, 2), Fraction(1, 10**5)), rng)[0] for _ in range(4000)]
    )
    variance = 2 * scale**2 / 4
    predicted_bias = empirical * variance / (2 * norm.pdf(empirical) ** 2)
    standard_error = estimates.std() / np.sqrt(estimates.size)
    assert abs(estimates.mean() - empirical - predicted_bias) < 4 * standard_error
    assert abs(estimates.std() - np.sqrt(variance) / norm.pdf(empirical)) < 0.1 * estimates.std()


def test_threshold_estimate_recovers_the_threshold_without_noise() -> None:
    rng = Sampled(1)
    labels = np.where(np.asarray(rng.gaussian(1.0, 200_000)) >= -0.7, 1.0, -1.0)
    estimate, event = private_threshold(labels, None, rng)
    assert event is None
    assert abs(estimate - (-0.7)) < 0.02


def test_threshold_argument_is_clipped_to_rho() -> None:
    estimate, _ = private_threshold(np.ones(100), None, Sampled(0))
    assert estimate == pytest.approx(norm.ppf(RHO))


@pytest.mark.parametrize("learner_class", LEARNERS)
def test_declared_zero_one_labels_are_learned_and_returned(learner_class) -> None:
    sample = halfspace_data(600, 3, 0.0, "random", Sampled(2))
    y01 = (sample.y > 0).astype(int)
    learner = learner_class(None, None, labels=(0, 1), random_state=0).fit(sample.X, y01)
    assert learner.classes_.tolist() == [0, 1]
    assert set(np.unique(learner.predict(sample.X))) <= {0, 1}
    assert learner.score(sample.X, y01) > 0.8


@pytest.mark.parametrize("declared", [(-1, 1), (0, 1)])
@pytest.mark.parametrize("learner_class", LEARNERS)
def test_neighbours_differing_in_one_label_have_the_same_output_space(learner_class, declared) -> None:
    """All labels positive vs one label negative: classes_ and every prediction come from the
    declared set only (classes read from the labels would be {−1, 1} vs {0, 1}, the neighbour
    identified with certainty)."""
    negative, positive = declared
    X = np.random.default_rng(5).normal(size=(200, 2))
    y = np.full(200, positive)
    y_prime = y.copy()
    y_prime[0] = negative
    probe = np.random.default_rng(6).normal(size=(50, 2))
    fitted = [
        learner_class(1, 1e-5, labels=declared, random_state=0).fit(X, labels) for labels in (y, y_prime)
    ]
    assert fitted[0].classes_.tolist() == fitted[1].classes_.tolist() == list(declared)
    for learner in fitted:
        assert set(learner.predict(probe).tolist()) <= set(declared)


LEDGER = {"classes_", "n_features_in_", "trace_", "derivation_", "guarantee_"}
RELEASED = {
    PrivateImproperLearner: LEDGER
    | {
        "block_bases_",
        "block_projections_",
        "clip_norms_",
        "noise_sigmas_",
        "thresholds_",
        "block_coefs_",
        "block_degrees_",
        "block_losses_",
        "subspace_",
        "directions_",
        "direction_",
        "block_",
        "degree_",
        "coef_",
        "threshold_",
        "selections_",
    },
    PrivateProperLearner: LEDGER
    | {
        "clip_norm_",
        "thresholds_",
        "polynomial_",
        "logistic_coef_",
        "directions_",
        "coef_",
        "intercept_",
        "selections_",
    },
    PrivateSemiAgnosticLearner: LEDGER
    | {
        "clip_radius_",
        "schedule_",
        "guesses_",
        "thresholds_",
        "iterates_",
        "run_coefs_",
        "run_thresholds_",
        "logistic_coef_",
        "coef_",
        "intercept_",
        "selections_",
    },
}
"""Every fitted attribute, reviewed: public (parameters, n, d, the declared labels), a private
step's noisy output or post-processing of those, or the ledger. Exact statistics of the sample
(the improper learner's validation error rates and L1 objectives) were exposed before."""


@pytest.mark.parametrize("learner_class", LEARNERS)
def test_fitted_attributes_are_public_or_released_by_the_trace(learner_class) -> None:
    sample = halfspace_data(600, 3, 0.1, "random", Sampled(1))
    learner = learner_class(1, 1e-5, random_state=0).fit(sample.X, sample.y)
    assert {name for name in vars(learner) if name.endswith("_")} == RELEASED[learner_class]


@pytest.mark.parametrize("learner_class", LEARNERS)
def test_a_label_outside_the_declared_set_is_refused_without_echoing_the_data(learner_class) -> None:
    X = np.random.default_rng(0).normal(size=(10, 2))
    y = np.tile([1, -1], 5)
    y[3] = 0
    with pytest.raises(ValueError) as refused:
        learner_class(1, 1e-5).fit(X, y)
    assert str(refused.value) == (
        "y contains a label outside the declared labels (-1, 1). Only binary classification is supported, with the "
        "label pair declared up front by the parameter `labels` (never read from y); multiclass and continuous "
        "targets are refused."
    )


@pytest.mark.parametrize(
    "labels, message",
    [
        ((1, 1), "two distinct"),
        ((0, 1, 2), "a pair"),
        ("01", "a pair"),
        ((0, "1"), "two numbers or two strings"),
        ((0, float("nan")), "two numbers or two strings"),
        ((None, 1), "two numbers or two strings"),
    ],
)
def test_bad_declared_label_sets_are_refused_naming_labels(labels, message) -> None:
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match=f"labels must be .*{message}"):
        PrivateProperLearner(1, 1e-5, labels=labels).fit(X, np.tile([1, -1], 5))


def test_string_labels_are_declared_and_returned() -> None:
    sample = halfspace_data(400, 2, 0.0, "random", Sampled(7))
    names = np.where(sample.y > 0, "yes", "no")
    learner = PrivateSemiAgnosticLearner(None, None, labels=("no", "yes"), random_state=0).fit(
        sample.X, names
    )
    assert set(learner.predict(sample.X).tolist()) <= {"no", "yes"}
    assert learner.score(sample.X, names) > 0.8


BAD_INPUTS = [
    ("X", {"X": np.zeros(10)}, "2-d"),
    ("X", {"X": np.full((10, 2), np.nan)}, "non-finite"),
    ("X", {"X": np.ones((10, 1001))}, "at most 1000 dimensions"),
    ("y", {"y": np.full(10, 2)}, r"outside the declared labels \(-1, 1\)"),
    ("y", {"y": np.ones(9)}, "length"),
    ("epsilon", {"epsilon": 0}, "epsilon"),
    ("epsilon", {"epsilon": "abc"}, "epsilon"),
    ("delta", {"delta": 1}, "delta"),
    ("delta", {"delta": None}, "delta"),
]


@pytest.mark.parametrize("learner_class", LEARNERS)
@pytest.mark.parametrize(
    "name, change, message", BAD_INPUTS, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD_INPUTS)]
)
def test_bad_input_is_refused_naming_the_parameter(learner_class, name, change, message) -> None:
    arguments = {
        "X": np.random.default_rng(0).normal(size=(10, 2)),
        "y": np.tile([1, -1], 5),
        "epsilon": 1,
        "delta": 1e-5,
    }
    arguments.update(change)
    learner = learner_class(arguments["epsilon"], arguments["delta"])
    with pytest.raises(ValueError, match=message):
        learner.fit(arguments["X"], arguments["y"])


@pytest.mark.parametrize("learner_class", [PrivateImproperLearner, PrivateProperLearner])
def test_infeasible_degree_is_refused_with_the_feature_count(learner_class) -> None:
    X = np.random.default_rng(0).normal(size=(50, 10))
    with pytest.raises(ValueError, match="8008 features"):
        learner_class(1, 1e-5, degree=6).fit(X, np.where(X[:, 0] > 0, 1, -1))


@pytest.mark.parametrize("learner_class", LEARNERS)
def test_too_few_records_for_the_blocks_are_refused(learner_class) -> None:
    X = np.random.default_rng(0).normal(size=(2, 2))
    with pytest.raises(ValueError, match="increase n"):
        learner_class(1, 1e-5).fit(X, np.array([1, -1]))


def test_predict_checks_the_dimension_seen_in_fit() -> None:
    sample = halfspace_data(300, 3, 0.0, "random", Sampled(3))
    learner = PrivateProperLearner(None, None, random_state=0).fit(sample.X, sample.y)
    with pytest.raises(ValueError, match="expecting 3 features"):
        learner.predict(np.zeros((2, 4)))
