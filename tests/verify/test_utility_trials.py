"""Utility claims of both seeds as statistical tests (:mod:`dpledger.verify.paper.utility_trials`):
R independent runs, a Clopper–Pearson upper bound on the failure rate at 95 % confidence, passed
only below the claim's β."""

import math
from fractions import Fraction

import pytest
import sympy

from dpledger.learners.boolean.oracle import RelabelOracle
from dpledger.learners.component_oracles import CompletionScoreOracle, ComponentOracle
from dpledger.learners.halfspaces import ExponentialDepthOracle
from dpledger.verify.paper.registry import REGISTRY
from dpledger.verify.paper.utility_trials import (
    CONFIDENCE,
    TRIALS,
    UtilityTrial,
    boolean_learner_error,
    boolean_theorem_requirement,
    clip_radius_exceeded,
    failure_rate_bound,
    halfspace_learner_error,
    halfspace_theorem_m,
    lemma_7_1_m,
    lemma_7_1_split,
    one_round_disagreements,
    runs_needed,
    threshold_argument_misses,
    threshold_block,
)


def passes(name: str) -> None:
    result = TRIALS[name].run()
    assert result.passes, result.describe()


def test_a_trial_passes_only_when_the_failure_rate_bound_is_below_beta():
    """The bound is Clopper–Pearson's: with no failure it is 1 − (1 − c)^{1/R}; R = runs_needed(β)
    is the first R below β; a learner failing every other run fails a trial of any size."""
    for beta in (0.05, 0.1, 0.2, 0.25):
        runs = runs_needed(beta)
        assert failure_rate_bound(0, runs) < beta <= failure_rate_bound(0, runs - 1)
        assert failure_rate_bound(0, runs) == pytest.approx(1 - (1 - CONFIDENCE) ** (1 / runs), rel=1e-6)
    assert not UtilityTrial("coin", (), "", 0.2, 200, lambda seed: seed % 2 == 0).run().passes
    assert UtilityTrial("never", (), "", 0.2, 14, lambda seed: False).run().passes
    with pytest.raises(ValueError, match="confidence"):
        failure_rate_bound(0, 10, 1.0)
    with pytest.raises(ValueError, match="beta"):
        runs_needed(0.0)


def test_every_statistical_part_names_trials_of_the_catalogue_that_name_its_statement():
    """A statistical utility part lists its trials; each trial exists and names that statement,
    and every trial checks some part."""
    used = set()
    for statement in REGISTRY:
        for part in statement.parts:
            if part.check == "statistical":
                assert part.trials, statement.key
                for name in part.trials:
                    assert statement.key in TRIALS[name].statements, (statement.key, name)
                    used.add(name)
    assert used == set(TRIALS)


def test_theorem_7_2_carry_forward_errs_above_alpha_in_at_most_a_beta_fraction_of_runs():
    """Theorem 7.2 (and Corollary 7.3, Theorems 5.1, 1.1): at m = max(LabelBoost term, M_A) the
    population error exceeds α = 0.2 with probability below β = 0.2 (60 runs)."""
    passes("carry-forward on intervals")


def test_corollary_3_13_labelboost_errs_above_two_alpha_in_at_most_a_beta_fraction_of_runs():
    """Corollary 3.13: with m ≥ (cv/α)·log(2/(αβ)) and a target within α on S, err_S(h) ≤ 2α with
    probability ≥ 1 − β = 0.95 (200 runs)."""
    passes("LabelBoost on intervals")


@pytest.mark.parametrize("component", ["first", "second"])
def test_corollary_8_17_oracle_is_tau_accurate_in_all_but_a_beta_a_fraction_of_runs(component):
    """Corollary 8.17 (Lemma 8.18, Corollary B.1): at |S| = M_{A,i}(τ, β_A), τ = β_A = 1/4, the
    chosen y_i leaves a completion within τ of the sample's labels with probability ≥ 1 − β_A
    (60 runs per component)."""
    passes(f"relabelling oracle, {component} component")


