"""Utility claims as statistical tests: "with probability ≥ 1 − β the error is ≤ α" checked by R
independent runs and an exact upper confidence bound on the failure rate.

A trial (:class:`UtilityTrial`) runs a configuration of the paper R times, run ``r`` on data and
learner randomness drawn from seed ``r`` alone (so the runs are independent and the trial is
reproducible), and counts the runs that *fail* the claim (error above α, or, where the claim has a
precondition such as a target within α on the sample, the precondition not met: those runs count
against the claim, so the count can only be too high). The claim's failure probability p is then
bounded above by the one-sided Clopper–Pearson bound at the trial's confidence
(:func:`~dpledger.verify.audit.montecarlo.statistics.clopper_pearson_upper`, exact and widened
outward until the binomial tail check holds), and the trial passes only when that bound is below β
(:attr:`TrialResult.passes`): a learner failing more often than β fails the trial with probability
at least the confidence. Nothing is rounded in the claim's favour: the count is an integer, the bound
is an upper bound on p at the stated level, and the comparison with β is exact on floats.

Errors are measured where they can be exact: population error over the whole grid for the seed-000
learners on finite domains (every point of the domain evaluated, uniform marginal), the empirical
errors the statement itself names (err_S) for LabelBoost and the oracle. The agnostic learners of
seed 002 have continuous marginals; their error is estimated on fresh test points, and the claim's α
is stated for that estimate.

:data:`TRIALS` is the catalogue, by name, each naming the statements whose utility parts it checks
(a registry part lists its trials, :attr:`~dpledger.verify.paper.registry.Part.trials`); the tests
run them, and
``benchmarks/bench_utility_trials.py`` prints and records R, the failures, the bound and the time.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from dpledger.verify.audit.montecarlo.statistics import clopper_pearson_upper

if TYPE_CHECKING:
    from dpledger.learners.agnostic.data import HalfspaceSample
    from dpledger.learners.agnostic.hermite import HermiteBasis
    from dpledger.learners.boolean.composition import BooleanComposition
    from dpledger.learners.calibration.free_constants import UtilitySplit
    from dpledger.learners.component_oracles import ComponentOracle
    from dpledger.learners.concept_classes import Components, ConceptClass
    from dpledger.learners.randomness import Randomness

CONFIDENCE = 0.95
"""The confidence at which every trial's bound on the failure rate holds."""

TRIALS_FILE = "utility-trials.json"
"""The record of the trials' figures in the reports folder (``benchmarks/bench_utility_trials.py``)."""


@dataclass(frozen=True)
class TrialResult:
    """The outcome of a trial: R runs, the failures among them, the bound and the time."""

    trial: str
    runs: int
    failures: int
    beta: float
    confidence: float
    upper: float
    """One-sided Clopper–Pearson upper bound on the failure probability at ``confidence``."""
    seconds: float
    """CPU seconds of the R runs (this process)."""

    @property
    def passes(self) -> bool:
        """Whether the bound on the failure rate is below β."""
        return self.upper < self.beta

    def describe(self) -> str:
        """One line: runs, failures, the bound against β, the verdict and the time."""
        verdict = "passes" if self.passes else "FAILS"
        return (
            f"{self.trial}: {self.failures} of {self.runs} runs fail; failure rate ≤ {self.upper:.4f} "
            f"at {self.confidence:.0%} confidence (Clopper–Pearson) against β = {self.beta:g}: {verdict} "
            f"({self.seconds:.1f} CPU s)"
        )

    def to_dict(self) -> dict[str, object]:
        """The result as JSON-ready data (``passes`` included)."""
        return {
            "trial": self.trial,
            "runs": self.runs,
            "failures": self.failures,
            "beta": self.beta,
            "confidence": self.confidence,
            "upper": self.upper,
            "passes": self.passes,
            "seconds": round(self.seconds, 2),
        }


