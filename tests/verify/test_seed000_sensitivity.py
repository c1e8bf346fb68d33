"""Seed 000's exponential mechanisms, run on worst-case substitution neighbours under a fixed
history of outputs: every candidate's score moves by at most the sensitivity the release itself
declared, and the neighbours' search reaches it (observed/declared ≥ 0.75, so a release declaring
half its true sensitivity fails)."""

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from dpledger.learners import component_oracles
from dpledger.learners.boolean.composition import BooleanComposition, component_class
from dpledger.learners.boolean.formula import parse_formula
from dpledger.learners.boolean.local_learners import exponential_learner
from dpledger.learners.boolean.oracle import RelabelOracle
from dpledger.learners.component_oracles import CompletionScoreOracle
from dpledger.learners.concept_classes import FiniteClass, Intervals, Rectangles, Thresholds
from dpledger.learners.exponential_mechanism import exponential_mechanism_ordered_release
from dpledger.learners.halfspaces import ExponentialDepthOracle, GridHalfspaces, IPConcaveOracle, QCOptOracle
from dpledger.learners.labelboost import labelboost
from dpledger.learners.randomness import Sampled
from dpledger.learners.synthetic import random_concept
from dpledger.verify.audit.sensitivity import SensitivityReport, observed_sensitivity
from dpledger.verify.paper.neighbours import grid_bounds, worst_case_neighbours