@pytest.mark.slow
@pytest.mark.parametrize("sample", ["uniform sample", "sample at the boundary"])
def test_lemma_8_15_empirical_learner_errs_above_alpha_on_its_sample_in_at_most_a_beta_fraction(sample):
    """Lemma 8.15: B̂ (m of 9m records drawn with replacement, then the exponential learner) has
    err_S ≤ α = 1/10 on its realizable sample with probability ≥ 1 − β = 0.9 (60 runs per law)."""
    passes(f"empirical learner, {sample}")


@pytest.mark.parametrize("learner", ["improper", "proper", "semi-agnostic"])
def test_theorems_2_1_3_1_4_1_agnostic_learners_err_above_opt_plus_alpha_in_at_most_a_beta_fraction(learner):
    """Theorems 2.1, 3.1, 4.1 (utility) at n = 20,000, d = 10, ε = 4, random flips at 0.1: the
    error exceeds OPT + 0.03 with probability below β = 0.1 (60 runs each)."""
    passes(f"{learner} learner near OPT")


@pytest.mark.parametrize("component", [1, 2, 3])
def test_lemma_8_7_coordinate_oracle_leaves_depth_within_tau_in_all_but_a_beta_a_fraction_of_runs(component):
    """Lemma 8.7 (the exponential-mechanism substitute for QCOpt): at |S| = ⌈(E + d)/τ⌉, τ = β_A =
    1/4, the chosen coordinate's depth is at least m − (τm − d) with probability ≥ 1 − β_A (60 runs
    per component of halfspaces on [[±16]]²)."""
    passes(f"coordinate oracle (exponential), component {component}")


@pytest.mark.slow
@pytest.mark.parametrize("component", [1, 2, 3])
def test_lemma_8_13_ipconcave_oracle_keeps_depth_one_minus_rho_in_all_but_a_beta_a_fraction_of_runs(
    component,
):
    """Lemma 8.13: at |S| = max(t·r, ⌈2d/τ⌉), τ = β_A = 1/4, IPConcave's output has depth at least
    (1 − τ/2)m with probability ≥ 1 − β_A (60 runs per component of halfspaces on [[±16]]²)."""
    passes(f"IPConcave oracle, component {component}")


def test_a_coordinate_drawn_uniformly_from_the_domain_would_fail_the_lemma_8_7_trial():
    """The trial's criterion can fail: for the third component, the share of Ỹ_3 whose depth is
    below m − (τm − d) — a uniform chooser's failure probability, computed exactly from the slot
    counts — exceeds β_A = 1/4 on average over ten states (about 0.6 here)."""
    import numpy as np
    import sympy

    from dpledger.learners.calibration.halfspaces import requirement_at
    from dpledger.learners.halfspaces import GridHalfspaces
    from dpledger.learners.halfspaces.oracles import objective_slots
    from dpledger.learners.synthetic import random_concept

    C, shares = GridHalfspaces(2, 16), []
    for seed in range(10):
        data = np.random.default_rng([2, seed])
        target = random_concept(C, data)
        prefix = tuple(target[:2])
        domain = C.next_values(prefix)
        quarter = sympy.Rational(1, 4)
        m = requirement_at(
            "exponential", 2, sympy.log(domain.size), quarter, quarter, sympy.Integer(0)
        ).m_oracle
        X = data.integers(-16, 17, size=(m, 2))
        objective = objective_slots(X, C.evaluate(target, X), prefix)
        counts = np.array(domain.counts(objective.breakpoints), dtype=float)
        shares.append(counts[objective.scores < m - (m / 4 - 2)].sum() / counts.sum())
    assert np.mean(shares) > 0.25


def test_theorem_3_1_private_subspace_step_misses_the_direction_in_at_most_a_beta_fraction_of_runs():
    """Theorem 3.1's subspace step at ε = 4, δ = 10⁻⁵, d = 6, n = 20,000, flips at 0.1: the top-1
    direction has |cos| ≤ 0.9 to the target with probability below β = 0.1 (60 runs)."""
    passes("private subspace step")


