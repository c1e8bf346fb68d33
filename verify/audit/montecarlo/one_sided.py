"""One-sided and rare outputs: what a run of one input produced and (almost) no run of the other.

A mechanism that, with a small probability p, emits an output only one input can produce (ε = ∞:
a forgotten branch, an unguarded special value, a debug print of the data) is a leak no ratio of
smooth densities describes. On split 1 such outputs are found as *keys* that one input's runs
repeat and the other's (almost) never show (:func:`one_sided_keys`), in several views of the
output (:func:`key_views`):

* exact values — of discrete outputs, of the rare exact values of continuous ones, the rows of
  vector outputs;
* cells of binned outputs: each coordinate cut into cells of a width, from fine to coarse (a
  multiple of the outputs' grid when they are snapped, :func:`output_grid`; else of their
  spread) — an isolated value, or a cluster of them, is a one-sided cell where the exact values of
  a snapped output repeat on both inputs alike;
* off the grid (:class:`OffGrid`): how many coordinates of a snapped output are not multiples of
  its grid — an output in the middle of the bulk that a snapped mechanism never produces.

Events are :class:`KeySetEvent` (a set of keys of one view, chosen on split 1) and interval events
of :class:`OffGrid`; the search (:func:`~dpledger.verify.audit.montecarlo.search.search_pair`) also
offers one-sided cells of every interval family (tails and intervals of the output and of the
learned scores, :func:`one_sided_cells`).

Which keys are one-sided. Where keys repeat because the law puts mass on every key — cells of a
continuous output, the grid values of a snapped one — a key one input repeats and the other lacks
is often chance: in a tail where the ratio of the densities is e^ε, a cell holding k runs of one
input holds none of the other with probability about e^{−k/e^ε}, and there are many such cells. A
leak lies where the other input has no mass near it (an output far from its law, a value off its
grid, a shifted copy of the law), an honest key where the other input's mass is all around. So in a
*dense* view (:func:`dense`: most runs share their key) the other input's runs in a key are taken
as at least what its surroundings predict (:class:`Surroundings`): their mean over the key's
neighbours — the cells one width away along each coordinate, the values one grid step away — and
the key's share, by volume, of its parent: the cell of the next coarser view that holds it (the
views are nested). The coarsest cells have no parent: one view up would average over the other
input's whole law. In a sparse view — the exact values of continuous outputs, the rows of vectors —
a repeated key is an atom of the law, and the key alone is counted.

How they are ranked. A count of zero on the other input is what makes such an event certify: its
Clopper–Pearson upper bound is ``≈ log(1/α)/n``, whatever split 1 looked like. The search's usual
projection (:meth:`~dpledger.verify.audit.montecarlo.search.objective.Objective.project`) shrinks both
frequencies by a standard error of split 1 before projecting them onto split 2, which turns a
split-1 count of zero into ``n₂/n₁`` expected hits and ranked a leak of 100 hits below the
mechanism's honest events. One-sided events project the other input's held-out frequency as it is
(still shrinking the producing input's), so that their rank is the bound split 2 can be expected
to give. This changes which events are estimated, never a bound: they are chosen on split 1 and
certified on split 2 with the audit's correction, like every other event. The level of the audit
goes by the same split-1 ranking (:func:`~dpledger.verify.audit.montecarlo.statistics.ranked_levels`),
and a one-sided event's bound depends on it far more than a frequent event's: with no hit on the
other input the bound is about ``log(k_lo/log(1/α))``, whereas the bound of an event of thousands of
hits moves by a hundredth. Its split-1 rank rests on a handful of hits, independent of the ones
split 2 will count; so one-sided events *bid* for the level with the score of their split-1 hits one
standard error up (:func:`~dpledger.verify.audit.montecarlo.search.objective.best_cells`).

Keys are 64-bit hashes of the view's values (:func:`row_hashes`); an event is the set of outputs
whose key is in the chosen set — a fixed function of the output, whatever the hash merges, so a
collision costs power, never validity. Where no two runs share even a coarsest cell (vectors of
many coordinates) only the exact values are a view (:func:`key_views`).

ε = ∞ cannot be certified by sampling: with zero hits on the other input the certified bound is
``log(p_lo/q_hi)`` with ``q_hi ≈ log(1/α)/n``, a ceiling set by the number of runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.events import Statistic, StatisticEvent

ONE_SIDED_SHARE = 1 / 8
"""A cell of an interval family is one-sided when the other input's split-1 count is at most this
share of the producing input's ("almost never")."""

