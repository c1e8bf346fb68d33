"""The halfspace coordinate oracles with RecConcave (Lemma 8.7's QCOpt, Lemma 8.13's PrivateIP) at
a forced recursion depth: valid outputs within the error bound on a realizable prefix state, and
events whose composed guarantee meets the oracles' (ε_A, δ_A)."""

import numpy as np
import pytest

from dpledger.accountant.rules import account
from dpledger.learners.halfspaces import GridHalfspaces, IPConcaveOracle, QCOptOracle
from dpledger.learners.halfspaces.oracles import objective_slots
from dpledger.learners.halfspaces.recconcave import interior_point_points
from dpledger.learners.randomness import Sampled
from dpledger.learners.synthetic import random_concept


def _state(m: int, seed: int):
    C = GridHalfspaces(2, 16)
    rng = np.random.default_rng(seed)
    target = random_concept(C, rng)
    X = rng.integers(-16, 17, size=(m, 2))
    return C, X, C.evaluate(target, X), tuple(target[:1])


@pytest.mark.parametrize("make", [QCOptOracle, IPConcaveOracle])
def test_lemmas_8_7_and_8_13_events_meet_epsilon_a_delta_a(make):
    C, _, _, prefix = _state(10, 0)
    oracle = make(depth=1)
    derivation = account(oracle.event(C, prefix, 10))
    assert all(c.verdict.holds for c in derivation.claims())
    assert derivation.guarantee.epsilon_upper <= 4 and 0 < derivation.guarantee.delta_upper <= 1e-9
    assert account(make(depth=0).event(C, prefix, 10)).guarantee.delta_upper == 0


def test_lemma_8_7_qcopt_by_recconcave_loses_at_most_its_error_bound():
    """QCOpt at depth 1 on m = 200 records, coordinate a₁: Q_2^S(y) ≥ m − E (E ≈ 111)."""
    C, X, y, prefix = _state(200, 3)
    oracle = QCOptOracle(depth=1, telemetry=True)
    value = oracle.select(C, prefix, X, y, Sampled(1))
    domain = C.next_values(prefix)
    plan = oracle.plan(domain.size)
    assert value in domain and plan.depth == 1
    assert objective_slots(X, y, prefix)(value) >= 200 - plan.error
    assert (
        "RecConcave" in oracle.description
        and "exponential" in QCOptOracle(optimizer="exponential").description
    )


def test_lemma_8_13_ipconcave_with_the_recconcave_interior_point_takes_its_blocks_from_the_plan():
    C, X, y, prefix = _state(240, 4)
    oracle = IPConcaveOracle(depth=1, telemetry=True)
    domain = C.next_values(prefix)
    t = oracle.block_count(domain.size, 240)
    assert t == interior_point_points(oracle.plan(domain.size)) <= 240
    value = oracle.select(C, prefix, X, y, Sampled(2))
    assert value in domain and oracle.history_[0].m == 240
    with pytest.raises(ValueError, match="interior_point"):
        IPConcaveOracle(interior_point="median").block_count(domain.size, 240)
