"""Privacy events: immutable records of what a mechanism did.

An event is data. Its docstring states the mathematics fully enough to write an accountant for
it; :mod:`dpledger.accountant.rules` is that accountant. Parameters are exact sympy numbers (see
:func:`dpledger.accountant.numerics.certified.exact`). Neighbouring relation throughout: substitute-one on
fixed-size datasets (seed 000, Section 3.2), unless an event says otherwise: primitives state
theirs in ``relation``, and :mod:`dpledger.accountant.relations` says what each transform needs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

import sympy

from dpledger.accountant.numerics.certified import certainly_le, certainly_lt, exact

COMPOSITION_METHODS = ("basic", "advanced", "optimal", "pld")
RELATIONS = ("substitute", "add_remove")
"""Neighbouring relations (see :mod:`dpledger.accountant.relations`): substitute-one on fixed-size
datasets, or add/remove-one."""
GAUSSIAN_CALIBRATIONS = ("analytic", "classical")


def _set(event: Any, name: str, value: Any) -> None:
    object.__setattr__(event, name, value)


def _positive(event: Any, name: str) -> None:
    value = exact(getattr(event, name), name)
    if not (value.is_positive or (value.is_positive is None and certainly_lt(0, value))):
        raise ValueError(f"{name} must be > 0, got {value}")
    _set(event, name, value)


def _probability(event: Any, name: str, *, allow_zero: bool) -> None:
    value = exact(getattr(event, name), name)
    low_ok = value.is_nonnegative if allow_zero else value.is_positive
    if not (low_ok and certainly_lt(value, 1)):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must be in {interval}, got {value}")
    _set(event, name, value)


def _relation(event: Any) -> None:
    if event.relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {event.relation!r}")


def _count(event: Any, name: str, minimum: int = 1) -> None:
    value = getattr(event, name)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer ≥ {minimum}, got {value!r}")


class Event:
    """Base of all events. ``subevents`` are the events a rule consumes."""

    kind: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.kind = cls.__name__

    @property
    def subevents(self) -> tuple[Event, ...]:
        found: list[Event] = []
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if isinstance(value, Event):
                found.append(value)
            elif isinstance(value, tuple) and value and isinstance(value[0], Event):
                found.extend(value)
        return tuple(found)


def _child(event: Any, name: str = "child") -> None:
    if not isinstance(getattr(event, name), Event):
        raise ValueError(f"{name} must be an event, got {type(getattr(event, name)).__name__}")
    _nest(event)


def _children(event: Any) -> None:
    children = event.children
    if isinstance(children, (str, bytes, Event)) or not isinstance(children, Iterable):
        raise ValueError(f"children must be a non-empty sequence of events, got {type(children).__name__}")
    _set(event, "children", tuple(children))
    if not event.children or not all(isinstance(c, Event) for c in event.children):
        raise ValueError("children must be a non-empty sequence of events")
    _nest(event)


MAX_DEPTH = 100
"""The deepest nesting of events accepted: the accountant's rules, hashing and serialisation walk
a tree recursively, and the learners' trees are fewer than 10 levels deep."""


def _nest(event: Any) -> None:
    """Record the nesting depth of ``event`` (1 + its deepest subevent's), refused beyond
    :data:`MAX_DEPTH`."""
    depth = 1 + max((getattr(child, "_depth", 1) for child in event.subevents), default=0)
    if depth > MAX_DEPTH:
        raise ValueError(f"events nested more than {MAX_DEPTH} deep are refused; compose them flat instead")
    _set(event, "_depth", depth)


# --- primitives -------------------------------------------------------------------------


@dataclass(frozen=True)
class PureDP(Event):
    """A mechanism that is ε-DP: Pr[M(S)∈E] ≤ e^ε Pr[M(S')∈E] (Definition 3.2, δ = 0)."""

    epsilon: Any
    relation: str = "substitute"

    def __post_init__(self) -> None:
        _positive(self, "epsilon")
        _relation(self)


