"""Theorem 7.2's active sample size, Algorithm 2's n for it and the tight n (dpledger.learners.calibration.sample_size),
with Theorems 5.1 and 8.5/8.8/8.14 on top (dpledger.learners.calibration.halfspaces, dpledger.verify.paper.theorem_calibration)."""

import functools
import math
import re
from fractions import Fraction

import pytest
import sympy

from dpledger.accountant import account
from dpledger.accountant.section6 import Target, carry_forward_event, paper_m
from dpledger.learners.calibration.halfspaces import (
    ln_domain_size,
    ln_perturbed_grid,
    log_star,
    oracle_requirement,
    theorem_8_5,
)
from dpledger.learners.calibration.sample_size import (
    UtilityTarget,
    carry_forward_sample_complexity,
    labelboost_term,
)
from dpledger.learners.component_oracles import completion_oracle_m, largest_component_domain
from dpledger.learners.concept_classes import make_class
from dpledger.learners.halfspaces.domains import coordinate_domain
from dpledger.learners.halfspaces.recconcave import recconcave_error_bound
from dpledger.verify.paper.theorem_calibration import theorem_5_1

RUN = UtilityTarget.of("Theorem 5.1", 3, 3, "0.1", "0.1", "0.5", "1e-6")


def test_theorem_7_2_labelboost_term_is_the_formula_with_constant_one():
    assert labelboost_term(RUN) == math.ceil(3 * 3 / 0.1 * math.log(320 * 9 / 0.01))


def _constant_m(m: int, n: int) -> int:
    """An oracle requirement m_A(n) that does not depend on n."""
    return m


def test_theorem_7_2_m_is_the_larger_requirement_and_algorithm_2_gives_it_at_n_paper():
    for oracle_m in (10, 5000):
        sample = carry_forward_sample_complexity(RUN, functools.partial(_constant_m, oracle_m))
        assert sample.m == max(oracle_m, sample.m_labelboost)
        target = RUN.privacy(sample.n_paper)
        assert paper_m(target) == sample.m
        assert paper_m(target, sample.n_paper - 1) == sample.m - 1


def test_tight_n_is_the_smallest_certified_n_for_the_same_m():
    sample = carry_forward_sample_complexity(RUN, lambda n: 5000)
    assert sample.n_tight < sample.n_paper and sample.n_tight % 3 == 0

    def holds(n: int) -> bool:
        event = carry_forward_event(RUN.privacy(n), sample.m, "optimal", n)
        return account(event).guarantee.meets(RUN.epsilon, RUN.delta).holds

    assert holds(sample.n_tight) and not holds(sample.n_tight - 3)


def test_an_oracle_requirement_growing_with_n_is_iterated_to_its_fixed_point():
    sample = carry_forward_sample_complexity(RUN, lambda n: 2000 + int(math.log(n)) * 100)
    assert sample.rounds > 2
    assert sample.m_oracle == 2000 + int(math.log(sample.n_paper)) * 100


@pytest.mark.parametrize(
    ("values", "hypothesis"),
    [
        (("0.1", "0.1", "1.5", "1e-6"), "epsilon must be in (0, 1] (hypothesis of Theorem 5.1"),
        (("0", "0.1", "0.5", "1e-6"), "alpha must be in (0, 1)"),
        (("0.1", "1", "0.5", "1e-6"), "beta must be in (0, 1)"),
        (("0.1", "0.01", "0.5", "0.02"), "delta must be ≤ beta (hypothesis of Theorem 5.1)"),
    ],
)
def test_theorem_5_1_refuses_parameters_outside_its_hypotheses(values, hypothesis):
    with pytest.raises(ValueError, match=re.escape(hypothesis)):
        UtilityTarget.of("Theorem 5.1", 2, 2, *values)


def test_completion_oracle_requirement_makes_its_failure_probability_at_most_beta_a():
    tau, beta_a = sympy.Rational(1, 800), sympy.Rational(1, 80)
    m = completion_oracle_m(65537, tau, beta_a)
    failure = lambda size: 65537 * math.exp(-4 * float(tau) * size / 2)  # noqa: E731
    assert failure(m) <= float(beta_a) < failure(m - 1)


def test_grid_classes_components_range_over_the_n_plus_one_grid_values():
    for name, k in (("thresholds", 1), ("intervals", 2), ("rectangles", 4)):
        concept = make_class(name, 12)
        assert concept.k == k and largest_component_domain(concept) == 13


def test_theorem_5_1_with_a_class_uses_its_k_vc_and_completion_oracle():
    payload = theorem_5_1(
        None, None, "0.1", "0.1", "0.5", "1e-6", component_class="intervals", domain_size=2**16
    )["payload"]
    run = UtilityTarget.of("Theorem 5.1", 2, 2, "0.1", "0.1", "0.5", "1e-6")
    assert payload["M_A"] == completion_oracle_m(2**16 + 1, run.tau, run.beta_oracle)
    assert payload["run"]["k"] == 2 and payload["n_tight"] < payload["n_paper"]


# --- halfspaces (Theorem 8.5 and Appendix C) ---------------------------------------------------------


