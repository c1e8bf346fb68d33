"""Certified real arithmetic.

Privacy parameters are kept as exact sympy expressions; numbers are obtained from them by
outward-rounded interval evaluation (``mpmath.iv``), so an upper bound reported by dpledger is
never below the true value because of rounding. Conversions:

* ``exact(x)`` turns user input into an exact sympy number: ints and Fractions as they are,
  decimal strings exactly (``"0.1"`` is 1/10), floats as their exact binary value (what a
  mechanism that used the float really used).
* ``enclose(expr)`` evaluates an expression to an interval containing its true value.
  Custom sympy functions take part by defining ``_enclose(self, prec) -> iv.mpf``.
* ``upper_float``/``lower_float`` round an interval's end outward to a float; ``upper_text``
  to a decimal of any exponent; ``upper_bound_text``/``lower_bound_text`` write a float bound
  for display rounded outward (never the nearest decimal, which can lie on the wrong side).
* ``certainly_le`` decides ``expr ≤ bound`` rigorously, refining the precision when the
  enclosure straddles the bound and trying a symbolic proof of equality (sympy simplifies
  the difference to 0); it answers ``None`` when even 2048 bits cannot decide.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import sympy
from mpmath import iv, mp, mpf

from dpledger.accountant.numerics.parse import parse_expression

DEFAULT_PREC = 128
_REFINE_PRECS = (128, 256, 512, 1024, 2048)


def exact(value: Any, name: str) -> sympy.Expr:
    """An exact sympy real for a parameter value; ``ValueError`` naming ``name`` if invalid.

    Args:
        value: int, Fraction, decimal string or sympy real.
        name: The parameter's name, for the message.

    Returns:
        The exact sympy real.

    Raises:
        ValueError: not a finite real (a float is read exactly; a string is a decimal or an
            arithmetic expression).
    """
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if isinstance(value, sympy.Basic):
        expr = value
    elif isinstance(value, int):
        expr = sympy.Integer(value)
    elif isinstance(value, Fraction):
        expr = sympy.Rational(value.numerator, value.denominator)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value!r}")
        expr = sympy.Rational(*value.as_integer_ratio())
    elif isinstance(value, str):
        try:
            expr = parse_expression(value)
        except ValueError as error:
            raise ValueError(
                f"{name} is not a number or an arithmetic expression: {value[:80]!r} ({error})"
            ) from None
    else:
        raise ValueError(f"{name} must be a number, got {type(value).__name__}")
    if not isinstance(expr, sympy.Expr) or expr.free_symbols:
        raise ValueError(f"{name} must be a number, got {value!r}")
    if expr.has(sympy.nan, sympy.zoo) or expr in (sympy.oo, -sympy.oo):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if expr.is_real is False:
        raise ValueError(f"{name} must be real, got {value!r}")
    return expr


def _exact_floor(value: mpf) -> int:
    """⌊value⌋ of an exact binary number, as a Python int (no rounding at any precision)."""
    if mpmath.isinf(value):
        raise ValueError("cannot take the floor of an unbounded value")
    sign, mantissa, exponent, _ = value._mpf_
    if exponent >= 0:
        magnitude = mantissa << exponent
        return -magnitude if sign else magnitude
    quotient = mantissa >> -exponent
    if not sign:
        return quotient
    return -quotient - (0 if quotient << -exponent == mantissa else 1)


def _rational(num: sympy.Rational) -> iv.mpf:
    return iv.mpf(int(num.p)) / iv.mpf(int(num.q))


def _power(base: iv.mpf, exponent: sympy.Expr, prec: int) -> iv.mpf:
    if exponent.is_Integer:
        n = int(exponent)
        return base**n if n >= 0 else 1 / base ** (-n)
    if exponent == sympy.Rational(1, 2):
        return iv.sqrt(base)
    return iv.exp(enclose(exponent, prec) * iv.log(base))


def _enclose_node(expr: sympy.Expr, prec: int) -> iv.mpf:
    if expr.is_Rational:
        return _rational(expr)
    if expr.is_Float:
        return _rational(sympy.Rational(expr))
    if expr is sympy.E:
        return iv.e
    if expr is sympy.pi:
        return iv.pi
    if expr is sympy.oo:
        return iv.mpf([mpmath.inf, mpmath.inf])
    if hasattr(expr, "_enclose"):
        return expr._enclose(prec)
    if expr.is_Add:
        terms = list(expr.args)
        total = iv.mpf(0)
        exponential = next((t for t in terms if isinstance(t, sympy.exp)), None)
        if exponential is not None and sympy.S.NegativeOne in terms:
            # e^u − 1 as expm1(u): no cancellation when u is tiny (e.g. a per-step ε of 1e-1400)
            terms.remove(exponential)
            terms.remove(sympy.S.NegativeOne)
            total = iv.expm1(_enclose_node(exponential.args[0], prec))
        for term in terms:
            total += _enclose_node(term, prec)
        return total
    if expr.is_Mul:
        product = iv.mpf(1)
        for factor in expr.args:
            product *= _enclose_node(factor, prec)
        return product
    if expr.is_Pow:
        return _power(_enclose_node(expr.base, prec), expr.exp, prec)
    if isinstance(expr, sympy.exp):
        return iv.exp(_enclose_node(expr.args[0], prec))
    if isinstance(expr, sympy.log):
        argument = expr.args[0]
        if (
            argument.is_Add and sympy.S.One in argument.args
        ):  # log(1 + x) as log1p(x): no cancellation for tiny x
            return iv.log1p(_enclose_node(argument - 1, prec))
        return iv.log(_enclose_node(argument, prec))
    if isinstance(expr, (sympy.Max, sympy.Min)):
        parts = [_enclose_node(arg, prec) for arg in expr.args]
        pick = max if isinstance(expr, sympy.Max) else min
        return iv.mpf([pick(p.a for p in parts), pick(p.b for p in parts)])
    if isinstance(expr, sympy.floor):
        inner = _enclose_node(expr.args[0], prec)
        return iv.mpf([_exact_floor(lower_end(inner)), _exact_floor(upper_end(inner))])
    if isinstance(expr, sympy.ceiling):
        inner = _enclose_node(expr.args[0], prec)
        return iv.mpf([-_exact_floor(-lower_end(inner)), -_exact_floor(-upper_end(inner))])
    raise ValueError(f"cannot certify the expression {expr} (no interval rule for {type(expr).__name__})")


@contextmanager
def interval_precision(prec: int) -> Iterator[None]:
    """Run interval arithmetic at ``prec`` bits (mpmath.iv keeps one global precision)."""
    saved = iv.prec
    iv.prec = prec
    try:
        yield
    finally:
        iv.prec = saved


def as_expression(value: Any) -> sympy.Expr:
    """``value`` as a sympy expression: sympy objects as they are, anything else through
    :func:`exact` (text parsed, never evaluated; numbers exactly; other objects refused)."""
    return value if isinstance(value, sympy.Basic) else exact(value, "expression")


def enclose(expr: sympy.Expr, prec: int = DEFAULT_PREC) -> iv.mpf:
    """An interval, at ``prec`` bits, that contains the exact value of ``expr``."""
    return _enclose_cached(as_expression(expr), prec)


@lru_cache(maxsize=16384)
def _enclose_cached(expr: sympy.Expr, prec: int) -> iv.mpf:
    with interval_precision(prec):
        return _enclose_node(expr, prec)


def lower_end(interval: iv.mpf) -> mpf:
    """The interval's lower end as an exact ``mpf`` (``interval.a`` is an interval, and
    converting it with ``mpf()`` would round it to the working precision)."""
    return mp.make_mpf(interval._mpi_[0])


def upper_end(interval: iv.mpf) -> mpf:
    """The interval's upper end as an exact ``mpf``."""
    return mp.make_mpf(interval._mpi_[1])


