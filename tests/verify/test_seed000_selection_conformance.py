"""Seed 000's exponential mechanisms draw from the pmf their event declares, and the ledger holds
the events the draws made: releases recorded in real runs, redrawn by the code's own samplers on
the recorded scores (χ² at confidence 0.999: false-alarm rate ≈ 0.001 per test), and the same
redraws with ε doubled in the weights rejected."""

from fractions import Fraction

import numpy as np
import pytest

from dpledger.accountant.events import ExponentialMechanism, OnRealizableInputs
from dpledger.learners import component_oracles, releases
from dpledger.learners.boolean.composition import BooleanComposition, HypothesisSpace, component_class
from dpledger.learners.boolean.formula import parse_formula
from dpledger.learners.boolean.local_learners import _interval_learner, exponential_learner
from dpledger.learners.boolean.oracle import RelabelOracle
from dpledger.learners.carry_forward import CarryForwardLearner
from dpledger.learners.completion_scores import completion_scores
from dpledger.learners.component_oracles import CompletionScoreOracle
from dpledger.learners.concept_classes import ConceptClass, FiniteClass, Intervals, Rectangles, Thresholds
from dpledger.learners.exponential_mechanism import (
    exponential_mechanism_counted_release,
    exponential_mechanism_ordered_release,
)
from dpledger.learners.halfspaces import ExponentialDepthOracle, GridHalfspaces, IPConcaveOracle
from dpledger.learners.halfspaces.depth import SlotScores
from dpledger.learners.halfspaces.private_ip import domain_exponential_mechanism
from dpledger.learners.labelboost import labelboost
from dpledger.learners.randomness import Sampled
from dpledger.verify.audit.selection_conformance import exponential_conformance

DRAWS = 1500
CONFIDENCE = 0.999


