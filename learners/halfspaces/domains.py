"""The finite coordinate domains of Definition 8.2 / C.3 of seed 000, never listed.

Ỹ_1 = {−1, 1} (:class:`SignDomain`). For i ≥ 2, Ỹ_i(y≤i−1) = Ỹ′_i / Ỹ″_i with
Ỹ′_i = [[±(d·d!)^{i−1} X^{d(i−1)}]] and Ỹ″_i = ([[±d!·X^d]] · t_{i−1}) \\ {0}, where t_{i−1} is the
denominator of the previous coefficient a_{i−2} (t_1 = 1) (:class:`RationalDomain`).

Representation. A quotient s/t with t < 0 equals (−s)/(−t), so the domain is indexed by its
*representation pairs* (s, c) with |s| ≤ S and 1 ≤ c ≤ C, value s/(c·t₀); a rational with
several representations is counted once per representation (the mechanisms below draw a pair,
then release its value — their scores depend on the value only, so privacy is unaffected and
the multiplicity only reweights the base measure). t_{i−1} is the denominator of the *reduced*
previous coefficient; it divides every representation's denominator, so the vertex
coordinates of Lemma C.4 stay representable (and the learner checks full depth on every run).

Queries are exact and cost O(log(S·C)) big-integer steps (floor sums): the number of pairs
whose value lies in a point or an open interval (:meth:`RationalDomain.count`), a uniform pair
in such a set (:meth:`RationalDomain.sample`), its simplest value
(:meth:`RationalDomain.simplest`, the Stern–Brocot simplest rational) and the value of a given
rank in value order, over the whole domain (:meth:`RationalDomain.value_at`: bisection on the
prefix counts, then the one rational of small enough denominator in the bracket) or within a
slot (:func:`select`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from dpledger.accountant.calibration import smallest_integer
from dpledger.learners.randomness import Randomness

Bound = Fraction | None
"""An end of an interval of the real line; ``None`` is −∞ (lower end) or +∞ (upper end)."""


def floor_sum(n: int, m: int, a: int, b: int) -> int:
    """Σ_{i=0}^{n−1} ⌊(a·i + b)/m⌋ for n ≥ 0, m ≥ 1 and any integers a, b (Euclid-like, O(log m))."""
    total = 0
    while n > 0:
        if a >= m or a < 0:
            total += n * (n - 1) // 2 * (a // m)
            a %= m
        if b >= m or b < 0:
            total += n * (b // m)
            b %= m
        top = a * n + b
        if top < m:
            break
        n, b, m, a = top // m, top % m, a, m
    return total


def simplest_between(low: Bound, high: Bound) -> Fraction:
    """The rational of smallest denominator (then smallest |numerator|) in the open interval
    (low, high); ``None`` ends are infinite. Continued-fraction recursion (Stern–Brocot)."""
    if low is not None and high is not None and not low < high:
        raise ValueError(f"low must be below high, got ({low}, {high})")
    if (low is None or low < 0) and (high is None or high > 0):
        return Fraction(0)
    if low is None or (high is not None and high <= 0):
        return -simplest_between(None if high is None else -high, None if low is None else -low)
    whole = math.floor(low)
    if high is None or whole + 1 < high:
        return Fraction(whole + 1)
    rest = simplest_between(1 / (high - whole), None if low == whole else 1 / (low - whole))
    return whole + 1 / rest


@dataclass(frozen=True)
class Slot:
    """A point {low} (``point`` True, low == high) or an open interval (low, high) of the line."""

    low: Bound
    high: Bound
    point: bool = False


class SignDomain:
    """Ỹ_1 = {−1, 1} (Definition 8.2): the threshold w; excluding 0 rules out (a, w) = (0, 0)."""

    size = 2

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> int:
        return (-1, 1)[index]

    def __iter__(self) -> Iterator[int]:
        return iter((-1, 1))

    def __contains__(self, value: object) -> bool:
        return isinstance(value, (int, Fraction)) and not isinstance(value, bool) and value in (-1, 1)

    def _members(self, slot: Slot) -> list[int]:
        return [v for v in (-1, 1) if _inside(Fraction(v), slot)]

    def count(self, slot: Slot) -> int:
        return len(self._members(slot))

    def counts(self, breakpoints: list[Fraction]) -> list[int]:
        """The number of elements in each of the 2r + 1 slots of ``breakpoints`` (see :func:`slot_counts`)."""
        return slot_counts(self, breakpoints)

    def below(self, bound: Fraction, strict: bool) -> int:
        """#{v ∈ {−1, 1} : v < bound} (strict) or ≤ bound."""
        return sum(1 for v in (-1, 1) if (v < bound if strict else v <= bound))

    def sample(self, slot: Slot, rng: Randomness) -> Fraction:
        members = self._members(slot)
        return Fraction(members[rng.integer(len(members))])

    def value_at(self, position: int) -> Fraction:
        """The element of rank ``position`` (0: −1, 1: 1)."""
        return Fraction((-1, 1)[_rank(position, 2)])

    def simplest(self, slot: Slot) -> Fraction | None:
        members = self._members(slot)
        return Fraction(members[0]) if members else None

    @property
    def minimum(self) -> Fraction:
        return Fraction(-1)


