"""The accountant's rules against the statements they implement, with 60-digit references."""

import math
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.accountant import account
from dpledger.accountant import events as ev

eps_values = st.fractions(min_value=Fraction(1, 1000), max_value=10, max_denominator=1000)
rates = st.fractions(min_value=Fraction(1, 10**4), max_value=1, max_denominator=10**4)


def mp(value: Fraction) -> mpmath.mpf:
    return mpmath.mpf(value.numerator) / value.denominator


@pytest.fixture(autouse=True)
def sixty_digits():
    """References are computed at 60 significant digits."""
    with mpmath.workdps(60):
        yield


def test_pure_mechanisms_compose_by_summing():
    @given(st.lists(eps_values, min_size=1, max_size=8))
    def law(epsilons):
        derived = account(ev.Composition(tuple(ev.PureDP(e) for e in epsilons))).guarantee
        assert derived.epsilon == sympy.Rational(sum(epsilons))
        assert derived.delta == 0

    law()


@given(eps_values, rates)
def test_theorem_3_4_amplification_certified_above_60_digit_reference(eps, q):
    m, population = q.numerator, q.denominator
    g = account(ev.SubsampleWithoutReplacement(ev.ApproxDP(eps, "0.001"), m, population)).guarantee
    ref = mpmath.log(1 + mp(q) * (mpmath.exp(mp(eps)) - 1))
    assert g.epsilon_upper >= ref
    assert g.epsilon_upper <= ref * (1 + 1e-12) + 1e-300
    assert g.delta_upper >= mp(q) * mpmath.mpf("0.001")


@given(eps_values, rates, rates)
def test_amplification_is_monotone_in_q(eps, q1, q2):
    low, high = sorted((q1, q2))
    g_low = account(ev.PoissonSubsample(ev.PureDP(eps, relation="add_remove"), low)).guarantee
    g_high = account(ev.PoissonSubsample(ev.PureDP(eps, relation="add_remove"), high)).guarantee
    assert g_low.epsilon_interval.a <= g_high.epsilon_interval.b


@given(eps_values)
def test_amplification_at_q_1_is_the_identity(eps):
    g = account(ev.SubsampleWithoutReplacement(ev.ApproxDP(eps, "0.01"), 7, 7)).guarantee
    assert sympy.simplify(g.epsilon - sympy.Rational(eps)) == 0
    assert g.delta == sympy.Rational(1, 100)


@given(eps_values, rates)
def test_poisson_subsampling_under_substitution_matches_the_coupling_closed_form(eps, q):
    """PoissonSubsample docstring (coupling): (log((1 + q(e^ε − 1))/(1 − q(1 − e^{−ε}))),
    qδ(1 + e^{ε′−ε})); under add/remove, Balle–Barthe–Gaboardi 2018 Thm 8: log(1 + q(e^ε − 1))."""
    child = ev.ApproxDP(eps, "1e-6", relation="add_remove")
    substitute = account(ev.PoissonSubsample(child, q, relation="substitute")).guarantee
    e, rate = mp(eps), mp(q)
    ref = mpmath.log((1 + rate * mpmath.expm1(e)) / (1 - rate * (1 - mpmath.exp(-e))))
    assert ref * (1 - 1e-40) <= substitute.epsilon_upper <= ref * (1 + 1e-12)  # 60 digits: 1e-40 is rounding
    assert substitute.delta_upper >= rate * mpmath.mpf("1e-6") * (1 + mpmath.exp(ref - e)) * (1 - 1e-12)
    add_remove = account(ev.PoissonSubsample(child, q)).guarantee
    ref = mpmath.log(1 + rate * mpmath.expm1(e))
    assert ref * (1 - 1e-40) <= add_remove.epsilon_upper <= ref * (1 + 1e-12)


@given(eps_values)
def test_add_remove_guarantee_holds_under_substitution_with_twice_its_epsilon(eps):
    """Group privacy at k = 2 (Dwork–Roth 2014, Thm 2.2): (2ε, (1 + e^ε)δ)."""
    g = account(ev.AddRemoveToSubstitute(ev.ApproxDP(eps, "1e-6", relation="add_remove"))).guarantee
    assert g.epsilon == 2 * sympy.Rational(eps.numerator, eps.denominator)
    assert g.delta_upper >= (1 + mpmath.exp(mp(eps))) * mpmath.mpf("1e-6") * (1 - 1e-12)