def noisy_sample(size, high, seed, dimension=1, low=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(low, high + 1, size=(size, dimension))
    return (X[:, 0] if dimension == 1 else X), rng.integers(0, 2, size=size)


def recorded(run):
    with releases.record() as made:
        run()
    assert made and all(r.kind == "exponential_mechanism" for r in made)
    return made[-1]


def listed_case():
    """B over a listed class (rectangles), redrawn by calling B itself."""
    H = Rectangles(2)
    X, y = noisy_sample(6, 1, 1, dimension=2)
    release = recorded(lambda: exponential_learner(H, X, y, 1, Sampled(0)))
    index = {tuple(h): i for i, h in enumerate(HypothesisSpace(H))}
    return release, lambda rng, epsilon: index[tuple(exponential_learner(H, X, y, epsilon, rng))]


def listed_class_sample() -> tuple[ConceptClass, np.ndarray, np.ndarray]:
    """An explicit finite class (12 random concepts over 6 points, components (j // 4, j % 4)),
    whose next values the completion oracle lists, with a noisy sample of it."""
    table = np.random.default_rng(6).integers(0, 2, size=(12, 6)).tolist()
    X, y = noisy_sample(10, 5, 6)
    return FiniteClass(table, components=[(j // 4, j % 4) for j in range(12)]), X, y


def oracle_listed_case():
    """The completion-score oracle over listed next values (an explicit finite class), redrawn by
    calling the oracle itself."""
    C, X, y = listed_class_sample()
    release = recorded(lambda: CompletionScoreOracle(1).select(C, (), X, y, Sampled(0)))
    values, _ = completion_scores(C, (), X, y)
    index = {value: i for i, value in enumerate(values)}
    return release, lambda rng, epsilon: index[CompletionScoreOracle(epsilon).select(C, (), X, y, rng)]


def runs_case():
    """The completion-score oracle over runs of thresholds, redrawn by calling the oracle."""
    C = Thresholds(12)
    X, y = noisy_sample(10, 11, 2)
    release = recorded(lambda: CompletionScoreOracle(1).select(C, (), X, y, Sampled(0)))
    return release, lambda rng, epsilon: CompletionScoreOracle(epsilon).select(C, (), X, y, rng)


def cells_case():
    H = Intervals(6)
    X, y = noisy_sample(8, 5, 3)
    release = recorded(lambda: exponential_learner(H, X, y, 1, Sampled(0)))
    return release, lambda rng, epsilon: _interval_learner(H, H.points(X), y, epsilon, rng)


def slots_case():
    C, oracle = GridHalfspaces(1, 3), ExponentialDepthOracle(epsilon=1)
    X, y = noisy_sample(8, 3, 4, dimension=1, low=-3)
    X = X.reshape(-1, 1)
    release = recorded(lambda: oracle.select(C, (1,), X, y, Sampled(0)))
    domain = C.next_values((1,))
    scores = SlotScores(list(release.breakpoints), release.statistic.astype(np.int64))
    return release, lambda rng, epsilon: domain_exponential_mechanism(domain, scores, epsilon, rng)


def levels_case():
    C = BooleanComposition(
        parse_formula("x1 and x2"), [component_class(n, 8) for n in ("thresholds", "intervals")]
    )
    X, y = noisy_sample(8, 7, 5)
    release = recorded(lambda: labelboost(C, X, y, np.arange(8), Sampled(0)))
    assert release.layout == "levels"
    scores = release.statistic.astype(np.int64).tolist()
    return release, lambda rng, epsilon: exponential_mechanism_counted_release(
        scores, release.counts, epsilon, release.sensitivity, rng, member=lambda group: group
    )[0]


CASES = {
    "listed": listed_case,
    "oracle-listed": oracle_listed_case,
    "runs": runs_case,
    "cells": cells_case,
    "slots": slots_case,
    "levels": levels_case,
}


@pytest.mark.parametrize("layout", CASES)
def test_exponential_mechanism_draws_follow_the_pmf_of_their_event(layout):
    """The code's sampler on scores recorded in a real run, at the ε it weighted by, against
    p ∝ c·exp(ε·s/(2Δ)) with the ε of the event and the Δ the release declared."""
    release, draw = CASES[layout]()
    assert release.layout == layout.removeprefix("oracle-")
    result = exponential_conformance(release, lambda rng: draw(rng, release.epsilon), DRAWS, CONFIDENCE)
    assert result.cells >= 2 and result.conforms, result


@pytest.mark.parametrize("layout", CASES)
def test_a_doubled_epsilon_in_the_weights_is_rejected(layout):
    """The same redraws with the weights at 2ε (the event still declaring ε) fail the test."""
    release, draw = CASES[layout]()
    result = exponential_conformance(release, lambda rng: draw(rng, 2 * release.epsilon), DRAWS, CONFIDENCE)
    assert not result.conforms, result


def exponential_leaves(event):
    children = event.subevents
    if not children:
        return [event] if type(event).__name__ == "ExponentialMechanism" else []
    return [leaf for child in children for leaf in exponential_leaves(child)]


def fitted_with_releases(C, oracle=None, X=None):
    rng = np.random.default_rng(7)
    if X is None:
        X = rng.integers(0, 64, size=600)
    y = C.evaluate(C.complete(), X) if hasattr(C, "grid") else ((X >= 10) & (X < 40)).astype(int)
    with releases.record() as made:
        learner = CarryForwardLearner(C, oracle=oracle, m=30, random_state=0).fit(X, y)
    return learner, made


@pytest.mark.parametrize(
    ("C", "oracle"),
    [
        (Thresholds(64), None),
        (Intervals(64), None),
        (GridHalfspaces(2, 4), ExponentialDepthOracle()),
        (GridHalfspaces(2, 4), IPConcaveOracle()),
    ],
    ids=["thresholds", "intervals", "halfspaces-exponential", "halfspaces-ipconcave"],
)
def test_the_ledger_holds_the_event_of_every_oracle_draw_and_labelboost_draws_at_epsilon_1(C, oracle):
    """Algorithm 2: the releases alternate LabelBoost (lines 7, 14: ε = 1 as Lemmas 3.11/3.17
    assume) and the oracle (line 9); every oracle draw's event is an ExponentialMechanism leaf of
    ``trace_`` — what the ledger accounts is what was drawn."""
    X = None if not hasattr(C, "grid") else np.random.default_rng(8).integers(-4, 5, size=(600, 2))
    learner, made = fitted_with_releases(C, oracle, X)
    assert len(made) == 2 * C.k
    labelboosts, oracle_draws = made[0::2], made[1::2]
    assert all(r.event.epsilon == 1 == r.epsilon for r in labelboosts)  # the paper's ε
    leaves = exponential_leaves(learner.trace_)
    assert all(r.event in leaves and r.epsilon == r.event.epsilon for r in oracle_draws)


def test_the_ledger_holds_the_local_learners_draws_and_arelabel_draws_at_epsilon_1():
    """Proposition 8.16's oracle inside Algorithm 2: per round ARelabel (ε = 1, the value the
    LabelBoostThen rule of Corollary 8.17 assumes) then B_i, whose event is a leaf of ``trace_``
    (under Lemma 8.15's with-replacement node)."""
    spaces = [component_class(n, 64) for n in ("thresholds", "intervals")]
    C = BooleanComposition(parse_formula("x1 and x2"), spaces)
    X = np.random.default_rng(9).integers(0, 64, size=900)
    y = ((X >= 10) & (X < 40)).astype(int)
    with releases.record() as made:
        learner = CarryForwardLearner(C, oracle=RelabelOracle(), m=40, random_state=0).fit(X, y)
    assert len(made) == 3 * C.k  # per round: LabelBoost (line 7 or 14), ARelabel, B_i
    leaves = exponential_leaves(learner.trace_)
    relabels, local = made[1::3], made[2::3]
    assert all(r.event.epsilon == 1 == r.epsilon for r in relabels)
    assert all(r.event in leaves and r.epsilon == r.event.epsilon for r in local)


@pytest.mark.parametrize("H", [Thresholds(9), Intervals(6), Rectangles(2)], ids=["runs", "cells", "listed"])
def test_every_branch_of_the_local_learner_draws_the_event_the_boolean_oracle_declares_for_it(H):
    """Corollary 8.17's ledger holds B_i as ExponentialMechanism(ε_B, |H_i|) (under Lemma 8.15's
    with-replacement node); each of B's samplers — runs, interval cells, the listed class — draws
    with exactly that event and weights at that ε."""
    X, y = noisy_sample(7, 1 if isinstance(H, Rectangles) else 5, 11, dimension=H.dimension)
    for epsilon in (Fraction(1), Fraction(1, 4)):
        with releases.record() as made:
            exponential_learner(H, X, y, epsilon, Sampled(1))
        assert [r.event for r in made] == [ExponentialMechanism(epsilon, len(HypothesisSpace(H)))]
        assert made[0].epsilon == epsilon


@pytest.mark.parametrize("case", ["runs", "listed"])
def test_every_branch_of_the_completion_oracle_draws_the_event_it_declares(case):
    """Assumption 4.4's oracle declares ExponentialMechanism(ε_A, |Y_i|) on realizable inputs;
    both of its samplers — runs of thresholds and listed next values — draw with that event."""
    C: ConceptClass
    if case == "runs":
        C, (X, y) = Thresholds(12), noisy_sample(10, 11, 2)
    else:
        C, X, y = listed_class_sample()
    for epsilon in (Fraction(4), Fraction(1, 2)):
        oracle = CompletionScoreOracle(epsilon)
        with releases.record() as made:
            oracle.select(C, (), X, y, Sampled(1))
        declared = oracle.event(C, (), len(y))
        assert isinstance(declared, OnRealizableInputs)
        assert [r.event for r in made] == [declared.child]
        assert made[0].epsilon == epsilon


def test_an_oracle_drawing_at_twice_the_epsilon_it_declares_is_caught(monkeypatch):
    """A planted bug the code can produce: the oracle passes 2ε_A to the exponential mechanism
    while ``event`` declares ε_A; the draw's event is not in the ledger."""

    def doubled(breakpoints, scores, epsilon, sensitivity, rng):
        return exponential_mechanism_ordered_release(
            breakpoints, scores, 2 * Fraction(epsilon), sensitivity, rng
        )

    monkeypatch.setattr(component_oracles, "exponential_mechanism_ordered_release", doubled)
    learner, made = fitted_with_releases(Thresholds(64))
    assert made[1].event not in exponential_leaves(learner.trace_)


@pytest.mark.slow
def test_the_conformance_test_false_alarm_rate_is_within_its_confidence():
    """The stated false-alarm rate, measured: the exact sampler of the score-level case, tested at
    confidence 0.99 on 200 independent redraws of 400, is rejected at most 8 times (expected 2;
    a binomial(200, 0.01) exceeds 8 with probability < 10⁻³)."""
    release, draw = levels_case()
    rejected = sum(
        not exponential_conformance(release, lambda rng: draw(rng, release.epsilon), 400, 0.99, seed).conforms
        for seed in range(200)
    )
    assert rejected <= 8
