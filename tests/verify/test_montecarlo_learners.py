"""The project's learners audited by the Monte Carlo auditor through the learner adapter:
canary substitution pairs (the seeds' adjacency), claims at the derived guarantees."""
from dataclasses import dataclass

import numpy as np
import pytest

from dpledger.learners.carry_forward import CarryForwardLearner
from dpledger.learners.concept_classes import Intervals, Thresholds
from dpledger.learners.labelboost import labelboost_carrier
from dpledger.learners.randomness import Sampled
from dpledger.verify.audit.montecarlo import InProcessExecutor, audit, audit_learner, per_sample
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair


@dataclass(frozen=True)
class CarryForwardFactory:
    m: int

    def __call__(self, seed: int) -> CarryForwardLearner:
        return CarryForwardLearner(Intervals(16), m=self.m, random_state=seed)


def hypothesis_of(estimator: CarryForwardLearner) -> tuple:
    return tuple(int(v) for v in estimator.hypothesis_)


@pytest.mark.slow
def test_carry_forward_learner_measured_epsilon_below_its_certified_guarantee():
    """Measured (Monte Carlo lower bound) ≤ derived (accountant's certified upper bound)."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 16, size=60)
    y = ((X >= 4) & (X < 9)).astype(int)
    derived = CarryForwardLearner(Intervals(16), m=6, random_state=0).fit(X, y).guarantee_.epsilon_upper
    result = audit_learner(CarryForwardFactory(6), hypothesis_of, X, y, np.array([15]), 1, 2.0,
                           samples=3000, executor=InProcessExecutor(), seed=1)
    assert result.samples <= 3000 and result.epsilon_lower <= derived


def carrier_release(data: tuple, rng: np.random.Generator) -> tuple:
    """LabelBoost's carrier-only release M_T(S) (Lemma 3.17) for a fixed carrier T."""
    X, y = data
    return labelboost_carrier(Thresholds(6), X, y, np.array([1, 3, 5]), Sampled(rng)).output


@pytest.mark.slow
def test_lemma_3_17_carrier_release_not_flagged_at_ln_4e():
    S = (np.array([0, 2, 4]), np.array([0, 1, 1]))
    S_prime = (np.array([0, 2, 4]), np.array([0, 1, 0]))
    result = audit(per_sample(carrier_release), [NeighbourPair(S, S_prime, "last label flipped")],
                   float(np.log(4 * np.e)), samples=20000, executor=InProcessExecutor(), seed=2)
    assert not result.violation and result.epsilon_lower <= np.log(4 * np.e)