@settings(max_examples=25)
@given(
    st.lists(st.integers(1, 40), min_size=1, max_size=3),
    st.integers(1, 4),
    st.integers(1, 30),
    st.sampled_from(["1e-5", "1e-9"]),
)
def test_discrete_gaussians_compose_by_adding_their_zcdp_rho(sigmas, sensitivity, repeat, delta):
    """Bun–Steinke 2016, Lemma 2.3 and Canonne–Kamath–Steinke 2020, Cor 13: ρ = Σ Δ_i²/(2σ_i²),
    then ε = min over α > 1 of αρ + (ln(1/δ) + (α−1)ln(1 − 1/α) − ln α)/(α − 1), the minimum taken
    here at 60 digits: the derived ε is at least it and within 10⁻⁴ relative of it."""
    steps = tuple(ev.DiscreteGaussian(s, sensitivity, "1e-6") for s in sigmas)
    g = account(ev.Composition(steps, method="optimal", target_delta=delta, repeat=repeat)).guarantee
    rho = repeat * sum(mpmath.mpf(sensitivity) ** 2 / (2 * mpmath.mpf(s) ** 2) for s in sigmas)
    log_inverse = -mpmath.log(mpmath.mpf(delta))

    def bound(alpha):
        return alpha * rho + (log_inverse + (alpha - 1) * mpmath.log(1 - 1 / alpha) - mpmath.log(alpha)) / (
            alpha - 1
        )

    start = 1 + mpmath.sqrt(log_inverse / rho)
    alpha = mpmath.findroot(lambda a: mpmath.diff(bound, a), start)
    ref = max(mpmath.mpf(0), bound(alpha))
    assert ref * (1 - 1e-30) <= g.epsilon_upper <= ref * (1 + 1e-4) + 1e-12


@given(
    eps_values,
    st.integers(1, 500),
    st.fractions(min_value=Fraction(1, 10**9), max_value=Fraction(1, 10), max_denominator=10**9),
)
def test_theorem_3_5_advanced_composition_matches_60_digit_reference(eps, k, slack):
    target = Fraction(k, 10**7) + slack
    g = account(
        ev.Composition((ev.ApproxDP(eps, "1e-7"),), method="advanced", target_delta=target, repeat=k)
    ).guarantee
    e = mp(eps)
    ref = mpmath.sqrt(2 * k * mpmath.log(1 / mp(slack))) * e + k * e * (mpmath.exp(e) - 1)
    assert ref <= g.epsilon_upper <= ref * (1 + 1e-12)


def test_advanced_composition_refuses_target_below_k_delta():
    with pytest.raises(ValueError, match="target_delta"):
        account(ev.Composition((ev.ApproxDP(1, "0.01"),), method="advanced", target_delta="0.05", repeat=10))


def test_lemma_3_11_labelboost_then_dp_costs_3_and_4e():
    g = account(ev.LabelBoostThen(ev.ApproxDP(2, "0.001"))).guarantee
    assert g.epsilon == 5 and g.delta == 4 * sympy.E / 1000


def test_lemma_3_15_labelboost_with_realizable_continuation_is_dp_on_arbitrary_inputs():
    g = account(ev.LabelBoostRealizable(ev.OnRealizableInputs(ev.ApproxDP(4, "0.001")))).guarantee
    assert g.domain == "arbitrary"
    assert g.epsilon == 4 + sympy.log(4 * sympy.E)
    assert g.meets(4 + 2.3863, 0.0109).holds and not g.meets(4 + 2.3862, 0.0109).holds


def test_lemma_3_17_carrier_only_release_is_c_lb_pure():
    g = account(ev.LabelBoostCarrier()).guarantee
    assert g.epsilon == sympy.log(4 * sympy.E) and g.delta == 0


def test_realizable_only_guarantee_is_not_amplified_nor_counted_as_dp():
    realizable = ev.OnRealizableInputs(ev.PureDP(1))
    with pytest.raises(ValueError, match="realizable"):
        account(ev.SubsampleWithoutReplacement(realizable, 1, 10))
    with pytest.raises(ValueError, match="realizable"):
        account(ev.LabelBoostThen(realizable))
    with pytest.raises(ValueError, match="realizable"):
        account(ev.SubsampleWithReplacement(realizable, 1, 9))
    assert not account(realizable).guarantee.meets(100, "0.5").holds