def test_lemma_3_2_noiseless_subspace_misses_the_direction_in_at_most_a_beta_fraction_of_runs():
    """Lemma 3.2 with noiseless labels: the top-1 subspace misses the target's direction by |cos| ≤
    0.99 with probability below β = 0.1 (60 runs)."""
    passes("noiseless subspace step")


def test_claim_4_6_threshold_estimate_misses_by_more_than_a_tenth_in_at_most_a_beta_fraction_of_runs():
    """Claim 4.6: from 2,000 labels at ε = 4, |t̂ − t| > 0.1 with probability below β = 0.1 (60 runs)."""
    passes("private threshold estimate")


def test_claim_4_5_noisy_initialization_leaves_sixty_degrees_in_at_most_a_beta_fraction_of_runs():
    """Claim 4.5: the noisy initialization from 900 records at ε = 4 has cos(w₀, w*) ≤ 1/2 with
    probability below β = 0.1 (60 runs)."""
    passes("noisy initialization")


@pytest.mark.slow
def test_lemma_3_4_private_regression_step_exceeds_the_excess_loss_in_at_most_a_beta_fraction_of_runs():
    """Lemma 3.4: the private correlation step at ε = 4, δ = 10⁻⁵ (d = 6, n = 20,000) has excess
    squared loss above 0.01 with probability below β = 0.1 (60 runs)."""
    passes("private regression step")


def test_proposition_4_2_correct_guess_errs_above_1_3_opt_in_at_most_a_beta_fraction_of_runs():
    """Proposition 4.2: with the correct guess OPT = 0.1 the semi-agnostic learner errs above
    1.3·OPT with probability below β = 0.1 (60 runs, d = 10, n = 20,000, ε = 4)."""
    passes("semi-agnostic learner, correct guess")


def test_lemma_3_2_the_private_subspace_holds_a_halfspace_near_opt_in_all_but_a_beta_fraction_of_runs():
    """Lemma 3.2 for the private correlation polynomial: the halfspace along its top-1 direction
    errs above OPT + 0.02 with probability below β = 0.1 (60 runs, d = 6, n = 20,000, ε = 4)."""
    passes("halfspace in the private subspace")


def test_lemma_3_5_thresholding_the_private_polynomial_errs_above_opt_plus_alpha_in_at_most_a_beta_fraction():
    """Lemma 3.5: sign(p(x) − θ) for the private correlation polynomial errs above OPT + 0.03 with
    probability below β = 0.1 (60 runs)."""
    passes("threshold of the private polynomial")


@pytest.mark.slow
def test_theorem_d_1_log_concave_improper_learner_errs_above_opt_plus_alpha_in_at_most_a_beta_fraction():
    """Theorem D.1 (utility) at n = 20,000: the improper learner on the uniform cube (isotropic
    log-concave) errs above OPT + 0.06 with probability below β = 0.1 (60 runs, d = 10, ε = 4)."""
    passes("improper learner, log-concave marginal")


def test_a_random_direction_would_fail_the_lemma_3_2_trial():
    """The trial's criterion can fail: a direction drawn at random instead of the subspace's errs
    far above OPT + 0.02 on the same fresh points (threshold chosen the same way)."""
    import numpy as np

    from dpledger.learners.agnostic.data import halfspace_data, labelled_sample
    from dpledger.learners.randomness import Sampled
    from dpledger.verify.paper.utility_trials import threshold_error

    rng = Sampled(0)
    sample = halfspace_data(20_000, 6, 0.1, "random", rng)
    fresh = labelled_sample(25_000, sample.w, sample.t, 0.1, "random", rng)
    direction = np.random.default_rng(1).normal(size=6)
    direction -= (direction @ sample.w) * sample.w  # orthogonal to the target
    errors = [threshold_error(sign * fresh.X @ direction, fresh.y, 5000) for sign in (1, -1)]
    assert min(errors) > 0.3
    assert threshold_error(fresh.X @ sample.w, fresh.y, 5000) < 0.12  # the target's own direction passes


