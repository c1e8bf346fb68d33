"""Certified privacy-loss-distribution (PLD) accounting of event trees.

:func:`steps` flattens an event into the dominating pairs of its mechanisms
(:mod:`~dpledger.accountant.numerics.pld_pairs`), with multiplicities: nested compositions,
post-processing and claims contribute their mechanisms' pairs (so nested compositions compose
their distributions, not their (ε, δ) summaries). Each step has a pair for each orientation of the
neighbouring relation: under add/remove the *remove* pair (M(D), M(D − x)) and the *add* pair, which
differ after Poisson subsampling; under substitution one symmetric pair. Every parameter is
rounded in the direction that can only enlarge the curve (ratios Δ/σ, Δ/b, rates q, ε and δ
up; each curve is monotone in them).

Mechanisms and their pairs:

* ``Gaussian`` — (N(Δ/σ, 1), N(0, 1)) (its own δ plays no part);
* ``Laplace`` — (Lap(Δ₁/b, 1), Lap(0, 1)), a one-dimensional statistic's pair (as dp_accounting's
  LaplaceDpEvent);
* ``RandomizedResponse``, ``PureDP``, ``ExponentialMechanism`` — k-ary randomized response, and
  binary randomized response at ε for the pure ones (it dominates every ε-DP mechanism);
  ``ApproxDP`` and ``ChoosingMechanism`` — the pair that dominates every (ε, δ)-DP mechanism;
* ``DiscreteLaplace`` — binary randomized response at Δ′₁/t: the exact pair for a unit shift
  (Δ′₁ < 2) and a dominating one for any shift (the mechanism is Δ′₁/t-DP);
* ``DiscreteGaussian`` with Δ′ < 2 and s ≤ 100 — ⌊Δ′²⌋ (at least one) unit-shift discrete Gaussian
  pairs composed: an integer shift of squared norm < 4 moves at most that many coordinates by one
  (larger Δ′ or s: the (ε, δ) fallback);
* ``PoissonSubsample`` (add/remove) of one mechanism — the mixture pairs (Zhu–Dong–Wang 2022,
  Thm 10); ``SubsampleWithoutReplacement`` (substitution) of one mechanism — the symmetrised
  mixture (Balle–Barthe–Gaboardi 2018, Thm 9);
* anything else — the pair of its certified (ε, δ) guarantee (Kairouz–Oh–Viswanath 2015, Thm 2.4),
  named in the result's ``fallbacks`` (a valid, usually loose, pair).

:func:`compose` discretises each distinct pair (connect-the-dots, certified masses), composes
equal pairs by repeated squaring and distinct ones by convolution (:mod:`.numerics.pld_vector`),
and returns ε(δ) and δ(ε) as certified upper bounds — the largest over the orientations.
The δ budget: the tails cut at +∞ (per step and after each product) are limited to
δ·2^{−14} in total; they, the convolution error bound and the discretisation are all inside
the certified δ(ε), so nothing is added afterwards. The convolution's error bound grows with the
length of the composed vector; when it alone keeps δ above a small target, the grid is coarsened
(resolution halved, down to :data:`MIN_RESOLUTION`): every grid gives a pessimistic pair, so the
answer stays an upper bound, a little looser, and the rule names the grid used — only while the
error bound is within reach of the halvings left. Every convolution's rounding adds at least
u = 2^{−53} to the certified δ (its error bound is at least γ₂ times the product of masses near 1),
so a composition of more than one step is refused at once for a target δ below u. The work is
estimated first (the length of the composed vector from the pairs' loss means and spreads);
compositions beyond :data:`~dpledger.accountant.numerics.pld_vector.MAX_LENGTH` entries are
refused.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy

from dpledger.accountant import events as ev
from dpledger.accountant.numerics.certified import enclose, lower_float, upper_bound_text, upper_float
from dpledger.accountant.numerics.pld_pairs import (
    ApproximateDPPair,
    DiscreteGaussianPair,
    GaussianPair,
    LaplacePair,
    MixturePair,
    Pair,
    RandomizedResponsePair,
    SymmetrizedPair,
    discretize,
    discretize_float,
    grid_for,
)
from dpledger.accountant.numerics.pld_vector import (
    MAX_LENGTH,
    UNIT,
    LossVector,
    compose_many,
    delta_upper,
    self_compose,
)

TAIL_SHARE = 2.0**-14
"""The δ the truncated tails may take in total, as a share of the target δ."""
RESOLUTION = 32
"""Grid points per unit of the smallest loss spread (see :func:`~.pld_pairs.grid_for`)."""
MIN_RESOLUTION = 4
"""The coarsest resolution :func:`compose` falls back to when the convolution's error bound keeps
δ above a small target (a long composed vector: the bound grows with its length)."""


@dataclass(frozen=True)
class Step:
    """A mechanism's dominating pairs: ``remove`` for (M(D), M(D′)) with D′ = D minus a record (or
    the substitution pair), ``add`` for the other orientation."""

    remove: Pair
    add: Pair


def _up(expr: sympy.Expr) -> float:
    """A float ≥ the exact parameter."""
    return upper_float(enclose(expr))


def _ratio(expr: sympy.Expr, name: str) -> float:
    """``expr`` rounded up to a float; ValueError when that overflows."""
    ratio = _up(expr)
    if not math.isfinite(ratio):
        raise ValueError(f"{name} = {sympy.N(expr, 3)} is beyond the float range: add noise")
    return ratio


def _single(event: ev.Event) -> Pair | None:
    """The pair of one mechanism, or None when it has none of its own."""
    if isinstance(event, ev.Gaussian):
        return GaussianPair(_ratio(event.sensitivity / event.sigma, "the Gaussian's Δ/σ"))
    if isinstance(event, ev.Laplace):
        return LaplacePair(_ratio(event.sensitivity / event.scale, "the Laplace mechanism's Δ/b"))
    if isinstance(event, ev.RandomizedResponse):
        return RandomizedResponsePair(_up(event.epsilon), event.num_values)
    if isinstance(event, (ev.PureDP, ev.ExponentialMechanism)):
        return RandomizedResponsePair(_up(event.epsilon))
    if isinstance(event, ev.ApproxDP):
        return ApproximateDPPair(_up(event.epsilon), _up(event.delta))
    if isinstance(event, ev.ChoosingMechanism):
        from dpledger.accountant.rules import choosing_guarantee

        epsilon, delta = choosing_guarantee(event)
        return ApproximateDPPair(_up(epsilon), _up(delta))
    if isinstance(event, ev.DiscreteLaplace):
        return RandomizedResponsePair(_up(event.sensitivity_units / event.scale_units))
    return None


def composed_mechanisms(event: ev.Event) -> Counter[ev.Event]:
    """The mechanisms ``event`` composes, with how many times each runs: compositions (their
    ``repeat`` multiplies), post-processing and claims are looked through; any other event is a
    mechanism (an adaptive composition of adaptive compositions is one adaptive composition of all
    their mechanisms).

    Args:
        event: An event tree.

    Returns:
        Each mechanism (in first-visit order) and its multiplicity.
    """
    found: Counter[ev.Event] = Counter()

    def visit(node: ev.Event, times: int) -> None:
        if isinstance(node, ev.Composition):
            for child in node.children:
                visit(child, times * node.repeat)
        elif isinstance(node, (ev.PostProcessing, ev.Claim)):
            visit(node.child, times)
        else:
            found[node] += times

    visit(event, 1)
    return found


def tighter_than_pairs(event: ev.Event) -> bool:
    """Whether composing privacy-loss distributions can beat the optimal composition of (ε, δ)
    pairs for ``event``: a mechanism of it (:func:`composed_mechanisms`) is a Laplace mechanism
    (its own loss distribution is below the worst ε-DP one that Kairouz–Oh–Viswanath's optimum
    assumes), or a Poisson-subsampled (add/remove) or fixed-size subsampled mechanism with a
    dominating pair of its own (amplifying each step to an (ε, δ) pair, Balle–Barthe–Gaboardi 2018,
    Thm 9, then composing the pairs, is far looser).

    Args:
        event: An event tree.

    Returns:
        True when such a mechanism is found.
    """
    return any(_beats_pairs(mechanism) for mechanism in composed_mechanisms(event))


def _beats_pairs(mechanism: ev.Event) -> bool:
    if isinstance(mechanism, ev.Laplace):
        return True
    if isinstance(mechanism, ev.PoissonSubsample) and mechanism.relation == "add_remove":
        return _single(mechanism.child) is not None
    if isinstance(mechanism, ev.SubsampleWithoutReplacement):
        return _single(mechanism.child) is not None
    return False


def steps(event: ev.Event) -> tuple[list[tuple[Step, int]], list[str]]:
    """The steps of ``event`` with multiplicities, and the kinds accounted by their (ε, δ) guarantee
    (the fallback of the module docstring)."""
    found: Counter[Step] = Counter()
    fallbacks: list[str] = []
    for mechanism, times in composed_mechanisms(event).items():
        _collect(mechanism, times, found, fallbacks)
    return list(found.items()), fallbacks


def _collect(event: ev.Event, times: int, found: Counter[Step], fallbacks: list[str]) -> None:
    """Add one mechanism (``times`` runs of it) to ``found``: its dominating pair, or its (ε, δ)
    guarantee named in ``fallbacks``."""
    pair = _single(event)
    if pair is not None:
        found[Step(pair, pair)] += times
        return
    if (
        isinstance(event, ev.DiscreteGaussian)
        and _up(event.sensitivity_units) < 2
        and _up(event.sigma_units) <= 100
    ):
        # integer shifts of squared norm ≤ Δ′² < 4: at most ⌊Δ′²⌋ unit shifts in distinct coordinates,
        # i.e. that many one-unit discrete Gaussians composed (more coordinates only add loss)
        shifts = max(1, math.floor(_up(event.sensitivity_units) ** 2))
        discrete = DiscreteGaussianPair(lower_float(enclose(event.sigma_units)))
        found[Step(discrete, discrete)] += times * shifts
        return
    if isinstance(event, ev.PoissonSubsample) and event.relation == "add_remove":
        base = _single(event.child)
        if base is not None:
            mixture = MixturePair(base, min(1.0, _up(event.rate)))
            found[Step(mixture, mixture.reversed())] += times
            return
    if isinstance(event, ev.SubsampleWithoutReplacement):
        base = _single(event.child)
        if base is not None:
            rate = min(1.0, _up(sympy.Rational(event.sample_size, event.population_size)))
            symmetric = SymmetrizedPair(MixturePair(base, rate))
            found[Step(symmetric, symmetric)] += times
            return
    from dpledger.accountant.rules import account

    guarantee = account(event).guarantee
    if guarantee.domain != "arbitrary":
        raise ValueError(
            f"PLD accounting needs mechanisms that are DP on arbitrary neighbours; {event.kind} is "
            "private on realizable inputs only"
        )
    if not guarantee.delta_upper < 1:
        raise ValueError(f"{event.kind}'s guarantee is vacuous (δ ≥ 1): nothing to compose")
    pair = ApproximateDPPair(guarantee.epsilon_upper, guarantee.delta_upper)
    found[Step(pair, pair)] += times
    fallbacks.append(event.kind)


@dataclass(frozen=True)
class PLDResult:
    """A certified (ε, δ) of a composition: ``epsilon`` (a float, exact as read) with δ(ε) ≤
    ``delta`` certified for every orientation, and the terms inside that δ."""

    epsilon: float
    delta: float
    grid: int
    mechanisms: int
    orientations: int
    tails: float
    convolution_error: float

    @property
    def step(self) -> float:
        return math.ldexp(1.0, -self.grid)

    def describe(self) -> str:
        """The rule text: the discretisation and each term inside δ."""
        return (
            f"privacy-loss distributions, {self.mechanisms:,} mechanisms ({self.orientations} orientation"
            f"{'s' if self.orientations > 1 else ''}): connect-the-dots on the grid h = 2^-{self.grid} "
            f"(pessimistic: a dominating pair on the grid), tails cut to +∞ inside δ (≤ {upper_bound_text(self.tails, 3)}), "
            f"convolution error bound inside δ (≤ {upper_bound_text(self.convolution_error, 3)}), ε certified at δ by "
            "outward-rounded evaluation of δ(ε)"
        )


def _moments(vector: LossVector) -> tuple[float, float, float]:
    """(mean, variance, top loss) of a float loss vector (estimates for the work bound)."""
    losses = vector.losses()
    total = float(vector.masses.sum()) or 1.0
    mean = float(np.dot(vector.masses, losses)) / total
    variance = float(np.dot(vector.masses, (losses - mean) ** 2)) / total
    return mean, variance, float(losses[-1] if losses.size else 0.0)


def _estimated_length(groups: Sequence[tuple[Pair, int]], grid: int, tail: float) -> float:
    """Entries of the composed vector: mean ± 14 spreads plus the largest single-step loss."""
    variance = top = low_reach = 0.0
    for pair, times in groups:
        _, v, t = _moments(discretize_float(pair, grid, tail))
        variance += times * v
        top = max(top, t)
        low_reach = max(low_reach, abs(pair.support()[0]))
    return (28 * math.sqrt(variance) + top + low_reach) / math.ldexp(1.0, -grid)


def _plan(all_steps: Sequence[tuple[Step, int]], resolution: int, tail: float) -> int:
    """The grid exponent: ``resolution`` points per smallest spread, coarsened until the
    estimated composed vector fits; ValueError when even 8 points per spread do not."""
    pairs = [s.remove for s, _ in all_steps] + [s.add for s, _ in all_steps]
    grid = grid_for(pairs, resolution)
    coarsest = grid_for(pairs, 8)
    while True:
        length = max(
            _estimated_length([(s.remove, t) for s, t in all_steps], grid, tail),
            _estimated_length([(s.add, t) for s, t in all_steps], grid, tail),
        )
        if length <= MAX_LENGTH / 2:
            return grid
        if grid <= coarsest:
            raise ValueError(
                f"the composition needs about {length:,.0f} grid points even at 8 points per loss spread "
                f"(at most {MAX_LENGTH // 2:,} fit in memory): too many steps for PLD accounting"
            )
        grid -= 1


def estimated_work(all_steps: Sequence[tuple[Step, int]], target_delta: float) -> float:
    """The work of one :func:`compose` of ``all_steps``, estimated before any of it is done: the
    composed vector's length on the grid :func:`compose` picks, times the repeated squarings and
    convolutions that build it (one per distinct pair, plus log₂ of its multiplicity).

    Args:
        all_steps: the (step, multiplicity) pairs of :func:`steps`.
        target_delta: the δ at which ε is certified, in (0, 1).

    Returns:
        The estimate, in vector entries processed.

    Raises:
        ValueError: the composed vector would not fit in memory (as :func:`compose`).
    """
    ordered = tuple(sorted(all_steps, key=lambda item: repr(item[0])))
    tail = _budget(target_delta) / sum(t for _, t in ordered)
    grid = _plan(ordered, RESOLUTION, tail)
    length = max(
        _estimated_length([(s.remove, t) for s, t in ordered], grid, tail),
        _estimated_length([(s.add, t) for s, t in ordered], grid, tail),
    )
    return length * sum(1 + math.log2(t) for _, t in ordered)


def _budget(target_delta: float) -> float:
    """The δ each kind of cut tail may take (per-step tails, upper and lower truncations)."""
    return target_delta * TAIL_SHARE / 3


def _compose_orientation(
    groups: Sequence[tuple[Pair, int]], grid: int, target_delta: float, certified: bool
) -> LossVector:
    count = sum(times for _, times in groups)
    budget = _budget(target_delta)
    build = discretize if certified else discretize_float
    powers = [self_compose(build(pair, grid, budget / count), times, budget) for pair, times in groups]
    return compose_many(powers, budget) if len(powers) > 1 else powers[0]


@lru_cache(maxsize=64)
def _vectors(
    all_steps: tuple[tuple[Step, int], ...], target_delta: float, certified: bool, resolution: int
) -> tuple[int, tuple[LossVector, ...]]:
    grid = _plan(all_steps, resolution, _budget(target_delta) / sum(t for _, t in all_steps))
    removes = [(s.remove, t) for s, t in all_steps]
    orientations = [removes]
    if any(s.add != s.remove for s, _ in all_steps):
        orientations.append([(s.add, t) for s, t in all_steps])
    return grid, tuple(_compose_orientation(o, grid, target_delta, certified) for o in orientations)


def _error_bound_dominates(vectors: Sequence[LossVector]) -> bool:
    """Whether the convolution's error bound, not the mass at +∞, keeps some orientation's δ up."""
    return any(math.isfinite(v.error) and v.error > v.infinity for v in vectors)


COARSENING_REACH = 16
"""How far below the error bound at the finest grid (times the halvings left) a coarser grid's
error bound is taken to reach: the bound shrinks about as the vector's length does."""