@dataclass(frozen=True)
class ApproxDP(Event):
    """A mechanism that is (ε, δ)-DP (Definition 3.2)."""

    epsilon: Any
    delta: Any
    relation: str = "substitute"

    def __post_init__(self) -> None:
        _positive(self, "epsilon")
        _probability(self, "delta", allow_zero=True)
        _relation(self)


@dataclass(frozen=True)
class Laplace(Event):
    """Adds Laplace(0, scale) noise to a statistic of L1 sensitivity ``sensitivity``:
    (sensitivity/scale)-DP (Dwork–McSherry–Nissim–Smith 2006)."""

    scale: Any
    sensitivity: Any = 1
    relation: str = "substitute"

    def __post_init__(self) -> None:
        _positive(self, "scale")
        _positive(self, "sensitivity")
        _relation(self)


@dataclass(frozen=True)
class Gaussian(Event):
    """Adds N(0, sigma²) noise to a statistic of L2 sensitivity ``sensitivity``; accounted at
    the given δ. ``analytic``: the exact smallest ε with
    Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ (Balle–Wang 2018, Theorem 8).
    ``classical``: ε = Δ√(2 ln(1.25/δ))/σ, valid only when that ε < 1 (Dwork–Roth 2014,
    Theorem A.1)."""

    sigma: Any
    delta: Any
    sensitivity: Any = 1
    calibration: str = "analytic"
    relation: str = "substitute"

    def __post_init__(self) -> None:
        _relation(self)
        _positive(self, "sigma")
        _probability(self, "delta", allow_zero=False)
        _positive(self, "sensitivity")
        if self.calibration not in GAUSSIAN_CALIBRATIONS:
            raise ValueError(f"calibration must be one of {GAUSSIAN_CALIBRATIONS}, got {self.calibration!r}")


@dataclass(frozen=True)
class DiscreteGaussian(Event):
    """Adds discrete Gaussian noise N_Z(0, s²) — Pr[z] ∝ exp(−z²/(2s²)) on the integers — to each
    coordinate of an *integer* statistic whose neighbours differ by an integer vector of L2
    norm ≤ Δ′ (``sigma_units`` = s, ``sensitivity_units`` = Δ′: both in grid units, see
    :mod:`dpledger.learners.noise`). Canonne–Kamath–Steinke 2020, Thm 4: for an integer shift μ
    and every α > 1, D_α(N_Z(μ, s²) ‖ N_Z(0, s²)) ≤ αμ²/(2s²); Rényi divergence adds over the
    independent coordinates, so D_α(N_Z(μ, s²)^D ‖ N_Z(0, s²)^D) ≤ α‖μ‖₂²/(2s²), so the mechanism is ρ-zCDP with ρ = Δ′²/(2s²). Accounted at ``delta`` by the
    conversion of CKS 2020, Cor 13: (ε, δ)-DP for every α > 1 with
    ε = αρ + (ln(1/δ) + (α−1)ln(α−1) − α ln α)/(α−1). zCDP composes additively (Bun–Steinke
    2016, Lemma 2.3), which the optimal composition rule uses."""

    sigma_units: Any
    sensitivity_units: Any
    delta: Any
    relation: str = "substitute"

    def __post_init__(self) -> None:
        _relation(self)
        _positive(self, "sigma_units")
        _positive(self, "sensitivity_units")
        _probability(self, "delta", allow_zero=False)


@dataclass(frozen=True)
class DiscreteLaplace(Event):
    """Adds discrete Laplace noise — Pr[z] ∝ exp(−|z|/t) on the integers, t = ``scale_units`` —
    to each coordinate of an integer statistic whose neighbours differ by an integer vector of
    L1 norm ≤ Δ′₁ = ``sensitivity_units``: the density ratio at any output is
    ≤ exp(‖μ‖₁/t), so the mechanism is (Δ′₁/t)-DP (Canonne–Kamath–Steinke 2020, Section 2;
    Ghosh–Roughgarden–Sundararajan 2012)."""

    scale_units: Any
    sensitivity_units: Any
    relation: str = "substitute"

    def __post_init__(self) -> None:
        _positive(self, "scale_units")
        _positive(self, "sensitivity_units")
        _relation(self)


