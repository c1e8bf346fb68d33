"""The project's learners audited by the Monte Carlo auditor through the learner adapter:
canary substitution pairs (the seeds' adjacency), claims at the derived guarantees.

Each audit here can fail: the learner's derived ε lies below what the audit's
sample size can certify, and a broken variant audited the same way is flagged."""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from dpledger.learners.agnostic import PrivateProperLearner
from dpledger.learners.carry_forward import CarryForwardLearner
from dpledger.learners.concept_classes import Thresholds
from dpledger.learners.labelboost import labelboost_carrier
from dpledger.learners.randomness import Sampled
from dpledger.verify.audit.montecarlo import InProcessExecutor, audit, audit_learner, per_sample
from dpledger.verify.audit.montecarlo.learner_adapter import PredictionsAt
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair
from dpledger.verify.audit.montecarlo.statistics import best_possible_epsilon

SAMPLES = 1000
CONFIDENCE = 0.95


def certifiable_epsilon(delta: float) -> float:
    """A conservative floor of the largest ε lower bound an audit of SAMPLES runs can certify:
    all hits against none on a quarter of the runs, at a 1000-fold Bonferroni correction."""
    return best_possible_epsilon(SAMPLES // 4, SAMPLES // 4, delta, (1 - CONFIDENCE) / 1000)


@dataclass(frozen=True)
class CarryForwardFactory:
    m: int

    def __call__(self, seed: int) -> CarryForwardLearner:
        return CarryForwardLearner(Thresholds(16), m=self.m, random_state=seed)


def hypothesis_of(estimator: CarryForwardLearner) -> tuple:
    return tuple(int(v) for v in estimator.hypothesis_)


@pytest.mark.slow
def test_carry_forward_learner_measured_epsilon_below_its_certified_guarantee():
    """Measured (Monte Carlo lower bound) ≤ derived (accountant's certified upper bound), at a
    derived ε (≈ 0.47: m = 1 of a reservoir of 1000) the audit could exceed (≈ 3.2)."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 16, size=3000)
    y = (X >= 9).astype(int)
    guarantee = CarryForwardFactory(1)(0).fit(X, y).guarantee_
    assert guarantee is not None
    derived = guarantee.epsilon_upper
    assert derived < certifiable_epsilon(guarantee.delta_upper)
    result = audit_learner(
        CarryForwardFactory(1),
        hypothesis_of,
        X,
        y,
        np.array([15]),
        0,
        derived,
        claimed_delta=guarantee.delta_upper,
        samples=SAMPLES,
        confidence=CONFIDENCE,
        executor=InProcessExecutor(),
        seed=1,
    )
    assert not result.violation and result.epsilon_lower <= derived


class LabelsFromDataProperLearner(PrivateProperLearner):
    """Negative control: a label-encoding bug put in — the classes read from
    the labels seen in fit ({−1, 1} when every label is 1, {0, 1} otherwise)."""

    def fit(self, X: Any, y: Any, **fit_params: Any) -> "LabelsFromDataProperLearner":
        super().fit(X, y, **fit_params)
        self.classes_ = np.array((-1, 1) if np.all(np.asarray(y) == 1) else (0, 1))
        return self


@dataclass(frozen=True)
class ProperFactory:
    learner_class: type

    def __call__(self, seed: int) -> PrivateProperLearner:
        return self.learner_class(
            1,
            1e-5,
            degree=1,
            cover_resolution=0.5,
            n_thresholds=3,
            threshold_range=0.5,
            labels=(0, 1),
            random_state=seed,
        )


X_PROPER = np.random.default_rng(3).normal(size=(40, 2))
PROBE = 0.5 * np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
"""Probe points where the fitted halfspaces disagree from run to run (outputs depend on the rng)."""


@pytest.mark.slow
@pytest.mark.parametrize(
    "learner_class, flagged", [(PrivateProperLearner, False), (LabelsFromDataProperLearner, True)]
)
def test_proper_learner_passes_its_audit_and_its_label_leaking_variant_is_flagged(learner_class, flagged):
    """All labels 1 against one label 0, the claim at the derived guarantee (ε = 1): the learner
    is not flagged, the variant that reads its label set from the data is (ε = ∞)."""
    y = np.ones(len(X_PROPER), dtype=int)
    guarantee = ProperFactory(PrivateProperLearner)(0).fit(X_PROPER, y).guarantee_
    assert guarantee is not None
    derived, delta = guarantee.epsilon_upper, guarantee.delta_upper
    assert derived < certifiable_epsilon(delta)
    result = audit_learner(
        ProperFactory(learner_class),
        PredictionsAt(PROBE),
        X_PROPER,
        y,
        np.zeros(2),
        0,
        derived,
        claimed_delta=delta,
        samples=SAMPLES,
        confidence=CONFIDENCE,
        executor=InProcessExecutor(),
        seed=2,
    )
    assert result.violation is flagged
    assert (result.epsilon_lower > derived) is flagged


def carrier_release(data: tuple, rng: np.random.Generator) -> tuple:
    """LabelBoost's carrier-only release M_T(S) (Lemma 3.17) for a fixed carrier T."""
    X, y = data
    carrier = labelboost_carrier(Thresholds(6), X, y, np.array([1, 3, 5]), Sampled(rng)).output
    assert isinstance(carrier, tuple)  # the relabeled carrier, one label a point
    return carrier


@pytest.mark.slow
def test_lemma_3_17_carrier_release_not_flagged_at_ln_4e():
    S = (np.array([0, 2, 4]), np.array([0, 1, 1]))
    S_prime = (np.array([0, 2, 4]), np.array([0, 1, 0]))
    result = audit(
        per_sample(carrier_release),
        [NeighbourPair(S, S_prime, "last label flipped")],
        float(np.log(4 * math.e)),
        samples=20000,
        executor=InProcessExecutor(),
        seed=2,
    )
    assert not result.violation and result.epsilon_lower <= np.log(4 * math.e)


# Learners audited on datasets chosen to be hard.

from unittest import mock  # noqa: E402

import dpledger.learners.agnostic.proper as proper_module  # noqa: E402
from dpledger.learners.noise import gaussian_noise  # noqa: E402
from dpledger.verify.audit.montecarlo import local_processes  # noqa: E402
from dpledger.verify.audit.montecarlo.learner_adapter import (  # noqa: E402
    DecisionsAt,
    FittedState,
    audit_learner_hard,
    probe_points,
    smallest_size,
)
from dpledger.verify.audit.montecarlo.pairs import hard_learner_pairs  # noqa: E402
from dpledger.verify.service.audit import LEARNER_SAMPLES, RELEASED  # noqa: E402


def tenfold_quieter_gaussian_noise(value, sigma, sensitivity, delta, rng):
    """The planted bug: the release drawn at σ/10, the event recorded for σ (the accountant still
    certifies the claim, so only an audit of the output can see it)."""
    release, _ = gaussian_noise(value, sigma / 10, sensitivity, delta, rng)
    return release, gaussian_noise(value, sigma, sensitivity, delta, Sampled(0))[1]


class QuietProperLearner(PrivateProperLearner):
    """The proper learner (Theorem 3.1) with its correlation noise 10× too small, claim unchanged."""

    def _fit(self, X, labels, privacy):
        with mock.patch.object(proper_module, "gaussian_noise", tenfold_quieter_gaussian_noise):
            return super()._fit(X, labels, privacy)


@dataclass(frozen=True)
class DefaultFactory:
    """A learner at (ε, δ) = (1, 1e-5) and its defaults otherwise, as ``dpledger audit learner`` builds it."""

    learner_class: type

    def __call__(self, seed: int):
        return self.learner_class(1.0, 1e-5, random_state=seed)


def test_planted_bug_is_invisible_to_the_accountant():
    X, y = hard_learner_pairs(20, 2)[0].a
    quiet = QuietProperLearner(1.0, 1e-5, random_state=0).fit(X, y)
    assert quiet.guarantee_ is not None and quiet.guarantee_.epsilon_upper <= 1.0
    assert quiet.claim_holds()


def test_hard_pairs_are_identical_records_and_one_changed_record():
    pairs = hard_learner_pairs(5, 3, labels=(0, 1), extreme=4.0)
    assert [p.label.split(", ")[-1] for p in pairs] == [
        "one label changed",
        "canary at the opposite extreme",
        "canary at a perpendicular extreme",
    ]
    for pair in pairs:
        (X, y), (X_other, y_other) = pair.a, pair.b
        assert np.all(X == [4.0, 0.0, 0.0]) and np.all(y == 1)
        changed = np.any(X != X_other, axis=1) | (y != y_other)
        assert changed.tolist() == [True, False, False, False, False] and np.linalg.norm(X_other[0]) == 4.0


@pytest.mark.parametrize(
    "records, dimension, extreme, labels", [(0, 2, 1.0, (0, 1)), (3, 2, -1.0, (0, 1)), (3, 2, 1.0, (1, 1))]
)
def test_hard_pairs_refuse_empty_data_a_negative_extreme_and_equal_labels(
    records, dimension, extreme, labels
):
    with pytest.raises(ValueError):
        hard_learner_pairs(records, dimension, extreme=extreme, labels=labels)


def test_smallest_size_is_the_fewest_records_the_learner_accepts():
    factory = DefaultFactory(PrivateProperLearner)
    n = smallest_size(factory, 2)
    factory(0).fit(np.ones((n, 2)), np.ones(n))
    with pytest.raises(ValueError):
        factory(0).fit(np.ones((n - 1, 2)), np.ones(n - 1))


def test_fitted_state_and_decisions_are_the_released_numbers():
    X, y = hard_learner_pairs(20, 2)[0].a
    learner = PrivateProperLearner(1.0, 1e-5, random_state=0).fit(X, y)
    state = FittedState(RELEASED["proper"])(learner)
    assert state.size == learner.polynomial_.size + 3 and state[-1] == learner.intercept_
    decisions = DecisionsAt(probe_points(2))(learner)
    assert np.allclose(decisions, [learner.intercept_, *(learner.coef_ + learner.intercept_)])


def test_fitted_state_of_the_improper_learner_flattens_its_blocks_of_different_lengths():
    """The improper learner keeps one coefficient vector per degree block (different lengths) and,
    when its subspace step runs, the selected direction: all of it is released state, with the
    selected block named by its index (so the state's shape does not depend on the choice)."""
    from dpledger.learners.agnostic import PrivateImproperLearner
    from dpledger.learners.agnostic.data import halfspace_data

    sample = halfspace_data(4000, 3, 0.1, "random", Sampled(0))
    learner = PrivateImproperLearner(1.0, 1e-5, random_state=0).fit(sample.X, sample.y)
    state = FittedState(RELEASED["improper"])(learner)
    blocks = sum(np.size(part) for part in learner.block_coefs_)
    direction = 0 if learner.direction_ is None else np.size(learner.direction_)
    assert len({np.size(part) for part in learner.block_coefs_}) > 1
    assert state.size == blocks + direction + 1 + np.size(learner.threshold_)


@pytest.mark.slow
@pytest.mark.parametrize(
    "learner_class, flagged", [(QuietProperLearner, True), (PrivateProperLearner, False)]
)
def test_default_learner_audit_flags_tenfold_too_little_noise_and_not_the_learner(learner_class, flagged):
    """The default audit (hard pairs, released state, LEARNER_SAMPLES fits per input, 2 processes):
    the planted bug is a VIOLATION, the correct proper learner is not flagged."""
    with local_processes(2) as executor:
        result = audit_learner_hard(
            DefaultFactory(learner_class),
            1.0,
            dimension=2,
            claimed_delta=1e-5,
            featurize=FittedState(RELEASED["proper"]),
            samples=LEARNER_SAMPLES,
            executor=executor,
            seed=0,
        )
    assert result.violation is flagged
    assert (result.epsilon_lower > 1.0) is flagged