def test_parallel_composition_takes_the_maximum():
    g = account(ev.ParallelComposition((ev.PureDP(1), ev.ApproxDP(2, "0.001"), ev.PureDP("0.5")))).guarantee
    assert g.meets(2, "0.001").holds and not g.meets("1.999", "0.001").holds


@settings(max_examples=25)
@given(
    st.fractions(min_value=Fraction(1, 10), max_value=50, max_denominator=100),
    st.sampled_from(["1e-3", "1e-6", "1e-10"]),
)
def test_analytic_gaussian_epsilon_meets_balle_wang_condition_at_60_digits(sigma, delta):
    g = account(ev.Gaussian(sigma, delta)).guarantee
    eps = mpmath.mpf(g.epsilon_upper)
    s = mp(sigma)
    achieved = mpmath.ncdf(1 / (2 * s) - eps * s) - mpmath.exp(eps) * mpmath.ncdf(-1 / (2 * s) - eps * s)
    assert achieved <= mpmath.mpf(delta)
    slightly_less = eps * (1 - mpmath.mpf("1e-6"))
    if slightly_less > 0:
        worse = mpmath.ncdf(1 / (2 * s) - slightly_less * s) - mpmath.exp(slightly_less) * mpmath.ncdf(
            -1 / (2 * s) - slightly_less * s
        )
        assert worse > mpmath.mpf(delta)


@settings(max_examples=20)
@given(st.fractions(min_value=5, max_value=100, max_denominator=10))
def test_analytic_gaussian_never_worse_than_classical(sigma):
    analytic = account(ev.Gaussian(sigma, "1e-5")).guarantee
    classical = account(ev.Gaussian(sigma, "1e-5", calibration="classical")).guarantee
    assert analytic.epsilon_interval.b <= classical.epsilon_interval.b


def test_classical_gaussian_refuses_outside_its_theorem():
    with pytest.raises(ValueError, match="classical"):
        account(ev.Gaussian(1, "1e-5", calibration="classical"))


def test_claim_node_reports_a_failing_claim_and_passes_the_derived_guarantee_up():
    derivation = account(ev.Claim("Lemma X", ev.PureDP(2), 1))
    assert derivation.claim is not None and derivation.claim.verdict.holds is False
    assert derivation.guarantee.epsilon == 2
    assert "FAILS" in derivation.to_text()


def test_account_refuses_an_event_it_has_no_rule_for():
    class Unknown(ev.Event):
        pass

    with pytest.raises(ValueError, match="no accounting rule"):
        account(Unknown())


