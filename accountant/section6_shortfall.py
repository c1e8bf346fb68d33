"""Why a run of CarryForwardLearner (Algorithm 2 of seed 000) misses its target (ε, δ), and what
would meet it.

The learner's guarantee is the parallel composition of three blocks (Lemma 6.12): the
initialization block on W^init (Corollary 6.8) and each reservoir's activations composed
(Corollary 6.11), every block amplified by running on m of the ⌊n/3⌋ records of its reservoir
(Theorem 3.4). :func:`shortfall` names the blocks that miss the target and by how much, and
searches, with the same certified tight accounting (optimal composition, exact amplification) and
the run's own oracle events, for the smallest n at which this m meets the target and the largest
m that meets it at this n — each answer certified to hold where it was found (the searches
assume, as the calibration does, that privacy worsens as q = m/⌊n/3⌋ grows).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpledger.accountant import events as ev
from dpledger.accountant.calibration import largest_integer, smallest_integer_to_precision
from dpledger.accountant.numerics.certified import enclose, upper_bound_text, upper_float
from dpledger.accountant.rules import Derivation, account
from dpledger.accountant.section6 import (
    Progress,
    SearchProgress,
    Target,
    learner_event,
    needed_n,
    paper_m,
    reservoir_activations,
)

OraclesFor = Callable[[int], Sequence[ev.Event]]
"""The oracle events A_1..A_k declare for an active sample of size m (``oracle.event(C, prefix, m)``)."""

MAX_DOUBLINGS = 200
"""How far the search for n looks: up to 2^200 times the n the paper's formula needs for this m."""


@dataclass(frozen=True)
class BlockShortfall:
    """One block of Lemma 6.12's parallel composition and its derived guarantee."""

    name: str
    epsilon: float
    delta: float

    def to_dict(self) -> dict[str, Any]:
        return {"block": self.name, "epsilon": self.epsilon, "delta": self.delta}


@dataclass(frozen=True)
class Shortfall:
    """Where a derived guarantee (``epsilon``, ``delta``) misses the target and what would meet it:
    ``n_for_m`` the smallest n at which this m does (None: none up to :data:`MAX_DOUBLINGS`
    doublings), ``m_for_n`` the largest m that does at this n (None: no m ≥ 1), both with this
    run's oracles under the tight accounting; ``n_paper_for_m`` and ``m_paper`` what Algorithm 2's
    formula (line 2) needs and gives."""

    n: int
    m: int
    epsilon: float
    delta: float
    target_epsilon: float
    target_delta: float
    q: Fraction
    blocks: tuple[BlockShortfall, ...]
    n_for_m: int | None
    n_paper_for_m: int
    m_for_n: int | None
    m_paper: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "epsilon_excess": max(self.epsilon - self.target_epsilon, 0.0),
            "delta_excess": max(self.delta - self.target_delta, 0.0),
            "q": float(self.q),
            "block_size": self.n // 3,
            "missing_blocks": [block.to_dict() for block in self.blocks],
            "n_for_m": self.n_for_m,
            "n_paper_for_m": self.n_paper_for_m,
            "m_for_n": self.m_for_n,
            "m_paper": self.m_paper,
            "reason": self.reason(),
            "remedies": self.remedies(),
        }

    def reason(self) -> str:
        """Which quantity misses which target, by how much, and in which blocks."""
        misses = []
        if self.epsilon > self.target_epsilon:
            misses.append(
                f"ε ≤ {upper_bound_text(self.epsilon)} exceeds the target ε = {self.target_epsilon:.6g} by "
                f"{self.epsilon - self.target_epsilon:.4g} (×{self.epsilon / self.target_epsilon:.3g})"
            )
        if self.delta > self.target_delta:
            misses.append(
                f"δ ≤ {upper_bound_text(self.delta)} exceeds the target δ = {self.target_delta:.6g}"
            )
        if not misses:
            misses.append(
                f"(ε, δ) ≤ ({upper_bound_text(self.epsilon)}, {upper_bound_text(self.delta)}) could not be certified to meet the "
                f"target ({self.target_epsilon:.6g}, {self.target_delta:.6g})"
            )
        blocks = "; ".join(
            f"{b.name}: ε ≤ {upper_bound_text(b.epsilon, 4)}, δ ≤ {upper_bound_text(b.delta, 3)}"
            for b in self.blocks
        )
        return (
            f"the derived {' and '.join(misses)}. Each block runs on m/⌊n/3⌋ = {self.m}/{self.n // 3} "
            f"= {float(self.q):.3g} of its reservoir, too large a fraction for amplification (Theorem 3.4) to "
            f"bring it under the target: {blocks}"
        )

    def remedies(self) -> list[str]:
        """What would meet the target (each certified where the search found it)."""
        out = []
        if self.n_for_m is not None:
            out.append(
                f"keep m = {self.m} and take n ≥ {self.n_for_m} (tight accounting of this run's oracles; "
                f"Algorithm 2's formula would need n ≥ {self.n_paper_for_m})"
            )
        if self.m_for_n is not None:
            out.append(
                f"keep n = {self.n} and take m ≤ {self.m_for_n} (--m {self.m_for_n}; or drop --m and use "
                f"--calibration tight, which picks the largest m certified for the paper's oracle "
                f"(ε_A, δ_A) = (4, δ/(16ek)))"
            )
        else:
            out.append(f"at n = {self.n} no m ≥ 1 meets the target: n must grow")
        if 1 <= self.m_paper <= (self.m_for_n or 0):
            out.append(
                f"or drop --m: --calibration paper gives m = {self.m_paper} at this n (Algorithm 2, line 2)"
            )
        return out