def test_lemma_4_4_noisy_descent_loses_more_than_two_points_in_at_most_a_beta_fraction_of_runs():
    """Lemma 4.4: the private semi-agnostic learner (ε = 4) errs more than 0.02 above the same
    learner without noise with probability below β = 0.1 (60 runs, d = 10, n = 20,000)."""
    passes("noisy gradient descent")


def test_lemma_c_12_noise_leaves_the_additive_error_in_all_but_a_beta_fraction_of_runs():
    """Lemma C.12 (the DP analogue): the noise raises the semi-agnostic learner's error by more
    than 0.02 with probability below β = 0.1 (the trial of Lemma 4.4, 60 runs)."""
    passes("noisy gradient descent")


class DataBlindOracle(ComponentOracle):
    """A broken oracle for the negative controls: the next component drawn uniformly from its
    domain whatever the sample (declaring the event of the oracle it stands in for)."""

    def __init__(self, declared: ComponentOracle) -> None:
        self.declared = declared

    def select(self, concept_class, prefix, X, y, rng):
        values = concept_class.next_values(prefix)
        return values[rng.integer(len(values))]

    def event(self, concept_class, prefix, sample_size):
        return self.declared.event(concept_class, prefix, sample_size)


def test_lemma_7_1_trials_take_m_and_beta_from_the_free_constant_split():
    """The two trials of Lemma 7.1 run at the split's τ, with β = β_A + β_LB and β_A + β_LB + β_VC,
    and m is the larger of M_A and the lemma's term (1490: M_A)."""
    split = lemma_7_1_split()
    assert split.tau == sympy.Rational(1, 300)
    assert TRIALS["one round of carry-forward, on the sample"].beta == float(
        split.beta_oracle + split.beta_labelboost
    )
    assert TRIALS["one round of carry-forward, on the population"].beta == float(
        split.beta_oracle + split.beta_labelboost + split.beta_vc
    )
    assert lemma_7_1_m() == 1490


@pytest.mark.slow
def test_lemma_7_1_one_round_errs_above_2_tau_on_its_sample_in_at_most_a_beta_fraction_of_runs():
    """Lemma 7.1 at its m (M_A of the completion-score oracle; the lemma's term with c = 1/40),
    intervals on [0, 1024), τ = 1/300: err_{S₀}(g₁) > 2τ with probability below β_A + β_LB = 0.07
    (60 runs)."""
    passes("one round of carry-forward, on the sample")


@pytest.mark.slow
def test_lemma_7_1_one_round_disagrees_by_20_tau_on_the_population_in_at_most_a_beta_fraction_of_runs():
    """Lemma 7.1's second half on the same runs: disc_D(g₁, h₀) ≥ 20τ with probability below
    β_A + β_LB + β_VC = 0.09 (60 runs)."""
    passes("one round of carry-forward, on the population")


def _blind_rounds() -> list[tuple[Fraction, Fraction]]:
    return [one_round_disagreements(DataBlindOracle(CompletionScoreOracle()), seed) for seed in range(10)]


def test_a_data_blind_oracle_would_fail_the_lemma_7_1_sample_trial():
    """The criterion can fail: with y₁ drawn uniformly from its domain, err_{S₀}(g₁) exceeds 2τ in
    at least 9 of 10 runs (β = 0.07)."""
    assert sum(sample > 2 * Fraction(1, 300) for sample, _ in _blind_rounds()) >= 9


def test_a_data_blind_oracle_would_fail_the_lemma_7_1_population_trial():
    """The criterion can fail: with y₁ drawn uniformly from its domain, disc_D(g₁, h₀) reaches 20τ
    in at least 4 of 10 runs (β = 0.09)."""
    assert sum(population >= 20 * Fraction(1, 300) for _, population in _blind_rounds()) >= 4