def failure_rate_bound(failures: int, runs: int, confidence: float = CONFIDENCE) -> float:
    """An upper bound on a failure probability from ``failures`` of ``runs`` independent runs.

    Args:
        failures: How many runs failed (0 ≤ failures ≤ runs).
        runs: How many independent runs (≥ 1).
        confidence: The level at which the bound holds, in (0, 1).

    Returns:
        The one-sided Clopper–Pearson upper bound: P[p ≤ bound] ≥ confidence.

    Raises:
        ValueError: counts out of range or a confidence outside (0, 1).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    return clopper_pearson_upper(failures, runs, 1 - confidence)


def runs_needed(beta: float, confidence: float = CONFIDENCE) -> int:
    """The fewest runs at which a trial with no failure passes: 1 − (1 − c)^{1/R} < β.

    Args:
        beta: The claim's failure probability, in (0, 1).
        confidence: The trial's confidence, in (0, 1).

    Returns:
        The smallest R whose zero-failure bound is below β.

    Raises:
        ValueError: β or the confidence outside (0, 1).
    """
    if not 0 < beta < 1:
        raise ValueError(f"beta must lie in (0, 1), got {beta!r}")
    runs = max(1, math.ceil(math.log(1 - confidence) / math.log(1 - beta)))
    while failure_rate_bound(0, runs, confidence) >= beta:
        runs += 1
    return runs


@dataclass(frozen=True)
class UtilityTrial:
    """A utility claim as a statistical test: the configuration run R times.

    Attributes:
        name: The trial's name, by which registry parts list it.
        statements: The registry keys of the statements whose utility parts it checks.
        setting: What is run, in words (the class, sizes, α, the error measured).
        beta: The claim's failure probability.
        runs: R.
        fails: Run ``r`` from seed ``r`` alone; True when it fails the claim.
    """

    name: str
    statements: tuple[str, ...]
    setting: str
    beta: float
    runs: int
    fails: Callable[[int], bool]

    def run(self, confidence: float = CONFIDENCE) -> TrialResult:
        """Run the R runs and bound the failure rate.

        Args:
            confidence: The level of the bound.

        Returns:
            The :class:`TrialResult`.
        """
        start = time.process_time()
        failures = sum(bool(self.fails(seed)) for seed in range(self.runs))
        return TrialResult(
            self.name,
            self.runs,
            failures,
            self.beta,
            confidence,
            failure_rate_bound(failures, self.runs, confidence),
            time.process_time() - start,
        )


def _carry_forward_intervals(seed: int) -> bool:
    """Theorem 7.2 on intervals over [0, 1024), α = β = 0.2: m = max(LabelBoost term, M_A) with the
    substitute constant c = 1, n = 3m realizable uniform records; fails when the population error
    (every grid point) exceeds α."""
    from dpledger.learners.calibration.sample_size import UtilityTarget, labelboost_term
    from dpledger.learners.carry_forward import CarryForwardLearner
    from dpledger.learners.component_oracles import completion_oracle_m
    from dpledger.learners.concept_classes import Intervals
    from dpledger.learners.synthetic import random_concept

    concept, alpha = Intervals(2**10), 0.2
    target = UtilityTarget.of("Theorem 7.2", concept.k, concept.vc_dimension, "0.2", "0.2", "0.5", "1e-6")
    m = max(
        labelboost_term(target), completion_oracle_m(concept.domain_size + 1, target.tau, target.beta_oracle)
    )
    data = np.random.default_rng(seed)
    concept_target = random_concept(concept, data)
    X = data.integers(0, concept.domain_size, size=3 * m)
    y = concept.evaluate(concept_target, X).astype(int)
    learner = CarryForwardLearner(concept, m=m, alpha=alpha, beta=0.2, random_state=seed).fit(X, y)
    grid = np.arange(concept.domain_size)
    error = np.mean(concept.evaluate(learner.hypothesis_, grid) != concept.evaluate(concept_target, grid))
    return bool(error > alpha)


def _labelboost_intervals(seed: int) -> bool:
    """Corollary 3.13 on intervals over [0, 10⁶) (v = 2), α = 0.05, m = |S| = |T| = 400 (≥ 268, the
    bound with c = 1 at β = 0.05), the target [2·10⁵, 7·10⁵) with labels flipped at rate α/2; fails
    when err_S(target) > α (the precondition, counted against the claim) or err_S(h) > 2α."""
    from dpledger.learners.concept_classes import Intervals
    from dpledger.learners.labelboost import labelboost
    from dpledger.learners.randomness import Sampled

    alpha, m = 0.05, 400
    data = np.random.default_rng(seed)
    xs = data.integers(0, 10**6, m)
    clean = ((xs >= 200_000) & (xs < 700_000)).astype(int)
    ys = np.where(data.random(m) < alpha / 2, 1 - clean, clean)
    result = labelboost(Intervals(10**6), xs, ys, data.integers(0, 10**6, m), Sampled(seed))
    return bool(np.mean(ys != clean) > alpha or np.mean(result.labeled != ys) > 2 * alpha)


def _relabel_oracle(depth: int) -> Callable[[int], bool]:
    """Corollary 8.17's oracle on x1 ∧ ¬x2 over thresholds on [0, 128], τ = β_A = 1/4, |S| = M_{A,i}
    realizable records of a uniformly drawn witness, prefix the witness's first ``depth``
    components; a run fails when the chosen y_i leaves no completion within τ of S's labels
    (the least disagreement over completions, err_S, above τ)."""

    def fails(seed: int) -> bool:
        from dpledger.learners.boolean.composition import BooleanComposition, component_class
        from dpledger.learners.boolean.formula import parse_formula
        from dpledger.learners.boolean.oracle import RelabelOracle
        from dpledger.learners.calibration.boolean import oracle_m
        from dpledger.learners.randomness import Sampled

        C = BooleanComposition(parse_formula("x1 and not x2"), [component_class("thresholds", 128)] * 2)
        tau = Fraction(1, 4)
        size = oracle_m(1, len(C.spaces[0]), tau, tau)
        data = np.random.default_rng([depth, seed])
        witness = ((int(data.integers(129)),), (int(data.integers(129)),))
        X = data.integers(0, 128, size=size)
        y = C.evaluate(witness, X)
        prefix = witness[:depth]
        chosen = RelabelOracle(tau=tau, beta_a=tau).select(C, prefix, X, y, Sampled(seed))
        labeling = C.components[depth].evaluate(chosen, C.project(C.distinct(X), depth))[None, :]
        return bool(C.completion_disagreements(prefix, labeling, X, y)[0] / size > tau)

    return fails


def _coordinate_oracle(oracle: str, component: int) -> Callable[[int], bool]:
    """A coordinate oracle of Section 8 on halfspaces over [[±16]]², ε_A = 4, τ = β_A = 1/4, at
    component ``component`` (0: w, 1: a₁, 2: a₂) of a realizable prefix state: the first
    ``component`` components of a uniformly drawn target, its own labels on |S| = M_A uniform grid
    points, M_A the calibration's (:func:`~dpledger.learners.calibration.halfspaces.requirement_at`)
    at the actual domain size N of Ỹ_i —

    * ``"exponential"`` (Lemma 8.7 with the exponential-mechanism substitute for QCOpt): M_A =
      ⌈(E + d)/τ⌉, E = 2(ln N − ln β_A)/ε_A; a run fails when Q_i^S(y_i) < m − (τm − d), i.e. when
      the completion Corollary 8.4 builds from y_i could disagree on more than τm points;
    * ``"ipconcave-em"`` (Lemma 8.13 with the exponential interior-point substitute): ρ = τ/2,
      β_IP = β_net = β_A/2, M_A = max(t·r, ⌈2d/τ⌉) with t the interior point's blocks and Lemma
      8.12's r; a run fails when Q_i^S(y_i) < (1 − ρ)m, the step of the proof that precedes
      Corollary 8.4."""

    def fails(seed: int) -> bool:
        import sympy

        from dpledger.learners.calibration.halfspaces import EPSILON_ORACLE, requirement_at
        from dpledger.learners.halfspaces import ExponentialDepthOracle, GridHalfspaces, IPConcaveOracle
        from dpledger.learners.halfspaces.oracles import objective_slots
        from dpledger.learners.randomness import Sampled
        from dpledger.learners.synthetic import random_concept

        d, grid, tau = 2, 16, sympy.Rational(1, 4)
        C = GridHalfspaces(d, grid)
        data = np.random.default_rng([component, seed])
        target = random_concept(C, data)
        prefix = tuple(target[:component])
        domain = C.next_values(prefix)
        # τ = β_A = 1/4; δ_A plays no part in these two (pure) oracles
        m = requirement_at(oracle, d, sympy.log(domain.size), tau, tau, sympy.Integer(0)).m_oracle
        share, epsilon_a = Fraction(1, 4), int(EPSILON_ORACLE)  # τ exactly, for the comparisons
        chooser: ExponentialDepthOracle | IPConcaveOracle
        if oracle == "exponential":
            chooser, least = ExponentialDepthOracle(epsilon=epsilon_a), m - (share * m - d)
        else:
            chooser = IPConcaveOracle(epsilon=epsilon_a, beta=float(share / 2), interior_point="exponential")
            least = (1 - share / 2) * m
        X = data.integers(-grid, grid + 1, size=(m, d))
        y = C.evaluate(target, X)
        value = chooser.select(C, prefix, X, y, Sampled(seed))
        return bool(objective_slots(X, y, prefix)(value) < least)

    return fails


def _empirical_learner(boundary: bool) -> Callable[[int], bool]:
    """Lemma 8.15's B̂ over intervals on [0, 128) with B the exponential learner at ε_B = 1 and
    α = β = 1/10: m = m_B(α, β, ε_B) (:func:`~dpledger.learners.calibration.boolean.exponential_learner_m`,
    the learner's PAC sample size), a realizable sample S of 9m records of a random target interval
    — uniform on the domain, or (``boundary``) a third of the records within two points of the
    target's ends, where a wrong hypothesis costs least — and a run fails when err_S(B̂(S)) > α."""

    def fails(seed: int) -> bool:
        from dpledger.learners.boolean.composition import HypothesisSpace
        from dpledger.learners.boolean.local_learners import empirical_learner
        from dpledger.learners.calibration.boolean import exponential_learner_m
        from dpledger.learners.concept_classes import Intervals
        from dpledger.learners.randomness import Sampled
        from dpledger.learners.synthetic import random_concept

        H, alpha = Intervals(128), Fraction(1, 10)
        m = exponential_learner_m(len(HypothesisSpace(H)), alpha, alpha, 1)
        data = np.random.default_rng([int(boundary), seed])
        target = random_concept(H, data)
        X = data.integers(0, 128, size=9 * m)
        if boundary:
            ends = np.array(target[:2])
            near = data.integers(0, len(X), size=3 * m)
            X[near] = np.clip(
                ends[data.integers(0, 2, size=3 * m)] + data.integers(-2, 3, size=3 * m), 0, 127
            )
        y = H.evaluate(target, X)
        h = empirical_learner(H, X, y, 1, m, Sampled(seed))
        return bool(np.mean(H.evaluate(h, X) != y) > alpha)

    return fails


LEARNER_TARGET = ("0.2", "0.2", "0.5", "1e-6")
"""(α, β, ε, δ) of the trials that run a seed-000 learner at its theorem's n."""


@functools.cache
def halfspace_theorem_m(oracle: str) -> int:
    """Theorem 8.5's active sample size m for halfspaces over [[±16]]¹ (d = 1, k = 2) at
    :data:`LEARNER_TARGET` with ``oracle``'s M_A (``"exponential"``: Theorem 8.5 with the
    exponential oracle; ``"qcopt"``: Theorem 8.8) on the perturbed grid at the theorem's n —
    :func:`~dpledger.learners.calibration.halfspaces.theorem_8_5`, as ``dpledger calibrate``."""
    from dpledger.learners.calibration.halfspaces import theorem_8_5

    return theorem_8_5(oracle, 1, 16, *LEARNER_TARGET).result.m


def _learner_error(
    C: ConceptClass,
    oracle: ComponentOracle,
    m: int,
    points: tuple[np.ndarray, np.ndarray],
    target: Components,
    halved: bool,
    seed: int,
) -> float:
    """CarryForwardLearner on ``C`` with ``oracle`` and active sample size m at (α, β, ε, δ) =
    :data:`LEARNER_TARGET` — α, β and δ halved when ``halved``, as Theorem 8.5's proof runs
    Algorithm 2 — fitted on the first of ``points`` labelled by ``target``; returns the error over
    the second, the whole domain (uniform marginal: the population error, exactly)."""
    from dpledger.learners.carry_forward import CarryForwardLearner

    alpha, beta, epsilon, delta = (Fraction(value) for value in LEARNER_TARGET)
    scale = 2 if halved else 1
    learner = CarryForwardLearner(
        C,
        oracle=oracle,
        epsilon=epsilon,
        delta=delta / scale,
        alpha=float(alpha / scale),
        beta=float(beta / scale),
        m=m,
        random_state=seed,
    )
    X, domain = points
    learner.fit(X, C.evaluate(target, X))
    return float(np.mean(C.evaluate(learner.hypothesis_, domain) != C.evaluate(target, domain)))


def halfspace_learner_error(oracle: ComponentOracle, m: int, seed: int) -> float:
    """CarryForwardLearner on halfspaces over [[±16]]¹ with ``oracle``, run as Theorem 8.5's proof
    runs Algorithm 2 — at (α/2, β/2, ε, δ/2) of :data:`LEARNER_TARGET` — on n = 3m uniform grid
    points labelled by a target drawn component by component from seed ``seed``; returns the
    population error over the whole grid (33 points, uniform marginal, exact).

    The learner reads only the m records it draws from each of its three reservoirs, each
    reservoir once for k = 2, so its output has the same law at n = 3m as at the theorem's n."""
    from dpledger.learners.halfspaces import GridHalfspaces
    from dpledger.learners.synthetic import random_concept

    C = GridHalfspaces(1, 16)
    data = np.random.default_rng([85, seed])
    target = random_concept(C, data)
    points = (data.integers(-16, 17, size=(3 * m, 1)), np.arange(-16, 17)[:, None])
    return _learner_error(C, oracle, m, points, target, True, seed)


def _halfspaces_at_theorem_n(oracle: str) -> Callable[[int], bool]:
    """Theorem 8.5 (``"exponential"``) or 8.8 (``"qcopt"``) on halfspaces over [[±16]]¹: the
    learner with dpledger's oracle for it (the exponential mechanism; QCOptOracle, RecConcave —
    whose plan on these domains has depth 0, the exponential mechanism itself) at
    :func:`halfspace_theorem_m`; a run fails when the population error exceeds α = 0.2."""

    def fails(seed: int) -> bool:
        from dpledger.learners.halfspaces import ExponentialDepthOracle, QCOptOracle

        chooser = ExponentialDepthOracle() if oracle == "exponential" else QCOptOracle()
        return halfspace_learner_error(chooser, halfspace_theorem_m(oracle), seed) > float(
            Fraction(LEARNER_TARGET[0])
        )

    return fails


def boolean_composition() -> BooleanComposition:
    """x1 ∧ ¬x2 over thresholds on [0, 32): the intervals [t₁, t₂) as a Boolean composition (k = 2)."""
    from dpledger.learners.boolean.composition import BooleanComposition, component_class
    from dpledger.learners.boolean.formula import parse_formula

    return BooleanComposition(parse_formula("x1 and not x2"), [component_class("thresholds", 32)] * 2)


@functools.cache
def boolean_theorem_requirement() -> tuple[int, Fraction, Fraction]:
    """Theorem 8.19's active sample size m and its oracles' (τ, β_A) = (α/(40k), β/(4k)) for
    :func:`boolean_composition` at :data:`LEARNER_TARGET`
    (:func:`~dpledger.learners.calibration.boolean.theorem_8_19`, as ``dpledger calibrate 8.19 --k 2
    --domain-size 32``)."""
    from dpledger.learners.calibration.boolean import theorem_8_19

    C = boolean_composition()
    rows = [
        ("thresholds", H.vc_dimension, len(space)) for H, space in zip(C.components, C.spaces, strict=True)
    ]
    sample = theorem_8_19(rows, C.vc_dimension, *LEARNER_TARGET).sample
    return sample.m, Fraction(str(sample.run.tau)), Fraction(str(sample.run.beta_oracle))


def boolean_learner_error(oracle: ComponentOracle, m: int, seed: int) -> float:
    """CarryForwardLearner on :func:`boolean_composition` with ``oracle`` at (α, β, ε, δ) =
    :data:`LEARNER_TARGET` on n = 3m uniform points of [0, 32) labelled by [t₁, t₂), t₁ < t₂
    drawn uniformly from seed ``seed``; returns the population error over the whole domain
    (exact). As for :func:`halfspace_learner_error`, k = 2 makes the law of the output at
    n = 3m the law at the theorem's n."""
    data = np.random.default_rng([819, seed])
    low, high = sorted(int(t) for t in data.choice(33, size=2, replace=False))
    points = (data.integers(0, 32, size=3 * m), np.arange(32))
    return _learner_error(boolean_composition(), oracle, m, points, ((low,), (high,)), False, seed)


def _boolean_at_theorem_n(seed: int) -> bool:
    """Theorem 8.19 on :func:`boolean_composition`: the learner with the relabel-and-learn oracles
    (Proposition 8.16) tuned to the theorem's (τ, β_A), at the theorem's m; a run fails when the
    population error exceeds α = 0.2."""
    from dpledger.learners.boolean.oracle import RelabelOracle

    m, tau, beta_a = boolean_theorem_requirement()
    error = boolean_learner_error(RelabelOracle(tau=tau, beta_a=beta_a), m, seed)
    return error > float(Fraction(LEARNER_TARGET[0]))


def lemma_7_1_split() -> UtilitySplit:
    """Lemma 7.1's parameters as dpledger's free-constant calibration chooses them for intervals
    (k = v = 2) at α = β = 0.2 with the oracles' share ρ = 1/2 of β: τ = α/(20(k + 1)) = 1/300,
    β_A = ρβ/k = 1/20, β_LB = β_VC = (1 − ρ)β/(2k + 1) = 1/50
    (:meth:`~dpledger.learners.calibration.free_constants.UtilitySplit.of`)."""
    import sympy

    from dpledger.learners.calibration.free_constants import UtilitySplit
    from dpledger.learners.calibration.sample_size import UtilityTarget

    run = UtilityTarget.of("Lemma 7.1", 2, 2, "0.2", "0.2", "0.5", "1e-6")
    return UtilitySplit.of(run, sympy.Rational(1, 2))


@functools.cache
def lemma_7_1_m() -> int:
    """Lemma 7.1's m = max(M_A(τ, β_A), (c/τ)(v ln(2/(τβ_LB)) + ln(1/β_VC))) at
    :func:`lemma_7_1_split` for intervals on [0, 1024): M_A of the completion-score oracle (ε_A = 4)
    and the free-constant calibration's substitute c = 1/40
    (:func:`~dpledger.learners.calibration.free_constants.labelboost_term`)."""
    from dpledger.learners.calibration.free_constants import labelboost_term
    from dpledger.learners.component_oracles import completion_oracle_m, largest_component_domain
    from dpledger.learners.concept_classes import Intervals

    C, split = Intervals(1024), lemma_7_1_split()
    return max(
        completion_oracle_m(largest_component_domain(C), split.tau, split.beta_oracle),
        labelboost_term(C.vc_dimension, split),
    )


def one_round_disagreements(oracle: ComponentOracle, seed: int) -> tuple[Fraction, Fraction]:
    """Round i = 1 < k = 2 of CarryForwardLearner on intervals over [0, 1024) with ``oracle`` at
    m = :func:`lemma_7_1_m`, n = 3m uniform points of a target drawn from seed ``seed``: the
    realizable prefix state (∅, S₀) is the preliminary LabelBoost's relabelled R₀, witnessed by
    its h₀; returns err_{S₀}(g₁) = disc_{U(S₀)}(g₁, h₀) and disc_D(g₁, h₀) over the whole grid
    (uniform D, exact), g₁ the hypothesis the round's LabelBoost selects (the learner's
    round telemetry)."""
    from dpledger.learners.carry_forward import CarryForwardLearner
    from dpledger.learners.concept_classes import Intervals
    from dpledger.learners.synthetic import random_concept

    C, m = Intervals(1024), lemma_7_1_m()
    data = np.random.default_rng([71, seed])
    target = random_concept(C, data)
    X = data.integers(0, 1024, size=3 * m)
    grid = np.arange(1024)
    learner = CarryForwardLearner(C, oracle=oracle, m=m, random_state=seed, telemetry=True)
    first = learner.fit(X, C.evaluate(target, X), X_holdout=grid).rounds_[0]
    assert first.population_disagreement is not None  # the holdout was given
    return (
        Fraction(round(first.labelboost_disagreement * m), m),
        Fraction(round(first.population_disagreement * len(grid)), len(grid)),
    )


@functools.cache
def _one_round(seed: int) -> tuple[Fraction, Fraction]:
    """:func:`one_round_disagreements` with the completion-score oracle (ε_A = 4), kept so that
    the two trials of Lemma 7.1 share their runs."""
    from dpledger.learners.component_oracles import CompletionScoreOracle

    return one_round_disagreements(CompletionScoreOracle(), seed)


def _one_round_on_the_sample(seed: int) -> bool:
    """Lemma 7.1's first half: a run fails when err_{S₀}(g₁) > 2τ."""
    return _one_round(seed)[0] > 2 * Fraction(str(lemma_7_1_split().tau))


def _one_round_on_the_population(seed: int) -> bool:
    """Lemma 7.1's second half: a run fails when disc_D(g₁, h₀) ≥ 20τ."""
    return _one_round(seed)[1] >= 20 * Fraction(str(lemma_7_1_split().tau))


def _train_and_test(rng: Randomness, marginal: str = "gaussian") -> tuple[HalfspaceSample, HalfspaceSample]:
    """The agnostic trials' data: 20,000 training points of ``marginal`` in d = 10, a random
    halfspace's labels flipped at rate 0.1 (OPT = 0.1), and 20,000 fresh test points of the same
    distribution."""
    from dpledger.learners.agnostic.data import halfspace_data, labelled_sample

    train = halfspace_data(20_000, 10, 0.1, "random", rng, marginal=marginal)
    return train, labelled_sample(20_000, train.w, train.t, 0.1, "random", rng, marginal=marginal)


SEED_ALGORITHM: dict[str, dict[str, Any]] = {
    "improper": {"logistic_share": None},
    "proper": {"logistic_fraction": None},
    "semi-agnostic": {"logistic_fraction": None},
}
"""The seed-002 learners' options that leave the seed's algorithm alone: the logistic-loss candidate
(ours, not in the seed) off, so that a trial of a seed claim cannot pass through it."""


def _agnostic_near_opt(name: str, alpha: float) -> Callable[[int], bool]:
    """An agnostic learner of seed 002 (its logistic candidate off: :data:`SEED_ALGORITHM`) at ε = 4,
    δ = 10⁻⁵ on d = 10 Gaussian points, n = 20,000, a random halfspace's labels flipped at rate 0.1
    (OPT = 0.1); a run fails when the error on 20,000 fresh points exceeds OPT + α."""

    def fails(seed: int) -> bool:
        from dpledger.learners.agnostic import (
            PrivateImproperLearner,
            PrivateProperLearner,
            PrivateSemiAgnosticLearner,
        )
        from dpledger.learners.randomness import Sampled

        learner_class = {
            "improper": PrivateImproperLearner,
            "proper": PrivateProperLearner,
            "semi-agnostic": PrivateSemiAgnosticLearner,
        }[name]
        rng = Sampled(seed)
        train, test = _train_and_test(rng)
        learner = learner_class(4, 1e-5, random_state=seed, **SEED_ALGORITHM[name]).fit(train.X, train.y)
        return bool(1 - learner.score(test.X, test.y) > 0.1 + alpha)

    return fails


PRIVACY_002 = (Fraction(4), Fraction(1, 10**5))
"""(ε, δ) of the seed-002 step trials: one release at the learners' ε = 4 (disjoint blocks compose
in parallel, so a step spends the whole budget)."""


def _subspace_step(private: bool) -> Callable[[int], bool]:
    """The proper learner's subspace step (Algorithm 2's correlation polynomial, degree 2 Hermite
    features, top-1 subspace of its coefficients) on d = 6 Gaussian points, n = 20,000: with
    ``private``, labels flipped at rate 0.1 and the exact discrete Gaussian at ε = 4, δ = 10⁻⁵
    (Theorem 3.1's step); without, noiseless labels and no noise (Lemma 3.2's statement). A run
    fails when the subspace's direction has |cos| to the target at most 0.9 (private) or 0.99."""

    def fails(seed: int) -> bool:
        from dpledger.learners.agnostic.data import halfspace_data
        from dpledger.learners.agnostic.hermite import HermiteBasis, multi_indices, top_subspace
        from dpledger.learners.agnostic.proper import private_correlation
        from dpledger.learners.randomness import Sampled

        rng = Sampled(np.random.SeedSequence([int(private), seed]))
        sample = halfspace_data(20_000, 6, 0.1 if private else 0.0, "random", rng)
        features = HermiteBasis(6, 2).features(sample.X)
        bound = float(np.max(np.linalg.norm(features, axis=1)))
        coef, _ = private_correlation(features, sample.y, bound, PRIVACY_002 if private else None, rng)
        cosine = abs(top_subspace(coef, multi_indices(6, 2), 1)[:, 0] @ sample.w)
        return bool(cosine <= (0.9 if private else 0.99))

    return fails


def threshold_error(scores: np.ndarray, labels: np.ndarray, validation: int) -> float:
    """The error on the records after the first ``validation`` of sign(score − θ), θ the threshold
    with the fewest errors on the first ``validation`` records (every cut between sorted scores)."""
    order = np.argsort(scores[:validation], kind="stable")
    sorted_scores, sorted_labels = scores[:validation][order], labels[:validation][order]
    positives_below = np.concatenate([[0], np.cumsum(sorted_labels == 1)])
    negatives_above = np.concatenate([[0], np.cumsum(sorted_labels[::-1] == -1)])[::-1]
    cut = int(np.argmin(positives_below + negatives_above))
    theta = -np.inf if cut == 0 else sorted_scores[cut - 1]
    predictions = np.where(scores[validation:] > theta, 1, -1)
    return float(np.mean(predictions != labels[validation:]))


def _private_polynomial(rng: Randomness, fresh: int) -> tuple[HalfspaceSample, HermiteBasis, np.ndarray]:
    """The private correlation polynomial of Lemma 3.4's setting: 20,000 d = 6 Gaussian points of
    a random halfspace, labels flipped at 0.1, degree-2 Hermite features, the exact discrete
    Gaussian at ε = 4, δ = 10⁻⁵; returns ``fresh`` further points of the same distribution, the
    basis and the released coefficients."""
    from dpledger.learners.agnostic.data import halfspace_data, labelled_sample
    from dpledger.learners.agnostic.hermite import HermiteBasis
    from dpledger.learners.agnostic.proper import private_correlation

    sample = halfspace_data(20_000, 6, 0.1, "random", rng)
    other = labelled_sample(fresh, sample.w, sample.t, 0.1, "random", rng)
    basis = HermiteBasis(6, 2)
    features = basis.features(sample.X)
    bound = float(np.max(np.linalg.norm(features, axis=1)))
    coef, _ = private_correlation(features, sample.y, bound, PRIVACY_002, rng)
    return other, basis, coef


def _polynomial_to_halfspace(through_subspace: bool) -> Callable[[int], bool]:
    """From the private correlation polynomial p (degree-2 Hermite features, d = 6 Gaussian
    points, n = 20,000, labels flipped at 0.1, ε = 4, δ = 10⁻⁵) to a classifier, judged on 20,000
    fresh points after a threshold chosen on 5,000 others: with ``through_subspace`` (Lemma 3.2's
    general claim) the halfspace ±v with v the top-1 direction of p's coefficients, a run failing
    when its error exceeds OPT + 0.02; without (Lemma 3.5) sign(p(x) − θ), failing above
    OPT + 0.03."""

    def fails(seed: int) -> bool:
        from dpledger.learners.agnostic.hermite import multi_indices, top_subspace
        from dpledger.learners.randomness import Sampled

        rng = Sampled(np.random.SeedSequence([2 + int(through_subspace), seed]))
        fresh, basis, coef = _private_polynomial(rng, 25_000)
        if through_subspace:
            direction = top_subspace(coef, multi_indices(6, 2), 1)[:, 0]
            error = min(threshold_error(sign * fresh.X @ direction, fresh.y, 5000) for sign in (1, -1))
            return bool(error > 0.1 + 0.02)
        return bool(threshold_error(basis.features(fresh.X) @ coef, fresh.y, 5000) > 0.1 + 0.03)

    return fails


def _log_concave_improper(seed: int) -> bool:
    """Theorem D.1: the improper learner with the uniform product marginal's moment basis (its
    logistic candidate off), at ε = 4,
    δ = 10⁻⁵ on d = 10 points uniform on [−√3, √3]^10 (isotropic log-concave), n = 20,000, a random
    halfspace's labels flipped at rate 0.1; a run fails when the error on 20,000 fresh points
    exceeds OPT + 0.06."""
    from dpledger.learners.agnostic import PrivateImproperLearner
    from dpledger.learners.agnostic.logconcave_basis import ProductMarginal
    from dpledger.learners.randomness import Sampled

    rng = Sampled(seed)
    train, test = _train_and_test(rng, "uniform")
    learner = PrivateImproperLearner(
        4, 1e-5, marginal=ProductMarginal("uniform"), random_state=seed, **SEED_ALGORITHM["improper"]
    )
    learner.fit(train.X, train.y)
    return bool(1 - learner.score(test.X, test.y) > 0.1 + 0.06)


def _noisy_descent(seed: int) -> bool:
    """Lemma 4.4: the semi-agnostic learner (its logistic candidate off) at ε = 4, δ = 10⁻⁵ against the
    same learner with privacy
    off (no noise in the initialization, threshold, gradient steps or selection), on the same
    d = 10 Gaussian points, n = 20,000, a random halfspace's labels flipped at rate 0.1; a run fails
    when the private learner's error on 20,000 fresh points exceeds the non-private one's by more
    than 0.02."""
    from dpledger.learners.agnostic import PrivateSemiAgnosticLearner
    from dpledger.learners.randomness import Sampled

    rng = Sampled(seed)
    train, test = _train_and_test(rng)
    private, exact = (
        PrivateSemiAgnosticLearner(epsilon, delta, random_state=seed, **SEED_ALGORITHM["semi-agnostic"]).fit(
            train.X, train.y
        )
        for epsilon, delta in ((4, 1e-5), (None, None))
    )
    return bool(exact.score(test.X, test.y) - private.score(test.X, test.y) > 0.02)


def _threshold_estimate(seed: int) -> bool:
    """Claim 4.6's estimate t̂ = Φ⁻¹(clip((1 − μ̂)/2, ρ, 1 − ρ)) from a block of 2,000 labels
    sign(x − t), x standard Gaussian, t uniform on [−1, 1], μ̂ with exact discrete Laplace noise at
    ε = 4; a run fails when |t̂ − t| > 0.1."""
    from dpledger.learners.agnostic.semi_agnostic import private_threshold
    from dpledger.learners.randomness import Sampled

    rng = Sampled(seed)
    t = float(np.random.default_rng(seed).uniform(-1, 1))
    labels = np.where(np.asarray(rng.gaussian(1.0, 2000)) >= t, 1.0, -1.0)
    estimate, _ = private_threshold(labels, PRIVACY_002, rng)
    return bool(abs(estimate - t) > 0.1)


def _noisy_initialization(seed: int) -> bool:
    """Claim 4.5's initialization w₀ = u/‖u‖, u the mean of y·clip(x, R) over a block of 900 records
    (the semi-agnostic learner's block at n = 20,000) plus the exact discrete Gaussian at ε = 4,
    δ = 10⁻⁵, R the learner's default clip radius, on d = 10 Gaussian points of a random halfspace
    with labels flipped at rate 0.1; a run fails when cos(w₀, w*) ≤ 1/2 (an angle of 60° or more)."""
    from dpledger.learners.agnostic.data import halfspace_data
    from dpledger.learners.agnostic.hermite import clip_rows
    from dpledger.learners.agnostic.semi_agnostic import default_clip_radius, noisy_mean, normalise
    from dpledger.learners.randomness import Sampled

    rng = Sampled(seed)
    sample = halfspace_data(900, 10, 0.1, "random", rng)
    radius = default_clip_radius(20_000, 10)
    u, _ = noisy_mean(
        sample.y[:, None] * clip_rows(sample.X, radius), 2 * Fraction(radius) / 900, PRIVACY_002, rng
    )
    return bool(normalise(u) @ sample.w <= 0.5)


def clip_radius_exceeded(n: int, dim: int, radius: float, seed: int) -> bool:
    """Whether some of n standard Gaussian points in ``dim`` dimensions, drawn from seed ``seed``,
    lies beyond ``radius`` (would be clipped)."""
    points = np.random.default_rng([63, seed]).standard_normal((n, dim))
    return bool(np.max(np.einsum("ij,ij->i", points, points)) > radius**2)


def _clip_radius(seed: int) -> bool:
    """Lemma F.3 as the semi-agnostic learner uses it: Laurent–Massart's per-point bound at
    u = ln(100n), a union bound over the n points — R = ``default_clip_radius(n, d)`` — at n =
    20,000, d = 10; a run fails when some point lies beyond R (β = 0.01)."""
    from dpledger.learners.agnostic.semi_agnostic import default_clip_radius

    return clip_radius_exceeded(20_000, 10, default_clip_radius(20_000, 10), seed)


@functools.cache
def threshold_block() -> tuple[int, Fraction, Fraction]:
    """Theorem 4.1's calibration at ``dpledger calibrate 4.1``'s defaults (α = 0.2, β = 0.1, ε =
    0.5, δ = 10⁻⁶, d = 10; :func:`~dpledger.learners.calibration.agnostic_sample_size.sample_size`):
    the block size it asks for the threshold tolerance |μ̂ − μ| ≤ ŏ_min/4 (the requirement named
    "threshold (Claim 4.6)": its sampling part ŏ/8 by Hoeffding plus its Laplace part ŏ/8), ŏ_min,
    and the tolerance's failure probability — the Algorithm 3 runs' share of β spread evenly over
    their J(T + 2) blocks."""
    from dpledger.learners.calibration.agnostic_sample_size import sample_size

    chain = sample_size("Theorem 4.1", alpha="0.2", beta="0.1", epsilon="0.5", delta="1e-6", dim=10)
    parameters = chain.parameters
    requirement = parameters["requirements"]["threshold (Claim 4.6)"]
    blocks = parameters["guesses"] * (parameters["T"] + 2)
    return (
        requirement["statistical"] + requirement["privacy"],
        Fraction(parameters["smallest_guess"]),
        Fraction(parameters["failure_shares"]["Algorithm 3 runs"]) / blocks,
    )


def threshold_argument_misses(block: int, seed: int) -> bool:
    """The private threshold estimate of Algorithm 3 step 7 (``private_threshold``: t̂ = Φ⁻¹(clip((1 −
    μ̂)/2, ρ, 1 − ρ)), μ̂ the label mean plus exact discrete Laplace noise at ε = 0.5) on a block
    of ``block`` labels sign(x − t), x standard Gaussian, t uniform on [−1, 1], flipped at rate
    0.1 (the block's count of +1 labels drawn from its exact binomial law); whether the clipped
    argument Φ(t̂) misses the population's (1 − μ)/2, μ = E[y], by more than ŏ_min/8
    (:func:`threshold_block`) — i.e. |μ̂ − μ| ≤ ŏ_min/4 failed, the clip to [ρ, 1 − ρ] being a
    contraction towards (1 − μ)/2 ∈ [ρ, 1 − ρ]."""
    from scipy.special import ndtr

    from dpledger.learners.agnostic.semi_agnostic import private_threshold
    from dpledger.learners.randomness import Sampled

    data = np.random.default_rng([49, seed])
    t = float(data.uniform(-1, 1))
    positive = 0.9 * float(ndtr(-t)) + 0.1 * float(ndtr(t))  # P[y = 1]
    labels = np.where(np.arange(block) < data.binomial(block, positive), 1.0, -1.0)
    estimate, _ = private_threshold(labels, (Fraction(1, 2), Fraction(1, 10**6)), Sampled(seed))
    return bool(abs(float(ndtr(estimate)) - (1 - positive)) > float(threshold_block()[1] / 8))


def _threshold_argument(seed: int) -> bool:
    """Claim C.9's DP analogue at the chain's threshold block (:func:`threshold_argument_misses`)."""
    return threshold_argument_misses(threshold_block()[0], seed)


def _regression_step(seed: int) -> bool:
    """Lemma 3.4's private regression step (``private_correlation``: the mean of y·φ(x) over the
    degree-2 Hermite features plus the exact discrete Gaussian at ε = 4, δ = 10⁻⁵) on d = 6
    Gaussian points, n = 20,000, labels flipped at 0.1. The features are orthonormal under the
    Gaussian, so the excess squared loss over the best degree-2 polynomial is ‖c − c*‖²; c* is
    the same correlation on 200,000 fresh points of the same distribution (its own error, about
    F/200,000 ≈ 1.4·10⁻⁴, is below the tolerance). A run fails when ‖c − c*‖² > 0.01."""
    from dpledger.learners.agnostic.proper import private_correlation
    from dpledger.learners.randomness import Sampled

    rng = Sampled(seed)
    reference, basis, coef = _private_polynomial(rng, 200_000)
    best, _ = private_correlation(basis.features(reference.X), reference.y, 1e9, None, rng)
    return bool(np.sum((coef - best) ** 2) > 0.01)


def _correct_guess(seed: int) -> bool:
    """Proposition 4.2: the semi-agnostic learner (its logistic candidate off) with one OPT guess, the
    correct one (0.1), at
    ε = 4, δ = 10⁻⁵ on d = 10 Gaussian points, n = 20,000, a random halfspace's labels flipped at
    rate 0.1; a run fails when the error on 20,000 fresh points exceeds 1.3·OPT (our constant for
    the proposition's O(OPT))."""
    from dpledger.learners.agnostic import PrivateSemiAgnosticLearner
    from dpledger.learners.randomness import Sampled

    rng = Sampled(seed)
    train, test = _train_and_test(rng)
    learner = PrivateSemiAgnosticLearner(
        4, 1e-5, n_guesses=1, first_guess=0.1, random_state=seed, **SEED_ALGORITHM["semi-agnostic"]
    )
    learner.fit(train.X, train.y)
    return bool(1 - learner.score(test.X, test.y) > 1.3 * 0.1)


TRIALS: dict[str, UtilityTrial] = {
    trial.name: trial
    for trial in (
        UtilityTrial(
            "carry-forward on intervals",
            ("000:Theorem 7.2", "000:Corollary 7.3", "000:Theorem 5.1", "000:Theorem 1.1"),
            "CarryForwardLearner, intervals on [0, 1024), α = β = 0.2, Theorem 7.2's m (c = 1), n = 3m, "
            "population error over the whole grid",
            0.2,
            60,
            _carry_forward_intervals,
        ),
        UtilityTrial(
            "LabelBoost on intervals",
            ("000:Corollary 3.13",),
            "LabelBoost, intervals on [0, 10⁶), α = β = 0.05, m = 400, flips at α/2, err_S(h) ≤ 2α",
            0.05,
            200,
            _labelboost_intervals,
        ),
        UtilityTrial(
            "relabelling oracle, first component",
            ("000:Corollary 8.17", "000:Lemma 8.18", "000:Corollary B.1"),
            "the relabelling oracle, x1 ∧ ¬x2 over thresholds on [0, 128], τ = β_A = 1/4, |S| = M_{A,1}, "
            "first component (empty prefix)",
            0.25,
            60,
            _relabel_oracle(0),
        ),
        UtilityTrial(
            "relabelling oracle, second component",
            ("000:Corollary 8.17", "000:Lemma 8.18", "000:Corollary B.1"),
            "the relabelling oracle as in Corollary 8.17, second component (prefix: the witness's first)",
            0.25,
            60,
            _relabel_oracle(1),
        ),
        *(
            UtilityTrial(
                f"coordinate oracle (exponential), component {i + 1}",
                ("000:Lemma 8.7",),
                f"the exponential-mechanism coordinate oracle (the baseline; QCOpt's RecConcave plan has depth 0 "
                f"here), halfspaces on [[±16]]², "
                f"ε_A = 4, τ = β_A = 1/4, |S| = ⌈(E + d)/τ⌉ with E = 2 ln(N/β_A)/ε_A, component {i + 1} of a "
                "realizable prefix state, Q_i^S(y_i) ≥ m − (τm − d)",
                0.25,
                60,
                _coordinate_oracle("exponential", i),
            )
            for i in range(3)
        ),
        *(
            UtilityTrial(
                f"IPConcave oracle, component {i + 1}",
                ("000:Lemma 8.13",),
                f"the IPConcave coordinate oracle (exponential interior point), halfspaces on [[±16]]², "
                f"ε_A = 4, τ = β_A = 1/4, |S| = max(t·r, ⌈2d/τ⌉) (ρ = τ/2, Lemma 8.12's r), component "
                f"{i + 1} of a realizable prefix state, Q_i^S(y_i) ≥ (1 − ρ)m",
                0.25,
                60,
                _coordinate_oracle("ipconcave-em", i),
            )
            for i in range(3)
        ),
        UtilityTrial(
            "empirical learner, uniform sample",
            ("000:Lemma 8.15",),
            "B̂ (exponential learner, ε_B = 1) over intervals on [0, 128), α = β = 1/10, |S| = 9·m_B(α, β), "
            "uniform realizable S, err_S(B̂(S)) ≤ α",
            0.1,
            60,
            _empirical_learner(False),
        ),
        UtilityTrial(
            "empirical learner, sample at the boundary",
            ("000:Lemma 8.15",),
            "as the uniform case, a third of S within two points of the target's ends",
            0.1,
            60,
            _empirical_learner(True),
        ),
        UtilityTrial(
            "one round of carry-forward, on the sample",
            ("000:Lemma 7.1",),
            "round 1 of CarryForwardLearner (completion-score oracle, ε_A = 4), intervals on [0, 1024), "
            "τ = 1/300, β_A = 1/20, β_LB = β_VC = 1/50, m = max(M_A, the lemma's term with c = 1/40): "
            "err_{S₀}(g₁) ≤ 2τ, β = β_A + β_LB",
            0.07,
            60,
            _one_round_on_the_sample,
        ),
        UtilityTrial(
            "one round of carry-forward, on the population",
            ("000:Lemma 7.1",),
            "the runs of Lemma 7.1's first trial: disc_D(g₁, h₀) < 20τ over the whole grid, β = β_A + "
            "β_LB + β_VC",
            0.09,
            60,
            _one_round_on_the_population,
        ),
        UtilityTrial(
            "halfspace learner at Theorem 8.5's n",
            ("000:Theorem 8.5", "000:Theorem 1.2"),
            "CarryForwardLearner with the exponential coordinate oracle (ε_A = 4), halfspaces over "
            "[[±16]]¹ (d = 1, k = 2), α = β = 0.2, ε = 0.5, δ = 10⁻⁶, Theorem 8.5's m (M_A on the "
            "perturbed grid at the theorem's n), population error over the whole grid ≤ α",
            0.2,
            30,
            _halfspaces_at_theorem_n("exponential"),
        ),
        UtilityTrial(
            "halfspace learner at Theorem 8.8's n",
            ("000:Theorem 8.8", "000:Theorem 1.3"),
            "CarryForwardLearner with QCOptOracle (RecConcave; its plan on these domains has depth 0), halfspaces over "
            "[[±16]]¹ (d = 1, k = 2), α = β = 0.2, ε = 0.5, δ = 10⁻⁶, Theorem 8.8's m (Lemma 8.7's M_A "
            "with RecConcave's error bound on the perturbed grid), population error over the whole grid ≤ α",
            0.2,
            30,
            _halfspaces_at_theorem_n("qcopt"),
        ),
        UtilityTrial(
            "Boolean learner at Theorem 8.19's n",
            ("000:Theorem 8.19", "000:Theorem 1.4"),
            "CarryForwardLearner with the relabel-and-learn oracles (Proposition 8.16, ε_B = 1) at the "
            "theorem's τ = α/(40k), β_A = β/(4k), x1 ∧ ¬x2 over thresholds on [0, 32) (targets [t₁, t₂), "
            "t₁ < t₂), α = β = 0.2, ε = 0.5, δ = 10⁻⁶, Theorem 8.19's m, population error ≤ α",
            0.2,
            30,
            _boolean_at_theorem_n,
        ),
        UtilityTrial(
            "clip radius over the whole sample",
            ("002:Lemma F.3",),
            "the semi-agnostic learner's clip radius R² = d + 2√(du) + 2u, u = ln(100n) (Laurent–Massart "
            "per point, a union bound over the n points), n = 20,000 standard Gaussian points in d = 10: "
            "no point beyond R, β = 0.01",
            0.01,
            300,
            _clip_radius,
        ),
        UtilityTrial(
            "clipped threshold argument",
            ("002:Claim C.9",),
            "the label-mean threshold estimate t̂ = Φ⁻¹(clip((1 − μ̂)/2, ρ, 1 − ρ)) (exact discrete Laplace, "
            "ε = 0.5) on the block Theorem 4.1's calibration asks for its threshold tolerance (α = 0.2, "
            "β = 0.1, d = 10; ŏ_min = 1/8), labels of a threshold t uniform on [−1, 1] flipped at 0.1: "
            "|Φ(t̂) − (1 − μ)/2| ≤ ŏ_min/8, β = the runs' share β/4 over the chain's J(T + 2) = 14 blocks = 1/560",
            1 / 560,
            2000,
            _threshold_argument,
        ),
        UtilityTrial(
            "private subspace step",
            ("002:Theorem 3.1 (utility)",),
            "the proper learner's subspace step, d = 6 Gaussian, n = 20,000, flips at 0.1, degree 2, "
            "ε = 4, δ = 10⁻⁵: the top-1 direction has |cos| > 0.9 to the target",
            0.1,
            60,
            _subspace_step(True),
        ),
        UtilityTrial(
            "noiseless subspace step",
            ("002:Lemma 3.2",),
            "the correlation polynomial's top-1 subspace, d = 6 Gaussian, n = 20,000, noiseless labels, "
            "degree 2, no privacy noise: |cos| > 0.99 to the target",
            0.1,
            60,
            _subspace_step(False),
        ),
        UtilityTrial(
            "private threshold estimate",
            ("002:Claim 4.6",),
            "t̂ from 2,000 labels of a threshold t uniform on [−1, 1] (Gaussian x), exact discrete Laplace "
            "noise at ε = 4: |t̂ − t| ≤ 0.1",
            0.1,
            60,
            _threshold_estimate,
        ),
        UtilityTrial(
            "noisy initialization",
            ("002:Claim 4.5",),
            "w₀ from a block of 900 records, d = 10 Gaussian, flips at 0.1, exact discrete Gaussian at "
            "ε = 4, δ = 10⁻⁵: cos(w₀, w*) > 1/2",
            0.1,
            60,
            _noisy_initialization,
        ),
        UtilityTrial(
            "private regression step",
            ("002:Lemma 3.4",),
            "private_correlation on degree-2 Hermite features, d = 6 Gaussian, n = 20,000, flips at 0.1, "
            "ε = 4, δ = 10⁻⁵: excess squared loss ‖c − c*‖² ≤ 0.01 (c* from 200,000 fresh points)",
            0.1,
            60,
            _regression_step,
        ),
        UtilityTrial(
            "semi-agnostic learner, correct guess",
            ("002:Proposition 4.2",),
            "Algorithm 3 through the semi-agnostic learner (logistic candidate off) with the one guess "
            "OPT = 0.1, d = 10 Gaussian, "
            "n = 20,000, flips at 0.1, ε = 4: error ≤ 1.3·OPT",
            0.1,
            60,
            _correct_guess,
        ),
        UtilityTrial(
            "halfspace in the private subspace",
            ("002:Lemma 3.2",),
            "the private correlation polynomial's top-1 direction v, d = 6 Gaussian, n = 20,000, flips at "
            "0.1, ε = 4, δ = 10⁻⁵: the halfspace ±v with a threshold chosen on 5,000 fresh points errs ≤ "
            "OPT + 0.02 on 20,000 others",
            0.1,
            60,
            _polynomial_to_halfspace(True),
        ),
        UtilityTrial(
            "threshold of the private polynomial",
            ("002:Lemma 3.5",),
            "sign(p(x) − θ), p the private correlation polynomial (as in Lemma 3.4's trial), θ chosen on "
            "5,000 fresh points: error ≤ OPT + 0.03 on 20,000 others",
            0.1,
            60,
            _polynomial_to_halfspace(False),
        ),
        UtilityTrial(
            "improper learner, log-concave marginal",
            ("002:Theorem D.1 (utility)",),
            "the improper learner with the uniform product marginal's basis (logistic candidate off), d = 10 "
            "uniform on "
            "[−√3, √3]^10, n = 20,000, flips at 0.1, ε = 4: error ≤ OPT + 0.06",
            0.1,
            60,
            _log_concave_improper,
        ),
        UtilityTrial(
            "noisy gradient descent",
            ("002:Lemma 4.4", "002:Lemma C.12"),
            "the semi-agnostic learner (logistic candidate off) at ε = 4 against itself with privacy off, "
            "d = 10 Gaussian, "
            "n = 20,000, flips at 0.1: the private error exceeds the non-private one by at most 0.02",
            0.1,
            60,
            _noisy_descent,
        ),
        UtilityTrial(
            "improper learner near OPT",
            ("002:Theorem 2.1 (utility)",),
            "the improper learner (logistic candidate off), d = 10 Gaussian, n = 20,000, flips at 0.1, ε = 4: "
            "error ≤ OPT + 0.03",
            0.1,
            60,
            _agnostic_near_opt("improper", 0.03),
        ),
        UtilityTrial(
            "proper learner near OPT",
            ("002:Theorem 3.1 (utility)",),
            "the proper learner (logistic candidate off), d = 10 Gaussian, n = 20,000, flips at 0.1, ε = 4: "
            "error ≤ OPT + 0.03",
            0.1,
            60,
            _agnostic_near_opt("proper", 0.03),
        ),
        UtilityTrial(
            "semi-agnostic learner near OPT",
            ("002:Theorem 4.1 (utility)",),
            "the semi-agnostic learner (logistic candidate off), d = 10 Gaussian, n = 20,000, flips at 0.1, "
            "ε = 4: error ≤ OPT + 0.03",
            0.1,
            60,
            _agnostic_near_opt("semi-agnostic", 0.03),
        ),
    )
}
"""The utility trials by name."""
