"""The accountant: visits an event tree and derives a certified guarantee at every node.

Each rule cites the statement it implements; the :class:`Derivation` keeps rule, source and
formula so that reports can print the chain. An event with no rule raises ``ValueError``
(the accountant never guesses).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any, cast

import sympy
from mpmath import iv, mpf

from dpledger.accountant import events as ev
from dpledger.accountant.guarantee import Guarantee, Verdict
from dpledger.accountant.numerics.certified import (
    certainly_le,
    enclose,
    lower_end,
    lower_float,
    upper_end,
    upper_float,
)
from dpledger.accountant.numerics.optimal_composition import (
    heterogeneous_optimal_epsilon,
    homogeneous_optimal_epsilon,
)
from dpledger.accountant.numerics.special import (
    AnalyticGaussianEpsilon,
    HeterogeneousOptimalEpsilon,
    OptimalCompositionEpsilon,
)
from dpledger.accountant.relations import relation_of
from dpledger.accountant.rendering import derivation_markdown, derivation_text

C_LB = sympy.log(4 * sympy.E)
"""c_LB = ln(4e), the LabelBoost constant of Lemma 3.14."""

LABELBOOST_EPSILON = 1
"""The ε of the exponential mechanism of Algorithm 1 line 5. The LabelBoost events carry no ε:
Lemmas 3.11, 3.15 and 3.17 (and the rules below) hold for LabelBoost at this ε only."""


@dataclass(frozen=True)
class ClaimCheck:
    """A paper's claimed guarantee for a subtree, compared rigorously with the derived one
    (the comparison runs when the verdict is first asked for)."""

    statement: str
    claimed: Guarantee
    derived: Guarantee

    @cached_property
    def verdict(self) -> Verdict:
        eps_ok = certainly_le(self.derived.epsilon, self.claimed.epsilon)
        delta_ok = certainly_le(self.derived.delta, self.claimed.delta)
        return Verdict(
            holds=bool(eps_ok) and bool(delta_ok) and self.derived.relation == self.claimed.relation,
            epsilon_holds=bool(eps_ok),
            delta_holds=bool(delta_ok),
            decided=eps_ok is not None and delta_ok is not None,
        )


@dataclass(frozen=True)
class Derivation:
    """The guarantee derived for ``event`` by ``rule`` (citing ``source``), from ``children``."""

    event: ev.Event
    guarantee: Guarantee
    rule: str
    source: str
    formula: str
    children: tuple[Derivation, ...] = ()
    claim: ClaimCheck | None = None

    def walk(self) -> list[tuple[int, Derivation]]:
        """All nodes, depth-first, with their depth."""
        nodes = [(0, self)]
        for child in self.children:
            nodes.extend((depth + 1, node) for depth, node in child.walk())
        return nodes

    def claims(self) -> list[ClaimCheck]:
        return [node.claim for _, node in self.walk() if node.claim is not None]

    def to_text(self) -> str:
        """Indented text, one line per step (:func:`~dpledger.accountant.rendering.derivation_text`)."""
        return derivation_text(self)

    def to_markdown(self) -> str:
        """A Markdown table, one row per step (:func:`~dpledger.accountant.rendering.derivation_markdown`)."""
        return derivation_markdown(self)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "event": self.event.kind,
            "rule": self.rule,
            "source": self.source,
            "formula": self.formula,
            "guarantee": self.guarantee.to_dict(),
            "children": [child.to_dict() for child in self.children],
        }
        if self.claim is not None:
            out["claim"] = {
                "statement": self.claim.statement,
                **self.claim.claimed.bounds(),
                "holds": self.claim.verdict.holds,
            }
        return out


Rule = Callable[[Any, list[Derivation]], Derivation]

HETEROGENEOUS_EXACT_MAX = 10**6
"""Heterogeneous compositions of more mechanisms than this are not convolved (the certified
function lists every mechanism): the rule brackets them (see :func:`_bracketed`) and says so.
Homogeneous compositions are exact at any k (the binomial is summed on a window of about
√k·√(2 log(2/τ)) atoms with its tails τ certified, :mod:`~dpledger.accountant.numerics.optimal_composition`)."""
_RULES: dict[type, Rule] = {}


def _rule(event_type: type) -> Callable[[Rule], Rule]:
    def register(function: Rule) -> Rule:
        _RULES[event_type] = function
        return function

    return register


@lru_cache(maxsize=4096)
def account(event: ev.Event) -> Derivation:
    """Derive the certified guarantee of ``event`` (and of every node below it). Events are
    immutable, so derivations of repeated subtrees are shared (cached).

    Args:
        event: The event tree a mechanism recorded.

    Returns:
        The :class:`Derivation`: the guarantee at every node, with rule, source and formula.

    Raises:
        ValueError: an event no rule covers, or a rule's precondition that fails.
    """
    rule = _RULES.get(type(event))
    if rule is None:
        raise ValueError(f"no accounting rule for event {type(event).__name__}")
    children = [account(child) for child in event.subevents]
    relation = relation_of(event, [child.guarantee.relation for child in children])
    derivation = rule(event, children)
    if derivation.guarantee.relation == relation:
        return derivation
    return replace(derivation, guarantee=replace(derivation.guarantee, relation=relation))


def _domain(children: list[Derivation]) -> str:
    return "realizable" if any(c.guarantee.domain == "realizable" for c in children) else "arbitrary"


def _require_arbitrary(child: Derivation, statement: str) -> None:
    if child.guarantee.domain != "arbitrary":
        raise ValueError(
            f"{statement} needs a child that is DP on arbitrary neighbours; "
            f"{child.event.kind} is private on realizable inputs only (wrap it with LabelBoostRealizable)"
        )


# --- primitives -------------------------------------------------------------------------


@_rule(ev.PureDP)
def _pure(event: ev.PureDP, _: list[Derivation]) -> Derivation:
    return Derivation(
        event, Guarantee(event.epsilon, sympy.Integer(0)), "pure DP", "Definition 3.2", r"(\varepsilon, 0)"
    )


@_rule(ev.ApproxDP)
def _approx(event: ev.ApproxDP, _: list[Derivation]) -> Derivation:
    return Derivation(
        event,
        Guarantee(event.epsilon, event.delta),
        "approximate DP",
        "Definition 3.2",
        r"(\varepsilon, \delta)",
    )


@_rule(ev.Laplace)
def _laplace(event: ev.Laplace, _: list[Derivation]) -> Derivation:
    return Derivation(
        event,
        Guarantee(event.sensitivity / event.scale, sympy.Integer(0)),
        "Laplace mechanism",
        "Dwork et al. 2006",
        r"\varepsilon = \Delta_1 / b",
    )


@_rule(ev.Gaussian)
def _gaussian(event: ev.Gaussian, _: list[Derivation]) -> Derivation:
    ratio = event.sensitivity / event.sigma
    if event.calibration == "analytic":
        epsilon = AnalyticGaussianEpsilon(ratio, event.delta)
        return Derivation(
            event,
            Guarantee(epsilon, event.delta),
            "analytic Gaussian mechanism",
            "Balle–Wang 2018, Thm 8",
            r"\min\{\varepsilon: \Phi(\tfrac{\Delta}{2\sigma}-\tfrac{\varepsilon\sigma}{\Delta}) - e^{\varepsilon}\Phi(-\tfrac{\Delta}{2\sigma}-\tfrac{\varepsilon\sigma}{\Delta}) \le \delta\}",
        )
    epsilon = ratio * sympy.sqrt(2 * sympy.log(sympy.Rational(5, 4) / event.delta))
    if certainly_le(epsilon, 1) is not True:
        raise ValueError(
            "classical Gaussian calibration needs ε < 1 (Dwork–Roth Thm A.1); use calibration='analytic'"
        )
    return Derivation(
        event,
        Guarantee(epsilon, event.delta),
        "classical Gaussian mechanism",
        "Dwork–Roth 2014, Thm A.1",
        r"\varepsilon = \Delta_2\sqrt{2\ln(1.25/\delta)}/\sigma",
    )


def zcdp_alpha(rho: float, delta: float) -> Fraction:
    """An order α > 1 nearly minimising the ε of :func:`zcdp_to_dp` (golden-section search in
    floats on x = ln(α − 1)). Any α > 1 gives a valid bound; the search only makes it tight."""
    log_inv_delta = -math.log(delta)

    def value(x: float) -> float:
        a1 = math.exp(x)
        alpha = 1 + a1
        return alpha * rho + (log_inv_delta + a1 * x - alpha * math.log(alpha)) / a1

    low, high = -30.0, 40.0
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        m1, m2 = high - ratio * (high - low), low + ratio * (high - low)
        if value(m1) <= value(m2):
            high = m2
        else:
            low = m1
    excess = math.exp((low + high) / 2)  # α − 1, rounded to 8 significant bits:
    shift = 8 - math.frexp(excess)[1]
    alpha = 1 + Fraction(max(1, round(math.ldexp(excess, shift)))) / Fraction(2) ** shift
    return alpha


def zcdp_to_dp(rho: sympy.Expr, delta: sympy.Expr) -> tuple[sympy.Expr, Fraction]:
    """(ε, α): ρ-zCDP implies (ε, δ)-DP with
    ε = αρ + (ln(1/δ) + (α−1)ln(α−1) − α ln α)/(α−1) for every α > 1 (Canonne–Kamath–Steinke
    2020, Cor 13: δ = e^{(α−1)(αρ−ε)}(1 − 1/α)^α/(α−1), solved for ε). α comes from a float
    search (α − 1 then rounded to 8 significant bits, a dyadic rational: sympy simplifies powers
    of it fast, and ε is flat near its minimum); the ε returned is the exact expression at that
    rational α, so its certified enclosure is an upper bound whatever the search's rounding. When the bound is ≤ 0 the
    mechanism is (0, δ)-DP and ε = max(0, ·) is reported."""
    alpha = zcdp_alpha(float(rho), float(delta))
    a = sympy.Rational(alpha.numerator, alpha.denominator)
    epsilon = a * rho + (sympy.log(1 / delta) + (a - 1) * sympy.log(a - 1) - a * sympy.log(a)) / (a - 1)
    if certainly_le(epsilon, 0) is not False:
        epsilon = Max(sympy.Integer(0), epsilon)
    return epsilon, alpha


ZCDP_FORMULA = (
    r"\rho = \Delta'^2/(2s^2),\ \varepsilon = \alpha\rho + \tfrac{\ln(1/\delta) + (\alpha-1)\ln(\alpha-1)"
    r" - \alpha\ln\alpha}{\alpha-1}"
)


@_rule(ev.DiscreteGaussian)
def _discrete_gaussian(event: ev.DiscreteGaussian, _: list[Derivation]) -> Derivation:
    rho = event.sensitivity_units**2 / (2 * event.sigma_units**2)
    epsilon, alpha = zcdp_to_dp(rho, event.delta)
    return Derivation(
        event,
        Guarantee(epsilon, event.delta),
        f"discrete Gaussian mechanism (ρ-zCDP → (ε, δ) at α = {float(alpha):.6g})",
        "Canonne–Kamath–Steinke 2020, Thm 4, Cor 13",
        ZCDP_FORMULA,
    )


@_rule(ev.DiscreteLaplace)
def _discrete_laplace(event: ev.DiscreteLaplace, _: list[Derivation]) -> Derivation:
    return Derivation(
        event,
        Guarantee(event.sensitivity_units / event.scale_units, sympy.Integer(0)),
        "discrete Laplace mechanism",
        "Canonne–Kamath–Steinke 2020, Sec 2",
        r"\varepsilon = \Delta'_1 / t",
    )


@_rule(ev.ExponentialMechanism)
def _exponential(event: ev.ExponentialMechanism, _: list[Derivation]) -> Derivation:
    return Derivation(
        event,
        Guarantee(event.epsilon, sympy.Integer(0)),
        "exponential mechanism",
        "McSherry–Talwar 2007",
        r"\Pr[r] \propto e^{\varepsilon q(S,r)/(2\Delta q)}",
    )


def choosing_guarantee(event: ev.ChoosingMechanism) -> tuple[sympy.Expr, sympy.Expr]:
    """(ε + ln(1 + k e^{−εt/2}), k e^{ε(1−t)/2}) of a choosing mechanism (its event's docstring
    has the proof), exactly."""
    eps, t, k = event.epsilon, event.threshold, event.positives
    return eps + sympy.log(1 + k * sympy.exp(-eps * t / 2)), k * sympy.exp(eps * (1 - t) / 2)


@_rule(ev.ChoosingMechanism)
def _choosing(event: ev.ChoosingMechanism, _: list[Derivation]) -> Derivation:
    return Derivation(
        event,
        Guarantee(*choosing_guarantee(event)),
        f"choosing mechanism (≤ {event.positives} positive candidates, reserve score t)",
        "Beimel–Nissim–Stemmer 2013 (choosing mechanism); proof in the event",
        r"(\varepsilon + \ln(1 + k e^{-\varepsilon t/2}),\ k e^{\varepsilon(1-t)/2})",
    )


@_rule(ev.RandomizedResponse)
def _randomized_response(event: ev.RandomizedResponse, _: list[Derivation]) -> Derivation:
    return Derivation(
        event,
        Guarantee(event.epsilon, sympy.Integer(0)),
        "randomized response",
        "Warner 1965",
        r"\Pr[\text{truth}] = e^{\varepsilon}/(e^{\varepsilon}+k-1)",
    )


# --- transforms -------------------------------------------------------------------------


@_rule(ev.OnRealizableInputs)
def _realizable(event: ev.OnRealizableInputs, children: list[Derivation]) -> Derivation:
    g = children[0].guarantee
    return Derivation(
        event,
        Guarantee(g.epsilon, g.delta, "realizable"),
        "DP on realizable inputs",
        "Definition 3.6",
        r"(\varepsilon, \delta)\ \text{on } \mathcal{C}\text{-realizable neighbours}",
        tuple(children),
    )


@_rule(ev.PostProcessing)
def _post(event: ev.PostProcessing, children: list[Derivation]) -> Derivation:
    return Derivation(
        event,
        children[0].guarantee,
        "post-processing",
        "Dwork–Roth 2014, Prop 2.1",
        r"(\varepsilon, \delta)",
        tuple(children),
    )


@_rule(ev.LabelBoostThen)
def _labelboost_then(event: ev.LabelBoostThen, children: list[Derivation]) -> Derivation:
    _require_arbitrary(children[0], "Lemma 3.11")
    g = children[0].guarantee
    return Derivation(
        event,
        Guarantee(g.epsilon + 3, 4 * sympy.E * g.delta),
        "LabelBoost then DP algorithm",
        "Lemma 3.11",
        r"(\varepsilon + 3,\ 4e\delta)",
        tuple(children),
    )


@_rule(ev.LabelBoostRealizable)
def _labelboost_realizable(event: ev.LabelBoostRealizable, children: list[Derivation]) -> Derivation:
    g = children[0].guarantee
    return Derivation(
        event,
        Guarantee(g.epsilon + C_LB, 4 * sympy.E * g.delta),
        "LabelBoost then realizable-private continuation",
        "Lemma 3.15",
        r"(\varepsilon + c_{LB},\ 4e\delta),\ c_{LB} = \ln(4e)",
        tuple(children),
    )


@_rule(ev.LabelBoostCarrier)
def _labelboost_carrier(event: ev.LabelBoostCarrier, _: list[Derivation]) -> Derivation:
    return Derivation(
        event,
        Guarantee(C_LB, sympy.Integer(0)),
        "carrier-only LabelBoost release",
        "Lemma 3.17",
        r"(c_{LB}, 0)",
    )


def _amplified(event: ev.Event, child: Derivation, q: sympy.Expr, rule: str, source: str) -> Derivation:
    _require_arbitrary(child, source)
    g = child.guarantee
    epsilon = sympy.log(1 + q * (sympy.exp(g.epsilon) - 1))
    return Derivation(
        event,
        Guarantee(epsilon, q * g.delta),
        rule,
        source,
        r"(\log(1 + q(e^{\varepsilon}-1)),\ q\delta)",
        (child,),
    )


@_rule(ev.SubsampleWithoutReplacement)
def _subsample(event: ev.SubsampleWithoutReplacement, children: list[Derivation]) -> Derivation:
    q = sympy.Rational(event.sample_size, event.population_size)
    return _amplified(event, children[0], q, "subsampling without replacement", "Theorem 3.4")


@_rule(ev.SubsampleWithReplacement)
def _with_replacement(event: ev.SubsampleWithReplacement, children: list[Derivation]) -> Derivation:
    """The hybrid argument of the event's docstring: m single-slot amplifications by q = 1/N
    chained; log A is exact for pure children."""
    child = children[0]
    _require_arbitrary(child, "Lemma 8.15")
    g = child.guarantee
    n, draws = sympy.Integer(event.population_size), event.draws
    a = (1 + (sympy.exp(g.epsilon) - 1) / n) ** draws  # every event's ε is > 0
    delta = g.delta * (a - 1) / (sympy.exp(g.epsilon) - 1)
    return Derivation(
        event,
        Guarantee(sympy.log(a), delta),
        "subsampling with replacement (hybrid over the m draws)",
        "Lemma 8.15 (SubsampleWithReplacement docstring)",
        r"(\log A,\ \delta\,\frac{A-1}{e^{\varepsilon}-1}),\ A = (1 + \frac{e^{\varepsilon}-1}{N})^{m}",
        (child,),
    )


@_rule(ev.PoissonSubsample)
def _poisson(event: ev.PoissonSubsample, children: list[Derivation]) -> Derivation:
    if event.relation == "add_remove":
        return _amplified(
            event, children[0], event.rate, "Poisson subsampling", "Balle–Barthe–Gaboardi 2018, Thm 8"
        )
    child = children[0]
    _require_arbitrary(child, "Poisson subsampling")
    g, q = child.guarantee, event.rate
    epsilon = sympy.log((1 + q * (sympy.exp(g.epsilon) - 1)) / (1 - q * (1 - sympy.exp(-g.epsilon))))
    return Derivation(
        event,
        Guarantee(epsilon, q * g.delta * (1 + sympy.exp(epsilon - g.epsilon))),
        "Poisson subsampling under substitution (coupling)",
        "PoissonSubsample docstring (coupling, BBG 2018)",
        r"(\log\tfrac{1 + q(e^{\varepsilon}-1)}{1 - q(1-e^{-\varepsilon})},\ q\delta(1 + e^{\varepsilon'-\varepsilon}))",
        (child,),
    )


@_rule(ev.AddRemoveToSubstitute)
def _add_remove_to_substitute(event: ev.AddRemoveToSubstitute, children: list[Derivation]) -> Derivation:
    g = children[0].guarantee
    return Derivation(
        event,
        Guarantee(2 * g.epsilon, (1 + sympy.exp(g.epsilon)) * g.delta, g.domain),
        "add/remove to substitute-one (group privacy, k = 2)",
        "Dwork–Roth 2014, Thm 2.2",
        r"(2\varepsilon,\ (1 + e^{\varepsilon})\delta)",
        tuple(children),
    )


class Max(sympy.Max):
    """sympy's ``Max``, never evaluated. sympy's ``Max`` compares its arguments numerically when
    built (uncertified, and refused for the special functions of
    :mod:`dpledger.accountant.numerics.special`, which are not "comparable"); the rules build it
    unevaluated, but sympy rebuilds an expression as ``type(expr)(*args)`` — in ``pickle.loads``,
    ``copy.deepcopy``, ``func(*args)`` — and that call evaluated, so a fitted learner's guarantee
    could not be unpickled or copied. The class keeps sympy's name, so printing,
    LaTeX and the canonical order of arguments are those of ``sympy.Max``; the certified
    enclosures and comparisons treat it as the ``sympy.Max`` it is. Arguments that are all plain
    numbers (as ``evalf`` passes them back) give the number: sympy's ``Max`` compares those exactly,
    and keeping them unevaluated made ``evalf`` rebuild the same ``Max`` without end."""

    __slots__ = ()

    def __new__(cls, *args: Any, **assumptions: Any) -> sympy.Expr:
        if all(isinstance(arg, sympy.Number) for arg in args):
            return sympy.Max(*args)
        assumptions["evaluate"] = False
        return super().__new__(cls, *args, **assumptions)


def _max(values: list[sympy.Expr]) -> sympy.Expr:
    unique = list(dict.fromkeys(values))
    return unique[0] if len(unique) == 1 else Max(*unique)


@_rule(ev.Composition)
def _composition(event: ev.Composition, children: list[Derivation]) -> Derivation:
    guarantees = [c.guarantee for c in children]
    domain = _domain(children)
    if event.method == "basic":
        epsilon = event.repeat * sympy.Add(*[g.epsilon for g in guarantees])
        delta = event.repeat * sympy.Add(*[g.delta for g in guarantees])
        return Derivation(
            event,
            Guarantee(epsilon, delta, domain),
            "basic composition",
            "Dwork–Roth 2014, Thm 3.16",
            r"(\textstyle\sum_i \varepsilon_i,\ \sum_i \delta_i)",
            tuple(children),
        )
    if event.method == "advanced":
        return _advanced(event, children, domain, "advanced composition")
    if event.method == "pld":
        return _pld_composition(event, children, domain)
    members = [
        (child, derivation, event.repeat) for child, derivation in zip(event.children, children, strict=True)
    ]
    distributions = domain == "arbitrary" and _distributions_tighter(event, children)
    flat = _flattened(event)
    groups = [
        (members, "optimal composition of the children"),
        (flat, "optimal composition of the nested mechanisms, flat"),
    ]
    # Without the distributions' alternative the children's composition stands as it is (its own
    # preconditions raise); with it, a group whose δ cannot be reached is left out.
    candidates = [
        (_optimal(event, group, children, domain), label)
        for group, label in groups
        if group is not None
        and ((group is members and not distributions) or _reachable(group, event.target_delta))
    ]
    if distributions:
        derivation = _pld_composition(event, children, domain)
        if not candidates:
            derivation = replace(
                derivation, rule=f"{derivation.rule}; amplification then composition cannot certify this δ"
            )
        candidates.append((derivation, "privacy-loss distributions"))
    return _tightest(candidates)


Member = tuple[ev.Event, Derivation, int]
"""A composed mechanism, its derivation and how many times it runs."""


def _optimal(
    event: ev.Composition, members: list[Member], children: list[Derivation], domain: str
) -> Derivation:
    """Optimal composition of ``members`` (the children of ``event``, or its flattened leaves):
    the exact composition of Gaussian mechanisms, zCDP for discrete Gaussians, else the optimum over
    all mechanisms with the members' (ε, δ) (Kairouz–Oh–Viswanath 2015 for one distinct pair,
    Murtagh–Vadhan 2016 otherwise, bracketed beyond :data:`HETEROGENEOUS_EXACT_MAX`)."""
    if all(isinstance(member, ev.Gaussian) for member, _, _ in members):
        return _gaussian_composition(event, members, children, domain)
    if all(isinstance(member, ev.DiscreteGaussian) for member, _, _ in members):
        return _zcdp_composition(event, members, children, domain)
    count = sum(times for _, _, times in members)
    distinct: Counter[tuple[sympy.Expr, sympy.Expr]] = Counter()
    for _, derivation, times in members:
        distinct[(derivation.guarantee.epsilon, derivation.guarantee.delta)] += times
    rule = "optimal composition"
    if len(distinct) == 1:
        eps0, delta0 = next(iter(distinct))
        epsilon = OptimalCompositionEpsilon(eps0, delta0, count, event.target_delta)
        source = "Kairouz–Oh–Viswanath 2015, Thm 3.3"
    else:
        groups = dict(distinct)
        if count > HETEROGENEOUS_EXACT_MAX:
            return _bracketed(event, children, domain, groups, count)
        pairs = [(d.guarantee.epsilon, d.guarantee.delta) for _, d, _ in members]
        repeats = {times for _, _, times in members}
        if len(repeats) == 1:
            pairs = pairs * repeats.pop()
        else:
            pairs = [pair for pair, (_, _, times) in zip(pairs, members, strict=True) for _ in range(times)]
        epsilon = HeterogeneousOptimalEpsilon(
            sympy.Tuple(*[p[0] for p in pairs]), sympy.Tuple(*[p[1] for p in pairs]), event.target_delta
        )
        source = "Murtagh–Vadhan 2016, Thm 1.5"
        rule = _heterogeneous_rule(groups, event.target_delta)
    return Derivation(
        event,
        Guarantee(epsilon, event.target_delta, domain),
        rule,
        source,
        r"\min\{\varepsilon: 1-\prod_i(1-\delta_i)\,(1-\delta_{RR}(\varepsilon)) \le \delta\}",
        tuple(children),
    )


def _flattened(event: ev.Composition) -> list[Member] | None:
    """The mechanisms of a composition that nests compositions (through post-processing and
    claims), with their multiplicities (:func:`dpledger.accountant.pld.composed_mechanisms`); None
    when no child is a composition. The mechanisms may be composed at once at the outer δ (the
    inner compositions' own δ plays no part)."""
    from dpledger.accountant import pld

    if not any(isinstance(child, ev.Composition) for child in _unwrapped(event.children)):
        return None
    return [(leaf, account(leaf), times) for leaf, times in pld.composed_mechanisms(event).items()]


def _unwrapped(children: tuple[ev.Event, ...]) -> list[ev.Event]:
    """Each child with its post-processing and claim wrappers removed."""
    unwrapped = []
    for child in children:
        while isinstance(child, (ev.PostProcessing, ev.Claim)):
            child = child.child
        unwrapped.append(child)
    return unwrapped


def _reachable(members: list[Member], target: sympy.Expr) -> bool:
    """Whether the optimal composition of ``members`` can certify ``target``: δ_i play no part
    for Gaussian and discrete Gaussian compositions; otherwise 1 − Π(1 − δ_i) must be certainly
    below the target (Kairouz–Oh–Viswanath 2015, Thm 3.3: the δ paid however large ε is), with
    every δ_i at its upper end and the product rounded down."""
    kinds = {type(member) for member, _, _ in members}
    if kinds <= {ev.Gaussian} or kinds <= {ev.DiscreteGaussian}:
        return True
    log_survival = iv.mpf(0)
    for _, derivation, times in members:
        log_survival += times * iv.log(1 - iv.mpf(derivation.guarantee.delta_upper))
    paid = 1 - iv.exp(log_survival)
    return bool(paid.b < lower_end(enclose(target)))


def _distributions_tighter(event: ev.Composition, children: list[Derivation]) -> bool:
    """Whether composing privacy-loss distributions can beat the optimal composition of the
    children's (ε, δ) (:func:`dpledger.accountant.pld.tighter_than_pairs`), with no child's
    guarantee vacuous."""
    from dpledger.accountant import pld

    return pld.tighter_than_pairs(event) and not any(child.guarantee.vacuous for child in children)


def _tightest(candidates: list[tuple[Derivation, str]]) -> Derivation:
    """The candidate derivation (all at the same δ) with the smallest certified ε; when there are
    others, its rule names each with the ε it gave."""
    best, _ = min(candidates, key=lambda candidate: candidate[0].guarantee.epsilon_upper)
    others = [f"{label}: ε ≤ {d.guarantee.epsilon_text()}" for d, label in candidates if d is not best]
    if not others:
        return best
    return replace(best, rule=f"{best.rule} (the tightest here; {'; '.join(others)})")


def _heterogeneous_rule(groups: dict[tuple[sympy.Expr, sympy.Expr], int], target: sympy.Expr) -> str:
    """The rule's name, decided before the guarantee is built: "optimal composition" when
    Murtagh–Vadhan's law of the privacy loss is convolved exactly at the enclosures' upper ends
    (the inputs :class:`HeterogeneousOptimalEpsilon` takes its upper bound from), otherwise the
    lattice bracket of :func:`heterogeneous_optimal_epsilon`, named with the most it can exceed the
    optimum (its upper end less the lower end computed from the enclosures' lower ends)."""
    uppers = [
        (upper_end(enclose(e)), upper_end(enclose(d)))
        for (e, d), times in groups.items()
        for _ in range(times)
    ]
    _, high, exact = heterogeneous_optimal_epsilon(uppers, lower_end(enclose(target)))
    if exact:
        return "optimal composition"
    lowers = [
        (lower_end(enclose(e)), max(mpf(0), lower_end(enclose(d))))
        for (e, d), times in groups.items()
        for _ in range(times)
    ]
    low = (
        heterogeneous_optimal_epsilon(lowers, upper_end(enclose(target)))[0]
        if all(e > 0 for e, _ in lowers)
        else 0
    )
    return (
        f"optimal composition, bracketed: the exact law of {len(groups)} distinct (ε_i, δ_i) is too large, so each "
        f"ε_i is rounded up to a binary lattice (monotonicity); the reported ε exceeds the optimum by at most "
        f"{upper_float(iv.mpf(high) - iv.mpf(low)):.3g}"
    )


def _bracketed(
    event: ev.Composition,
    children: list[Derivation],
    domain: str,
    groups: dict[tuple[sympy.Expr, sympy.Expr], int],
    count: int,
) -> Derivation:
    """Heterogeneous optimal composition of ``count`` mechanisms, more than :data:`HETEROGENEOUS_EXACT_MAX`.
    An (ε, δ)-DP mechanism is (ε′, δ′)-DP for ε′ ≥ ε, δ′ ≥ δ: every child is (max ε_i, max δ_i)-DP,
    and every (min ε_i, min δ_i)-DP mechanism is (ε_i, δ_i)-DP, so the optimum lies between the
    homogeneous optima (Kairouz–Oh–Viswanath 2015, Thm 3.3, exact at any k) at (min ε_i, min δ_i)
    and at (max ε_i, max δ_i). The upper one is reported, and the rule states its distance to the
    lower one: the most it can exceed the optimum."""
    count = event.count
    epsilons, deltas = [e for e, _ in groups], [d for _, d in groups]
    high = OptimalCompositionEpsilon(_max(epsilons), _max(deltas), count, event.target_delta)
    eps_low = min(lower_end(enclose(e)) for e in epsilons)
    low = mpf(0)
    if eps_low > 0:
        delta_low = max(mpf(0), min(lower_end(enclose(d)) for d in deltas))
        low = homogeneous_optimal_epsilon(eps_low, delta_low, count, upper_end(enclose(event.target_delta)))[
            0
        ]
    excess = upper_float(iv.mpf(upper_end(enclose(high))) - iv.mpf(low))
    rule = (
        f"optimal composition, bracketed: {len(groups)} distinct (ε_i, δ_i) over {count:,} mechanisms are beyond "
        f"the exact convolution, so the homogeneous optimum at (max ε_i, max δ_i) is reported; it exceeds the "
        f"optimum by at most {excess:.3g} (the homogeneous optimum at (min ε_i, min δ_i) is a lower bound)"
    )
    return Derivation(
        event,
        Guarantee(high, event.target_delta, domain),
        rule,
        "Kairouz–Oh–Viswanath 2015, Thm 3.3 (monotonicity)",
        r"\varepsilon_{\mathrm{opt}}(\max_i \varepsilon_i, \max_i \delta_i; L) \ge \varepsilon_{\mathrm{opt}}"
        r"(\{(\varepsilon_i, \delta_i)\}_i) \ge \varepsilon_{\mathrm{opt}}(\min_i \varepsilon_i, \min_i \delta_i; L)",
        tuple(children),
    )


def _advanced(event: ev.Composition, children: list[Derivation], domain: str, rule: str) -> Derivation:
    """Theorem 3.5 with ε₀ = max ε, δ₀ = max δ and δ′ = target_delta − Lδ₀."""
    count = event.count
    eps0 = _max([c.guarantee.epsilon for c in children])
    delta0 = _max([c.guarantee.delta for c in children])
    slack = event.target_delta - count * delta0
    if certainly_le(slack, 0) is not False:
        raise ValueError(f"target_delta must exceed L·δ₀ = {count}·δ₀ for advanced composition")
    epsilon = sympy.sqrt(2 * count * sympy.log(1 / slack)) * eps0 + count * eps0 * (sympy.exp(eps0) - 1)
    return Derivation(
        event,
        Guarantee(epsilon, event.target_delta, domain),
        rule,
        "Theorem 3.5",
        r"\sqrt{2L\log(1/\delta')}\,\varepsilon_0 + L\varepsilon_0(e^{\varepsilon_0}-1),\ \delta = L\delta_0 + \delta'",
        tuple(children),
    )


def _gaussian_composition(
    event: ev.Composition, members: list[Member], children: list[Derivation], domain: str
) -> Derivation:
    """Gaussian mechanisms compose exactly into one Gaussian mechanism whose
    sensitivity-to-noise ratio is √(Σ r_i²) (Dong–Roth–Su 2019, Cor 3.3); its exact ε at the
    total δ is the analytic calibration (Balle–Wang 2018, Thm 8). This is the optimum for
    Gaussian mechanisms (tighter than treating each as an (ε, δ) pair); the members' own δ
    (the level each was accounted at alone) plays no part."""
    gaussians = [(cast("ev.Gaussian", member), times) for member, _, times in members]  # the caller checked
    repeats = {times for _, times in gaussians}
    if len(repeats) == 1:
        ratio_squares = sympy.Add(*[(c.sensitivity / c.sigma) ** 2 for c, _ in gaussians])
        ratio = sympy.sqrt(repeats.pop() * ratio_squares)
    else:
        ratio = sympy.sqrt(sympy.Add(*[times * (c.sensitivity / c.sigma) ** 2 for c, times in gaussians]))
    return Derivation(
        event,
        Guarantee(AnalyticGaussianEpsilon(ratio, event.target_delta), event.target_delta, domain),
        "optimal composition of Gaussian mechanisms",
        "Dong–Roth–Su 2019, Cor 3.3; Balle–Wang 2018, Thm 8",
        r"\mu = \sqrt{\textstyle\sum_i (\Delta_i/\sigma_i)^2},\ \varepsilon = \varepsilon_{\mathrm{aG}}(\mu, \delta)",
        tuple(children),
    )


def _pld_composition(event: ev.Composition, children: list[Derivation], domain: str) -> Derivation:
    """Composition of privacy-loss distributions (:mod:`dpledger.accountant.pld`): the dominating
    pair of every mechanism, discretised pessimistically (connect-the-dots), convolved with a
    certified error bound; ε certified at target_delta with the truncated tails and the
    convolution error inside δ. The rule text names the grid, each term and the children
    accounted only through their (ε, δ)."""
    from dpledger.accountant import pld

    if domain != "arbitrary":
        raise ValueError("PLD composition needs children that are DP on arbitrary neighbours")
    found, fallbacks = pld.steps(event)
    result = pld.compose(found, lower_float(enclose(event.target_delta)))
    rule = result.describe()
    if fallbacks:
        rule += f"; accounted by their (ε, δ) guarantee: {', '.join(sorted(set(fallbacks)))}"
    return Derivation(
        event,
        Guarantee(sympy.Rational(*result.epsilon.as_integer_ratio()), event.target_delta, domain),
        rule,
        "Doroshenko et al. 2022 (connect-the-dots); Zhu–Dong–Wang 2022, Thm 10; Balle–Barthe–Gaboardi 2018, Thm 9",
        r"\delta(\varepsilon) = \textstyle\sum_i \omega_i (1 - e^{\varepsilon - L_i})_+ + \omega_\infty + e_{\mathrm{conv}}",
        tuple(children),
    )


def _zcdp_composition(
    event: ev.Composition, members: list[Member], children: list[Derivation], domain: str
) -> Derivation:
    """Discrete Gaussian mechanisms are ρ_i-zCDP and zCDP composes additively (Bun–Steinke 2016,
    Lemma 2.3): ρ = Σ (times_i · ρ_i), converted once at target_delta (Canonne–Kamath–Steinke 2020,
    Cor 13). The members' own δ (the level each was accounted at alone) plays no part."""
    discrete = [(cast("ev.DiscreteGaussian", member), times) for member, _, times in members]  # checked
    repeats = {times for _, times in discrete}
    if len(repeats) == 1:
        rho = repeats.pop() * sympy.Add(
            *[c.sensitivity_units**2 / (2 * c.sigma_units**2) for c, _ in discrete]
        )
    else:
        rho = sympy.Add(*[times * c.sensitivity_units**2 / (2 * c.sigma_units**2) for c, times in discrete])
    epsilon, alpha = zcdp_to_dp(rho, event.target_delta)
    return Derivation(
        event,
        Guarantee(epsilon, event.target_delta, domain),
        f"zCDP composition of discrete Gaussian mechanisms (→ (ε, δ) at α = {float(alpha):.6g})",
        "Bun–Steinke 2016, Lemma 2.3; Canonne–Kamath–Steinke 2020, Cor 13",
        r"\rho = \textstyle\sum_i \rho_i,\ \varepsilon = \alpha\rho + \tfrac{\ln(1/\delta) + (\alpha-1)\ln(\alpha-1) - \alpha\ln\alpha}{\alpha-1}",
        tuple(children),
    )


@_rule(ev.ParallelComposition)
def _parallel(event: ev.ParallelComposition, children: list[Derivation]) -> Derivation:
    guarantees = [c.guarantee for c in children]
    return Derivation(
        event,
        Guarantee(
            _max([g.epsilon for g in guarantees]), _max([g.delta for g in guarantees]), _domain(children)
        ),
        "parallel composition over disjoint blocks",
        "McSherry 2009; Lemma 6.12",
        r"(\max_b \varepsilon_b,\ \max_b \delta_b)",
        tuple(children),
    )


@_rule(ev.Claim)
def _claim(event: ev.Claim, children: list[Derivation]) -> Derivation:
    derived = children[0].guarantee
    claimed = Guarantee(event.epsilon, event.delta, derived.domain, event.relation)
    return Derivation(
        event,
        derived,
        "paper claim",
        event.statement,
        r"\text{derived} \le \text{claimed}",
        tuple(children),
        ClaimCheck(event.statement, claimed, derived),
    )
