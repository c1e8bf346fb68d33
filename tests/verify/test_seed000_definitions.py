"""Seed 000 Definition 3.2 — (ε, δ)-differential privacy under substitute-one adjacency — checked
against dpledger's implementation of it: the exact auditor's δ(ε) of a neighbour pair is the
definition's sup over output events E (both directions: indistinguishability), and the exact
audits' neighbours are exactly the datasets differing in one indexed position."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from dpledger.learners.randomness import enumerate_outputs
from dpledger.verify.audit.exact import hockey_stick, pure_epsilon
from dpledger.verify.paper.labelboost_audit import LabelBoostAudit


def _brute_force_delta(p: list[Fraction], q: list[Fraction], epsilon: float) -> float:
    """max over every event E ⊆ outputs of Pr_P[E] − e^ε Pr_Q[E] and Pr_Q[E] − e^ε Pr_P[E] (and 0)."""
    factor = math.exp(epsilon)
    best = 0.0
    for size in range(len(p) + 1):
        for event in itertools.combinations(range(len(p)), size):
            P, Q = float(sum(p[o] for o in event)), float(sum(q[o] for o in event))
            best = max(best, P - factor * Q, Q - factor * P)
    return best


@pytest.mark.parametrize("seed", range(8))
def test_definition_3_2_hockey_stick_is_the_sup_over_all_output_events_both_ways(seed):
    """Definition 3.2: M(S), M(S′) are (ε, δ)-indistinguishable iff Pr[M(S) ∈ E] ≤ e^ε Pr[M(S′) ∈ E]
    + δ for every event E and with S, S′ swapped. The auditor's hockey_stick(P, Q, ε) must equal
    the smallest such δ, computed by brute force over all 2^k events of random distributions on
    k ≤ 6 outputs (some with outputs of probability 0 on one side); and pure_epsilon is the
    smallest ε with δ = 0."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    weights_p = [int(w) for w in rng.integers(0, 6, size=k)]
    weights_q = (
        [int(w) for w in rng.integers(1, 6, size=k)]
        if seed % 2
        else [int(w) for w in rng.integers(0, 6, size=k)]
    )
    weights_p[0] = weights_p[0] or 1
    weights_q[0] = weights_q[0] or 1
    P = enumerate_outputs(lambda r: r.choice(weights_p))
    Q = enumerate_outputs(lambda r: r.choice(weights_q))
    p = [Fraction(w, sum(weights_p)) for w in weights_p]
    q = [Fraction(w, sum(weights_q)) for w in weights_q]
    for epsilon in (0, Fraction(1, 4), 1, 2):
        delta = hockey_stick(P, Q, epsilon)
        brute = _brute_force_delta(p, q, float(epsilon))
        assert float(delta.a) - 1e-12 <= brute <= float(delta.b) + 1e-12
        assert float(delta.b) - float(delta.a) < 1e-20
    eps = pure_epsilon(P, Q)
    if math.isfinite(float(eps.a)):
        assert _brute_force_delta(p, q, float(eps.b) + 1e-9) <= 1e-12
        assert _brute_force_delta(p, q, max(float(eps.a) - 1e-3, 0)) > 0 or float(eps.a) < 1e-3
    else:
        assert any((pi == 0) != (qi == 0) for pi, qi in zip(p, q, strict=True))


@pytest.mark.parametrize("release, labeled, unlabeled", [("carrier", 2, 1), ("weights", 2, 2)])
def test_definition_3_2_exact_audit_neighbours_are_exactly_substitute_one_datasets(
    release, labeled, unlabeled
):
    """Substitute-one adjacency: S ≃ S′ iff they differ in one indexed position. The exact audits
    work on multisets (their mechanisms are order-invariant); their neighbours of every dataset
    must be exactly the multisets of the tuples obtained from one ordering by replacing one
    position with a different record — of S, and of T for releases private in T."""
    audit = LabelBoostAudit("thresholds", 3, labeled, unlabeled, release)
    records = [(x, y) for x in audit.domain() for y in (0, 1)]

    def substitutes(items, alphabet):
        return {
            tuple(sorted((*items[:i], new, *items[i + 1 :])))
            for i in range(len(items))
            for new in alphabet
            if new != items[i]
        }

    for s, t in audit.datasets():
        expected = {(s2, t) for s2 in substitutes(s, records)}
        if release == "weights":
            expected |= {(s, t2) for t2 in substitutes(t, audit.domain())}
        assert set(audit.neighbours((s, t))) == expected
