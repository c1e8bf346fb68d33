"""What the search of every event family maximises, and the pieces the families share.

A family offers :class:`Candidate` events, chosen on split 1 (:class:`SearchResult`); it scores
them by the Wilson bound their split-1 frequencies would give on the runs split 2 will estimate
them on (:class:`Objective`), choosing cells of a table of counts on one half of split 1 and
scoring them on the other (:func:`best_cells`). Interval-type families cut their statistic at
:func:`cut_points`. A family is registered with the driver (:mod:`~dpledger.verify.audit.montecarlo.search`)
as a :class:`Family`: when it applies, and its search.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dpledger.verify.audit.montecarlo.events import Event
from dpledger.verify.audit.montecarlo.statistics import (
    delta_lower_search,
    epsilon_lower_search,
    wilson_bounds,
)

if TYPE_CHECKING:
    from dpledger.verify.audit.montecarlo.search.learned import Fits


CENTRAL_QUANTILES = 64
TAIL_EXACT = 256
SUBSAMPLE = 1 << 16


@dataclass(frozen=True, eq=False)
class Candidate:
    """An event chosen on split 1, for a pair and direction.

    ``forward`` means the tested inequality is P[M(a) ∈ E] ≤ e^ε P[M(b) ∈ E] + δ; otherwise a
    and b swap roles. ``score`` is the split-1 (Wilson) ε bound that ranked it.
    """

    pair_index: int
    forward: bool
    event: Event
    family: str
    score: float


@dataclass(frozen=True)
class SearchResult:
    """The best candidates of a search and how many (event, direction) pairs it compared."""

    candidates: list[Candidate]
    examined: int


@dataclass(frozen=True)
class Family:
    """An event family of the search: whether it applies to split-1 outputs ``a``, ``b`` of
    :func:`~dpledger.verify.audit.montecarlo.mechanism.output_kind` ``kind`` — ``applies(a, b,
    kind)`` — and its best candidates — ``search(a, b, pair_index, objective, fits)``."""

    name: str
    applies: Callable[[np.ndarray, np.ndarray, str], bool]
    search: Callable[[np.ndarray, np.ndarray, int, Objective, Fits], list[SearchResult]]


@dataclass(frozen=True)
class Objective:
    """What the search maximises: the Wilson ε bound at ``delta`` (``z``: the normal quantile of
    the bounds' level) and, with a ``claim``, the δ bound at the claimed ε — both of the counts
    projected onto ``target`` runs on a and on b (None: the counts as they are)."""

    delta: float
    z: float
    claim: float | None
    target: tuple[int, int] | None

    def project(
        self,
        counts: tuple[np.ndarray, int, np.ndarray, int],
        forward: bool,
        shrink: bool = True,
        shrink_other: bool = True,
        bid: bool = False,
    ) -> tuple:
        """``(k_p, n_p, k_q, n_q)`` rescaled to the target runs: the counts expected there, the
        frequencies first shrunk by one standard error (Wilson bounds at z = 1: p down, q up), so
        that a handful of split-1 hits — or none — is not taken for a precise frequency
        (``shrink=False``: expected counts of a fitted model, whose caution lies in the fit;
        ``shrink_other=False``: q as it is, for one-sided events, :mod:`one_sided`; ``bid``: p one
        standard error *up*, what a one-sided event bids for the audit's level)."""
        if self.target is None:
            return counts
        k_p, n_p, k_q, n_q = counts
        t_p, t_q = self.target if forward else self.target[::-1]
        if not shrink:
            return k_p / n_p * t_p, t_p, k_q / n_q * t_q, t_q
        p_low, p_high = wilson_bounds(k_p, n_p, 1.0)
        q_high = wilson_bounds(k_q, n_q, 1.0)[1] if shrink_other else np.asarray(k_q, dtype=float) / n_q
        return (p_high if bid else p_low) * t_p, t_p, q_high * t_q, t_q


def best_cells(
    chosen_on: tuple[np.ndarray, int, np.ndarray, int],
    scored_on: tuple[np.ndarray, int, np.ndarray, int],
    objective: Objective,
    forward: bool,
    valid: np.ndarray | None = None,
    shrink: bool = True,
    shrink_other: bool = True,
    shortlist: int = 1,
    bid: bool = False,
) -> list[tuple[int, float, str]]:
    """``(flat index, score, family suffix)`` of the ε-best cell of ``chosen_on`` (counts
    ``k_p, n_p, k_q, n_q``) and, with a claim, of its δ-best cell at the claimed ε if it differs;
    each scored by its ε bound on ``scored_on`` (cells scoring −∞ there are left out). Counts are
    projected onto the objective's target runs first (``shrink``, ``shrink_other``: see
    :meth:`Objective.project`). With ``bid`` (the one-sided families' key sets and off-grid event)
    cells are chosen as the others, but scored — ranked for the audit's level — by their *bid*,
    their producing input's frequency one standard error up
    (:mod:`~dpledger.verify.audit.montecarlo.one_sided`: their bound rests on a handful of split-1
    hits, independent of those split 2 will count, and on the level far more than a frequent
    event's; for a rare δ leak, the cautious projection is below the claimed δ, where the ε bound
    at δ, and the score, are −∞). ``shortlist``: the ``shortlist`` ε-best cells of ``chosen_on``
    are scored and the best of them on ``scored_on`` is kept — a choice made on half the runs
    is noisy, and the runner-up there is often the better event (the wrong tail of
    ReportNoisyMax3 won on one seed in ten and certified 0.13 where the others gave 0.21; with 3, its ten seeds give 0.204–0.234)."""
    chosen_on, scored_on = (
        objective.project(counts, forward, shrink, shrink_other, up)
        for counts, up in ((chosen_on, False), (scored_on, bid))
    )
    score = epsilon_lower_search(*scored_on, objective.delta, objective.z).reshape(-1)
    by_epsilon = epsilon_lower_search(*chosen_on, objective.delta, objective.z)
    if valid is not None:
        by_epsilon = np.where(valid, by_epsilon, -np.inf)
    flat = by_epsilon.reshape(-1)
    top = _best_indices(flat, shortlist)
    top = top[flat[top] > -np.inf]
    chosen = [(int(top[np.argmax(score[top])]), "")] if top.size else []
    if objective.claim is not None:
        by_delta = delta_lower_search(*chosen_on, objective.claim, objective.z)
        if valid is not None:
            by_delta = np.where(valid, by_delta, -np.inf)
        best_delta = int(np.argmax(by_delta))
        if not chosen or best_delta != chosen[0][0]:
            chosen.append((best_delta, " δ"))
    return [(index, float(score[index]), suffix) for index, suffix in chosen if score[index] > -np.inf]


def _best_indices(values: np.ndarray, count: int) -> np.ndarray:
    """The indices of the ``count`` largest ``values``, ties at the cut broken by the lower index,
    in index order among those above the cut, then the tied ones: the same on every machine
    (``np.argpartition``'s order, and which of tied entries it keeps, depend on the SIMD sort
    the CPU dispatches to)."""
    if count >= values.size:
        return np.arange(values.size)
    cut = -np.partition(-values, count - 1)[count - 1]  # the count-th largest value itself
    above = np.flatnonzero(values > cut)
    return np.concatenate([above, np.flatnonzero(values == cut)[: count - above.size]])


def cut_points(sorted_a: np.ndarray, sorted_b: np.ndarray) -> np.ndarray:
    """Cut points for interval events from two sorted samples: sorted, distinct.

    The ``TAIL_EXACT`` smallest and largest pooled values exactly, at ranks 1, 2, 4, … among
    them and among their distinct values (so that a block of tied outputs — one rare exact value
    — is separated from its neighbours); central quantiles, and tail ranks beyond
    ``TAIL_EXACT``, read from a strided subsample of at most ``SUBSAMPLE`` values. Cut points
    need not be exact quantiles, only chosen from split 1.
    """
    n = len(sorted_a) + len(sorted_b)
    exact = min(TAIL_EXACT, n)
    low = np.sort(np.concatenate([sorted_a[:exact], sorted_b[:exact]]))[:exact]
    high = np.sort(np.concatenate([sorted_a[-exact:], sorted_b[-exact:]]))[::-1][:exact]
    ranks = 2 ** np.arange(0, int(math.log2(exact)) + 1) - 1
    tails = [low[ranks], high[ranks]]
    for distinct in (np.unique(low), np.unique(high)[::-1]):
        tails.append(distinct[ranks[ranks < len(distinct)]])
    stride = max(1, n // SUBSAMPLE)
    subsample = np.sort(np.concatenate([sorted_a[::stride], sorted_b[::stride]]))
    m = len(subsample)
    levels = np.concatenate([np.arange(1, CENTRAL_QUANTILES) / CENTRAL_QUANTILES, 2.0 ** -np.arange(1, 40)])
    levels = levels[levels * n >= exact]
    inner = [subsample[(levels * (m - 1)).astype(int)], subsample[((1 - levels) * (m - 1)).astype(int)]]
    return np.unique(np.concatenate(tails + inner))


def two_halves(runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return runs[: len(runs) // 2], runs[len(runs) // 2 :]