@pytest.mark.parametrize(
    "factory, name",
    [
        (lambda: ev.PureDP(0), "epsilon"),
        (lambda: ev.PureDP(float("nan")), "epsilon"),
        (lambda: ev.ApproxDP(1, 1), "delta"),
        (lambda: ev.ApproxDP(1, -0.1), "delta"),
        (lambda: ev.PoissonSubsample(ev.PureDP(1), 0), "rate"),
        (lambda: ev.PoissonSubsample(ev.PureDP(1), "1.5"), "rate"),
        (lambda: ev.Composition((ev.PureDP(1),), repeat=0), "repeat"),
        (lambda: ev.Laplace(float("inf")), "scale"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_parameter(factory, name):
    with pytest.raises(ValueError, match=name):
        factory()


@settings(max_examples=10)
@given(
    st.lists(
        st.fractions(min_value=Fraction(1, 2), max_value=50, max_denominator=10), min_size=1, max_size=4
    ),
    st.integers(1, 50),
)
def test_gaussian_mechanisms_compose_exactly_as_one_gaussian(sigmas, repeat):
    """Dong–Roth–Su Cor 3.3: the composition is the Gaussian mechanism with ratio √(Σ r_i²)."""
    composed = account(
        ev.Composition(
            tuple(ev.Gaussian(s, "1e-6") for s in sigmas),
            method="optimal",
            target_delta="1e-5",
            repeat=repeat,
        )
    ).guarantee
    ratio = sympy.sqrt(repeat * sum(1 / sympy.Rational(s.numerator, s.denominator) ** 2 for s in sigmas))
    single = account(ev.Gaussian(1 / ratio, "1e-5")).guarantee
    assert abs(composed.epsilon_upper - single.epsilon_upper) <= 1e-12 * max(1.0, single.epsilon_upper)


def test_exact_gaussian_composition_beats_generic_optimal_composition():
    """300 Gaussian steps: the exact Gaussian rule is tighter than KOV on their (ε, δ) pairs."""
    step = ev.Gaussian(300, "1e-8")
    exact_rule = account(ev.Composition((step,), method="optimal", target_delta="1e-5", repeat=300)).guarantee
    as_pairs = account(
        ev.Composition(
            (ev.ApproxDP(account(step).guarantee.epsilon, "1e-8"),),
            method="optimal",
            target_delta="1e-5",
            repeat=300,
        )
    ).guarantee
    assert exact_rule.epsilon_interval.b < as_pairs.epsilon_interval.a


def test_lemma_8_15_sampling_with_replacement_matches_the_closed_form():
    """(log A, δ(A − 1)/(e^ε − 1)), A = (1 + (e^ε − 1)/N)^m (SubsampleWithReplacement docstring)."""
    eps, delta, draws, population = 1.0, 1e-6, 7, 50
    g = account(ev.SubsampleWithReplacement(ev.ApproxDP(1, "1e-6"), draws, population)).guarantee
    a = (1 + math.expm1(eps) / population) ** draws
    assert g.epsilon_upper == pytest.approx(math.log(a), rel=1e-12)
    assert g.delta_upper == pytest.approx(delta * (a - 1) / math.expm1(eps), rel=1e-12)


@settings(max_examples=40)
@given(st.decimals(min_value="0.01", max_value="1", places=2), st.integers(1, 10**6), st.integers(9, 40))
def test_lemma_8_15_claim_holds_when_at_most_a_ninth_is_drawn(eps, draws, ratio):
    """Lemma 8.15: B̂ (draws ≤ N/9 with replacement) is (ε, δ)-DP when B is; the rule derives it,
    and the derived ε stays below its limit m·(e^ε − 1)/N = (e^ε − 1)/ratio (log(1 + x) ≤ x)."""
    eps = str(eps)
    g = account(ev.SubsampleWithReplacement(ev.ApproxDP(eps, "1e-6"), draws, ratio * draws)).guarantee
    assert g.meets(eps, "1e-6").holds
    assert g.epsilon_upper <= math.expm1(float(eps)) / ratio * (1 + 1e-9)


def test_optimal_composition_beyond_a_million_mechanisms_stays_exact():
    """At k = 1,000,001 (ε₀ = 10⁻⁴, δ = 10⁻⁶) the rule reports the optimum 0.39686, named as
    optimal, not the advanced bound 0.53565."""
    optimal = account(
        ev.Composition((ev.PureDP("1e-4"),), method="optimal", target_delta="1e-6", repeat=10**6 + 1)
    )
    advanced = account(
        ev.Composition((ev.PureDP("1e-4"),), method="advanced", target_delta="1e-6", repeat=10**6 + 1)
    )
    assert optimal.rule == "optimal composition" and optimal.source == "Kairouz–Oh–Viswanath 2015, Thm 3.3"
    assert optimal.guarantee.epsilon_upper == pytest.approx(0.39685707, abs=1e-8)
    assert advanced.guarantee.epsilon_upper == pytest.approx(0.53565, abs=1e-5)


def test_heterogeneous_optimal_composition_beyond_the_exact_law_names_its_bracket():
    """Two incommensurate ε over 6000 mechanisms: the law of the loss is too large to convolve, so
    the rule says it brackets and by how much the reported ε may exceed the optimum; the reported ε
    is at least the optimum's lower bound and within that excess of it."""
    event = ev.Composition(
        (ev.PureDP("1/10"), ev.PureDP("1/7")), method="optimal", target_delta="1e-6", repeat=3000
    )
    derivation = account(event)
    assert derivation.rule.startswith("optimal composition, bracketed") and "at most" in derivation.rule
    excess = float(derivation.rule.rsplit("at most ", 1)[1])
    assert 0 < excess < 2
    eps = derivation.guarantee.epsilon_upper
    advanced = account(
        ev.Composition((ev.PureDP("1/7"),), method="advanced", target_delta="1e-6", repeat=6000)
    )
    assert eps < advanced.guarantee.epsilon_upper


def test_heterogeneous_composition_beyond_a_million_mechanisms_names_the_homogeneous_bracket():
    event = ev.Composition(
        (ev.PureDP("1e-4"), ev.PureDP("2e-4")), method="optimal", target_delta="1e-6", repeat=10**6
    )
    derivation = account(event)
    assert "bracketed" in derivation.rule and "exceeds the optimum by at most" in derivation.rule
    high = account(
        ev.Composition((ev.PureDP("2e-4"),), method="optimal", target_delta="1e-6", repeat=2 * 10**6)
    )
    assert derivation.guarantee.epsilon_upper == pytest.approx(high.guarantee.epsilon_upper, rel=1e-12)


def test_optimal_composition_of_an_epsilon_whose_enclosure_reaches_below_zero():
    """ε₀ = 2(e^{10⁻⁶⁰} − 1) > 0, but sympy writes it as −2 + 2e^{10⁻⁶⁰}, whose 128-bit enclosure
    straddles 0: the optimal rule still answers (its lower end is clamped at 0, the optimum's floor)."""
    tiny = ev.ApproxDP("2*exp(1/10**60) - 2", "1e-9")
    g = account(ev.Composition((tiny,), method="optimal", target_delta="1e-6", repeat=3)).guarantee
    assert g.meets("1e-50", "1e-6").holds


def test_every_rule_formula_is_printable_latex_without_control_characters():
    """Rule formulas are LaTeX for reports: a ``\\f`` or ``\\v`` in a non-raw string becomes a
    form feed or vertical tab and a report shows "rac" and "arepsilon" (Lemma 8.15's rule did)."""
    import ast
    import unicodedata
    from pathlib import Path

    import dpledger.accountant.rules as rules_module

    source = Path(rules_module.__file__).read_text()
    literals = [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    control = [text for text in literals if any(unicodedata.category(c) == "Cc" and c != "\n" for c in text)]
    assert control == []
    formula = account(ev.SubsampleWithReplacement(ev.ApproxDP(1, "1e-6"), 3, 9)).formula
    assert r"\frac{A-1}" in formula and r"e^{\varepsilon}" in formula


def test_max_of_parallel_blocks_survives_evalf_and_pickling():
    """The unevaluated Max the rules build (parallel blocks) must numerically evaluate — sympy's
    evalf rebuilds it from float arguments, which recursed without end — and round-trip through
    pickle with special functions inside."""
    import pickle

    closed = account(ev.ParallelComposition((ev.PureDP("log(3)"), ev.PureDP("1/2")))).guarantee
    assert float(sympy.N(closed.epsilon)) == pytest.approx(math.log(3), rel=1e-12)
    special = account(ev.ParallelComposition((ev.Gaussian(1, "1e-6"), ev.Gaussian(2, "1e-6")))).guarantee
    assert pickle.loads(pickle.dumps(special)).epsilon_upper == special.epsilon_upper


def test_a_failing_inner_claim_of_a_chain_whose_top_claim_holds_is_worded_as_no_alarm():
    inner = ev.Claim("Corollary X", ev.PureDP(2), 1)  # the paper's per-step budget ε ≤ 1 is missed
    derivation = account(ev.Claim("Lemma Y", inner, 3))  # the chain's claim ε ≤ 3 holds
    text = derivation.to_text()
    assert "FAILS" not in text
    assert "the paper's per-block budget is not met at this m; the chain holds through Lemma Y" in text
    failing = account(ev.Claim("Lemma Y", ev.Claim("Corollary X", ev.PureDP(2), 1), 1)).to_text()
    assert failing.count("FAILS") == 2  # when the chain fails too, every failing claim says so


def test_the_markdown_table_words_a_failing_inner_claim_as_the_text_does():
    inner = ev.Claim("Corollary X", ev.PureDP(2), 1)
    table = account(ev.Claim("Lemma Y", inner, 3)).to_markdown()
    assert "**fails**" not in table
    assert "the paper's per-block budget is not met at this m; the chain holds through Lemma Y" in table
    failing = account(ev.Claim("Lemma Y", ev.Claim("Corollary X", ev.PureDP(2), 1), 1)).to_markdown()
    assert failing.count("**fails**") == 2
