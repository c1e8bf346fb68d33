"""Calibrate your own mechanism: noise scales and per-step budgets for a target (ε, δ), certified.

The searches of :mod:`dpledger.accountant.calibration` applied to the events a user's own mechanism
is made of — no paper involved:

* :func:`laplace_scale`, :func:`gaussian_sigma` (analytic, Balle–Wang 2018 Thm 8, or classic,
  Dwork–Roth 2014 Thm A.1), :func:`discrete_laplace_scale`, :func:`discrete_gaussian_sigma`
  (Canonne–Kamath–Steinke 2020): the noise of one release of a statistic of the given sensitivity;
* :func:`composition_epsilon`: the largest per-step ε₀ of k adaptively composed (ε₀, δ₀)-DP
  mechanisms (basic, advanced — seed 000's Theorem 3.5 —, or optimal composition, Kairouz–Oh–
  Viswanath 2015), each optionally subsampled as below;
* :func:`composition_noise`: the noise of k compositions of one of those mechanisms, optionally run
  on a Poisson subsample (rate q, Balle–Barthe–Gaboardi 2018 Thm 8) or a fixed-size subsample of m
  out of n records (Theorem 3.4).

Every answer is a :class:`Calibration`: the value as a float rounded in the safe direction (noise
up, ε₀ down), the event tree of a mechanism using exactly that float, and the guarantee
:func:`~dpledger.accountant.rules.account` certifies for it, which meets the target (checked with
outward-rounded interval arithmetic before the answer is returned). Searched values are within a
relative :data:`RELATIVE_TOLERANCE` of the best value the accountant can certify; closed forms
(Laplace, classic Gaussian, basic composition) are exact up to the float rounding.

How the δ budget is split (a choice, stated in ``Calibration.notes``): without subsampling the
Gaussian's exact composition (Dong–Roth–Su 2019) and the discrete Gaussian's zCDP composition use
the total δ once; otherwise each of the k steps is accounted at δ₀ = δ_share/(k·q) (q = 1 without
subsampling; at most 1/2) with δ_share = δ for basic composition or a single step and δ/2 for
advanced and optimal composition, whose remaining δ/2 pays for the composition itself; under
substitution after Poisson sampling q is replaced by the bound of ``_Sampling.delta_factor``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import mpmath
import sympy

from dpledger.accountant import events as ev
from dpledger.accountant import pld_calibration
from dpledger.accountant.calibration import smallest_noise
from dpledger.accountant.deprecation import renamed_keyword
from dpledger.accountant.guarantee import Guarantee
from dpledger.accountant.numerics.certified import (
    certainly_le,
    certainly_lt,
    enclose,
    exact,
    lower_float,
    upper_float,
)
from dpledger.accountant.rules import Derivation, account
from dpledger.accountant.serialization import to_data

MECHANISMS = ("gaussian", "gaussian-classic", "laplace", "discrete-gaussian", "discrete-laplace")
"""Mechanisms :func:`composition_noise` calibrates (``gaussian`` is the analytic calibration)."""
COMPOSITIONS = ev.COMPOSITION_METHODS
RELATIVE_TOLERANCE = Fraction(1, 2**20)
"""A searched noise is at most (1 + 2⁻²⁰)× the smallest the accountant certifies; a searched ε₀ at
least (1 − 2⁻²⁰)× the largest."""
MAX_STEP_DELTA = sympy.Rational(1, 2)
MAX_GAUSSIAN_EPSILON = 10**6
"""The largest target ε calibrated for Gaussian noise (the certified enclosure of Balle–Wang's ε
doubles its bracket from 1, and e^ε at ε ≫ 10⁶ costs more than a second)."""

_PURE = ("laplace", "discrete-laplace")
_LOOSE_SUBSAMPLED = (
    "amplification then composition: each subsampled step is turned into an (ε, δ) pair "
    "(Balle–Barthe–Gaboardi 2018) and the pairs are composed, which needs much more noise than "
    "composing the subsampled mechanism's privacy-loss distribution: use method='pld'"
)
DISTRIBUTION_MECHANISMS = ("gaussian", "laplace", "discrete-laplace")
"""Mechanisms whose subsampled releases ``method="optimal"`` composes through their privacy-loss
distributions (:mod:`dpledger.accountant.pld`), far tighter than amplification then composition."""
_CHOSEN_NOTE = (
    "optimal for a subsampled mechanism or k Laplace releases: its privacy-loss distributions are "
    "composed (method 'pld'), tighter than composing (ε, δ) pairs (far tighter under subsampling)"
)
_PLD_NOTE = (
    "privacy-loss distributions of the mechanism (dpledger.accountant.pld: connect-the-dots on a binary grid, "
    "tails and convolution error inside δ), searched with the float construction and certified at the choice"
)
_NOTES = {
    "gaussian": "analytic Gaussian mechanism (Balle–Wang 2018, Thm 8): exact for one release",
    "gaussian-classic": "classic Gaussian mechanism (Dwork–Roth 2014, Thm A.1): σ = Δ√(2 ln(1.25/δ))/ε, "
    "valid for ε < 1 only, and up to ~30% more noise than the analytic calibration",
    "laplace": "Laplace mechanism (Dwork et al. 2006): b = Δ₁/ε, exact",
    "discrete-gaussian": "discrete Gaussian accounted through ρ-zCDP, ρ = Δ²/(2σ²) (CKS 2020, Thm 4), converted by "
    "CKS 2020, Cor 13: a valid bound, looser than the discrete Gaussian's exact (ε, δ) curve",
    "discrete-laplace": "discrete Laplace mechanism (CKS 2020, Sec 2): t = Δ₁/ε, exact",
}


@dataclass(frozen=True)
class Calibration:
    """A calibrated parameter and what certifies it.

    ``value`` is the float to use (noise rounded up, per-step ε₀ rounded down); ``event`` is the
    event tree of the mechanism run with exactly that float, and ``guarantee`` the one
    ``account(event)`` derives for it, which meets (``target_epsilon``, ``target_delta``).
    ``notes`` say which rule certifies it and where the method is loose; ``event_for(x)`` is the
    event of the same mechanism with ``x`` in place of ``value`` (what a rounder σ would give)."""

    parameter: str
    value: float
    event: ev.Event
    guarantee: Guarantee
    target_epsilon: sympy.Expr
    target_delta: sympy.Expr
    notes: tuple[str, ...]
    event_for: Callable[[Any], ev.Event] = field(repr=False, compare=False)

    @property
    def derivation(self) -> Derivation:
        """The certified derivation of ``event`` (rule and source at every node)."""
        return account(self.event)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary: value, target, certified guarantee, event tree and notes.

        Returns:
            ``{"parameter", "value", "target", "guarantee", "event", "derivation", "notes"}``.
        """
        return {
            "parameter": self.parameter,
            "value": self.value,
            "target": {"epsilon": _echo(self.target_epsilon), "delta": _echo(self.target_delta)},
            "guarantee": self.guarantee.to_dict(),
            "event": to_data(self.event),
            "derivation": self.derivation.to_dict(),
            "notes": list(self.notes),
        }


