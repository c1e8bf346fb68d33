"""Privacy halves of Theorems 2.1, D.1, 3.1 and 4.1: the accountant's derivation from each
learner's trace meets the claimed (ε, δ), for all valid parameters (property tests)."""

from __future__ import annotations

import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.accountant import account
from dpledger.accountant.events import (
    Claim,
    Composition,
    DiscreteGaussian,
    DiscreteLaplace,
    Event,
    ExponentialMechanism,
    ParallelComposition,
)
from dpledger.learners.agnostic import (
    LearnerFactory,
    PrivateImproperLearner,
    PrivateProperLearner,
    PrivateSemiAgnosticLearner,
    ProductMarginal,
    neighbour_runs,
    substitute_one,
)
from dpledger.learners.agnostic.data import halfspace_data
from dpledger.learners.agnostic.private_logistic import STEPS as LOGISTIC_STEPS
from dpledger.learners.agnostic.proper import cover_size
from dpledger.learners.randomness import Sampled

epsilons = st.builds(lambda k: f"{k / 20:g}", st.integers(1, 200))
deltas = st.builds(lambda m, e: f"{m}e-{e}", st.integers(1, 9), st.integers(3, 10))


def _claim(learner) -> Claim:
    """A fitted learner's trace: its theorem's claim over the releases it made."""
    assert isinstance(learner.trace_, Claim)
    return learner.trace_


def _releases(learner) -> tuple[Event, ...]:
    """The releases under a fitted learner's claim, in the order it made them."""
    child = _claim(learner).child
    assert isinstance(child, (Composition, ParallelComposition))
    return child.children


