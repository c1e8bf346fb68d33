"""Exact audit of the Proposition 8.16 oracle on tiny instances (enumerated randomness): its
worst pure ε over all neighbouring labeled samples is within Corollary 8.17's ε_B + 3
(δ_B = 0: B_i is pure). All samples are audited, not only realizable ones — Appendix B's
argument covers arbitrary inputs."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
import sympy

from dpledger.learners.boolean.composition import BooleanComposition
from dpledger.learners.boolean.formula import parse_formula
from dpledger.learners.boolean.local_learners import empirical_learner, exponential_learner
from dpledger.learners.boolean.oracle import RelabelOracle
from dpledger.learners.concept_classes import Intervals, Thresholds
from dpledger.verify.audit.exact import worst_case

RECORDS = [(x, label) for x in range(3) for label in (0, 1)]


def neighbours(dataset):
    for slot, record in itertools.product(range(len(dataset)), RECORDS):
        if record != dataset[slot]:
            yield tuple(sorted((*dataset[:slot], record, *dataset[slot + 1 :])))


def audit(components, prefix, epsilon_b, size=3):
    C = BooleanComposition(parse_formula("x1 and not x2"), components)
    oracle = RelabelOracle(epsilon_b=epsilon_b)

    def mechanism(dataset, rng):
        X = np.array([x for x, _ in dataset])
        y = np.array([label for _, label in dataset])
        return tuple(oracle.select(C, prefix, X, y, rng))

    datasets = list(itertools.combinations_with_replacement(RECORDS, size))
    return worst_case(
        mechanism, datasets, neighbours, sympy.Rational(epsilon_b) + 3, leaves_per_run=5000, workers=1
    )


@pytest.mark.parametrize(
    "components, prefix",
    [
        ([Thresholds(3), Thresholds(3)], ()),
        pytest.param([Thresholds(3), Thresholds(3)], ((1,),), marks=pytest.mark.slow),
        pytest.param([Intervals(3), Thresholds(3)], (), marks=pytest.mark.slow),
    ],
)
def test_oracle_exact_epsilon_within_epsilon_b_plus_3_corollary_8_17(components, prefix):
    result = audit(components, prefix, 1)
    assert result.holds is True and result.epsilon[1] <= 4
    assert result.epsilon[0] > 0.1  # the oracle does depend on its sample


@pytest.mark.slow
def test_oracle_exact_epsilon_within_bound_for_smaller_epsilon_b():
    result = audit([Thresholds(3), Thresholds(3)], (), Fraction(1, 4))
    assert result.holds is True and result.epsilon[1] <= 3.25


def test_relabel_then_full_sample_learner_within_epsilon_b_plus_3_lemma_25():
    """ARelabel followed by B_i on the whole relabeled sample (no with-replacement subsample, so
    nothing dilutes the relabeling step): still within ε_B + 3 (Alon et al. Lemma 25, Appendix B)."""
    C = BooleanComposition(parse_formula("x1 and not x2"), [Thresholds(3), Thresholds(3)])
    oracle = RelabelOracle(epsilon_b=1)

    def mechanism(dataset, rng):
        X = np.array([x for x, _ in dataset])
        y = np.array([label for _, label in dataset])
        chosen = oracle.relabel(C, (), X, y, rng)
        return tuple(exponential_learner(C.components[0], X, C.components[0].evaluate(chosen, X), 1, rng))

    datasets = list(itertools.combinations_with_replacement(RECORDS, 3))
    result = worst_case(mechanism, datasets, neighbours, sympy.Integer(4), leaves_per_run=5000, workers=1)
    assert result.holds is True and 0.5 < result.epsilon[0] and result.epsilon[1] <= 4


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_empirical_learner_keeps_epsilon_b_with_two_draws_from_18_records_lemma_8_15(seed):
    """B̂ of Lemma 8.15 with m_B = 2 draws (with replacement) from |S| = 18 = 9m_B records, then B
    (ε_B = 1) over Thresholds(3): exactly ε_B-DP or better, for one substituted record."""
    generator = np.random.default_rng(seed)
    base = tuple((int(x), int(x >= 1)) for x in generator.integers(0, 3, size=17))
    datasets = [tuple(sorted((*base, record))) for record in RECORDS]
    H = Thresholds(3)

    def mechanism(dataset, rng):
        X = np.array([x for x, _ in dataset])
        y = np.array([label for _, label in dataset])
        return tuple(empirical_learner(H, X, y, 1, 2, rng))

    result = worst_case(
        mechanism,
        datasets,
        lambda d: (o for o in datasets if o != d),
        sympy.Integer(1),
        leaves_per_run=20000,
        workers=1,
    )
    assert result.holds is True and 0 < result.epsilon[0] and result.epsilon[1] <= 1


def test_lemma_8_15_empirical_learner_exact_epsilon_within_the_derived_bound():
    """B̂ of Lemma 8.15 (one draw with replacement from 9 records, then the ε_B-DP exponential
    learner) audited exactly over all neighbouring samples: its worst ε is within the accountant's
    with-replacement rule, which is itself below the ε_B Lemma 8.15 claims."""
    from dpledger.accountant import account
    from dpledger.accountant.events import ExponentialMechanism, SubsampleWithReplacement

    H = Thresholds(2)
    records = [(x, label) for x in range(2) for label in (0, 1)]

    def mechanism(dataset, rng):
        X = np.array([x for x, _ in dataset])
        y = np.array([label for _, label in dataset])
        return tuple(empirical_learner(H, X, y, 1, 1, rng))

    def swap(dataset):
        for slot, record in itertools.product(range(len(dataset)), records):
            if record != dataset[slot]:
                yield tuple(sorted((*dataset[:slot], record, *dataset[slot + 1 :])))

    derived = account(SubsampleWithReplacement(ExponentialMechanism(1, 3), 1, 9)).guarantee
    datasets = list(itertools.combinations_with_replacement(records, 9))
    result = worst_case(mechanism, datasets, swap, derived.epsilon, leaves_per_run=100, workers=1)
    assert result.holds is True and derived.epsilon_upper < 1
    assert result.epsilon[0] > 0.05  # B̂ does depend on its sample
