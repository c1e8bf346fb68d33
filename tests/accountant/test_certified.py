"""Certified arithmetic: enclosures contain the truth, conversions are exact, comparisons
never decide through rounding."""

from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from dpledger.accountant import account
from dpledger.accountant import events as ev
from dpledger.accountant.guarantee import Guarantee
from dpledger.accountant.numerics.certified import (
    certainly_le,
    certainly_lt,
    certified_floor,
    enclose,
    exact,
    lower_bound_text,
    lower_end,
    lower_float,
    upper_bound_text,
    upper_end,
    upper_float,
    upper_text,
)

E = sympy.E


def reference(expr: sympy.Expr) -> mpmath.mpf:
    """The value of expr at 60 significant digits (sympy's own evaluator)."""
    with mpmath.workdps(60):
        return mpmath.mpf(str(sympy.N(expr, 70)))


@given(
    st.fractions(min_value=Fraction(1, 10**6), max_value=30, max_denominator=10**6),
    st.fractions(min_value=Fraction(1, 10**6), max_value=1, max_denominator=10**6),
)
def test_enclosure_of_amplification_formula_contains_60_digit_value(eps, q):
    expr = sympy.log(
        1
        + sympy.Rational(q.numerator, q.denominator)
        * (sympy.exp(sympy.Rational(eps.numerator, eps.denominator)) - 1)
    )
    interval = enclose(expr)
    ref = reference(expr)
    assert interval.a <= ref <= interval.b
    assert upper_float(interval) >= ref
    assert lower_float(interval) <= ref
    assert float(interval.b - interval.a) <= 1e-30 * max(1.0, float(ref))


def test_exact_reads_decimal_strings_exactly_and_floats_as_their_binary_value():
    assert exact("0.1", "x") == sympy.Rational(1, 10)
    assert exact(0.1, "x") == sympy.Rational(3602879701896397, 36028797018963968)
    assert exact(Fraction(2, 3), "x") == sympy.Rational(2, 3)
    assert exact("log(4*E)", "x") == sympy.log(4 * E)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "abc", "__import__('os')", True, None, [1]])
def test_exact_rejects_non_numbers_naming_the_parameter(bad):
    with pytest.raises(ValueError, match="epsilon"):
        exact(bad, "epsilon")


def test_certainly_le_decides_exact_equality_without_rounding():
    assert certainly_le(sympy.Rational(1, 10) * 10, 1) is True
    assert certainly_lt(sympy.Rational(1, 10) * 10, 1) is False
    assert certainly_le(sympy.log(4 * E), 1 + 2 * sympy.log(2)) is True
    assert certainly_lt(sympy.log(4 * E), 1 + 2 * sympy.log(2)) is False
    assert certainly_le(sympy.Max(sympy.Rational(1, 3), sympy.log(2), evaluate=False), sympy.log(2)) is True


def test_certainly_le_separates_values_closer_than_double_precision():
    tiny = sympy.Rational(1, 10**40)
    assert certainly_le(sympy.log(2), sympy.log(2) + tiny) is True
    assert certainly_le(sympy.log(2) + tiny, sympy.log(2)) is False


def test_certified_floor_is_exact_near_integers():
    assert certified_floor(sympy.log(sympy.exp(5) + sympy.Rational(1, 10**30))) == 5
    assert certified_floor(5 - sympy.Rational(1, 10**30)) == 4
    assert certified_floor(sympy.exp(9)) == 8103


def test_interval_ends_convert_exactly():
    from dpledger.accountant.numerics.certified import lower_end, upper_end

    interval = enclose(1 + sympy.Rational(1, 2**100))
    assert upper_end(interval) > 1 and lower_end(interval) <= upper_end(interval)
    assert certified_floor(6 - sympy.Rational(1, 2**100)) == 5
    assert certified_floor(-sympy.Rational(1, 2**100)) == -1


def test_exp_minus_one_of_a_tiny_argument_is_enclosed_without_cancellation():
    """e^u − 1 is enclosed as expm1(u) when sympy keeps it as a sum (here inside advanced
    composition's Lε₀(e^{ε₀} − 1)): with 10²⁹⁰⁰ classical Gaussian steps of ε₀ ≈ 10⁻¹⁴⁵³ a plain
    exp(ε₀) − 1 at 128 bits would only say [0, 2⁻¹²⁷] and the composition would look infinite."""
    steps = 10**2900
    step = ev.Gaussian(
        sigma=1,
        delta=sympy.Rational(1, 2 * 10**6) / steps,
        sensitivity=sympy.Integer(10) ** -1455,
        calibration="classical",
    )
    composed = account(
        ev.Composition((step,), method="advanced", target_delta="1e-6", repeat=steps)
    ).guarantee
    assert composed.epsilon_upper < 0.01 and composed.meets("0.01", "1e-6").holds