def _blocks(derivation: Derivation, k: int) -> list[tuple[str, Derivation]]:
    """The blocks of Lemma 6.12's parallel composition, named (the tree of :func:`learner_event`)."""
    parallel = derivation.children[0]
    names = ["initialization block on W^init (Corollary 6.8)"]
    names += [
        f"reservoir W^({j}), {count} activation{'s' * (count > 1)} composed (Corollary 6.11)"
        for j, count in enumerate(reservoir_activations(k))
        if count
    ]
    return list(zip(names, parallel.children, strict=True))


def shortfall(
    target: Target, m: int, oracles_for: OraclesFor, on_progress: Progress | None = None
) -> Shortfall:
    """Why the learner run with active size m on ``target.n`` records, its oracles declaring
    ``oracles_for(m)``, misses ``target`` (ε, δ), and the n and m that would meet it;
    ``on_progress(done, total)`` follows the accountings of both searches."""
    oracles = oracles_for(m)

    def meets(size: int, block: int, events: Sequence[ev.Event]) -> bool:
        guarantee = account(learner_event(target, size, events, "optimal", 3 * block)).guarantee
        return guarantee.meets(target.epsilon, target.delta).holds

    derivation = account(learner_event(target, m, oracles, "optimal"))
    g = derivation.guarantee
    eps_target, delta_target = upper_float(enclose(target.epsilon)), upper_float(enclose(target.delta))
    missing = tuple(
        BlockShortfall(name, node.guarantee.epsilon_upper, node.guarantee.delta_upper)
        for name, node in _blocks(derivation, target.k)
        if not node.guarantee.meets(target.epsilon, target.delta).holds
    )
    progress = SearchProgress(on_progress)
    block = target.block_size
    size = max(needed_n(target, m) // 3 + 1, 2 * block)
    high = None  # the first doubling of size that meets the target, if any does
    for _ in range(MAX_DOUBLINGS):
        if meets(m, size, oracles):
            high = size
            break
        size *= 2
    by_n = None
    if high is not None:
        ok = progress.tracked(
            lambda size: meets(m, size, oracles), high - block, cap=61, later=m.bit_length()
        )
        by_n = smallest_integer_to_precision(ok, max(block + 1, m), high)
    by_m = None
    if m > 1:
        by_m = largest_integer(
            progress.tracked(lambda value: meets(value, block, oracles_for(value)), m), 1, m - 1
        )
    progress.finish()
    return Shortfall(
        target.n,
        m,
        g.epsilon_upper,
        g.delta_upper,
        eps_target,
        delta_target,
        Fraction(m, block),
        missing,
        None if by_n is None else 3 * by_n,
        needed_n(target, m),
        by_m,
        paper_m(target),
    )
