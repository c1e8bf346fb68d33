"""The local learners B_i, the empirical learner of Lemma 8.15 and the component oracle of
Proposition 8.16 (seed 000, Section 8.4): exact sampling, the recorded guarantee
(Corollary 8.17), the oracle's utility (Corollary 8.17, Appendix B) and the learner's derived
guarantee (Theorem 8.19 via Theorem 5.1)."""

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.accountant.events import ExponentialMechanism, SubsampleWithReplacement
from dpledger.accountant.rules import account
from dpledger.learners.boolean.composition import (
    BooleanComposition,
    HypothesisSpace,
    component_class,
    composition_vc_bound,
)
from dpledger.learners.boolean.formula import parse_formula
from dpledger.learners.boolean.local_learners import empirical_draws, empirical_learner, exponential_learner
from dpledger.learners.boolean.oracle import RelabelOracle
from dpledger.learners.calibration.boolean import exponential_learner_m, theorem_8_19
from dpledger.learners.carry_forward import CarryForwardLearner
from dpledger.learners.concept_classes import Intervals, Rectangles, Thresholds
from dpledger.learners.randomness import Sampled, enumerate_outputs


@pytest.mark.parametrize("H", [Thresholds(5), Intervals(5), Rectangles(2)])
def test_exponential_learner_samples_exactly_the_exponential_mechanism_over_all_of_h(H):
    X = np.array([1, 3, 3]) if H.dimension == 1 else np.array([[0, 1], [1, 1], [1, 0]])
    y = np.array([1, 0, 1])
    epsilon = Fraction(1, 2)
    exact = enumerate_outputs(lambda rng: tuple(exponential_learner(H, X, y, epsilon, rng)))
    weights = {
        h: math.exp(float(epsilon) * int(np.sum(H.evaluate(h, X) == y)) / 2) for h in HypothesisSpace(H)
    }
    total = sum(weights.values())
    assert set(exact) == set(weights)
    for h, p in exact.items():
        assert float(p.a) - 1e-12 <= weights[h] / total <= float(p.b) + 1e-12


def test_empirical_learner_draws_m_b_with_replacement_when_the_sample_has_9_m_b():
    assert empirical_draws(90, 10) == 10 and empirical_draws(89, 10) == 9 and empirical_draws(5, 10) == 1
    with pytest.raises(ValueError, match="m_b"):
        empirical_draws(90, 0)
    distribution = enumerate_outputs(
        lambda rng: empirical_learner(Thresholds(2), np.array([0, 1]), np.array([0, 1]), 1, 4, rng)
    )
    assert set(distribution) == {(0,), (1,), (2,)}  # one draw (|S| < 9), then B over all of H


def test_exponential_learner_m_follows_its_formula_and_grows_with_accuracy():
    m = exponential_learner_m(65537, Fraction(1, 10), Fraction(1, 10))
    assert m == math.ceil(8 * math.log(2 * 65537 / 0.1) / 0.1)
    assert exponential_learner_m(65537, Fraction(1, 20), Fraction(1, 10)) > m
    assert exponential_learner_m(65537, Fraction(1, 10), Fraction(1, 10), Fraction(1, 4)) == math.ceil(
        16 * math.log(2 * 65537 / 0.1) / 0.1
    )
    with pytest.raises(ValueError, match="alpha"):
        exponential_learner_m(10, 0, Fraction(1, 2))


def composition(text="x1 and (x2 or not x3)", names=("thresholds", "intervals", "thresholds"), size=16):
    return BooleanComposition(parse_formula(text), [component_class(n, size) for n in names])


def test_oracle_event_within_epsilon_b_plus_3_on_realizable_prefix_states_corollary_8_17():
    """The declared event: ARelabel (LabelBoostThen, +3) over B̂, whose ε the accountant derives
    from the with-replacement draws (Lemma 8.15) — below ε_B once at most a ninth is drawn."""
    C = composition()
    for epsilon_b in (1, Fraction(1, 2)):
        oracle = RelabelOracle(epsilon_b=epsilon_b)
        m_b = oracle.m_b(C, 0)
        derivation = account(oracle.event(C, (), 9 * m_b))
        g = derivation.guarantee
        assert g.domain == "realizable" and g.delta == 0
        b_hat = account(
            SubsampleWithReplacement(ExponentialMechanism(epsilon_b, len(C.spaces[0])), m_b, 9 * m_b)
        )
        assert sympy.simplify(g.epsilon - (b_hat.guarantee.epsilon + 3)) == 0
        assert 3 < g.epsilon_upper < float(epsilon_b) + 3
        assert {c.statement for c in derivation.claims()} == {"Corollary 8.17", "Lemma 8.15"}
        assert all(c.verdict.holds for c in derivation.claims())
    small = account(RelabelOracle(epsilon_b=1).event(C, (), 2)).guarantee  # |S| < 9: one draw from 2
    assert small.epsilon_upper > account(RelabelOracle(epsilon_b=1).event(C, (), 9)).guarantee.epsilon_upper
    with pytest.raises(ValueError, match="epsilon_b"):
        RelabelOracle(epsilon_b=2).event(C, (), 9)
    with pytest.raises(ValueError, match="sample_size"):
        RelabelOracle(epsilon_b=1).event(C, (), 0)