def _coarser_grid_may_help(vectors: Sequence[LossVector], target_delta: float, resolution: int) -> bool:
    """Whether halving the resolution may bring δ down to ``target_delta``: the error bound, not
    the mass at +∞, keeps δ up, and it is within reach of the halvings left (an error bound of
    10⁻¹¹ will not reach a δ of 10⁻³⁰, and trying would cost minutes)."""
    if not _error_bound_dominates(vectors):
        return False
    reach = COARSENING_REACH * resolution / MIN_RESOLUTION
    return max(v.error for v in vectors) <= reach * target_delta


def check_rounding_floor(all_steps: Sequence[tuple[Step, int]], target_delta: float) -> None:
    """Refuse a target δ below the rounding floor of composing more than one step: each
    convolution's float64 rounding adds at least u = 2⁻⁵³ to the certified δ (module docstring).

    Args:
        all_steps: the (step, multiplicity) pairs of :func:`steps`.
        target_delta: the δ at which ε is to be certified.

    Raises:
        ValueError: ``target_delta`` < 2⁻⁵³ and more than one step is composed.
    """
    if target_delta < UNIT and sum(t for _, t in all_steps) > 1:
        shown = f"δ = {target_delta:.3g}" if target_delta > 0 else "a δ below the float range"
        raise ValueError(
            f"no ε reaches {shown}: each convolution's float64 rounding adds at least "
            "2^-53 ≈ 1.1e-16 to the certified δ; certify a larger δ or account the steps another way"
        )