@dataclass(frozen=True)
class ExponentialMechanism(Event):
    """Selects a candidate with probability ∝ exp(ε·score/(2Δ)) for a score of sensitivity Δ:
    ε-DP (McSherry–Talwar 2007). ``candidates`` records the size of the candidate set."""

    epsilon: Any
    candidates: int = 1
    relation: str = "substitute"

    def __post_init__(self) -> None:
        _positive(self, "epsilon")
        _count(self, "candidates")
        _relation(self)


@dataclass(frozen=True)
class ChoosingMechanism(Event):
    """The choosing mechanism (after Beimel–Nissim–Stemmer 2013) in the form of
    :mod:`dpledger.learners.choosing_mechanism`: for a score s(S, c) of sensitivity 1 whose
    positive set P(S) = {c : s(S, c) > 0} has at most ``positives`` = k members on every input,
    output ⊥ with probability ∝ e^{εt/2} (``threshold`` t) and c ∈ P(S) with probability
    ∝ e^{ε·s(S, c)/2}. (ε + ln(1 + k e^{−εt/2}), k e^{ε(1−t)/2})-DP.

    Proof (η = ε/2, W(S) = e^{ηt} + Σ_{P(S)} e^{ηs(S,c)} ≥ e^{ηt}): for a neighbour S′, the
    members of P(S′) − P(S) — at most k — score at most 1 in S′, the others at most one more
    than in S, so W(S′) ≤ e^η W(S) + k e^η ≤ e^η W(S)(1 + k e^{−ηt}). Hence ⊥ and every c of
    P(S) ∩ P(S′) have Pr_S ≤ e^{2η}(1 + k e^{−ηt})·Pr_{S′}, and each c ∈ P(S) − P(S′) (score
    ≤ 1 in S) has Pr_S(c) ≤ e^η/W(S) ≤ e^{η(1−t)}: summed over at most k of them, the δ."""

    epsilon: Any
    threshold: Any
    positives: int = 1
    relation: str = "substitute"

    def __post_init__(self) -> None:
        _positive(self, "epsilon")
        _set(self, "threshold", exact(self.threshold, "threshold"))
        _count(self, "positives")
        _relation(self)
        delta = self.positives * sympy.exp(self.epsilon * (1 - self.threshold) / 2)
        if not certainly_lt(delta, 1):
            raise ValueError(
                f"threshold must make δ = k·e^(ε(1−t)/2) < 1, got t = {self.threshold} at ε = {self.epsilon}"
            )


@dataclass(frozen=True)
class RandomizedResponse(Event):
    """k-ary randomized response: reports the true value with probability
    e^ε/(e^ε + k − 1), each other value with probability 1/(e^ε + k − 1): ε-DP."""

    epsilon: Any
    num_values: int = 2
    relation: str = "substitute"

    def __post_init__(self) -> None:
        _positive(self, "epsilon")
        _count(self, "num_values", minimum=2)
        _relation(self)


# --- transforms -------------------------------------------------------------------------


@dataclass(frozen=True)
class OnRealizableInputs(Event):
    """The child's guarantee holds only between neighbouring samples that are both
    C-realizable (Definition 3.6 / 4.3), e.g. a component oracle (Assumption 4.4)."""

    child: Event

    def __post_init__(self) -> None:
        _child(self)


@dataclass(frozen=True)
class PostProcessing(Event):
    """A data-independent function of the child's output: same guarantee."""

    child: Event

    def __post_init__(self) -> None:
        _child(self)


@dataclass(frozen=True)
class LabelBoostThen(Event):
    """LabelBoostProcedure followed by an (ε, δ)-DP algorithm on the relabeled sample:
    (ε + 3, 4eδ)-DP (Lemma 3.11, Beimel et al. Lemma 4.1)."""

    child: Event

    def __post_init__(self) -> None:
        _child(self)


@dataclass(frozen=True)
class LabelBoostRealizable(Event):
    """LabelBoostProcedure followed by a continuation that is (ε, δ)-DP on C-realizable inputs:
    (ε + c_LB, 4eδ)-DP on arbitrary neighbours, c_LB = ln(4e) (Lemma 3.15, Remark 3.16)."""

    child: Event

    def __post_init__(self) -> None:
        _child(self)


