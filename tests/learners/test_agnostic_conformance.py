"""The privacy halves of Theorems 2.1, D.1, 3.1 and 4.1 checked on the code, not on its ledger.

Each learner runs its own code on worst-case neighbours under a forced history
(:mod:`dpledger.verify.paper.agnostic_neighbours`): every noisy statistic must move by at most the
sensitivity its event declares, in real units, and the neighbours must reach that sensitivity
(so a halved declaration fails); the model must be a function of the releases; the noise drawn must
follow the declared law (:mod:`dpledger.verify.audit.conformance`); and the white-box audit must
flag a learner whose draws are half its declaration.
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from dpledger.learners import releases
from dpledger.learners.agnostic import (
    PrivateImproperLearner,
    PrivateProperLearner,
    PrivateSemiAgnosticLearner,
    ProductMarginal,
)
from dpledger.learners.agnostic.private_logistic import unit_normal
from dpledger.learners.noise import gaussian_noise, laplace_noise
from dpledger.learners.randomness import Sampled
from dpledger.verify.audit.conformance import noise_conformance
from dpledger.verify.paper.agnostic_neighbours import ProbeReport, probe, ramp_centre_neighbours
from dpledger.verify.paper.white_box import white_box_audit

CONFIDENCE = 1 - 1e-6
"""The noise tests' false-alarm rate is 10⁻⁶ per test."""

REACHED = 0.75
"""The worst-case neighbours must move every group of releases by at least this share of its
declared sensitivity: a declaration of at most REACHED × the truth is then caught."""