@pytest.mark.parametrize(("d", "grid", "n"), [(1, 2, 10), (2, 3, 50), (3, 2, 7)])
def test_lemma_c_7_perturbed_grid_bound_dominates_the_exact_integer(d, grid, n):
    beta_gp = sympy.Rational(1, 20)
    x_prime = 2 * d**2 * math.factorial(d) ** (d**3) * grid ** (d**6)
    delta = -(-d * n ** (d + 1) * 20 // 2)
    delta_prime = math.isqrt(4 * delta**2 * x_prime**2 * d)
    delta_prime += delta_prime**2 < 4 * delta**2 * x_prime**2 * d  # ⌈2ΔX′√d⌉
    exact = delta_prime * (grid + delta)
    bound = ln_perturbed_grid(d, grid, n, beta_gp)
    assert (
        math.log(exact) <= float(bound) <= math.log(exact) + 5 * math.log(2) + math.log(grid)
    )  # ⌈·⌉, X + Δ ≤ 2ΔX


@pytest.mark.parametrize("d", [1, 2, 3])
def test_domain_size_bound_dominates_the_domains_of_definition_8_2(d):
    grid = 5
    prefix: tuple[int | Fraction, ...] = (1,)
    largest = 2
    for _ in range(d):
        domain = coordinate_domain(d, grid, prefix)
        largest = max(largest, domain.size)
        prefix += (domain[0],)
    assert math.log(largest) <= float(ln_domain_size(d, sympy.log(grid)))


@pytest.mark.parametrize(("n", "stars"), [(3, 2), (100, 4), (10**6, 5), (10**30, 5)])
def test_log_star_counts_iterated_logarithms(n, stars):
    assert log_star(sympy.log(n)) == stars


def test_lemma_8_7_qcopt_requirement_is_recconcaves_error_plus_d_over_tau():
    """M_A = ⌈(E + d)/τ⌉ with E RecConcave's plan bound at (ε_A, δ_A, β_A) — at δ_A rounded down to a
    rational (δ/(32ek) is irrational; E does not decrease as δ_A does): the exponential mechanism's
    2 ln(N/β_A)/ε_A on small domains, the recursion's near-constant bound on huge ones."""
    run = UtilityTarget.of("Theorem 8.8", 3, 3, "0.1", "0.1", "0.5", "1e-6").scaled(2)
    small, huge = (oracle_requirement("qcopt", 2, run, ln) for ln in (sympy.log(10**6), sympy.Integer(10**6)))
    baseline = oracle_requirement("exponential", 2, run, sympy.Integer(10**6)).loss
    assert small.loss is not None and huge.loss is not None and baseline is not None
    e_em = 2 * math.log(10**6 / float(run.beta_oracle)) / 4
    assert (
        small.depth == 0
        and small.loss == pytest.approx(e_em)
        and small.m_oracle == math.ceil((e_em + 2) / float(run.tau))
    )
    assert huge.depth == 1 and huge.loss < 200 < baseline
    lower = Fraction(float(run.delta_oracle)) * Fraction(1 - 2**-40)
    plan = recconcave_error_bound(sympy.Integer(10**6), 4, lower, Fraction(str(run.beta_oracle)))
    assert huge.loss >= plan.error * (1 - 1e-12) and huge.m_oracle == math.ceil(
        (huge.loss + 2) / float(run.tau)
    )


def test_lemma_8_13_ipconcave_requirement_is_blocks_times_block_size():
    """t = 2⌊E⌋ + 1 (RecConcave's interior point at β_IP = β_A/2), r of Lemma 8.12, M_A = t·r."""
    run = UtilityTarget.of("Theorem 8.14", 3, 3, "0.1", "0.1", "0.5", "1e-6").scaled(2)
    beta_half, rho = float(run.beta_oracle) / 2, float(run.tau) / 2
    lower = Fraction(float(run.delta_oracle)) * Fraction(1 - 2**-40)
    for ln_n in (sympy.log(10**6), sympy.Integer(10**6)):
        req = oracle_requirement("ipconcave", 2, run, ln_n)
        plan = recconcave_error_bound(ln_n, 4, lower, Fraction(str(run.beta_oracle)) / 2)
        t = req.blocks
        assert t is not None
        r = math.ceil((2 * math.log(2 / rho) + math.log(t / beta_half)) / rho)
        assert (req.block_size, req.m_oracle) == (r, t * r) and t == 2 * math.floor(plan.error) + 1


def test_theorem_8_5_runs_the_learner_at_half_the_parameters_and_m_covers_m_a_at_the_final_n():
    result = theorem_8_5("exponential", 2, 16, "0.1", "0.1", "0.5", "1e-6")
    sample = result.result
    assert sample.run.k == 3 and sample.run.tau == sympy.Rational(1, 2400)
    assert sample.run.delta_oracle == sympy.Rational(1, 10**6) / (32 * sympy.E * 3)
    assert sample.rounds > 1 and result.oracle.m_oracle <= sample.m == sample.m_oracle
    tight = Target.of(sample.n_tight, 3, "0.5", "1e-6")
    event = carry_forward_event(tight, sample.m, "optimal", delta_oracle=sample.run.delta_oracle)
    assert account(event).guarantee.meets(sympy.Rational(1, 2), sympy.Rational(1, 10**6)).holds


def test_theorems_8_8_and_8_14_need_more_samples_in_higher_dimension():
    for oracle in ("qcopt", "ipconcave"):
        low, high = (theorem_8_5(oracle, d, 16, "0.1", "0.1", "0.5", "1e-6").result for d in (1, 3))
        assert high.n_paper > low.n_paper and high.n_tight > low.n_tight


def _paper_n(
    oracle: str, d: int, alpha: str = "0.1", epsilon: str = "0.5", delta: str = "1e-6"
) -> tuple[int, int]:
    """Theorem 8.5's paper n with ``oracle`` over [[±16]]^d at β = 0.1, and log* N at that n."""
    result = theorem_8_5(oracle, d, 16, alpha, "0.1", epsilon, delta)
    return result.result.n_paper, result.oracle.log_star


@pytest.mark.slow
def test_theorem_8_5_n_is_one_multiple_of_sqrt_k_log_4_over_delta_over_epsilon_times_the_larger_requirement():
    """Theorem 8.5's rate, n = O(√(k log(4/δ))/ε · max{(kd/α) log(1280k²/(αβ)), M_A}): the paper n over
    √(k ln(4/δ))/ε times m = max(LabelBoost term, M_A) is one constant (Algorithm 2's, 97,237)
    whatever α, ε, δ, d and the oracle — the stated form with its hidden constant measured."""
    ratios = []
    for oracle, d, alpha, epsilon, delta in [
        ("exponential", 1, "0.1", "0.5", "1e-6"),
        ("exponential", 2, "0.01", "0.5", "1e-6"),
        ("exponential", 2, "0.1", "0.05", "1e-6"),
        ("exponential", 2, "0.1", "0.5", "1e-12"),
        ("qcopt", 8, "0.1", "0.5", "1e-6"),
    ]:
        sample = theorem_8_5(oracle, d, 16, alpha, "0.1", epsilon, delta).result
        ratios.append(
            sample.n_paper * float(epsilon) / (math.sqrt((d + 1) * math.log(4 / float(delta))) * sample.m)
        )
    assert max(ratios) / min(ratios) < 1 + 1e-9 and 97_236 < ratios[0] < 97_238


@pytest.mark.slow
def test_theorem_8_8_n_follows_d_2_5_plus_d_1_5_2_log_star_n_over_epsilon_alpha():
    """Theorem 8.8's rate Õ((d^{5/2} + d^{3/2}·2^{log* N})/(εα)): n·α and n·ε stay constant (to 0.1 %)
    as α and ε shrink tenfold, and n·εα over d^{5/2} + d^{3/2}·2^{log* N} stays within a factor 3
    from d = 2 to 32 while d^{5/2} grows 1,000-fold (a d^{7/2} rate would move it 30-fold)."""
    base, _ = _paper_n("qcopt", 2)
    assert _paper_n("qcopt", 2, alpha="0.01")[0] / base == pytest.approx(10, rel=1e-3)
    assert _paper_n("qcopt", 2, epsilon="0.05")[0] / base == pytest.approx(10, rel=1e-3)
    ratios = []
    for d in (2, 8, 32):
        n, stars = _paper_n("qcopt", d)
        ratios.append(n * 0.05 / (d**2.5 + d**1.5 * 2**stars))
    assert max(ratios) / min(ratios) < 3


@pytest.mark.slow
def test_theorem_8_14_n_follows_d_2_5_log_star_n_over_epsilon_alpha():
    """Theorem 8.14's rate Õ(d^{5/2} log* N/(εα)): n·ε is constant as ε shrinks tenfold, n grows by
    10–12 as α shrinks tenfold (1/α and its logarithms), and n·εα over d^{5/2} log* N stays within a
    factor 2 from d = 2 to 32."""
    base, _ = _paper_n("ipconcave", 2)
    assert _paper_n("ipconcave", 2, epsilon="0.05")[0] / base == pytest.approx(10, rel=1e-3)
    assert 10 < _paper_n("ipconcave", 2, alpha="0.01")[0] / base < 12
    ratios = []
    for d in (2, 8, 32):
        n, stars = _paper_n("ipconcave", d)
        ratios.append(n * 0.05 / (d**2.5 * stars))
    assert max(ratios) / min(ratios) < 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"oracle": "simplex"}, "oracle must be one of"),
        ({"dimension": 0}, "dimension must be an integer ≥ 1"),
        ({"dimension": 51}, "dimension must be at most 50"),
        ({"epsilon": "1.5"}, "epsilon must be in (0, 1] (hypothesis of Theorem 8.5"),
    ],
)
def test_theorem_8_5_refuses_bad_input(kwargs, message):
    args = {
        "oracle": "exponential",
        "dimension": 2,
        "grid": 16,
        "alpha": "0.1",
        "beta": "0.1",
        "epsilon": "0.5",
        "delta": "1e-6",
        **kwargs,
    }
    with pytest.raises(ValueError, match=re.escape(message)):
        theorem_8_5(**args)