@given(
    st.decimals(allow_nan=False, allow_infinity=False, places=12, min_value=-(10**12), max_value=10**12),
    st.integers(min_value=-30, max_value=30),
)
def test_exact_reads_every_decimal_in_scientific_notation_exactly(number, exponent):
    text = f"{number:f}e{exponent}"
    assert exact(text, "x") == sympy.Rational(Fraction(number) * Fraction(10) ** exponent)


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('touch PWNED')",
        "exec('1')",
        "lambda: 1",
        "x.__class__",
        "[1][0]",
        "1 if 1 else 0",
        "Symbol('x')",
        "open('f')",
    ],
)
def test_user_text_is_parsed_never_evaluated(text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="not a number or an arithmetic expression"):
        exact(text, "epsilon")
    with pytest.raises(ValueError):
        enclose(text)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "text, reason",
    [
        ("9**9**9", "more than 20000 digits"),
        ("1e999999999", "out of range"),
        ("(" * 60 + "1" + ")" * 60, "nested deeper"),
        ("1" * 1001, "longer than"),
        ("(1/3)**1000000", "more than 20000 digits"),
    ],
)
def test_parsing_refuses_text_whose_exact_value_is_too_costly(text, reason):
    with pytest.raises(ValueError, match=reason):
        exact(text, "epsilon")


def test_expressions_keep_their_exact_form():
    assert exact("log(4*E)", "c") == sympy.log(4 * sympy.E)
    assert exact("2**-3 + sqrt(2)/2", "c") == sympy.Rational(1, 8) + sympy.sqrt(2) / 2
    assert exact("Max(1/3, 0.25)", "c") == sympy.Rational(1, 3)
    assert exact("log(8, 2)", "c") == 3


@given(st.fractions(min_value=-60, max_value=60, max_denominator=1000))
def test_normal_cdf_enclosure_contains_the_300_digit_value(x):
    from dpledger.accountant.numerics.special import _normal_cdf

    point = mpmath.mpf(x.numerator) / x.denominator  # a binary number near x, passed exactly
    interval = _normal_cdf(point, 128)
    with mpmath.workdps(300):
        reference = mpmath.ncdf(point)
        assert lower_end(interval) <= reference <= upper_end(interval)
        assert upper_end(interval) - lower_end(interval) <= reference * mpmath.mpf(2) ** -100


def test_gaussian_rule_does_not_rest_on_mpmaths_uncertified_normal_cdf(monkeypatch):
    """Φ was mpmath's ncdf plus slack; the enclosure must come from ball arithmetic,
    so corrupting mpmath's ncdf changes nothing."""
    from dpledger.accountant.numerics.special import AnalyticGaussianEpsilon

    expected = enclose(AnalyticGaussianEpsilon(sympy.Rational(1, 2), sympy.Rational(1, 10**5)), 192)
    monkeypatch.setattr(mpmath, "ncdf", lambda *args, **kwargs: mpmath.mpf("0.5"))
    again = enclose(AnalyticGaussianEpsilon(sympy.Rational(1, 2), sympy.Rational(1, 10**5)), 193)
    assert upper_end(again) >= lower_end(expected) and lower_end(again) <= upper_end(expected)
    assert float(upper_end(again)) == pytest.approx(float(upper_end(expected)), rel=1e-9)


def test_non_sympy_objects_are_never_turned_into_expressions_through_their_text():
    """sympify falls back to parsing str(obj) for unknown objects; enclose and the comparisons
    take sympy objects as they are and everything else only through exact()."""

    class Sneaky:
        def __str__(self) -> str:
            return "__import__('os').getpid()"

    with pytest.raises(ValueError, match="must be a number"):
        enclose(Sneaky())
    with pytest.raises(ValueError, match="must be a number"):
        certainly_le(Sneaky(), 1)
    assert certainly_le(Fraction(1, 3), 0.5) is True


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("1e-400", "1e-400"),
        ("3e400", "3e+400"),
        ("0.1234567890123", "0.123456789013"),
        ("100", "100"),
        ("1e-6", "1e-06"),
        ("-2.5e-9", "-2.5e-09"),
        ("0", "0"),
    ],
)
def test_upper_text_rounds_up_at_any_exponent_and_writes_as_float_g_does(value, text):
    assert upper_text(exact(value, "x")) == text
    assert Fraction(text) >= Fraction(value)


def test_upper_text_of_an_irrational_is_above_it():
    assert upper_text(sympy.sqrt(2)) == "1.41421356238"
    assert upper_text(sympy.log(2) / sympy.Integer(10) ** 400) == "6.9314718056e-401"


@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(min_value=1, max_value=17))
def test_a_displayed_float_bound_never_moves_inwards_and_keeps_at_most_its_digits(value, digits):
    upper, lower = upper_bound_text(value, digits), lower_bound_text(value, digits)
    assert Fraction(lower) <= Fraction(value) <= Fraction(upper)
    for text in (upper, lower):
        assert len(text.split("e")[0].replace("-", "").replace(".", "").lstrip("0")) <= digits


def test_a_displayed_bound_just_below_a_round_number_rounds_up_to_it_where_nearest_rounding_would_not():
    assert format(0.9999994, ".6g") == "0.999999"  # below the bound
    assert upper_bound_text(0.9999994) == "1"
    assert lower_bound_text(1.0000004) == "1"
    assert upper_bound_text(float("inf")) == "inf"


def test_a_guarantee_shows_its_exact_epsilon_and_delta_rounded_up():
    derivation = account(ev.PureDP(epsilon="0.9999994"))
    assert derivation.guarantee.epsilon_text() == "1"
    assert "ε ≤ 1, δ ≤ 0" in derivation.to_text()
    assert Guarantee(epsilon=1, delta=sympy.Rational(1, 10**5)).delta_text() == "1e-05"


def test_upper_text_reads_text_as_a_number_never_as_code():
    assert upper_text("1e-400") == "1e-400"
    with pytest.raises(ValueError):
        upper_text("__import__('os').getcwd()")