def upper_float(interval: iv.mpf) -> float:
    """The smallest float ≥ the interval's upper end (``inf`` if unbounded)."""
    top = upper_end(interval)
    if mpmath.isinf(top):
        return math.inf if top > 0 else -math.inf
    value = float(top)
    return value if mpf(value) >= top else math.nextafter(value, math.inf)


MAX_TEXT_EXPONENT = 10**6
"""Binary exponents up to this size are written out by :func:`upper_text`; beyond, the float."""


def upper_text(expr: sympy.Expr, digits: int = 12) -> str:
    """``expr`` rounded up to ``digits`` significant decimal digits, at any exponent (``"3e-400"``,
    where the float would be the smallest subnormal; ``"3e+400"``, where it would be ``inf``):
    the text of a certified upper bound, never below it. A rational is rounded from its exact
    value, anything else from the upper end of its enclosure (beyond 2^±10⁶, where the decimal
    would take long to write, from the float that rounds that end up).

    Args:
        expr: An exact number or expression.
        digits: Significant digits kept.

    Returns:
        The decimal, written as ``format(float, "g")`` would write it; ``"inf"`` for an unbounded
        enclosure.
    """
    expr = as_expression(expr)
    if expr.is_Rational:
        value = Fraction(int(expr.p), int(expr.q))
    else:
        interval = enclose(expr)
        top = upper_end(interval)
        if mpmath.isinf(top):
            return "inf" if top > 0 else "-inf"
        mantissa, exponent = top.man_exp
        if abs(int(exponent)) > MAX_TEXT_EXPONENT:  # beyond 2^±10⁶: the float's outward rounding
            return format(upper_float(interval), "g")
        value = Fraction(int(mantissa)) * Fraction(2) ** int(exponent)
    return _decimal_text(value, digits, decimal.ROUND_CEILING)