FINITE = FiniteClass(
    [[int(b) for b in format(j, "04b")] for j in range(16)], [(j // 4, j % 4) for j in range(16)]
)
"""Sixteen concepts on four points, two components each: completion scores listed, not by runs."""

REACHED = 0.75
"""The least observed/declared ratio the neighbours' search must reach."""


Sample = tuple[np.ndarray, np.ndarray]
"""A labeled sample: the points (as the class reads them) and their labels."""


def realizable_sample(C, size: int, seed: int, prefix: tuple = ()) -> Sample:
    """``size`` points of C's grid labeled by a random concept of C extending ``prefix``."""
    rng = np.random.default_rng(seed)
    low, high = grid_bounds(C)
    drawn = rng.integers(low, np.array(high) + 1, size=(size, len(low)))
    X = C.points(drawn.reshape(-1) if C.dimension == 1 else drawn)
    concept = random_concept(C, rng)
    if prefix:
        concept = prefix + tuple(concept[len(prefix) :])
    return X, C.evaluate(concept if C.contains(concept) else random_concept(C, rng), X).astype(np.int64)


def assert_declared_and_reached(report, kinds=("exponential_mechanism",)):
    assert report.compared > 0
    assert report.exceeded == (), [(r.position, r.observed, r.declared) for r in report.exceeded]
    for kind in kinds:
        assert report.ratio(kind) >= REACHED, report.releases


def check(C, run: Callable[[Sample], Any], size: int, seed: int = 0, prefix: tuple = ()) -> SensitivityReport:
    sample = realizable_sample(C, size, seed, prefix)
    report = observed_sensitivity(run, sample, worst_case_neighbours(C, sample))
    assert_declared_and_reached(report)
    return report


@pytest.mark.parametrize(
    ("C", "prefix"),
    [
        (Thresholds(16), ()),
        (Intervals(8), ()),
        (Intervals(8), (2,)),
        (Rectangles(3), (0, 2)),
        (FINITE, ()),
        (FINITE, (1,)),
    ],
    ids=["thresholds", "intervals", "intervals-prefix", "rectangles-prefix", "finite", "finite-prefix"],
)
def test_completion_scores_move_by_at_most_the_declared_sensitivity_on_worst_case_neighbours(C, prefix):
    """Algorithm 2 line 9 with the completion-score oracle (Assumption 4.4's ε_A): the completion
    score of every next value, by runs or listed, on flipped, extreme and searched neighbours."""
    oracle = CompletionScoreOracle()
    check(C, lambda s: oracle.select(C, prefix, *s, Sampled(1)), 8, prefix=prefix)


@pytest.mark.parametrize("make", [ExponentialDepthOracle, QCOptOracle])
@pytest.mark.parametrize(("dimension", "prefix"), [(1, ()), (1, (1,)), (2, (-1, Fraction(1, 2)))])
def test_depth_scores_move_by_at_most_the_declared_sensitivity_on_worst_case_neighbours(
    make, dimension, prefix
):
    """Lemma 8.7 / Proposition 8.6 substitute: Q_i^S over the coordinate domain (slots) moves by at
    most the declared sensitivity, and a neighbour reaches it."""
    C, oracle = GridHalfspaces(dimension, 3), make()
    check(C, lambda s: oracle.select(C, prefix, *s, Sampled(2)), 8, prefix=prefix)


def test_interior_point_scores_move_by_at_most_the_declared_sensitivity_on_worst_case_neighbours():
    """Lemma 8.13 (IPConcave with the exponential interior point): one record changes one block's
    maximizer, so the interior-point score of every domain element moves by at most 1, reached."""
    C, oracle = GridHalfspaces(1, 3), IPConcaveOracle(blocks=4)
    check(C, lambda s: oracle.select(C, (1,), *s, Sampled(3)), 8)


@pytest.mark.parametrize("H", [Thresholds(12), Intervals(8), Rectangles(2)], ids=["runs", "cells", "listed"])
def test_local_learner_agreements_move_by_at_most_the_declared_sensitivity(H):
    """Section 8.4's B_i (the exponential learner over all of H_i, Lemma 8.15's B): the agreement
    of every hypothesis, by runs, by interval cells and listed."""
    check(H, lambda s: exponential_learner(H, *s, 1, Sampled(4)), 8)


def boolean_class():
    spaces = [component_class(name, 8) for name in ("thresholds", "intervals")]
    return BooleanComposition(parse_formula("x1 and x2"), spaces)


@pytest.mark.parametrize("prefix_length", [0, 1])
def test_relabel_disagreements_move_by_at_most_the_declared_sensitivity(prefix_length):
    """Proposition 8.16's ARelabel: −q_i(S, h) over the labelings of Π_{H_i}(P) (equation (3),
    sensitivity 1) on neighbours with the same point set P; those moving P change the candidate
    set, which the replay refuses (counted as mismatches, never compared)."""
    C, oracle = boolean_class(), RelabelOracle()
    prefix = ((3,),)[:prefix_length]
    report = check(C, lambda s: oracle.relabel(C, prefix, *s, Sampled(5)), 10, prefix=prefix)
    assert report.mismatches > 0


@pytest.mark.parametrize("C", [Thresholds(6), Rectangles(2), GridHalfspaces(1, 2), boolean_class()], ids=str)
def test_labelboost_agreements_move_by_at_most_the_declared_sensitivity(C):
    """Algorithm 1 line 5 (Lemma 3.17's mechanism): q(S, g) = agreement with the labeled sample,
    listed (thresholds, rectangles) and counted by score (halfspaces, Boolean compositions: the
    sorted matching of the score levels); the carrier T covers the grid, so P never changes."""
    low, high = grid_bounds(C)
    grid = np.stack(np.meshgrid(*[np.arange(a, b + 1) for a, b in zip(low, high, strict=True)]), -1)
    carrier = C.points(grid.reshape(-1) if C.dimension == 1 else grid.reshape(-1, len(low)))
    report = check(C, lambda s: labelboost(C, *s, carrier, Sampled(6)), 6)
    assert report.mismatches == 0


def test_a_completion_oracle_declaring_half_its_sensitivity_is_caught(monkeypatch):
    """A planted bug the code can produce: the oracle passes Δ = 1/2 to the exponential mechanism
    (weights exp(ε·s/(2·Δ)) then use it too). The record agrees with itself; the neighbours do not."""

    def halved(breakpoints, scores, epsilon, sensitivity, rng):
        return exponential_mechanism_ordered_release(breakpoints, scores, epsilon, Fraction(1, 2), rng)

    monkeypatch.setattr(component_oracles, "exponential_mechanism_ordered_release", halved)
    C, oracle = Thresholds(16), CompletionScoreOracle()
    sample = realizable_sample(C, 8, 0)
    report = observed_sensitivity(
        lambda s: oracle.select(C, (), *s, Sampled(1)), sample, worst_case_neighbours(C, sample)
    )
    assert [r.ratio for r in report.exceeded] == [2.0]