@pytest.mark.slow
@pytest.mark.parametrize("theorem", ["8.5", "8.8"])
def test_theorems_8_5_8_8_halfspace_learner_at_the_theorems_n_errs_above_alpha_in_at_most_a_beta_fraction(
    theorem,
):
    """Theorems 8.5 and 8.8 (and 1.2, 1.3) at d = 1, grid 16, α = β = 0.2: with the theorem's m
    (94,709 with either oracle: RecConcave's plan has depth 0 there) the population error exceeds α
    with probability below β (30 runs each)."""
    passes(f"halfspace learner at Theorem {theorem}'s n")


def test_a_data_blind_oracle_would_fail_the_halfspace_learner_trials():
    """The criterion can fail: the learner at Theorem 8.5's m with coordinates drawn uniformly from
    their domains errs above α = 0.2 in at least 4 of 10 runs (β = 0.2)."""
    m = halfspace_theorem_m("exponential")
    errors = [
        halfspace_learner_error(DataBlindOracle(ExponentialDepthOracle()), m, seed) for seed in range(10)
    ]
    assert sum(error > 0.2 for error in errors) >= 4


@pytest.mark.slow
def test_theorem_8_19_boolean_learner_at_the_theorems_n_errs_above_alpha_in_at_most_a_beta_fraction():
    """Theorem 8.19 (and 1.4) on x1 ∧ ¬x2 over thresholds on [0, 32), α = β = 0.2: with the
    theorem's m (493,731) and the relabel oracles at its τ, β_A the population error exceeds α
    with probability below β (30 runs)."""
    passes("Boolean learner at Theorem 8.19's n")


@pytest.mark.slow
def test_a_data_blind_oracle_would_fail_the_boolean_learner_trial():
    """The criterion can fail: the learner at Theorem 8.19's m with components drawn uniformly
    errs above α = 0.2 in at least 5 of 10 runs (β = 0.2)."""
    m, tau, beta_a = boolean_theorem_requirement()
    blind = DataBlindOracle(RelabelOracle(tau=tau, beta_a=beta_a))
    assert sum(boolean_learner_error(blind, m, seed) > 0.2 for seed in range(10)) >= 5


def test_lemma_f_3_no_point_beyond_the_clip_radius_in_all_but_a_beta_fraction_of_runs():
    """Lemma F.3 (Laurent–Massart per point, a union bound over the sample) at the semi-agnostic
    learner's radius, n = 20,000, d = 10: some point lies beyond it with probability below
    β = 0.01 (300 runs)."""
    passes("clip radius over the whole sample")


def test_the_per_point_radius_without_the_union_bound_would_fail_the_lemma_f_3_trial():
    """The criterion can fail: Laurent–Massart's radius at u = ln 100 (one point's 1 % bound, no
    union over the 20,000) is exceeded by some point in every one of 10 runs."""
    u = math.log(100)
    radius = math.sqrt(10 + 2 * math.sqrt(10 * u) + 2 * u)
    assert all(clip_radius_exceeded(20_000, 10, radius, seed) for seed in range(10))


def test_claim_c_9_trial_takes_block_tolerance_and_beta_from_theorem_4_1s_calibration():
    """The block (64,993 labels), ŏ_min = 1/8 and β = 1/560 are the chain's: its threshold
    requirement, smallest guess and the runs' share β/4 over J(T + 2) = 14 blocks."""
    block, smallest, beta = threshold_block()
    assert (block, smallest, beta) == (64_993, Fraction(1, 8), Fraction(1, 560))
    assert TRIALS["clipped threshold argument"].beta == float(beta)


def test_claim_c_9_clipped_threshold_argument_misses_in_at_most_a_beta_fraction_of_runs():
    """Claim C.9 (DP analogue, argument clipped to ρ) at Theorem 4.1's calibrated threshold block:
    |Φ(t̂) − (1 − μ)/2| > ŏ_min/8 with probability below β = 1/560 (2,000 runs)."""
    passes("clipped threshold argument")


def test_a_block_of_200_labels_would_fail_the_claim_c_9_trial():
    """The criterion can fail: on blocks of 200 labels the clipped argument misses by more than
    ŏ_min/8 in more than half of 40 runs."""
    assert sum(threshold_argument_misses(200, seed) for seed in range(40)) > 20