@dataclass(frozen=True)
class LabelBoostCarrier(Event):
    """Release of the relabeled fixed carrier T^h only: (c_LB, 0)-DP in the labeled input
    sample, c_LB = ln(4e) (Lemma 3.17)."""


@dataclass(frozen=True)
class SubsampleWithoutReplacement(Event):
    """Runs the child on a uniform size-m subset drawn without replacement from M records,
    q = m/M, under substitution: (log(1 + q(e^ε − 1)), qδ)-DP (Theorem 3.4; Balle–Barthe–
    Gaboardi 2018, Theorem 9). The child must be DP on arbitrary neighbours."""

    child: Event
    sample_size: int
    population_size: int

    def __post_init__(self) -> None:
        _child(self)
        _count(self, "sample_size")
        _count(self, "population_size")
        if self.sample_size > self.population_size:
            raise ValueError(
                f"sample_size m={self.sample_size} exceeds population_size M={self.population_size}"
            )


@dataclass(frozen=True)
class SubsampleWithReplacement(Event):
    """Runs the child on ``draws`` = m records drawn uniformly *with* replacement from N records
    (the empirical learner B̂ of Lemma 8.15; Bun et al. 2015, Lemma 5.9), under substitution.

    With q = 1/N, e^{ε₁} = 1 + q(e^ε − 1) and A = e^{mε₁} = (1 + (e^ε − 1)/N)^m = E[e^{Kε}]
    (K ~ Bin(m, q), the number of draws of the changed record), an (ε, δ)-DP child gives
    (log A, δ(A − 1)/(e^ε − 1))-DP; the δ is E[δ_K], δ_K = δ(e^{Kε} − 1)/(e^ε − 1) the δ of group
    privacy for K changed records. Both are exact (below): log A for pure children, and the δ at
    ε′ = log A while δ_m ≤ 1 − e^{−ε}. The child is a function of the
    sequence of drawn records (order may matter) and must be DP on arbitrary neighbours.

    Proof (upper bound). Let S, S′ differ in the record at index i (x in S, x′ in S′). Draw each
    slot t = 1..m as a coin c_t ~ Bernoulli(q) and a fallback v_t uniform on the other N − 1
    indices, the slot taking index i if c_t = 1 and v_t otherwise: exactly the uniform draw. For
    j = 0..m let H_j be the output law when slots t ≤ j that drew i hold x′ and slots t > j that
    drew i hold x; H_0 is the output law on S, H_m the one on S′. Fix an output event O and all
    coins and fallbacks except c_j, and let a, b, r be the child's probabilities of O when slot j
    holds x, x′ and the record v_j (the other slots fixed). The three inputs are pairwise
    neighbours, so a ≤ e^ε b + δ and a ≤ e^ε r + δ. Hence a − b ≤ (e^ε − 1)(qb + (1 − q)r) + δ: if
    b ≤ r by the first inequality, if b > r since a − b ≤ (e^ε − 1)r − (b − r) + δ. With
    p = qa + (1 − q)r and p′ = qb + (1 − q)r this is p − e^{ε₁}p′ = q(a − b) − q(e^ε − 1)p′ ≤ qδ;
    averaging over the fixed coins and fallbacks, H_{j−1}(O) ≤ e^{ε₁}H_j(O) + qδ. Chaining the m
    steps, H_0(O) ≤ e^{mε₁}H_m(O) + qδ Σ_{j<m} e^{jε₁} = A·H_m(O) + δ(A − 1)/(e^ε − 1), since
    e^{ε₁} − 1 = q(e^ε − 1). The same chain from S′ to S gives the symmetric inequality.

    Proof (exactness). Take S whose other records differ from x, write #x(s) for the number of
    slots of a sequence s holding x and δ_k = δ(e^{kε} − 1)/(e^ε − 1), and suppose
    δ_m ≤ 1 − e^{−ε} (always true for δ = 0). The child with output 1 with probability
    f(s) = c·e^{ε·#x(s)} + δ_{#x(s)}, c = (1 − e^{−ε} − δ_m)e^{−mε} ≥ 0, is (ε, δ)-DP: neighbouring
    sequences change #x by at most 1, f(k + 1) = e^ε f(k) + δ exactly and f is increasing, and
    1 − f changes by a factor ≤ e^ε because f ≤ 1 − e^{−ε}. On S, Pr[1] = c·E[e^{Kε}] + E[δ_K] =
    cA + δ(A − 1)/(e^ε − 1); on S′ no slot holds x and Pr[1] = c. So Pr_S[1] − A·Pr_{S′}[1] is
    exactly the δ above: no ε below log A holds for every ε-DP child (δ = 0, c > 0), and at
    ε′ = log A no smaller δ′ does, whatever N and m. ``tests/accountant/test_with_replacement_lp.py``
    compares both with the linear program over every (ε, δ)-DP child on small instances
    (:mod:`dpledger.verify.audit.with_replacement_lp`).

    This replaces the looser (log(A/B), δ((A − 1) + (A/B)(1 − B))/(e^ε − 1)), B = E[e^{−Kε}],
    that coupling K = k with K = 0 gives."""

    child: Event
    draws: int
    population_size: int

    def __post_init__(self) -> None:
        _child(self)
        _count(self, "draws")
        _count(self, "population_size")


