"""Exact audits used as privacy checks, held to an independent exact reference: the worst ε the
auditor measures on the code's own enumeration equals the worst ε of the mechanism *as the paper
defines it*, computed here from first principles (brute-force traces, the exponential mechanism's
pmf at the paper's ε, exact log-ratios). Far below its bound (1.2 against ln 4e for Lemma 3.17,
0.17 against ε_B + 3 for Corollary 8.17), the measured ε would still pass a bound check with a
mechanism at twice its ε; against the reference, any change of the mechanism's ε fails."""

import itertools
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest
import sympy

from dpledger.accountant.rules import C_LB
from dpledger.learners.boolean.composition import BooleanComposition
from dpledger.learners.boolean.formula import parse_formula
from dpledger.learners.boolean.oracle import RelabelOracle
from dpledger.learners.concept_classes import Thresholds
from dpledger.verify.audit.exact import worst_case
from dpledger.verify.paper.labelboost_audit import LabelBoostAudit, audit_labelboost

AGREE = 1e-9
"""How close the auditor's certified interval and the reference must be (both are exact up to
their interval widths, ~1e-15)."""


def exponential_pmf(scores, epsilon):
    """p_i ∝ exp(ε·s_i/2) (sensitivity 1), in 50-digit arithmetic."""
    with mpmath.workdps(50):
        weights = [mpmath.exp(mpmath.mpf(epsilon.numerator) / epsilon.denominator * s / 2) for s in scores]
        total = mpmath.fsum(weights)
        return [w / total for w in weights]


def pure_epsilon(first, second):
    """max over outputs of |ln P(o) − ln Q(o)| for two dicts output → probability (∞ on differing supports)."""
    if set(first) != set(second):
        return mpmath.inf
    with mpmath.workdps(50):
        return max(abs(mpmath.log(first[o]) - mpmath.log(second[o])) for o in first)


def add(distribution, output, mass):
    distribution[output] = distribution.get(output, 0) + mass


def threshold_labelings(points, domain_size):
    """Π_C(P) for Thresholds(D) (t ∈ [0, D], label 1 iff x ≥ t), by brute force: distinct labelings."""
    return sorted({tuple(int(x >= t) for x in points) for t in range(domain_size + 1)})


def reference_carrier(sample, carrier, domain_size, epsilon=Fraction(1)):
    """Algorithm 1 with D = ∅ and the score q(S, g) = #agreements, releasing T^h (Lemma 3.17)."""
    points = sorted({x for x, _ in sample} | set(carrier))
    labelings = threshold_labelings(points, domain_size)
    where = {x: i for i, x in enumerate(points)}
    scores = [sum(g[where[x]] == y for x, y in sample) for g in labelings]
    distribution: dict[tuple, Any] = {}
    for g, p in zip(labelings, exponential_pmf(scores, epsilon), strict=True):
        add(distribution, tuple(g[where[x]] for x in carrier), p)
    return distribution


@pytest.mark.parametrize(("domain", "labeled", "unlabeled"), [(4, 2, 1), (4, 2, 2)])
def test_lemma_3_17_audited_epsilon_equals_the_independent_reference(domain, labeled, unlabeled):
    """Lemma 3.17 on Thresholds(D): the auditor's worst ε over all (S, T) and substitutions in S
    equals the reference's, which is below c_LB = ln 4e."""
    audit = LabelBoostAudit("thresholds", domain, labeled, unlabeled, "carrier")
    measured = audit_labelboost(audit, workers=1)
    records = audit.records
    worst = mpmath.mpf(0)
    for carrier in itertools.combinations_with_replacement(range(domain), unlabeled):
        samples = list(itertools.combinations_with_replacement(records, labeled))
        distributions = {s: reference_carrier(s, carrier, domain) for s in samples}
        for s in samples:
            for j, new in itertools.product(range(labeled), records):
                other = tuple(sorted((*s[:j], new, *s[j + 1 :])))
                worst = max(worst, pure_epsilon(distributions[s], distributions[other]))
    assert measured.epsilon[0] - AGREE <= float(worst) <= measured.epsilon[1] + AGREE
    assert float(worst) < float(C_LB)