KEY_SHARE = 1 / 32
"""A key is one-sided when the other input's split-1 count — or what its surroundings predict — is
at most this share of the producing input's: none below 32 runs, as a single run of the other
input in a key of a few is what its split-2 count would multiply (the cells of the interval
families, which hold the tails' many runs, keep :data:`ONE_SIDED_SHARE`)."""

ATOM_REPEATS = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)
"""Split-1 counts on the producing input from which a key joins a one-sided set (one set per
threshold; 1 is added for discrete outputs, whose every value repeats in distribution)."""

CELL_WIDTHS = (2.0**-6, 2.0**-3, 1.0, 8.0)
"""Cell widths of the binned views, in units of the outputs' spread (their pooled interquartile
range per coordinate) — or multiples :data:`GRID_WIDTHS` of their grid when they are snapped."""

GRID_WIDTHS = (4.0, 64.0, 1024.0)
"""Cell widths of the binned views of snapped outputs, in multiples of their grid."""

DENSE_SHARE = 1 / 2
"""A view is dense when at least this share of the runs share their key with another run."""

MIN_ATOM_HITS = 3
"""Split-1 runs a set of atoms (repeated keys of a sparse view) needs to be offered."""

MIN_HELD_OUT = 5
"""Held-out hits on the producing input a one-sided set needs to be offered: fewer are noise."""

GRID_SHARE = 1 / 256
"""Outputs allowed off a grid for it to be the outputs' grid (a leak lies off it)."""

GRID_SAMPLE = 1 << 16
"""Coordinates :func:`output_grid` reads at most."""

GRID_BITS = 30
"""A grid counts only when it is this many bits coarser than the outputs' float precision: being a
multiple of it is then a property of the real value, not of the float's last bits."""

_MIX = np.uint64(0x9E3779B97F4A7C15)
_MUL = np.uint64(0xBF58476D1CE4E5B9)


HASH_BLOCK = 1 << 13
"""Runs hashed (or checked against a grid, :class:`OffGrid`) at once: a block of rows is transposed
into columns that stay in the CPU's cache while their words are mixed."""


def row_hashes(values: np.ndarray, width: np.ndarray | None = None) -> np.ndarray:
    """A 64-bit key per run from the bits of its float64 row — or, with ``width``, of the row of
    its cell's indices ``floor(value / width)`` (−0 read as 0 in both). Each word, offset by its
    coordinate's multiple of a constant, is mixed on its own — folded onto its low half (the sign,
    exponent and high significand bits, where snapped or integer outputs differ, their low bits
    being zero), multiplied, folded again — and the mixed words are summed (wrapping), then mixed
    once more. The per-word mixing is what makes the sum a hash: a sum of the raw words times
    constants is a linear map, under which rows of small integers collide."""
    rows = np.asarray(values, dtype=np.float64).reshape(len(values), -1)
    keys = np.empty(len(rows), dtype=np.uint64)
    offsets = _MIX * np.arange(rows.shape[1], dtype=np.uint64)
    for start in range(0, len(rows), HASH_BLOCK):
        block = rows[start : start + HASH_BLOCK].T
        columns = np.empty(block.shape)  # one contiguous row per coordinate
        if width is None:
            np.add(block, 0.0, out=columns)
        else:
            np.divide(block, width[:, None], out=columns)
            np.floor(columns, out=columns)
            columns += 0.0
        keys[start : start + HASH_BLOCK] = _mixed_sum(columns.view(np.uint64), offsets)
    return keys