@dataclass(frozen=True)
class PoissonSubsample(Event):
    """Runs the child on a subset containing each record independently with probability q. The
    child must be DP on arbitrary neighbours under **add/remove** (the subset's size varies).

    * ``relation="add_remove"`` (the default): (log(1 + q(e^ε − 1)), qδ)-DP under add/remove-one
      neighbours (Balle–Barthe–Gaboardi 2018, Theorem 8).
    * ``relation="substitute"``: the guarantee under substitute-one neighbours S = T ∪ {x},
      S′ = T ∪ {x′}. Couple the two samplings with one coin for the changed slot: with probability
      1 − q both subsets are the same, else they are T′ ∪ {x} and T′ ∪ {x′}, whose outputs B, B′
      satisfy B ≤ e^ε A + δ and A ≤ e^ε B′ + δ against A = M(T′). Then
      P = (1 − q)A + qB ≤ (1 − q + qe^ε)A + qδ and P′ ≥ (1 − q + qe^{−ε})A − qe^{−ε}δ, so
      ε′ = log((1 + q(e^ε − 1))/(1 − q(1 − e^{−ε}))) and δ′ = qδ(1 + e^{ε′−ε}); the worst case
      B = e^ε A, B′ = e^{−ε}A is attained by randomized response, so ε′ is exact for δ = 0."""

    child: Event
    rate: Any
    relation: str = "add_remove"

    def __post_init__(self) -> None:
        _child(self)
        _relation(self)
        value = exact(self.rate, "rate")
        if not (value.is_positive and certainly_le(value, 1)):
            raise ValueError(f"rate q must be in (0, 1], got {value}")
        _set(self, "rate", value)


@dataclass(frozen=True)
class AddRemoveToSubstitute(Event):
    """The child is (ε, δ)-DP under add/remove-one neighbours; a substitution is a removal followed
    by an addition, so by group privacy it is (2ε, (1 + e^ε)δ)-DP under substitute-one neighbours:
    P ≤ e^ε Q + δ ≤ e^ε(e^ε R + δ) + δ (Dwork–Roth 2014, Theorem 2.2, with the tighter δ)."""

    child: Event

    def __post_init__(self) -> None:
        _child(self)


