"""How the semi-agnostic and proper learners spend their data and noise — the
semi-agnostic block schedule (fewer, larger blocks when the gradient steps' noise would be large),
its selection among every iterate, and the proper learner's degree-weighted release."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dpledger.accountant.events import Claim, Composition, ExponentialMechanism, ParallelComposition
from dpledger.learners.agnostic import PrivateProperLearner, PrivateSemiAgnosticLearner
from dpledger.learners.agnostic.data import halfspace_data, labelled_sample
from dpledger.learners.agnostic.hermite import multi_indices
from dpledger.learners.agnostic.private_logistic import STEPS as LOGISTIC_STEPS
from dpledger.learners.agnostic.private_logistic import unit_normal
from dpledger.learners.agnostic.proper import degree_weights
from dpledger.learners.agnostic.semi_agnostic import (
    block_schedule,
    default_clip_radius,
    gradient_sensitivity,
    noise_scale,
)
from dpledger.learners.randomness import Sampled

PRIVACY = (Fraction(1), Fraction(1, 100_000))


def _step_noise(
    records: int, dim: int, schedule: tuple[int, int], privacy: tuple[Fraction, Fraction]
) -> float:
    """√d·σ of a gradient step at the narrowest ramp of ``schedule`` (first guess 1/4)."""
    guesses, steps = schedule
    block = records // guesses // (steps + 2)
    width = 0.25 * 2.0 ** -(guesses - 1)
    sensitivity = gradient_sensitivity(default_clip_radius(records, dim), width, block)
    return math.sqrt(dim) * noise_scale(sensitivity, privacy, dim)


@pytest.mark.parametrize(
    "records, epsilon, expected",
    [
        (18_000, 1, (1, 4)),
        (18_000, Fraction(1, 2), (1, 2)),
        (18_000, 4, (1, 8)),
        (90_000, 1, (2, 8)),
        (90_000, Fraction(1, 2), (1, 8)),
    ],
)
def test_block_schedule_is_the_first_whose_gradient_noise_is_below_the_bound(
    records, epsilon, expected
) -> None:
    privacy = (Fraction(epsilon), PRIVACY[1])
    radius = default_clip_radius(records, 10)
    schedule = block_schedule(
        records, 10, guesses=2, steps=8, radius=radius, first_guess=0.25, privacy=privacy, max_step_noise=0.2
    )
    order = [(2, 8), (1, 8), (1, 4), (1, 2), (1, 1)]
    assert schedule == expected
    assert _step_noise(records, 10, schedule, privacy) <= 0.2
    assert all(_step_noise(records, 10, earlier, privacy) > 0.2 for earlier in order[: order.index(schedule)])


def test_block_schedule_is_the_seeds_fixed_one_without_privacy_or_bound() -> None:
    radius = default_clip_radius(18_000, 10)
    for privacy, bound in [(None, 0.2), (PRIVACY, None)]:
        assert block_schedule(
            18_000,
            10,
            guesses=2,
            steps=8,
            radius=radius,
            first_guess=0.25,
            privacy=privacy,
            max_step_noise=bound,
        ) == (2, 8)


def test_block_schedule_falls_back_to_one_step_when_every_schedule_is_too_noisy() -> None:
    radius = default_clip_radius(500, 10)
    assert block_schedule(
        500, 10, guesses=2, steps=8, radius=radius, first_guess=0.25, privacy=PRIVACY, max_step_noise=1e-6
    ) == (1, 1)


def test_schedule_depends_on_the_sample_size_not_on_the_records() -> None:
    first = halfspace_data(5000, 4, 0.1, "random", Sampled(1))
    second = halfspace_data(5000, 4, 0.1, "adversarial", Sampled(2))
    schedules = {
        PrivateSemiAgnosticLearner(1, 1e-5, random_state=0).fit(s.X, s.y).schedule_ for s in (first, second)
    }
    assert len(schedules) == 1


def test_semi_agnostic_trace_follows_the_schedule_and_the_selection_covers_every_iterate() -> None:
    sample = halfspace_data(20_000, 10, 0.1, "random", Sampled(3))
    learner = PrivateSemiAgnosticLearner(1, 1e-5, random_state=0).fit(sample.X, sample.y)
    guesses, steps = learner.schedule_
    assert (guesses, steps) == (
        1,
        2,
    ) and learner.claim_holds()  # 9,000 records: half go to the logistic candidate
    assert isinstance(learner.trace_, Claim) and isinstance(
        learner.trace_.child, (Composition, ParallelComposition)
    )
    *runs, logistic, selection = learner.trace_.child.children
    assert isinstance(logistic, Composition) and logistic.repeat == LOGISTIC_STEPS
    assert len(runs) == guesses
    assert all(
        isinstance(run, (Composition, ParallelComposition)) and len(run.children) == steps + 2 for run in runs
    )
    assert isinstance(selection, ExponentialMechanism)
    assert (
        selection.candidates
        == (guesses * (steps + 1) + 1) * learner.n_thresholds
        == learner.selections_[-1].count
    )
    candidates = [*learner.iterates_.reshape(-1, 10), unit_normal(learner.logistic_coef_)]
    assert any(np.array_equal(learner.coef_, w) for w in candidates)


def test_semi_agnostic_at_n_20000_epsilon_1_is_within_0_02_of_opt_under_random_flips() -> None:
    """Algorithm 4 alone (the logistic candidate off): measured 0.034 (median of the benchmark's 5
    seeds) with the fixed schedule (2, 8) — blocks of 900 records —, 0.010 with the schedule (1, 4)."""
    rng = Sampled(1002)
    train = halfspace_data(20_000, 10, 0.1, "random", rng)
    test = labelled_sample(20_000, train.w, train.t, 0.1, "random", rng)
    opt = np.mean(test.target_predictions(test.X) != test.y)
    error = {
        bound: 1
        - PrivateSemiAgnosticLearner(1, 1e-5, max_step_noise=bound, logistic_fraction=None, random_state=2)
        .fit(train.X, train.y)
        .score(test.X, test.y)
        for bound in (0.2, None)
    }
    assert error[0.2] <= opt + 0.02 < error[None]


def test_degree_weights_decay_geometrically_from_degree_1() -> None:
    indices = multi_indices(3, 3)
    weights = degree_weights(indices, 0.5)
    assert np.array_equal(weights, 0.5 ** np.maximum(indices.sum(axis=1) - 1, 0))
    assert np.all(weights[indices.sum(axis=1) <= 1] == 1.0)


def test_degree_weighting_is_undone_exactly_without_privacy_and_clipping() -> None:
    sample = halfspace_data(3000, 4, 0.1, "random", Sampled(4))
    polynomials = [
        PrivateProperLearner(None, None, degree_decay=decay, clip_norm=1e9, random_state=0)
        .fit(sample.X, sample.y)
        .polynomial_
        for decay in (1.0, 0.25)
    ]
    assert np.allclose(polynomials[0], polynomials[1], rtol=1e-12, atol=1e-12)


def test_degree_decay_lowers_the_noise_on_the_degree_1_coefficients() -> None:
    """λ = 1/4 at d = 10: B = 2√(11 + 55/16) instead of 2√66, so the degree-1 coefficients carry
    0.47 times the noise (the RMS over 5 seeds of released − noiseless, same blocks)."""
    sample = halfspace_data(5000, 10, 0.1, "random", Sampled(5))
    degree_one = multi_indices(10, 2).sum(axis=1) == 1
    rms = {}
    for decay in (1.0, 0.25):
        noise = []
        for seed in range(5):
            private = PrivateProperLearner(1, 1e-5, degree_decay=decay, random_state=seed).fit(
                sample.X, sample.y
            )
            exact = PrivateProperLearner(None, None, degree_decay=decay, random_state=seed).fit(
                sample.X, sample.y
            )
            assert (
                private.clip_norm_ == pytest.approx(2 * math.sqrt(11 + 55 * decay**2))
                and private.claim_holds()
            )
            noise.append((private.polynomial_ - exact.polynomial_)[degree_one])
        rms[decay] = float(np.sqrt(np.mean(np.square(noise))))
    assert 0.35 < rms[0.25] / rms[1.0] < 0.6


@pytest.mark.parametrize("decay", [0, -0.5, 1.5, "0.5"])
def test_bad_degree_decay_is_refused(decay) -> None:
    sample = halfspace_data(400, 2, 0.1, "random", Sampled(6))
    with pytest.raises(ValueError, match="degree_decay"):
        PrivateProperLearner(1, 1e-5, degree_decay=decay).fit(sample.X, sample.y)


@pytest.mark.parametrize("bound", [0, -1.0, "0.2"])
def test_bad_max_step_noise_is_refused(bound) -> None:
    sample = halfspace_data(400, 2, 0.1, "random", Sampled(6))
    with pytest.raises(ValueError, match="max_step_noise"):
        PrivateSemiAgnosticLearner(1, 1e-5, max_step_noise=bound).fit(sample.X, sample.y)