def _mixed_sum(words: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The hash of :func:`row_hashes` of runs given as one row of words per coordinate."""
    keys = np.zeros(words.shape[1], dtype=np.uint64)
    word = np.empty(words.shape[1], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column, offset in zip(words, offsets, strict=True):
            np.add(column, offset, out=word)
            word ^= word >> np.uint64(32)
            word *= _MUL
            word ^= word >> np.uint64(29)
            keys += word
        keys ^= keys >> np.uint64(31)
        keys *= _MIX
        keys ^= keys >> np.uint64(29)
    return keys


@dataclass(frozen=True, eq=False)
class KeyView(Statistic):
    """A view of numeric outputs as one key per run: exact values (``width`` None) or cells of
    ``width`` per coordinate; the key is the 53 high bits of a 64-bit hash of the view's row (an
    integer a float64 holds exactly)."""

    width: np.ndarray | None

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return (row_hashes(outputs, self.width) >> np.uint64(11)).astype(np.float64)

    def defined(self, outputs: np.ndarray) -> np.ndarray:
        return self(outputs)

    def neighbours(self, outputs: np.ndarray, step: float) -> np.ndarray:
        """The keys of the cells next to each output's, one per coordinate and side: shape
        ``(2 · coordinates, runs)``; in the view of exact values, of the values ``step`` away."""
        rows = np.asarray(outputs, dtype=np.float64).reshape(len(outputs), -1)
        cells = rows + 0.0 if self.width is None else np.floor(rows / self.width)
        shift = step if self.width is None else 1.0
        out = np.empty((2 * cells.shape[1], len(cells)))
        for j in range(cells.shape[1]):
            for side, sign in enumerate((-1.0, 1.0)):
                moved = cells.copy()
                moved[:, j] += sign * shift
                out[2 * j + side] = (row_hashes(moved) >> np.uint64(11)).astype(np.float64)
        return out

    @property
    def signature(self) -> tuple[str, bytes | None]:
        """What makes two views one function of the outputs: their widths."""
        return ("key view", None if self.width is None else self.width.tobytes())

    def describe(self) -> dict[str, Any]:
        if self.width is None:
            return {"statistic": "output key", "view": "exact values"}
        return {"statistic": "output key", "view": "cells", "cell_width": [float(w) for w in self.width[:8]]}


@dataclass(frozen=True, eq=False)
class KeySetEvent(StatisticEvent):
    """The output's key in the view ``statistic`` is one of ``keys``; ``shown``: a few outputs of the set."""

    statistic: KeyView
    keys: np.ndarray
    shown: tuple[Any, ...]

    def within(self, values: np.ndarray) -> np.ndarray:
        return np.isin(values, self.keys)

    def describe(self) -> dict[str, Any]:
        return {
            "type": "one-sided outputs",
            **self.statistic.describe(),
            "keys": len(self.keys),
            "examples": list(self.shown),
        }


@dataclass(frozen=True)
class OffGrid(Statistic):
    """How many coordinates of the output are not multiples of ``grid`` (a power of two): 0 for
    every output of a mechanism snapped to that grid."""

    grid: float

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        rows = np.asarray(outputs, dtype=np.float64).reshape(len(outputs), -1)
        off = np.empty(len(rows))
        for start in range(0, len(rows), HASH_BLOCK):  # blocks that stay in the CPU's cache
            scaled = rows[start : start + HASH_BLOCK] / self.grid  # exact: a power of two
            off[start : start + HASH_BLOCK] = np.count_nonzero(scaled != np.rint(scaled), axis=1)
        return off

    def defined(self, outputs: np.ndarray) -> np.ndarray:
        return self(outputs)

    def describe(self) -> dict[str, Any]:
        return {"statistic": "coordinates off the grid", "grid": self.grid}