@dataclass(frozen=True)
class Composition(Event):
    """Adaptive composition of ``children`` (each repeated ``repeat`` times; L mechanisms).

    * ``basic``: (Σε, Σδ).
    * ``advanced``: Theorem 3.5 with ε₀ = max ε, δ₀ = max δ and δ′ = target_delta − Lδ₀:
      ε = √(2L log(1/δ′))ε₀ + Lε₀(e^{ε₀} − 1), δ = target_delta.
    * ``optimal``: the smallest ε with total δ = target_delta (Kairouz–Oh–Viswanath 2015 for
      identical mechanisms, Murtagh–Vadhan 2016 otherwise; exact at any number of identical
      mechanisms; beyond the exact heterogeneous convolution a certified bracket, named in the
      rule with its largest excess over the optimum). When every child is a ``Gaussian`` event, the exact composition of
      Gaussian mechanisms (Dong–Roth–Su 2019, Cor 3.3). When every child is a
      ``DiscreteGaussian``, zCDP composition: ρ = repeat·Σρ_i (Bun–Steinke 2016, Lemma 2.3),
      converted once at target_delta (Canonne–Kamath–Steinke 2020, Cor 13). Nested
      compositions are also composed flat (all their mechanisms at once at this δ) and the
      tighter of the two is reported; when a mechanism is a Laplace mechanism or a subsampled one
      with a dominating pair of its own (Poisson under add/remove, or fixed-size), the ``pld``
      composition below is computed too and reported where it is tighter (the rule says which).
    * ``pld``: the privacy-loss distributions of the mechanisms themselves composed
      (:mod:`dpledger.accountant.pld`): Gaussian, Laplace, randomized response, pure and
      approximate DP, discrete Laplace, and their Poisson-subsampled (add/remove) and fixed-size
      (substitution) versions with their dominating pairs; nested compositions contribute their
      mechanisms; any other child its (ε, δ) guarantee. ε is certified at target_delta.
    """

    children: tuple[Event, ...]
    method: str = "basic"
    target_delta: Any = None
    repeat: int = 1

    def __post_init__(self) -> None:
        _children(self)
        if self.method not in COMPOSITION_METHODS:
            raise ValueError(f"method must be one of {COMPOSITION_METHODS}, got {self.method!r}")
        _count(self, "repeat")
        if self.method == "basic":
            if self.target_delta is not None:
                raise ValueError("target_delta is not used by basic composition")
        else:
            if self.target_delta is None:
                raise ValueError(f"{self.method} composition needs target_delta")
            _probability(self, "target_delta", allow_zero=False)

    @property
    def count(self) -> int:
        """L, the number of composed mechanisms."""
        return len(self.children) * self.repeat


@dataclass(frozen=True)
class ParallelComposition(Event):
    """Children run on disjoint, value-independently chosen blocks of the input; a neighbour
    changes one record of exactly one block: (max ε, max δ) (McSherry 2009; Lemma 6.12).
    Children may be chosen adaptively (a later block's mechanism may depend on earlier
    outputs): a substitution in block j leaves every other child a fixed function of the
    transcript and its unchanged block, so adaptive composition with those children 0-DP gives
    the guarantee of child j."""

    children: tuple[Event, ...]

    def __post_init__(self) -> None:
        _children(self)


@dataclass(frozen=True)
class Claim(Event):
    """The guarantee a paper claims for the subtree ``child`` (statement id such as
    "Lemma 6.2"). Accounting derives the child's guarantee and checks it against the claim;
    the derived guarantee, never the claim, is what flows upward."""

    statement: str
    child: Event
    epsilon: Any
    delta: Any = 0
    relation: str = "substitute"
    """The neighbouring relation the claim is stated under; a derivation under another one fails it."""

    def __post_init__(self) -> None:
        _relation(self)
        if not isinstance(self.statement, str) or not self.statement.strip():
            raise ValueError("statement must be a non-empty string such as 'Lemma 6.2'")
        _child(self)
        _positive(self, "epsilon")
        _probability(self, "delta", allow_zero=True)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        PureDP,
        ApproxDP,
        Laplace,
        Gaussian,
        DiscreteGaussian,
        DiscreteLaplace,
        ExponentialMechanism,
        ChoosingMechanism,
        RandomizedResponse,
        OnRealizableInputs,
        PostProcessing,
        LabelBoostThen,
        LabelBoostRealizable,
        LabelBoostCarrier,
        SubsampleWithoutReplacement,
        SubsampleWithReplacement,
        PoissonSubsample,
        AddRemoveToSubstitute,
        Composition,
        ParallelComposition,
        Claim,
    )
}