RECORDS = [(x, label) for x in range(3) for label in (0, 1)]


def reference_oracle(sample, epsilon_b=Fraction(1), relabel_epsilon=Fraction(1)):
    """A_1 of Proposition 8.16 for G = x1 ∧ ¬x2 over Thresholds(3)², |S| = 3 < 9 (so B̂ draws one
    record): ARelabel — the exponential mechanism (ε = 1) over Π_{H_1}(P) with score
    −q_1(S, h) = −min_{t₂} #{j : h(x_j) ∧ ¬[x_j ≥ t₂] ≠ y_j} (equation (3)) —, then one record of
    U(S)^{h̃} uniformly, then B: the exponential mechanism (ε_B) over all t ∈ [0, 3] with score
    the agreement on that record."""
    xs = [x for x, _ in sample]
    points = sorted(set(xs))
    labelings = threshold_labelings(points, 3)
    where = {x: i for i, x in enumerate(points)}
    scores = [
        -min(sum((g[where[x]] and not x >= t2) != y for x, y in sample) for t2 in range(4)) for g in labelings
    ]
    distribution: dict[tuple, Any] = {}
    for g, p in zip(labelings, exponential_pmf(scores, relabel_epsilon), strict=True):
        for x in xs:
            label = g[where[x]]
            learner = exponential_pmf([int(int(x >= t) == label) for t in range(4)], epsilon_b)
            for t, q in enumerate(learner):
                add(distribution, (t,), p * q / len(xs))
    return distribution


def neighbours(dataset):
    for slot, record in itertools.product(range(len(dataset)), RECORDS):
        if record != dataset[slot]:
            yield tuple(sorted((*dataset[:slot], record, *dataset[slot + 1 :])))


def test_corollary_8_17_audited_oracle_epsilon_equals_the_independent_reference():
    """The relabel-and-learn oracle's worst ε over all 3-record samples on [0, 3) — the auditor's
    enumeration of the code — equals the reference's, which is below ε_B + 3."""
    C = BooleanComposition(parse_formula("x1 and not x2"), [Thresholds(3), Thresholds(3)])
    oracle = RelabelOracle(epsilon_b=1)

    def mechanism(dataset, rng):
        X = np.array([x for x, _ in dataset])
        y = np.array([label for _, label in dataset])
        return tuple(oracle.select(C, (), X, y, rng))

    datasets = list(itertools.combinations_with_replacement(RECORDS, 3))
    measured = worst_case(mechanism, datasets, neighbours, sympy.Integer(4), leaves_per_run=5000, workers=1)
    distributions = {d: reference_oracle(d) for d in datasets}
    worst = max(pure_epsilon(distributions[d], distributions[o]) for d in datasets for o in neighbours(d))
    assert measured.epsilon[0] - AGREE <= float(worst) <= measured.epsilon[1] + AGREE
    assert float(worst) < 4


@pytest.mark.parametrize(
    ("epsilon_b", "relabel_epsilon"), [(Fraction(2), Fraction(1)), (Fraction(1), Fraction(2))]
)
def test_the_reference_tells_a_doubled_epsilon_apart(epsilon_b, relabel_epsilon):
    """The check can fail: the oracle's reference at twice either ε differs from the one at the
    paper's ε by far more than the agreement required."""
    datasets = list(itertools.combinations_with_replacement(RECORDS, 3))

    def worst(**eps):
        distributions = {d: reference_oracle(d, **eps) for d in datasets}
        return max(pure_epsilon(distributions[d], distributions[o]) for d in datasets for o in neighbours(d))

    assert abs(worst(epsilon_b=epsilon_b, relabel_epsilon=relabel_epsilon) - worst()) > 1000 * AGREE