def test_oracle_is_total_and_valid_on_non_realizable_samples_assumption_4_4():
    C = composition()
    rng = Sampled(3)
    X, y = np.array([0, 0, 5, 9]), np.array([0, 1, 1, 0])  # contradictory labels at x = 0
    oracle = RelabelOracle()
    prefix: tuple[Any, ...] = ()
    for _ in range(C.k):
        prefix += (oracle.select(C, prefix, X, y, rng),)
        assert C.prefix_valid(prefix)


def test_learner_derived_guarantee_meets_its_target_with_paper_m():
    """CarryForwardLearner with the Proposition 8.16 oracles at the n for which Algorithm 2 gives
    m = 3: the accountant's derived guarantee meets (ε, δ) (Theorem 8.19's privacy half)."""
    from dpledger.accountant.section6 import Target, needed_n

    C = composition("x1 or x2", ("thresholds", "thresholds"), size=64)
    n = needed_n(Target.of(3, C.k, 1, "1e-6"), 3)
    generator = np.random.default_rng(0)
    X = generator.integers(0, 64, size=n)
    learner = CarryForwardLearner(
        C, oracle=RelabelOracle(), epsilon=1, delta="1e-6", calibration="paper", random_state=0
    )
    learner.fit(X, C.evaluate(((40,), (5,)), X))
    assert learner.m_ == 3 and learner.holds_ is True
    assert learner.guarantee_ is not None and learner.guarantee_.meets(1, "1e-6").holds
    assert learner.guarantee_.epsilon_upper <= 1
    assert C.contains(learner.hypothesis_)


@settings(max_examples=8)
@given(
    st.sampled_from(["1", "0.5", "0.25"]),
    st.sampled_from(["1e-6", "1e-9"]),
    st.integers(1, 4),
    st.integers(1, 3),
)
def test_learner_event_with_relabel_oracles_meets_target_at_paper_m_theorem_8_19(epsilon, delta, k, m):
    """For every (ε, δ, k) and the n at which Algorithm 2 gives m, the Section 6 tree built from the
    Proposition 8.16 oracle events (as CarryForwardLearner.fit builds it) meets (ε, δ)."""
    from dpledger.accountant.section6 import Target, learner_event, needed_n, paper_m

    C = composition(" and ".join(f"x{j}" for j in range(1, k + 1)), ("thresholds",) * k, size=8)
    n = needed_n(Target.of(3, k, epsilon, delta), m)
    target = Target.of(n, k, epsilon, delta)
    assert paper_m(target) == m
    oracle = RelabelOracle()
    prefix: tuple[Any, ...] = ()
    events = []
    for i in range(k):
        events.append(oracle.event(C, prefix, m))
        prefix += (C.spaces[i][0],)
    assert account(learner_event(target, m, events)).guarantee.meets(target.epsilon, target.delta).holds


@pytest.mark.slow
def test_theorem_8_19_n_is_one_multiple_of_sqrt_k_over_epsilon_times_the_larger_requirement():
    """Theorem 8.19's rate Õ(√k/ε · max{(k/α)·max(VC(C), max d_i), max_i m_i(α/(80k), β/(8k), 1, δ/(64e²k))}):
    over k thresholds on [0, N), the paper n over √k/ε times that max is one constant whatever k,
    α, ε and N (the Õ's factors at δ = 10⁻⁶: Lemma 8.15's 9 and Algorithm 2's constant) — here the
    components' m_i is the larger term, the relabelled sample being 9·m_i."""
    ratios = []
    for k, alpha, epsilon, size in [
        (2, "0.1", "0.5", 128),
        (2, "0.01", "0.5", 128),
        (2, "0.1", "0.05", 128),
        (4, "0.1", "0.5", 128),
        (2, "0.1", "0.5", 2**16),
    ]:
        vc = composition_vc_bound([1] * k)
        result = theorem_8_19([("thresholds", 1, size + 1)] * k, vc, alpha, "0.1", epsilon, "1e-6")
        m_i = max(row.m_b for row in result.components)
        stated = math.sqrt(k) / float(epsilon) * max(k * vc / float(alpha), m_i)
        assert result.sample.m == 9 * m_i
        ratios.append(result.sample.n_paper / stated)
    assert max(ratios) / min(ratios) < 1 + 1e-9