def _echo(value: sympy.Expr) -> str:
    """A target, echoed to 12 significant digits (the exact value is in the event and guarantee)."""
    return sympy.sstr(value) if value.is_Integer else sympy.sstr(value.evalf(12))


# --- validation -------------------------------------------------------------------------


def _positive(value: Any, name: str) -> sympy.Expr:
    number = exact(value, name)
    if certainly_lt(0, number) is not True:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return number


def _delta(value: Any, name: str, *, allow_zero: bool) -> sympy.Expr:
    number = exact(value, name)
    low_ok = certainly_le(0, number) if allow_zero else certainly_lt(0, number)
    if low_ok is not True or certainly_lt(number, 1) is not True:
        raise ValueError(f"{name} must be in {'[0, 1)' if allow_zero else '(0, 1)'}, got {value!r}")
    return number


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer ≥ 1, got {value!r}")
    return value


def _choice(value: Any, name: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _as_fraction(value: sympy.Expr) -> Fraction | None:
    return Fraction(int(value.p), int(value.q)) if value.is_Rational else None


# --- the certified answer ----------------------------------------------------------------


def _certify(
    parameter: str,
    value: float,
    event_for: Callable[[Any], ev.Event],
    epsilon: sympy.Expr,
    delta: sympy.Expr,
    notes: tuple[str, ...],
    relation: str | None = None,
) -> Calibration:
    """The :class:`Calibration` of ``event_for(value)``, after checking that its guarantee meets the target."""
    event = event_for(Fraction(value))
    derivation = account(event)
    if not derivation.guarantee.meets(
        epsilon, delta, relation
    ).holds:  # monotone searches make this unreachable
        raise RuntimeError(f"the calibrated {parameter} = {value!r} is not certified to meet the target")
    return Calibration(parameter, value, event, derivation.guarantee, epsilon, delta, notes, event_for)


def _upper(value: Fraction | sympy.Expr) -> float:
    """The smallest float ≥ ``value``."""
    if isinstance(value, Fraction):
        rounded = float(value)
        return rounded if Fraction(rounded) >= value else math.nextafter(rounded, math.inf)
    return upper_float(enclose(value))


def _float_noise(value: Fraction | sympy.Expr, parameter: str) -> float:
    """:func:`_upper` of a closed-form noise (Δ/ε and its kin), or ``ValueError`` when it
    lies outside the float range (rounded up to the smallest float 5e-324 it would be shown as a
    value it is not).

    Args:
        value: The exact noise.
        parameter: ``"scale"`` or ``"sigma"``, for the message.

    Returns:
        The smallest float ≥ ``value``.

    Raises:
        ValueError: ``value`` is above the largest float or below the smallest positive one.
    """
    symbol = "σ" if parameter == "sigma" else "scale Δ/ε"
    try:
        rounded = _upper(value)
    except OverflowError:
        rounded = math.inf
    if math.isinf(rounded):
        raise ValueError(
            f"the noise {symbol} overflows a float (it exceeds 1.8e308): use a larger epsilon or a smaller sensitivity"
        )
    if isinstance(value, Fraction):
        value = sympy.Rational(value.numerator, value.denominator)
    if rounded == SMALLEST_FLOAT and certainly_le(sympy.Rational(SMALLEST_FLOAT), value) is not True:
        raise ValueError(
            f"the noise {symbol} underflows a float (it is below 5e-324): use a smaller epsilon or a larger sensitivity"
        )
    return rounded


SMALLEST_FLOAT = math.ulp(0.0)
"""The smallest positive float, 2⁻¹⁰⁷⁴ ≈ 4.9e-324."""


def _lower(value: Fraction) -> float:
    rounded = float(value)
    return rounded if Fraction(rounded) <= value else math.nextafter(rounded, -math.inf)


def _guess(guess: Callable[[], float]) -> float:
    """``guess()``, or 1 when it fails in floats."""
    try:
        estimate = guess()
    except (ArithmeticError, ValueError):
        return 1.0
    return estimate if math.isfinite(estimate) and estimate > 0 else 1.0


def _smallest(
    event_for: Callable[[Fraction], ev.Event],
    epsilon: sympy.Expr,
    delta: sympy.Expr,
    guess: Callable[[], float],
    on_evaluation: Callable[[int], None] | None,
) -> Fraction:
    """The smallest scale (to within :data:`RELATIVE_TOLERANCE`) whose event meets the target,
    searched from ``guess()`` (a float estimate: any positive start is correct, a good one saves
    evaluations; one that fails in floats — a δ below the float range — starts from 1)."""
    calls = [0]

    def counted(scale: Fraction) -> ev.Event:
        calls[0] += 1
        if on_evaluation is not None:
            on_evaluation(calls[0])
        return event_for(scale)

    start = Fraction(_guess(guess))
    return smallest_noise(counted, epsilon, delta, start=start, relative_tolerance=RELATIVE_TOLERANCE)


# --- subsampling --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Sampling:
    """How each step sees the data: all of it, a Poisson subsample of rate ``rate``, or ``sample`` =
    (m, n), m records drawn without replacement from n; ``relation`` is the final guarantee's."""

    rate: sympy.Expr | None
    sample: tuple[int, int] | None
    relation: str

    @property
    def subsampled(self) -> bool:
        return self.rate is not None or self.sample is not None

    @property
    def q(self) -> sympy.Expr:
        if self.rate is not None:
            return self.rate
        return sympy.Rational(*self.sample) if self.sample is not None else sympy.Integer(1)

    @property
    def child_relation(self) -> str:
        """A Poisson-subsampled step must be DP under add/remove (its input's size varies)."""
        return "add_remove" if self.rate is not None else self.relation

    @property
    def delta_factor(self) -> sympy.Expr:
        """c with: the subsampled step's δ ≤ c·δ₀. q by amplification (Theorem 3.4, BBG 2018 Thm 8);
        under substitution after Poisson sampling qδ₀(1 + e^{ε′−ε}), and e^{ε′−ε} =
        (1 + q(x − 1))/(x − q(x − 1)) at x = e^ε is monotone in x (its derivative has the sign of
        2q − 1) between 1 (x = 1) and q/(1 − q) (x → ∞): c = q·(1 + max(1, q/(1 − q))), i.e. 2q for
        q ≤ 1/2 and q/(1 − q) beyond."""
        q = self.q
        if self.rate is None or self.relation == "add_remove":
            return q
        at_most_half = certainly_le(q, sympy.Rational(1, 2))
        if at_most_half is None:  # undecidable: a bound ≥ both branches
            return q * (2 + q / (1 - q))
        return 2 * q if at_most_half else q / (1 - q)

    def wrap(self, step: ev.Event) -> ev.Event:
        if self.rate is not None:
            return ev.PoissonSubsample(step, self.rate, relation=self.relation)
        if self.sample is not None:
            return ev.SubsampleWithoutReplacement(step, *self.sample)
        return step


def _sampling(poisson_rate: Any, sample_size: Any, population_size: Any, relation: Any) -> _Sampling:
    rate = sample = None
    if poisson_rate is not None and (sample_size is not None or population_size is not None):
        raise ValueError("give either poisson_rate or sample_size and population_size, not both")
    if poisson_rate is not None:
        rate = exact(poisson_rate, "poisson_rate")
        if certainly_lt(0, rate) is not True or certainly_le(rate, 1) is not True:
            raise ValueError(f"poisson_rate must be in (0, 1], got {poisson_rate!r}")
    elif sample_size is not None or population_size is not None:
        if sample_size is None or population_size is None:
            raise ValueError("fixed-size subsampling needs both sample_size and population_size")
        sample = (_count(sample_size, "sample_size"), _count(population_size, "population_size"))
        if sample[0] > sample[1]:
            raise ValueError(f"sample_size must be ≤ population_size, got {sample[0]} > {sample[1]}")
    default_relation = "add_remove" if rate is not None else "substitute"
    relation = _choice(default_relation if relation is None else relation, "relation", ev.RELATIONS)
    if sample is not None and relation != "substitute":
        raise ValueError("fixed-size subsampling (Theorem 3.4) holds under relation='substitute' only")
    if rate is not None and relation == "substitute" and rate == 1:
        raise ValueError(
            "poisson_rate 1 under relation='substitute' gives no amplification: drop the subsampling"
        )
    return _Sampling(rate, sample, relation)


# --- per-step ε under composition -------------------------------------------------------------


def composition_epsilon(
    k: int,
    epsilon: Any,
    delta: Any,
    method: str = "optimal",
    step_delta: Any = 0,
    *,
    poisson_rate: Any = None,
    sample_size: int | None = None,
    population_size: int | None = None,
    on_evaluation: Callable[[int], None] | None = None,
) -> Calibration:
    """The largest ε₀ (rounded down to a float) such that k adaptively composed (ε₀, ``step_delta``)-DP
    mechanisms are certified (``epsilon``, ``delta``)-DP under ``method``:

    * ``basic``: ε₀ = ε/k, needs k·δ₀ ≤ δ (Dwork–Roth 2014, Thm 3.16);
    * ``advanced``: √(2k ln(1/δ′))ε₀ + kε₀(e^{ε₀} − 1) ≤ ε with δ′ = δ − kδ₀ > 0 (Theorem 3.5 of
      seed 000; Dwork–Rothblum–Vadhan 2010);
    * ``optimal``: the exact optimum over all (ε₀, δ₀)-DP mechanisms (Kairouz–Oh–Viswanath 2015,
      Thm 3.3; exact at any k).

    With ``poisson_rate`` q each mechanism runs on a Poisson subsample and must be (ε₀, δ₀)-DP under
    add/remove neighbours (the guarantee is then under add/remove, BBG 2018 Thm 8); with
    ``sample_size`` m and ``population_size`` n on m of n records drawn without replacement
    (Theorem 3.4). The amplified steps are composed as (ε, δ) pairs, and k·q·δ₀ must leave room in δ.
    ``on_evaluation(n)`` is called before the n-th accountant evaluation of a search.

    Args:
        k: Number of composed mechanisms.
        epsilon: Target ε of the composition (exact).
        delta: Target δ of the composition (exact).
        method: ``"basic"``, ``"advanced"`` or ``"optimal"``.
        step_delta: δ₀ of each mechanism (exact).
        poisson_rate: Poisson subsampling rate q of each step, if any.
        sample_size: Records drawn without replacement per step, if any.
        population_size: The population they are drawn from.
        on_evaluation: Called before each accountant evaluation of the search.

    Returns:
        The :class:`Calibration` of ε₀.

    Raises:
        ValueError: invalid targets or method, or a target no ε₀ > 0 meets.
    """
    k = _count(k, "k")
    target_epsilon, method = _positive(epsilon, "epsilon"), _choice(method, "method", COMPOSITIONS)
    target_delta = _delta(delta, "delta", allow_zero=method == "basic")
    delta0 = _delta(step_delta, "step_delta", allow_zero=True)
    sampling = _sampling(poisson_rate, sample_size, population_size, None)
    spent = k * sampling.q * delta0
    if certainly_le(spent, target_delta) is not True:
        raise ValueError(f"step_delta must satisfy k·q·step_delta ≤ delta (k = {k}, q = {sampling.q})")
    if method != "basic" and certainly_lt(spent, target_delta) is not True:
        raise ValueError(
            f"{method} composition needs k·q·step_delta < delta, leaving δ′ > 0 for the composition"
        )

    def step(epsilon0: Any) -> ev.Event:
        relation = sampling.child_relation
        inner = ev.PureDP(epsilon0, relation) if delta0 == 0 else ev.ApproxDP(epsilon0, delta0, relation)
        return sampling.wrap(inner)

    def event_for(epsilon0: Any) -> ev.Event:
        return ev.Composition(
            (step(epsilon0),),
            method=method,
            target_delta=None if method == "basic" else target_delta,
            repeat=k,
        )

    if method == "basic" and not sampling.subsampled:
        exact_step = target_epsilon / k
        rational = _as_fraction(exact_step)
        value = _lower(rational) if rational is not None else lower_float(enclose(exact_step))
    else:  # ε₀ = 1/s for the smallest s whose event meets the target: privacy improves as s grows

        def guess() -> float:
            spread = k if method == "basic" else math.sqrt(2 * k * math.log(2 / float(target_delta)))
            per_step = float(target_epsilon) / spread
            return 1 / math.log1p(math.expm1(min(per_step, 50.0)) / float(sampling.q))

        if method == "pld":
            scale = Fraction(
                pld_calibration.smallest_noise(
                    lambda s: event_for(1 / s), target_epsilon, target_delta, _guess(guess), on_evaluation
                )
            )
        else:
            scale = _smallest(lambda s: event_for(1 / s), target_epsilon, target_delta, guess, on_evaluation)
        value = _lower(1 / scale)
    notes: tuple[str, ...] = (
        {
            "basic": "basic composition (Dwork–Roth 2014, Thm 3.16): exact for the sum",
            "advanced": "advanced composition (Theorem 3.5): valid for any ε₀, loose against optimal composition",
            "optimal": "optimal composition over all (ε₀, δ₀)-DP mechanisms (Kairouz–Oh–Viswanath 2015); a "
            "specific mechanism (Gaussian, Laplace) composes better: calibrate its noise instead "
            "(composition_noise)",
        }[method],
    )
    if sampling.subsampled:
        notes += (
            "each step amplified by subsampling (Theorem 3.4 / Balle–Barthe–Gaboardi 2018), then composed",
        )
    return _certify("epsilon", value, event_for, target_epsilon, target_delta, notes, sampling.relation)


# --- noise of k compositions of a mechanism, optionally subsampled --------------------------------


@dataclass(frozen=True)
class _Setup:
    """The validated request of :func:`composition_noise`."""

    mechanism: str
    sensitivity: sympy.Expr
    epsilon: sympy.Expr
    delta: sympy.Expr
    k: int
    composition: str
    sampling: _Sampling
    chosen: bool = False
    """``composition`` is ``"pld"`` because ``"optimal"`` was asked for a subsampled mechanism."""

    @property
    def subsampled(self) -> bool:
        return self.sampling.subsampled

    @property
    def step_delta(self) -> sympy.Expr:
        """δ₀ of each step (see the module docstring)."""
        share = self.delta if self.composition == "basic" or self.k == 1 else self.delta / 2
        step = share / (self.k * self.sampling.delta_factor)
        return step if certainly_le(step, MAX_STEP_DELTA) else MAX_STEP_DELTA

    def step(self, scale: Any) -> ev.Event:
        """One release with noise ``scale`` (under add/remove when Poisson-subsampled)."""
        relation = self.sampling.child_relation
        if self.mechanism in ("gaussian", "gaussian-classic"):
            calibration = "analytic" if self.mechanism == "gaussian" else "classical"
            return ev.Gaussian(scale, self.step_delta, self.sensitivity, calibration, relation)
        if self.mechanism == "discrete-gaussian":
            return ev.DiscreteGaussian(scale, self.sensitivity, self.step_delta, relation)
        if self.mechanism == "laplace":
            return ev.Laplace(scale, self.sensitivity, relation)
        return ev.DiscreteLaplace(scale, self.sensitivity, relation)

    def event(self, scale: Any) -> ev.Event:
        """k compositions of the (subsampled) release with noise ``scale``."""
        step = self.sampling.wrap(self.step(scale))
        if self.k == 1 and self.composition != "pld":
            return step
        return ev.Composition(
            (step,),
            method=self.composition,
            target_delta=None if self.composition == "basic" else self.delta,
            repeat=self.k,
        )

    def closed_form(self) -> sympy.Expr | None:
        """The exact smallest noise when one exists: Laplace and discrete Laplace without
        subsampling under basic composition (b = kΔ₁/ε), the classic Gaussian (one release)."""
        if self.subsampled:
            return None
        if self.mechanism in _PURE and (self.k == 1 or self.composition == "basic"):
            return self.k * self.sensitivity / self.epsilon
        if self.mechanism == "gaussian-classic":
            return (
                self.sensitivity * sympy.sqrt(2 * sympy.log(sympy.Rational(5, 4) / self.delta)) / self.epsilon
            )
        return None

    def analytic_gaussian(self) -> bool:
        """One analytic Gaussian release, or k of them composed exactly (Dong–Roth–Su): the ratio
        √k·Δ/σ is found by :func:`_analytic_gaussian_sigma`."""
        return (
            self.mechanism == "gaussian"
            and not self.subsampled
            and (self.k == 1 or self.composition == "optimal")
        )

    def guess(self) -> float:
        """A rough noise scale to start the search from (within a few factors of two)."""
        per_step = float(self.epsilon) / (self.k if self.composition == "basic" else math.sqrt(self.k))
        q = float(self.sampling.q)
        if self.subsampled:  # invert the amplification ε′ ≈ log(1 + q(e^ε − 1))
            per_step = math.log1p(math.expm1(min(per_step, 50.0)) / q)
        sensitivity = float(self.sensitivity)
        if self.mechanism in _PURE:
            return sensitivity / per_step
        return sensitivity * math.sqrt(2 * math.log(1.25 / float(self.delta))) / per_step

    def notes(self) -> tuple[str, ...]:
        notes = [_NOTES[self.mechanism]]
        if self.k > 1:
            if self.composition == "optimal" and not self.subsampled and self.mechanism == "gaussian":
                notes.append("optimal composition of Gaussian mechanisms (Dong–Roth–Su 2019, Cor 3.3): exact")
            elif (
                self.composition == "optimal"
                and not self.subsampled
                and self.mechanism == "discrete-gaussian"
            ):
                notes.append("zCDP composition (Bun–Steinke 2016), converted once at δ")
            elif self.composition == "optimal" and self.mechanism in _PURE and not self.subsampled:
                notes.append(
                    "optimal composition over all ε₀-DP mechanisms (Kairouz–Oh–Viswanath 2015); the "
                    "Laplace mechanism composes better, which privacy-loss-distribution accountants use"
                )
            else:
                notes.append(f"{self.composition} composition of {self.k} steps")
        if self.chosen:
            notes.append(_CHOSEN_NOTE)
        if self.composition == "pld":
            notes.append(_PLD_NOTE)
        elif self.subsampled:
            notes.append(_LOOSE_SUBSAMPLED)
        if self.sampling.rate is not None:
            notes.append("Poisson subsampling: the sensitivity is the add/remove-one sensitivity")
        if self.sampling.sample is not None and self.composition == "pld":
            notes.append(
                "fixed-size sampling without replacement: the sensitivity is the substitute-one sensitivity"
            )
        if self.mechanism not in (*_PURE, "gaussian") or not (
            (self.composition == "optimal" and not self.subsampled and self.k > 1)
            or self.composition == "pld"
        ):
            notes.append(f"each step accounted at δ₀ = {float(self.step_delta):.6g}")
        return tuple(notes)


def _setup(
    mechanism: Any,
    sensitivity: Any,
    epsilon: Any,
    delta: Any,
    k: Any,
    composition: Any,
    poisson_rate: Any,
    sample_size: Any,
    population_size: Any,
    relation: Any,
) -> _Setup:
    mechanism = _choice(mechanism, "mechanism", MECHANISMS)
    composition = _choice(composition, "method", COMPOSITIONS)
    k = _count(k, "k")
    pure_target = mechanism in _PURE and (k == 1 or composition == "basic")
    if not pure_target and exact(delta, "delta") == 0:
        reason = f"{mechanism} noise" if mechanism not in _PURE else f"{composition} composition"
        raise ValueError(f"delta must be in (0, 1): {reason} needs δ > 0")
    target_delta = _delta(delta, "delta", allow_zero=pure_target)
    sampling = _sampling(poisson_rate, sample_size, population_size, relation)
    setup = _Setup(
        mechanism,
        _positive(sensitivity, "sensitivity"),
        _positive(epsilon, "epsilon"),
        target_delta,
        k,
        composition,
        sampling,
    )
    if "gaussian" in mechanism and certainly_le(setup.epsilon, MAX_GAUSSIAN_EPSILON) is not True:
        raise ValueError(
            f"epsilon must be ≤ {MAX_GAUSSIAN_EPSILON} for Gaussian noise (the certified analytic "
            f"Gaussian covers ε up to there; beyond, σ is negligible), got {sympy.Float(setup.epsilon, 6)}"
        )
    if mechanism == "gaussian-classic":
        if k > 1 or setup.subsampled:
            raise ValueError(
                "mechanism 'gaussian-classic' is for one release (Dwork–Roth Thm A.1); for k releases "
                "or subsampling use 'gaussian' (analytic), or composition_epsilon for a per-step budget"
            )
        if certainly_lt(setup.epsilon, 1) is not True:
            raise ValueError(
                "the classic Gaussian calibration needs epsilon < 1 (Dwork–Roth Thm A.1); "
                "use mechanism 'gaussian' (analytic)"
            )
    return setup


def composition_noise(
    mechanism: str,
    sensitivity: Any,
    epsilon: Any,
    delta: Any = 0,
    k: int = 1,
    method: str | None = None,
    *,
    poisson_rate: Any = None,
    sample_size: int | None = None,
    population_size: int | None = None,
    relation: str | None = None,
    on_evaluation: Callable[[int], None] | None = None,
    composition: str | None = None,
) -> Calibration:
    """The smallest noise (σ for Gaussians, scale b or t for Laplace) such that ``k`` adaptive
    releases of ``mechanism`` on a statistic of the given sensitivity (L2 for Gaussians, L1 for
    Laplace) are certified (``epsilon``, ``delta``)-DP, composed by ``method`` (``composition=``, its former name, is deprecated), each release
    run on a Poisson subsample (``poisson_rate`` q, Balle–Barthe–Gaboardi 2018 Thm 8; the
    sensitivity is then the add/remove-one sensitivity) or on ``sample_size`` records drawn without
    replacement from ``population_size`` (Theorem 3.4). ``relation`` is the neighbouring relation of
    the final guarantee (default: add/remove with Poisson subsampling, substitute-one otherwise).

    The noise is rounded up to a float; ``notes`` state the rules used and where they are loose
    (subsampled mechanisms above all). ``on_evaluation(n)`` is called before the n-th accountant
    evaluation of a search (for a progress bar).

    Args:
        mechanism: ``"gaussian"``, ``"laplace"``, ``"discrete-gaussian"`` or ``"discrete-laplace"``.
        sensitivity: Sensitivity of each release (L2 for Gaussians, L1 for Laplace; exact).
        epsilon: Target ε of the composition (exact).
        delta: Target δ of the composition (exact).
        k: Number of releases.
        method: ``"basic"``, ``"advanced"``, ``"optimal"`` (default) or ``"pld"`` (privacy-loss
            distributions: subsampled mechanisms at the tightness of dp_accounting's PLD).
            ``"optimal"`` takes ``"pld"`` for subsampled Gaussian, Laplace and discrete Laplace
            releases (:data:`DISTRIBUTION_MECHANISMS`) and for k > 1 Laplace releases (the notes
            say so).
        poisson_rate: Poisson subsampling rate q of each release, if any.
        sample_size: Records drawn without replacement per release, if any.
        population_size: The population they are drawn from.
        relation: Neighbouring relation of the final guarantee.
        on_evaluation: Called before each accountant evaluation of the search.
        composition: Deprecated name of ``method``.

    Returns:
        The :class:`Calibration` of the noise.

    Raises:
        ValueError: invalid arguments, or a target no noise meets.
        TypeError: both ``method`` and ``composition``.
    """
    method = renamed_keyword("composition_noise", "composition", "method", composition, method) or "optimal"
    setup = _setup(
        mechanism,
        sensitivity,
        epsilon,
        delta,
        k,
        method,
        poisson_rate,
        sample_size,
        population_size,
        relation,
    )
    if setup.composition == "optimal" and (
        (setup.subsampled and setup.mechanism in DISTRIBUTION_MECHANISMS)
        or (setup.mechanism == "laplace" and setup.k > 1)
    ):
        setup = replace(setup, composition="pld", chosen=True)
    parameter = "sigma" if "gaussian" in setup.mechanism else "scale"
    closed = setup.closed_form()
    if closed is not None:
        rational = _as_fraction(closed)
        value = _float_noise(rational if rational is not None else closed, parameter)
    elif setup.analytic_gaussian():
        value = _analytic_gaussian_sigma(setup, on_evaluation)
    elif setup.composition == "pld":
        value = pld_calibration.smallest_noise(
            setup.event, setup.epsilon, setup.delta, _guess(setup.guess), on_evaluation
        )
    else:
        value = _upper(_smallest(setup.event, setup.epsilon, setup.delta, setup.guess, on_evaluation))
    return _certify(
        parameter, value, setup.event, setup.epsilon, setup.delta, setup.notes(), setup.sampling.relation
    )


GAUSSIAN_PRECISION = 96
"""Bits of the mpmath root finding of :func:`_analytic_gaussian_sigma` (any value is then certified)."""


def _analytic_gaussian_sigma(setup: _Setup, on_evaluation: Callable[[int], None] | None) -> float:
    """σ for analytic Gaussian releases without a search over certified evaluations.

    With z = √(2 ln(1/δ)), the ratio r₀ = √(z² + 2ε) − z satisfies ε/r₀ − r₀/2 = z, so
    δ(ε; r₀) ≤ Φ̄(z) ≤ e^{−z²/2} = δ (Balle–Wang 2018, Thm 8, bounded by its first term): a
    certified closed-form bracket end. The root of δ(ε; r) = δ is bracketed from r₀ by doubling and
    found by bisection in mpmath (exponents unbounded, so ε = 10⁴⁰⁰ and Δ = 10³⁰⁸ are ordinary
    numbers); σ = √k·Δ/r is rounded up to a float and certified by ``account`` at σ(1 + 2⁻³⁰)
    (then 2⁻²⁰, then the closed-form end). ValueError when σ is not a finite positive float."""
    with mpmath.workprec(GAUSSIAN_PRECISION):
        epsilon = _mp(setup.epsilon)
        delta = _mp(setup.delta)
        spread = _mp(setup.sensitivity) * mpmath.sqrt(setup.k)
        z = mpmath.sqrt(2 * mpmath.log(1 / delta))
        safe = mpmath.sqrt(z * z + 2 * epsilon) - z
        if not safe > 0:  # 2ε below the working precision of z²: r₀ ≈ ε/z
            safe = epsilon / (z + 1) / 2

        def excess(r: mpmath.mpf) -> mpmath.mpf:
            first = mpmath.ncdf(r / 2 - epsilon / r)
            second = mpmath.ncdf(-r / 2 - epsilon / r)
            return first - mpmath.exp(epsilon + mpmath.log(second)) - delta if second > 0 else first - delta

        low, high = safe, safe * 2
        for _ in range(4096):
            if excess(high) > 0:
                break
            low, high = high, high * 2
        for _ in range(GAUSSIAN_PRECISION):
            if high / low - 1 < mpmath.mpf(2) ** -40:
                break
            middle = mpmath.sqrt(low * high)
            if excess(middle) > 0:
                high = middle
            else:
                low = middle
        candidates = [spread / low * (1 + mpmath.mpf(2) ** -30), spread / low * (1 + mpmath.mpf(2) ** -20)]
        candidates.append(spread / safe)
    for candidate in candidates:
        if on_evaluation is not None:
            on_evaluation(candidates.index(candidate) + 1)
        value = float(candidate)
        if not (math.isfinite(value) and value > 0):
            raise ValueError(
                f"the Gaussian σ for this target is {mpmath.nstr(candidate, 6)}, outside the float range"
            )
        value = math.nextafter(value, math.inf)
        if account(setup.event(Fraction(value))).guarantee.meets(setup.epsilon, setup.delta).holds:
            return value
    return _upper(_smallest(setup.event, setup.epsilon, setup.delta, setup.guess, on_evaluation))


def _mp(value: sympy.Expr) -> mpmath.mpf:
    """An mpf within the working precision of an exact positive parameter."""
    interval = enclose(value)
    return (
        mpmath.mpf(upper_float(interval))
        if interval.b < 2**1000 and interval.a > 2**-1000
        else mpmath.mpf(interval.b)
    )


def laplace_scale(sensitivity: Any, epsilon: Any) -> Calibration:
    """b = Δ₁/ε (rounded up): Laplace(b) noise on a statistic of L1 sensitivity Δ₁ is ε-DP
    (Dwork–McSherry–Nissim–Smith 2006).

    Args:
        sensitivity: L1 sensitivity Δ₁ (exact).
        epsilon: Target ε (exact).

    Returns:
        The :class:`Calibration` of the scale b.

    Raises:
        ValueError: a non-positive sensitivity or ε.
    """
    return composition_noise("laplace", sensitivity, epsilon)


def gaussian_sigma(sensitivity: Any, epsilon: Any, delta: Any, method: str = "analytic") -> Calibration:
    """The smallest σ (rounded up) for which N(0, σ²) noise on a statistic of L2 sensitivity Δ is
    (ε, δ)-DP: ``analytic`` by Balle–Wang 2018, Thm 8 (exact, any ε > 0), ``classic`` by
    σ = Δ√(2 ln(1.25/δ))/ε (Dwork–Roth 2014, Thm A.1; ε < 1).

    Args:
        sensitivity: L2 sensitivity Δ (exact).
        epsilon: Target ε (exact).
        delta: Target δ (exact).
        method: ``"analytic"`` or ``"classic"``.

    Returns:
        The :class:`Calibration` of σ.

    Raises:
        ValueError: invalid targets, an unknown method, or ε ≥ 1 for ``classic``.
    """
    method = _choice(method, "method", ("analytic", "classic"))
    return composition_noise(
        "gaussian" if method == "analytic" else "gaussian-classic", sensitivity, epsilon, delta
    )


def discrete_laplace_scale(sensitivity: Any, epsilon: Any) -> Calibration:
    """t = Δ₁/ε (rounded up): discrete Laplace noise Pr[z] ∝ e^{−|z|/t} on an integer statistic of
    L1 sensitivity Δ₁ is ε-DP (Canonne–Kamath–Steinke 2020, Sec 2).

    Args:
        sensitivity: L1 sensitivity Δ₁ of the integer statistic (exact).
        epsilon: Target ε (exact).

    Returns:
        The :class:`Calibration` of the scale t.

    Raises:
        ValueError: a non-positive sensitivity or ε.
    """
    return composition_noise("discrete-laplace", sensitivity, epsilon)


def discrete_gaussian_sigma(sensitivity: Any, epsilon: Any, delta: Any) -> Calibration:
    """The smallest σ (rounded up) the accountant certifies for discrete Gaussian noise N_Z(0, σ²) on
    an integer statistic of L2 sensitivity Δ: ρ = Δ²/(2σ²)-zCDP (CKS 2020, Thm 4) converted to
    (ε, δ) by CKS 2020, Cor 13 (valid, slightly loose).

    Args:
        sensitivity: L2 sensitivity Δ of the integer statistic (exact).
        epsilon: Target ε (exact).
        delta: Target δ (exact).

    Returns:
        The :class:`Calibration` of σ.

    Raises:
        ValueError: invalid targets.
    """
    return composition_noise("discrete-gaussian", sensitivity, epsilon, delta)