def _inside(value: Fraction, slot: Slot) -> bool:
    if slot.point:
        return value == slot.low
    return (slot.low is None or value > slot.low) and (slot.high is None or value < slot.high)


class RationalDomain:
    """{s/(c·t₀) : |s| ≤ numerator_bound, 1 ≤ c ≤ denominator_bound} indexed by its pairs (s, c);
    ``size`` = (2S + 1)·C pairs. Indexing (``domain[j]``) is in pair order (c major), for
    uniform draws; value order is what :meth:`count` and :meth:`sample` use."""

    def __init__(self, numerator_bound: int, denominator_bound: int, scale: int = 1) -> None:
        for name, value in (
            ("numerator_bound", numerator_bound),
            ("denominator_bound", denominator_bound),
            ("scale", scale),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer ≥ 1, got {value!r}")
        self.S, self.C, self.scale = numerator_bound, denominator_bound, scale
        self.size = (2 * numerator_bound + 1) * denominator_bound

    def __repr__(self) -> str:
        return f"RationalDomain(|s| ≤ {self.S}, t ∈ {self.scale}·[1, {self.C}])"

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> Fraction:
        if not 0 <= index < self.size:
            raise IndexError(f"index {index} outside a domain of {self.size} pairs")
        c, s = divmod(index, 2 * self.S + 1)
        return Fraction(s - self.S, (c + 1) * self.scale)

    def __contains__(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
            return False
        scaled = Fraction(value) * self.scale  # s/c must equal value·t₀ with c ≤ C, |s| ≤ S
        return scaled.denominator <= self.C and abs(scaled.numerator) <= self.S

    @property
    def minimum(self) -> Fraction:
        return Fraction(-self.S, self.scale)

    # -- counting: #{s ≤ ⌊(P·t₀·c + offset)/R⌋} summed over c -----------------------------

    def _below(self, bound: Bound, strict: bool, c: int) -> int:
        """#{s ∈ [−S, S] : s/(c·t₀) < bound} (strict) or ≤ bound, for one c."""
        if bound is None:
            return 0 if strict else 2 * self.S + 1  # below −∞: none; up to +∞: all
        top = (bound.numerator * self.scale * c - (1 if strict else 0)) // bound.denominator
        return min(max(top + self.S + 1, 0), 2 * self.S + 1)

    def _prefix(self, bound: Bound, strict: bool, last: int) -> int:
        """Σ_{c=1}^{last} _below(bound, strict, c), in O(log) by splitting c where the clip binds."""
        if last <= 0:
            return 0
        if bound is None:
            return last * self._below(None, strict, 1)
        total = 0
        for c_low, c_high, clipped in self._pieces(bound, strict, last):
            count = c_high - c_low + 1
            if clipped is None:  # Σ_{c=c_low}^{c_high} (⌊(a·c + off)/R⌋ + S + 1)
                a, off = bound.numerator * self.scale, -1 if strict else 0
                total += floor_sum(count, bound.denominator, a, a * c_low + off) + count * (self.S + 1)
            else:
                total += count * clipped
        return total

    def _pieces(self, bound: Fraction, strict: bool, last: int) -> list[tuple[int, int, int | None]]:
        """[1, last] cut into ranges where _below is constantly 0, constantly 2S+1, or unclipped."""
        increasing = bound >= 0  # c ↦ ⌊(P·t₀·c + off)/R⌋ is non-decreasing iff P ≥ 0

        def first(predicate: Callable[[int], bool]) -> int:
            """Smallest c in [1, last] with predicate(c) (monotone), or last + 1."""
            found = smallest_integer(predicate, 1, last)
            return last + 1 if found is None else found

        full = 2 * self.S + 1
        if increasing:
            a = first(lambda c: self._below(bound, strict, c) > 0)
            b = first(lambda c: self._below(bound, strict, c) >= full)
            pieces = [(1, a - 1, 0), (a, b - 1, None), (b, last, full)]
        else:
            a = first(lambda c: self._below(bound, strict, c) < full)
            b = first(lambda c: self._below(bound, strict, c) <= 0)
            pieces = [(1, a - 1, full), (a, b - 1, None), (b, last, 0)]
        return [p for p in pieces if p[0] <= p[1]]

    def _cumulative(self, slot: Slot, last: int) -> int:
        """#pairs with c ≤ last whose value lies in the slot."""
        if slot.point:
            return self._prefix(slot.low, False, last) - self._prefix(slot.low, True, last)
        upper = self._prefix(slot.high, True, last) if slot.high is not None else last * (2 * self.S + 1)
        lower = self._prefix(slot.low, False, last) if slot.low is not None else 0
        return max(upper - lower, 0)

    def below(self, bound: Fraction, strict: bool) -> int:
        """#pairs with value < bound (strict) or ≤ bound."""
        return self._prefix(bound, strict, self.C)

    def counts(self, breakpoints: list[Fraction]) -> list[int]:
        """The number of pairs in each of the 2r + 1 slots of ``breakpoints`` (see :func:`slot_counts`)."""
        return slot_counts(self, breakpoints)

    def count(self, slot: Slot) -> int:
        """The number of pairs whose value lies in ``slot`` (exact)."""
        return self._cumulative(slot, self.C)

    def sample(self, slot: Slot, rng: Randomness) -> Fraction:
        """The value of a uniformly random pair whose value lies in ``slot`` (exact; the slot must
        contain a pair): a rank r, the c holding it by bisection on cumulative counts, then s."""
        total = self.count(slot)
        if total < 1:
            raise ValueError(f"slot: no domain element in {slot}")
        rank = rng.integer(total)
        lo, hi = 1, self.C
        while lo < hi:  # smallest c with cumulative(c) > rank
            mid = (lo + hi) // 2
            if self._cumulative(slot, mid) > rank:
                hi = mid
            else:
                lo = mid + 1
        c = lo
        within = rank - self._cumulative(slot, c - 1)
        # pairs of this c below the slot: value < low for a point, value ≤ low for an open interval
        first_s = (0 if slot.low is None else self._below(slot.low, slot.point, c)) - self.S
        return Fraction(first_s + within, c * self.scale)

    def value_at(self, position: int) -> Fraction:
        """The value of the pair of rank ``position`` in value order (pairs of equal value in any
        order: they share it), exactly: bisection on dyadic points keeps #pairs ≤ lo ≤ position <
        #pairs ≤ hi until hi − lo < 1/(C²t₀), below the gap between two distinct values
        |s/c − s′/c′|/t₀ ≥ 1/(cc′t₀); (lo, hi] then holds one value, hi or the simplest rational of
        (lo, hi), whose denominator and numerator are at most that value's. O(log(S·C²)) counts."""
        rank = _rank(position, self.size)
        low, high = Fraction(-self.S - 1, self.scale), Fraction(self.S, self.scale)
        gap = Fraction(1, self.C**2 * self.scale)
        while high - low >= gap:
            middle = (low + high) / 2
            if self.below(middle, False) > rank:
                high = middle
            else:
                low = middle
        value = high if high in self else simplest_between(low * self.scale, high * self.scale) / self.scale
        if not self.below(value, True) <= rank < self.below(value, False):
            raise RuntimeError(f"value_at({position}): bisection ended at {value}, which does not hold it")
        return value

    def simplest(self, slot: Slot) -> Fraction | None:
        """The simplest domain value in ``slot`` (smallest denominator), or None when it holds none."""
        if slot.point:
            return slot.low if slot.low in self else None
        t0 = self.scale
        candidate = simplest_between(
            None if slot.low is None else slot.low * t0, None if slot.high is None else slot.high * t0
        )
        # the simplest s/c in (low·t₀, high·t₀) minimises c and |s| at once: representable or nothing is
        if candidate.denominator <= self.C and abs(candidate.numerator) <= self.S:
            return candidate / t0
        return None


def select(domain: SignDomain | RationalDomain, slot: Slot, rank: int) -> Fraction:
    """The element of rank ``rank`` (from 0, in increasing value; pairs of equal value counted each,
    as :meth:`~RationalDomain.count` does) among those in ``slot``: the domain's element of rank
    ``rank`` plus the number of elements below the slot.

    Args:
        domain: The coordinate domain.
        slot: A point or an open interval of values.
        rank: The rank within the slot.

    Returns:
        The element, exactly.

    Raises:
        ValueError: If ``rank`` is not an integer in [0, count(slot)).
    """
    total = domain.count(slot)
    if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < total:
        raise ValueError(f"rank must be an integer in [0, {total}), got {rank!r}")
    before = 0 if slot.low is None else domain.below(slot.low, slot.point)
    return domain.value_at(before + rank)


def _rank(position: int, size: int) -> int:
    if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < size:
        raise ValueError(f"position must be an integer in [0, {size}), got {position!r}")
    return position


def slot_counts(domain: SignDomain | RationalDomain, breakpoints: list[Fraction]) -> list[int]:
    """Element counts of the slots (b_{j−1}, b_j), {b_j}, …, (b_{r−1}, ∞) of sorted breakpoints, from
    two prefix counts per breakpoint."""
    strict = [domain.below(b, True) for b in breakpoints]
    weak = [domain.below(b, False) for b in breakpoints]
    counts, previous = [], 0
    for lt, le in zip(strict, weak, strict=True):
        counts += [lt - previous, le - lt]
        previous = le
    counts.append(domain.size - previous)
    return counts


def coordinate_domain(dimension: int, grid: int, prefix: tuple) -> SignDomain | RationalDomain:
    """Ỹ_i(y≤i−1) of Definition C.3 for i = len(prefix) + 1, on the grid [[±X]]^d."""
    i = len(prefix) + 1
    if i == 1:
        return SignDomain()
    d, X = dimension, grid
    previous = Fraction(prefix[-1]).denominator if i > 2 else 1
    return RationalDomain(
        (d * math.factorial(d)) ** (i - 1) * X ** (d * (i - 1)), math.factorial(d) * X**d, previous
    )