def compose(
    all_steps: Sequence[tuple[Step, int]],
    target_delta: float,
    *,
    certified: bool = True,
    resolution: int = RESOLUTION,
) -> PLDResult:
    """The certified ε at ``target_delta`` of the composition of ``all_steps`` (module docstring).

    Args:
        all_steps: the (step, multiplicity) pairs of :func:`steps`.
        target_delta: the δ at which ε is certified, in (0, 1).
        certified: False runs the same construction with float masses (fast, not certified: for
            searches, whose answer is then certified).
        resolution: grid points per unit of the smallest loss spread (halved while the
            convolution error alone keeps δ above the target, down to :data:`MIN_RESOLUTION`).

    Returns:
        The certified ε with the grid and the terms inside δ.

    Raises:
        ValueError: when no finite ε reaches the target (the mass at +∞ already exceeds it, or,
            for more than one step, the target is below the rounding floor 2⁻⁵³) or the
            composition does not fit in memory."""
    if not 0 < target_delta < 1:
        raise ValueError(f"target δ must be in (0, 1), got {target_delta!r}")
    if certified:
        check_rounding_floor(all_steps, target_delta)
    ordered = tuple(sorted(all_steps, key=lambda item: repr(item[0])))
    grid, vectors = _vectors(ordered, target_delta, certified, resolution)
    epsilon = _epsilon(vectors, target_delta)
    while (
        epsilon is None
        and resolution > MIN_RESOLUTION
        and _coarser_grid_may_help(vectors, target_delta, resolution)
    ):
        resolution //= 2  # a coarser grid: a shorter vector, a smaller convolution error
        grid, vectors = _vectors(ordered, target_delta, certified, resolution)
        epsilon = _epsilon(vectors, target_delta)
    if epsilon is None:
        floor = max(v.infinity + (v.error if math.isfinite(v.error) else 0.0) for v in vectors)
        raise ValueError(
            f"no ε reaches δ = {target_delta:.3g}: the composition's δ is at least {floor:.3g} at every ε"
        )
    return PLDResult(
        epsilon,
        target_delta,
        grid,
        sum(t for _, t in all_steps),
        len(vectors),
        max(v.infinity for v in vectors),
        max(v.error for v in vectors),
    )


def _epsilon(vectors: Sequence[LossVector], delta: float) -> float | None:
    """The smallest float ε ≥ 0 (to a relative 2⁻³⁰) at which every vector's certified δ(ε) ≤ δ."""

    def worst(eps: float) -> float:
        return max(delta_upper(v, eps) for v in vectors)

    high = max(math.ldexp(float(v.offset + v.masses.size), -v.grid) for v in vectors)
    high = max(high, 0.0)
    if worst(high) > delta:
        return None
    if worst(0.0) <= delta:
        return 0.0
    low = 0.0
    while high - low > 2.0**-30 * max(high, 2.0**-40):
        middle = (low + high) / 2
        if worst(middle) <= delta:
            high = middle
        else:
            low = middle
    return high


def delta_at(all_steps: Sequence[tuple[Step, int]], epsilon: float, target_delta: float) -> float:
    """A certified upper bound of δ(``epsilon``) of the composition (the vectors built for
    ``target_delta``'s tail budget)."""
    ordered = tuple(sorted(all_steps, key=lambda item: repr(item[0])))
    _, vectors = _vectors(ordered, target_delta, True, RESOLUTION)
    return max(delta_upper(v, epsilon) for v in vectors)