def output_grid(a: np.ndarray, b: np.ndarray) -> float | None:
    """The grid of snapped outputs: the coarsest power of two of which all but
    :data:`GRID_SHARE` of the coordinates are multiples, when it is at least :data:`GRID_BITS`
    bits coarser than the float precision of the largest of them; None for outputs on no grid.
    Read from a strided subsample of at most :data:`GRID_SAMPLE` coordinates (the grid is a
    property of the bulk; being a multiple of 2^(k+1) implies being one of 2^k, so the coarsest
    grid is found by bisection)."""
    flat = [np.asarray(x, dtype=np.float64).reshape(-1) for x in (a, b)]
    stride = max(1, (len(flat[0]) + len(flat[1])) // GRID_SAMPLE)
    # every stride-th coordinate of a and b laid end to end, without copying them end to end
    values = np.abs(np.concatenate([flat[0][::stride], flat[1][-len(flat[0]) % stride :: stride]]))
    values = values[(values > 0) & np.isfinite(values)]
    if len(values) == 0:
        return None
    top = float(np.quantile(values, 1 - GRID_SHARE))
    exponent = math.frexp(top)[1]

    def on_grid(k: int) -> bool:
        scaled = np.ldexp(values, -k)  # exact: a power of two
        return float(np.mean(scaled != np.round(scaled))) <= GRID_SHARE

    low, high = exponent - 53 + GRID_BITS, exponent + 1  # on_grid(high) fails: most values are below 2^high
    if not on_grid(low):
        return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if on_grid(middle) else (low, middle)
    return math.ldexp(1.0, low)


Keys = Callable[[KeyView, int, np.ndarray], np.ndarray]
"""``keys(view, side, runs)``: ``view(runs)`` of the runs of input ``side`` (0: a, 1: b), computed
or kept (:meth:`~dpledger.verify.audit.montecarlo.search.learned.Fits.row_values`)."""


def view_keys(view: KeyView, side: int, runs: np.ndarray) -> np.ndarray:
    """:data:`Keys` that computes them: ``view(runs)``."""
    return view(runs)


def key_views(a: np.ndarray, b: np.ndarray, *, keys: Keys = view_keys) -> list[KeyView]:
    """The views whose keys the one-sided search counts: exact values, then cells from fine to
    coarse (:data:`CELL_WIDTHS`) — unless no two runs share even a coarsest cell (vectors of many
    coordinates): every view of cells is then the view of exact values, whose repeats are atoms.
    ``keys`` gives a view's keys of the runs (:data:`Keys`)."""
    rows = [np.asarray(x, dtype=np.float64).reshape(len(x), -1) for x in (a, b)]
    grid = output_grid(a, b)
    if grid is not None:
        widths = [np.full(rows[0].shape[1], grid * factor) for factor in GRID_WIDTHS]
    else:
        low, high = np.quantile(np.concatenate(rows), [0.25, 0.75], axis=0)
        spread = np.where(high > low, high - low, 1.0)
        widths = [spread * factor for factor in CELL_WIDTHS]
    cells = [KeyView(width) for width in widths]
    coarsest = np.sort(np.concatenate([keys(cells[-1], side, x) for side, x in enumerate(rows)]))
    if not np.any(coarsest[1:] == coarsest[:-1]):
        return [KeyView(None)]
    return [KeyView(None), *cells]


@dataclass(frozen=True)
class Surroundings:
    """What the other input shows around keys of ``view`` in one part of the runs: ``outputs``, the
    producing input's runs there, with ``order`` sorting their keys into ``sorted_p`` (to find a run
    of each key); ``sorted_q``, the other input's keys there, sorted; ``step``, the outputs' grid
    (the neighbours of an exact value); and ``parent``, the next coarser view with the other input's
    keys in it, sorted, and a key's volume in units of its parent's (None for the coarsest cells)."""

    view: KeyView
    step: float
    outputs: np.ndarray
    order: np.ndarray
    sorted_p: np.ndarray
    sorted_q: np.ndarray
    parent: tuple[KeyView, np.ndarray, float] | None

    def __call__(self, members: np.ndarray) -> np.ndarray:
        """The other input's runs that the surroundings of each of ``members`` (keys among
        ``sorted_p``) predict in it: the larger of their mean in its neighbours and its parent's
        share. Any run of a key will do: the cells beside it and above it are the same."""
        rows = self.outputs[self.order[np.searchsorted(self.sorted_p, members)]]
        near = self.view.neighbours(rows, self.step)
        predicted = key_counts(self.sorted_q, near.reshape(-1)).reshape(near.shape).mean(axis=0)
        if self.parent is not None:
            view, sorted_q, volume = self.parent
            predicted = np.maximum(predicted, volume * key_counts(sorted_q, view(rows)))
        return predicted


def one_sided_keys(
    sorted_p: np.ndarray,
    sorted_q: np.ndarray,
    discrete: bool,
    scale: int = 1,
    around: Surroundings | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Candidate one-sided sets of keys, chosen on the runs given (one half of split 1, or all of
    it with ``scale`` 2, or all of it at the thresholds of a half for the atoms of a sparse view).

    Args:
        sorted_p: Keys of the producing input's runs, sorted.
        sorted_q: Keys of the other input's runs, sorted.
        discrete: Whether the outputs are discrete (a key seen once qualifies too).
        scale: The factor of the thresholds (the runs given, in halves of split 1).
        around: For a dense view, the other input's runs its surroundings predict in each key.

    Returns:
        ``(members, sets)``: the distinct keys that belong to some set, and a boolean array
        ``(thresholds, members)`` whose row ``i`` holds the keys with at least
        ``scale · repeats(discrete)[i]`` runs of the producing input and at most
        :data:`KEY_SHARE` of that of the other's — counted as at least what ``around`` predicts.
    """
    thresholds = scale * repeats(discrete)
    distinct, counts_p = _distinct(sorted_p)
    kept = counts_p >= thresholds[0]
    distinct, counts_p = distinct[kept], counts_p[kept]
    chosen = key_counts(sorted_q, distinct) <= KEY_SHARE * counts_p
    if around is not None and chosen.any():
        chosen[chosen] = around(distinct[chosen]) <= KEY_SHARE * counts_p[chosen]
    members, counts_p = distinct[chosen], counts_p[chosen]
    return members, counts_p[None, :] >= thresholds[:, None]


def dense(keys: np.ndarray) -> bool:
    """Whether most runs share their key with another run (:data:`DENSE_SHARE`): a view in which
    keys repeat because the outputs' law puts mass on every key, where a key one input repeats and
    the other lacks may be chance; in a sparse view a repeated key is an atom of the law."""
    ordered = np.sort(keys, kind="stable")  # merges sorted runs (the inputs' keys) in one pass
    same = ordered[1:] == ordered[:-1]
    shared = np.zeros(len(ordered), dtype=bool)
    shared[1:] |= same
    shared[:-1] |= same
    return bool(shared.mean() >= DENSE_SHARE) if len(ordered) else False


def chance_repeats(sorted_a: np.ndarray, sorted_b: np.ndarray) -> int:
    """The most runs of both inputs that a key seen on both holds (0 when none is): how often a
    key of the view repeats by chance, where the law of both inputs puts it — a key one input
    repeats no more often is no atom."""
    keys_a, counts_a = _distinct(sorted_a)
    counts_b = key_counts(sorted_b, keys_a)
    shared = counts_b > 0
    return int((counts_a[shared] + counts_b[shared]).max(initial=0))


def _distinct(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys of ``sorted_keys`` and how often each occurs (``np.unique`` of sorted keys)."""
    starts = (
        np.flatnonzero(np.concatenate([[True], sorted_keys[1:] != sorted_keys[:-1]]))
        if len(sorted_keys)
        else np.empty(0, int)
    )
    return sorted_keys[starts], np.diff(np.append(starts, len(sorted_keys)))


def repeats(discrete: bool) -> np.ndarray:
    """The thresholds of :func:`one_sided_keys`: :data:`ATOM_REPEATS`, and 1 first for discrete outputs."""
    return np.asarray(((1,) if discrete else ()) + ATOM_REPEATS)


def key_counts(sorted_keys: np.ndarray, members: np.ndarray) -> np.ndarray:
    """How many of ``sorted_keys`` equal each of ``members``."""
    return np.searchsorted(sorted_keys, members, side="right") - np.searchsorted(sorted_keys, members)


def one_sided_cells(chosen_p: np.ndarray, chosen_q: np.ndarray) -> np.ndarray:
    """Cells (intervals between cut points) holding at least :data:`MIN_HELD_OUT` runs of the producing input and
    at most :data:`ONE_SIDED_SHARE` of that of the other, on the half of split 1 they are chosen on.

    Args:
        chosen_p: Runs per cell on the producing input.
        chosen_q: Runs per cell on the other input.

    Returns:
        The boolean mask of one-sided cells.
    """
    return (chosen_p >= MIN_HELD_OUT) & (chosen_q <= ONE_SIDED_SHARE * chosen_p)