def _data(n: int = 3000, d: int = 4, seed: int = 0, marginal: ProductMarginal | None = None):
    """Halfspace data with one record in ten pushed far beyond every clipping radius."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) if marginal is None else marginal.sample(n, d, Sampled(seed))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    far = rng.random(n) < 0.1
    X[far] *= 20
    return X, y


IMPROPER, LOG_CONCAVE, PROPER = (
    "Theorem 2.1 improper",
    "Theorem D.1 log-concave improper",
    "Theorem 3.1 proper",
)
SEMI, SEMI_LABEL_MEAN = "Theorem 4.1 semi-agnostic", "Theorem 4.1 semi-agnostic, label-mean threshold"
LEARNERS = {
    "Theorem 2.1 improper": (lambda: PrivateImproperLearner(1, 1e-5, random_state=0), None, None),
    "Theorem D.1 log-concave improper": (
        lambda: PrivateImproperLearner(
            1, 1e-5, degree=2, steps=20, marginal=ProductMarginal("laplace"), random_state=0
        ),
        None,
        ProductMarginal("laplace"),
    ),
    "Theorem 3.1 proper": (lambda: PrivateProperLearner(1, 1e-5, random_state=0), None, None),
    "Theorem 4.1 semi-agnostic": (
        lambda: PrivateSemiAgnosticLearner(1, 1e-5, random_state=0),
        ramp_centre_neighbours,
        None,
    ),
    "Theorem 4.1 semi-agnostic, label-mean threshold": (
        lambda: PrivateSemiAgnosticLearner(1, 1e-5, threshold="label-mean", random_state=0),
        ramp_centre_neighbours,
        None,
    ),
}


@functools.cache
def _probed(name: str) -> ProbeReport:
    make, extra, marginal = LEARNERS[name]
    X, y = _data(marginal=marginal)
    return probe(make, X, y, extra)


def _assert_code_meets_its_declarations_on_worst_case_neighbours(name: str) -> None:
    """Every statistic within its declared sensitivity; every group of releases moved by at least
    REACHED of it; the model post-processing of the releases; no block read by two releases of a
    parallel composition; every release in the ledger."""
    report = _probed(name)
    assert report.rows, name
    assert not report.exceeded, (name, report.exceeded[:3])
    groups = report.group_ratios()
    assert "exponential_mechanism" in {kind for kind, _ in groups}, name
    assert all(ratio >= REACHED for ratio in groups.values()), (name, groups)
    assert not report.mismatches, (name, report.mismatches[:2])
    assert not report.model_changes, (name, report.model_changes[:2])
    assert not report.shared_blocks, (name, report.shared_blocks[:2])
    assert not report.unaccounted, (name, report.unaccounted)


def _assert_noise_follows_its_declared_law(name: str) -> None:
    make, _, marginal = LEARNERS[name]
    X, y = _data(marginal=marginal)
    drawn: list[releases.Release] = []
    for seed in range(200):
        learner = make()
        learner.random_state = seed
        with releases.record() as tape:
            learner.fit(X, y)
        drawn += tape
        families: dict[str, int] = {}
        for release in drawn:
            if release.noise is not None:
                families[release.kind] = families.get(release.kind, 0) + release.size
        if min(families.values()) >= 100 and sum(families.values()) >= 1000:
            break
    tests = noise_conformance(drawn)
    assert tests, name
    for test in tests:
        assert test.samples >= 100, (name, test)
        assert not test.rejects(CONFIDENCE), (name, test)
        assert 0.9 < test.scale_ratio < 1.1, (name, test)


def test_theorem_2_1_statistics_stay_within_their_declared_sensitivities_on_worst_case_neighbours():
    _assert_code_meets_its_declarations_on_worst_case_neighbours(IMPROPER)


def test_theorem_2_1_noise_follows_the_law_its_events_declare():
    _assert_noise_follows_its_declared_law(IMPROPER)


def test_theorem_d_1_statistics_stay_within_their_declared_sensitivities_on_worst_case_neighbours():
    _assert_code_meets_its_declarations_on_worst_case_neighbours(LOG_CONCAVE)


def test_theorem_d_1_noise_follows_the_law_its_events_declare():
    _assert_noise_follows_its_declared_law(LOG_CONCAVE)


def test_theorem_3_1_statistics_stay_within_their_declared_sensitivities_on_worst_case_neighbours():
    _assert_code_meets_its_declarations_on_worst_case_neighbours(PROPER)


def test_theorem_3_1_noise_follows_the_law_its_events_declare():
    _assert_noise_follows_its_declared_law(PROPER)


def test_theorem_4_1_statistics_stay_within_their_declared_sensitivities_on_worst_case_neighbours():
    _assert_code_meets_its_declarations_on_worst_case_neighbours(SEMI)
    _assert_code_meets_its_declarations_on_worst_case_neighbours(SEMI_LABEL_MEAN)


def test_theorem_4_1_noise_follows_the_law_its_events_declare():
    _assert_noise_follows_its_declared_law(SEMI)
    _assert_noise_follows_its_declared_law(SEMI_LABEL_MEAN)


def _fit_with_every_selection_forced_elsewhere(name: str) -> tuple[Any, list[int]]:
    """A fit under a history in which every exponential-mechanism draw is forced to the candidate
    after the one the recorded run drew (cyclically); the learner and the forced indices. A learner
    that chose by its scores and not by the draw would not follow."""
    make, _, marginal = LEARNERS[name]
    X, y = _data(marginal=marginal)
    with releases.record() as tape:
        make().fit(X, y)
    forced = [
        dataclasses.replace(r, output=(int(r.output) + 1) % r.size)
        if r.kind == "exponential_mechanism"
        else r
        for r in tape
    ]
    with releases.replay(forced):
        learner = make().fit(X, y)
    return learner, [int(r.output) for r in forced if r.kind == "exponential_mechanism"]


def test_theorem_2_1_model_takes_the_candidates_its_selections_drew():
    learner, (direction, choice) = _fit_with_every_selection_forced_elsewhere(IMPROPER)
    assert np.array_equal(learner.direction_, learner.directions_[direction])
    threshold = int(np.flatnonzero(learner.thresholds_ == learner.threshold_)[0])
    assert learner.block_ * learner.n_thresholds + threshold == choice


def test_theorem_3_1_model_takes_the_candidates_its_selections_drew():
    learner, (direction, threshold) = _fit_with_every_selection_forced_elsewhere(PROPER)
    assert np.array_equal(learner.coef_, learner.directions_[direction])
    assert -learner.intercept_ == learner.thresholds_[threshold]


def test_theorem_4_1_model_takes_the_candidates_its_selections_drew():
    learner, (*run_thresholds, choice) = _fit_with_every_selection_forced_elsewhere(SEMI)
    assert learner.run_thresholds_.tolist() == learner.thresholds_[run_thresholds].tolist()
    candidates = [*learner.iterates_.reshape(-1, learner.n_features_in_), unit_normal(learner.logistic_coef_)]
    candidate, threshold = divmod(choice, learner.n_thresholds)
    assert np.array_equal(learner.coef_, candidates[candidate])
    assert -learner.intercept_ == learner.thresholds_[threshold]


def _releases_of(draw, count: int) -> list[releases.Release]:
    with releases.record() as tape:
        for _ in range(count):
            draw()
    return list(tape)


def test_gaussian_noise_draws_the_discrete_gaussian_its_event_declares():
    rng = Sampled(3)
    tape = _releases_of(
        lambda: gaussian_noise(np.zeros(50), 0.7, Fraction(1, 10), Fraction(1, 10**5), rng), 20
    )
    (test,) = noise_conformance(tape)
    assert test.kind == "discrete_gaussian" and test.samples == 1000
    assert not test.rejects(CONFIDENCE) and 0.95 < test.scale_ratio < 1.05


def test_laplace_noise_draws_the_discrete_laplace_its_event_declares():
    rng = Sampled(4)
    tape = _releases_of(lambda: laplace_noise(np.zeros(50), 2.5, Fraction(1, 10), rng), 20)
    (test,) = noise_conformance(tape)
    assert test.kind == "discrete_laplace" and test.samples == 1000
    assert not test.rejects(CONFIDENCE) and 0.95 < test.scale_ratio < 1.05


@pytest.mark.parametrize("kind", ["discrete_gaussian", "discrete_laplace"])
def test_noise_at_half_its_declared_scale_is_rejected(kind):
    """The test can fail: releases whose outputs carry half the noise scale their events declare
    (whatever their sampler reported)."""
    rng = Sampled(5)
    if kind == "discrete_gaussian":
        honest = _releases_of(
            lambda: gaussian_noise(np.zeros(10), 1.0, Fraction(1, 10), Fraction(1, 10**5), rng), 20
        )
    else:
        honest = _releases_of(lambda: laplace_noise(np.zeros(10), 1.0, Fraction(1, 10), rng), 20)
    halved = []
    for r in honest:
        assert r.scale_units is not None  # a noise release
        noise = (
            rng.discrete_gaussian(r.scale_units / 2, r.size)
            if kind == "discrete_gaussian"
            else rng.discrete_laplace(r.scale_units / 2, r.size)
        )
        output = (np.rint(r.statistic / r.gamma) + np.asarray(noise)) * r.gamma
        halved.append(
            releases.Release(
                kind=r.kind,
                statistic=r.statistic,
                sensitivity=r.sensitivity,
                event=r.event,
                output=output,
                noise=r.noise,  # what a sampler reports can differ from what the output carries
                scale_units=r.scale_units,
                gamma=r.gamma,
            )
        )
    (test,) = noise_conformance(halved)
    assert test.rejects(CONFIDENCE) and test.scale_ratio < 0.6


@pytest.mark.slow
@pytest.mark.parametrize("name", [IMPROPER, PROPER, SEMI])
def test_white_box_audit_passes_the_learners_as_written(name):
    make, _, marginal = LEARNERS[name]
    X, y = _data(marginal=marginal)

    def build(seed):
        learner = make()
        learner.random_state = seed
        return learner

    result = white_box_audit(name, build, X, y, claim=(1, 1e-5), noise_samples=1000)
    assert not result.violation, result.to_text()


def _assert_selections_draw_with_their_declared_epsilon(name: str) -> None:
    """Every selection of one fit, redrawn by the function the learner drew and recorded it with,
    follows exp(ε·score/(2Δ)) with the event's ε and the declared Δ."""
    from dpledger.verify.audit.selection_conformance import exponential_conformance
    from dpledger.verify.paper.white_box import redraw

    make, _, marginal = LEARNERS[name]
    X, y = _data(marginal=marginal)
    with releases.record() as tape:
        make().fit(X, y)
    selections = [(p, r) for p, r in enumerate(tape) if r.kind == "exponential_mechanism"]
    assert selections, name
    for position, release in selections[:2]:
        draw = redraw(release)
        assert draw is not None, (name, release.layout)
        test = exponential_conformance(release, draw, 300, CONFIDENCE, seed=position)
        assert test.cells >= 3 and test.conforms, (name, position, test)