def upper_bound_text(value: float, digits: int = 6) -> str:
    """A float upper bound for display, rounded up to ``digits`` significant digits: what a
    message shows after "ε ≤" or "δ ≤" is never below the bound it shows (``.6g`` rounds to
    nearest and could be).

    Args:
        value: The bound; ``inf`` and ``nan`` are written as they are.
        digits: Significant digits kept.

    Returns:
        The decimal, written as ``format(value, ".6g")`` would write a number of that many digits.
    """
    return _float_text(value, digits, decimal.ROUND_CEILING)


def lower_bound_text(value: float, digits: int = 6) -> str:
    """A float lower bound for display, rounded down to ``digits`` significant digits (the text
    after "ε ≥" is never above the bound); :func:`upper_bound_text`'s mirror.

    Args:
        value: The bound; ``inf`` and ``nan`` are written as they are.
        digits: Significant digits kept.

    Returns:
        The decimal text.
    """
    return _float_text(value, digits, decimal.ROUND_FLOOR)


def _float_text(value: float, digits: int, rounding: str) -> str:
    if not math.isfinite(value):
        return format(value, "g")
    return _decimal_text(Fraction(value), digits, rounding)


def _decimal_text(value: Fraction, digits: int, rounding: str) -> str:
    """``value`` rounded in the direction ``rounding`` to ``digits`` significant digits, in ``g`` style."""
    with decimal.localcontext() as context:
        context.prec, context.rounding = digits, rounding
        context.Emax, context.Emin = decimal.MAX_EMAX, decimal.MIN_EMIN
        rounded = (decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator)).normalize()
    power = rounded.adjusted()
    if -4 <= power < digits or rounded == 0:
        return format(rounded, "f")
    sign, figures, _ = rounded.as_tuple()
    tail = "".join(map(str, figures[1:]))
    return f"{'-' if sign else ''}{figures[0]}{'.' + tail if tail else ''}e{power:+03d}"