def _data(n: int, dim: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    sample = halfspace_data(n, dim, 0.1, "random", Sampled(seed))
    return sample.X, sample.y


def _assert_certified(learner, epsilon: str, delta: str) -> None:
    assert learner.claim_holds()
    assert learner.guarantee_.meets(epsilon, delta).holds
    assert account(learner.trace_).guarantee.meets(epsilon, delta).holds


EXAMPLES = [pytest.param(4, id="fast"), pytest.param(40, id="thorough", marks=pytest.mark.slow)]
sizes = st.integers(200, 800)
dims = st.integers(1, 4)
seeds = st.integers(0, 10**6)


@pytest.mark.parametrize("examples", EXAMPLES)
def test_improper_learner_meets_theorem_2_1_privacy(examples: int) -> None:
    @settings(max_examples=examples)
    @given(
        epsilon=epsilons,
        delta=deltas,
        n=sizes,
        dim=dims,
        blocks=st.integers(1, 4),
        steps=st.integers(1, 40),
        degree=st.integers(1, 2),
        seed=seeds,
    )
    def check(epsilon, delta, n, dim, blocks, steps, degree, seed) -> None:
        X, y = _data(n, dim, seed)
        learner = PrivateImproperLearner(
            epsilon, delta, degree=degree, n_blocks=blocks, steps=steps, random_state=seed
        ).fit(X, y)
        _assert_certified(learner, epsilon, delta)
        assert _claim(learner).statement == "Theorem 2.1"

    check()


@pytest.mark.parametrize("examples", EXAMPLES)
def test_log_concave_improper_learner_meets_theorem_d_1_privacy(examples: int) -> None:
    @settings(max_examples=examples)
    @given(epsilon=epsilons, delta=deltas, n=sizes, name=st.sampled_from(["uniform", "laplace"]), seed=seeds)
    def check(epsilon, delta, n, name, seed) -> None:
        marginal = ProductMarginal(name)
        X = marginal.sample(n, 2, Sampled(seed))
        y = np.where(X[:, 0] > 0.1, 1, -1)
        learner = PrivateImproperLearner(
            epsilon, delta, degree=2, steps=20, marginal=marginal, random_state=seed
        ).fit(X, y)
        _assert_certified(learner, epsilon, delta)
        assert _claim(learner).statement == "Theorem D.1"

    check()


@pytest.mark.parametrize("examples", EXAMPLES)
def test_proper_learner_meets_theorem_3_1_privacy(examples: int) -> None:
    @settings(max_examples=examples)
    @given(
        epsilon=epsilons,
        delta=deltas,
        n=sizes,
        dim=dims,
        degree=st.integers(1, 3),
        k=st.integers(1, 3),
        seed=seeds,
    )
    def check(epsilon, delta, n, dim, degree, k, seed) -> None:
        X, y = _data(n, dim, seed)
        learner = PrivateProperLearner(
            epsilon, delta, degree=degree, subspace_dim=k, cover_resolution=0.25, random_state=seed
        ).fit(X, y)
        _assert_certified(learner, epsilon, delta)

    check()


@pytest.mark.parametrize("examples", EXAMPLES)
def test_semi_agnostic_learner_meets_theorem_4_1_privacy(examples: int) -> None:
    @settings(max_examples=examples)
    @given(
        epsilon=epsilons,
        delta=deltas,
        n=sizes,
        dim=dims,
        guesses=st.integers(1, 4),
        steps=st.integers(1, 6),
        seed=seeds,
    )
    def check(epsilon, delta, n, dim, guesses, steps, seed) -> None:
        X, y = _data(n, dim, seed)
        learner = PrivateSemiAgnosticLearner(
            epsilon, delta, n_guesses=guesses, steps=steps, random_state=seed
        ).fit(X, y)
        _assert_certified(learner, epsilon, delta)
        *runs, logistic, _ = _releases(learner)
        assert _is_logistic_candidate(logistic)
        used_guesses, used_steps = learner.schedule_  # the block schedule: at most (guesses, steps)
        assert len(runs) == used_guesses <= guesses and used_steps <= steps
        assert all(
            isinstance(run, (Composition, ParallelComposition)) and len(run.children) == used_steps + 2
            for run in runs
        )

    check()


def test_halving_the_calibrated_noise_breaks_the_claim() -> None:
    X, y = _data(400, 3, 0)
    learner = PrivateProperLearner("1", "1e-6", random_state=0).fit(X, y)
    gaussian, *selections = _releases(learner)
    assert isinstance(gaussian, DiscreteGaussian)
    weaker = DiscreteGaussian(
        sigma_units=gaussian.sigma_units / 2,
        sensitivity_units=gaussian.sensitivity_units,
        delta=gaussian.delta,
    )
    assert not account(ParallelComposition((weaker, *selections))).guarantee.meets(1, "1e-6").holds


def test_trace_records_the_blocks_actually_used() -> None:
    X, y = _data(1000, 3, 1)
    learner = PrivateImproperLearner(
        2, "1e-6", degree=1, n_blocks=3, validation_fraction=0.25, steps=10, random_state=1
    ).fit(X, y)
    *regressions, logistic, em = _releases(learner)
    assert len(regressions) == 3 and isinstance(regressions[0], (Composition, ParallelComposition))
    assert isinstance(em, ExponentialMechanism) and em.candidates == 4 * learner.n_thresholds
    # DiscreteGaussian on a grid γ (a power of two): Δ′ = Δ₂/γ + √F, Δ₂ = 2B/m, F = C(3+1, 1) = 4
    # features; the 750 training records in four equal blocks, the logistic candidate's the fourth
    step = regressions[0].children[0]
    assert isinstance(step, DiscreteGaussian)
    assert _on_a_power_of_two_grid(
        step.sensitivity_units - 2, 2 * Fraction(learner.clip_norms_[0]) / (750 // 4)
    )
    assert _is_logistic_candidate(logistic, Fraction(2, 750 // 4))


def test_privacy_off_leaves_no_trace() -> None:
    X, y = _data(300, 3, 2)
    learner = PrivateProperLearner(None, None, random_state=0).fit(X, y)
    assert learner.trace_ is None and learner.guarantee_ is None
    with pytest.raises(ValueError, match="epsilon=None"):
        learner.claim_holds()


@pytest.mark.parametrize("algorithm", ["improper", "proper", "semi-agnostic"])
def test_audit_hook_runs_a_learner_repeatably_on_a_neighbour_pair(algorithm: str) -> None:
    X, y = _data(400, 3, 3)
    pair = ((X, y), substitute_one(X, y, 0, np.full(3, 3.0), -y[0]))
    factory = LearnerFactory(algorithm, (("epsilon", 1), ("delta", "1e-5")))
    assert pickle.loads(pickle.dumps(factory)) == factory
    probe = np.asarray(Sampled(9).gaussian(1.0, (5, 3)))
    first, second = neighbour_runs(factory, pair, probe, runs=3, seed=7)
    again, _ = neighbour_runs(factory, pair, probe, runs=3, seed=7)
    assert first.shape == second.shape == (3, 5)
    assert set(np.unique(first)) <= {-1, 1}
    assert np.array_equal(first, again)


def test_semi_agnostic_trace_records_the_sensitivities_of_its_statistics() -> None:
    X, y = _data(1200, 3, 4)
    learner = PrivateSemiAgnosticLearner(
        "0.5", "1e-6", n_guesses=2, steps=3, validation_fraction=0.2, max_step_noise=None, random_state=4
    ).fit(X, y)
    b = (1200 - 240 - 480) // 2 // 5  # 480 records for the logistic candidate
    radius = Fraction(learner.clip_radius_)
    *runs, logistic, _ = _releases(learner)
    assert _is_logistic_candidate(logistic, Fraction(2, 480))
    for run, guess in zip(runs, learner.guesses_, strict=True):
        assert isinstance(run, (Composition, ParallelComposition))
        initial, threshold, *steps = run.children
        assert isinstance(initial, DiscreteGaussian)
        assert threshold == ExponentialMechanism(epsilon=Fraction(1, 2), candidates=learner.n_thresholds)
        assert _on_a_power_of_two_grid(
            initial.sensitivity_units - sympy.sqrt(3), 2 * radius / b
        )  # Δ′ = Δ₂/γ + √d
        for step in steps:
            assert isinstance(step, DiscreteGaussian)
            assert _on_a_power_of_two_grid(
                step.sensitivity_units - sympy.sqrt(3), radius / (Fraction(float(guess)) * b)
            )


def test_label_mean_threshold_is_recorded_as_its_discrete_laplace_step() -> None:
    X, y = _data(1200, 3, 4)
    learner = PrivateSemiAgnosticLearner(
        "0.5",
        "1e-6",
        n_guesses=2,
        steps=3,
        validation_fraction=0.2,
        threshold="label-mean",
        max_step_noise=None,
        random_state=4,
    ).fit(X, y)
    b = (1200 - 240 - 480) // 2 // 5
    for run in _releases(learner)[:-2]:
        assert isinstance(run, (Composition, ParallelComposition))
        laplace = run.children[1]
        assert isinstance(laplace, DiscreteLaplace)
        assert _on_a_power_of_two_grid(laplace.sensitivity_units - 1, Fraction(2, b))  # Δ′₁ = Δ₁/γ + D, D = 1
        assert laplace.sensitivity_units / laplace.scale_units <= Fraction(1, 2)
    assert learner.claim_holds()


def test_model_selection_is_one_selection_per_block_and_parallel() -> None:
    """The candidate degrees / subspace sizes cost no extra ε — the improper learner
    fits one degree per disjoint block, the proper learner selects among the truncations of one
    release; the selections' events are exponential mechanisms at the full ε on disjoint blocks."""
    X, y = _data(3000, 3, 6)
    improper = PrivateImproperLearner("1", "1e-6", degree=(1, 2, 3), steps=5, random_state=0).fit(X, y)
    *regressions, logistic, directions, along, em = _releases(improper)
    assert (
        improper.block_degrees_.tolist() == [1, 2, 3, 1, improper.subspace_degree] and len(regressions) == 3
    )
    assert improper.block_losses_ == ["l1", "l1", "l1", "logistic", "l1"] and _is_logistic_candidate(logistic)
    assert directions == ExponentialMechanism(epsilon=1, candidates=improper.n_directions)
    assert type(along) is type(
        regressions[0]
    )  # the subspace step's 1-D regression: the same private optimiser
    assert em == ExponentialMechanism(epsilon=1, candidates=5 * improper.n_thresholds)
    proper = PrivateProperLearner(
        "1", "1e-6", degree=(1, 2), subspace_dim=(1, 2), cover_resolution=0.5, random_state=0
    ).fit(X, y)
    _, logistic, directions, thresholds = _releases(proper)
    assert _is_logistic_candidate(logistic)
    assert isinstance(directions, ExponentialMechanism) and isinstance(thresholds, ExponentialMechanism)
    assert (
        directions.candidates == proper.directions_.shape[0] == 2 + 2 + cover_size(2, 0.5) + 1
    )  # (D, k) = (1, 1), (2, 1), (2, 2), and the logistic candidate's direction
    assert thresholds.candidates == proper.n_thresholds
    for learner in (improper, proper):
        assert learner.guarantee_ is not None and learner.guarantee_.meets(1, "1e-6").holds
        assert all(s.private and s.count >= 1 for s in learner.selections_)


def _is_logistic_candidate(event: Event, sensitivity: Fraction | None = None) -> bool:
    """The logistic candidate's release: its T gradient steps composed, each a discrete Gaussian of
    declared Δ₂ = ``sensitivity`` = 2C/m (C = 1) on a grid when given (F = d + 1 = 4 features, d = 3)."""
    if not (isinstance(event, Composition) and event.repeat == LOGISTIC_STEPS):
        return False
    (step,) = event.children
    return isinstance(step, DiscreteGaussian) and (
        sensitivity is None or _on_a_power_of_two_grid(step.sensitivity_units - sympy.sqrt(4), sensitivity)
    )


def _on_a_power_of_two_grid(units: sympy.Expr, sensitivity: Fraction) -> bool:
    """units = sensitivity/γ for a power of two γ (the recorded grid-unit sensitivity, rounding term removed)."""
    per_grid = sympy.nsimplify(units) / sympy.Rational(sensitivity)
    return bool(
        per_grid.is_Rational
        and per_grid > 0
        and all(math.log2(int(v)).is_integer() for v in (per_grid.p, per_grid.q))
    )