def test_theorem_2_1_selections_draw_with_the_epsilon_their_events_declare():
    _assert_selections_draw_with_their_declared_epsilon(IMPROPER)


def test_theorem_3_1_selections_draw_with_the_epsilon_their_events_declare():
    _assert_selections_draw_with_their_declared_epsilon(PROPER)


def test_theorem_4_1_selections_draw_with_the_epsilon_their_events_declare():
    _assert_selections_draw_with_their_declared_epsilon(SEMI)


@pytest.mark.parametrize("epsilon", [Fraction(1, 2), Fraction(1), Fraction(4)])
def test_theorem_4_1_label_mean_threshold_learner_meets_its_claim(epsilon):
    """The label-mean threshold's discrete Laplace step is calibrated for the claim: the ledger of
    the learner with ``threshold="label-mean"`` certifies (ε, δ)."""
    X, y = _data(2000, 3)
    learner = PrivateSemiAgnosticLearner(epsilon, Fraction(1, 10**5), threshold="label-mean", random_state=0)
    learner.fit(X, y)
    assert learner.guarantee_ is not None and learner.guarantee_.meets(epsilon, Fraction(1, 10**5)).holds


def test_private_scorer_count_moves_by_at_most_its_declared_sensitivity_and_reaches_it():
    from dpledger.learners.estimator import PrivateScorer
    from dpledger.verify.audit.conformance import sensitivity_rows

    X, y = _data(400, 2)
    model = PrivateProperLearner(1, 1e-5, random_state=0).fit(X, y)
    runs = []
    for labels in (y, np.where(np.arange(y.size) == 7, -y, y)):
        with releases.record() as tape:
            PrivateScorer(1, random_state=0)(model, X, labels)
        runs.append(tape)
    (row,) = sensitivity_rows(*runs)
    assert row.kind == "discrete_laplace" and not row.exceeds() and row.ratio == 1.0