def lower_float(interval: iv.mpf) -> float:
    """The largest float ≤ the interval's lower end."""
    bottom = lower_end(interval)
    if mpmath.isinf(bottom):
        return math.inf if bottom > 0 else -math.inf
    value = float(bottom)
    return value if mpf(value) <= bottom else math.nextafter(value, -math.inf)


@dataclass(frozen=True)
class Enclosure:
    """A certified real value: the exact interval that encloses it and that interval's ends as floats.

    ``lower`` is the largest float ≤ the interval's lower end and ``upper`` the smallest float ≥ its
    upper end (:func:`lower_float`, :func:`upper_float`): rounding outward, so the true value lies
    in [``lower``, ``upper``] and a reported upper bound is never below it. There is no
    ``__float__``: which end answers depends on the question (``upper`` for a privacy bound).
    """

    lower: float
    upper: float
    interval: iv.mpf

    @classmethod
    def of(cls, interval: iv.mpf) -> Enclosure:
        """The enclosure of a certified interval.

        Args:
            interval: The exact ``mpmath.iv`` interval.

        Returns:
            The :class:`Enclosure` with its ends rounded outward to floats.
        """
        return cls(lower_float(interval), upper_float(interval), interval)


def as_interval(value: Enclosure | iv.mpf) -> iv.mpf:
    """The exact interval of an :class:`Enclosure`, or the interval itself."""
    return value.interval if isinstance(value, Enclosure) else value


def _compare(expr: sympy.Expr, bound: sympy.Expr, strict: bool) -> bool | None:
    expr, bound = as_expression(expr), as_expression(bound)
    if isinstance(expr, sympy.Max):
        verdicts = [_compare(arg, bound, strict) for arg in expr.args]
        return False if False in verdicts else (None if None in verdicts else True)
    if expr == bound:
        return not strict
    difference = expr - bound
    if difference.is_Rational:
        return bool(difference < 0) if strict else bool(difference <= 0)
    if expr is sympy.oo:
        return False
    for prec in _REFINE_PRECS:
        interval = enclose(difference, prec)
        if interval.b < 0 or (not strict and interval.b == 0):
            return True
        if interval.a > 0 or (strict and interval.a == 0):
            return False
        if prec == _REFINE_PRECS[1] and _provably_zero(difference):
            return not strict
    return None


_SIMPLIFY_MAX_OPS = 60


def _provably_zero(expr: sympy.Expr) -> bool:
    """A symbolic proof that ``expr`` is 0 (sympy simplifies it to 0); tried only on small
    closed-form expressions, since simplification can take unbounded time on large ones."""
    if expr.count_ops() > _SIMPLIFY_MAX_OPS or any(
        hasattr(f, "_enclose") for f in expr.atoms(sympy.Function)
    ):
        return False
    return sympy.simplify(expr) == 0


def certainly_le(expr: sympy.Expr, bound: sympy.Expr) -> bool | None:
    """Rigorous ``expr ≤ bound``: True/False when proved, None when undecidable at 2048 bits."""
    return _compare(expr, bound, strict=False)


def certainly_lt(expr: sympy.Expr, bound: sympy.Expr) -> bool | None:
    """Rigorous ``expr < bound``: True/False when proved, None when undecidable at 2048 bits."""
    return _compare(expr, bound, strict=True)


def certified_floor(expr: sympy.Expr) -> int:
    """⌊expr⌋ exactly, refining the enclosure until both ends have the same floor."""
    expr = as_expression(expr)
    if expr.is_Rational:
        return int(sympy.floor(expr))
    for prec in _REFINE_PRECS:
        interval = enclose(expr, prec)
        low, high = _exact_floor(lower_end(interval)), _exact_floor(upper_end(interval))
        if low == high:
            return low
    raise ValueError(f"cannot decide the floor of {expr} at {_REFINE_PRECS[-1]} bits")
