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

How they are ranked. A count of zero on the other input is what makes such an event certify: its
Clopper–Pearson upper bound is ``≈ log(1/α)/n``, whatever split 1 looked like. The search's usual
projection (:meth:`~dpledger.verify.audit.montecarlo.search.objective.Objective.project`) shrinks both
frequencies by a standard error of split 1 before projecting them onto split 2, which turns a
split-1 count of zero into ``n₂/n₁`` expected hits and ranked a leak of 100 hits below the
mechanism's honest events. One-sided events project the other input's held-out frequency as it is
(still shrinking the producing input's), so that their rank is the bound split 2 can be expected
to give. This changes which events are estimated, never a bound: they are chosen on split 1 and
certified on split 2 with the audit's correction, like every other event. Keys are 64-bit hashes
of the view's values; an event is the set of outputs whose key is in the chosen set — a fixed
function of the output, whatever the hash merges, so a collision costs power, never validity.

ε = ∞ cannot be certified by sampling: with zero hits on the other input the certified bound is
``log(p_lo/q_hi)`` with ``q_hi ≈ log(1/α)/n``, a ceiling set by the number of runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.events import Statistic, StatisticEvent

ONE_SIDED_SHARE = 1 / 8
"""A key or cell is one-sided when the other input's split-1 count is at most this share of the
producing input's ("almost never")."""

ATOM_REPEATS = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)
"""Split-1 counts on the producing input from which a key joins a one-sided set (one set per
threshold; 1 is added for discrete outputs, whose every value repeats in distribution)."""

CELL_WIDTHS = (2.0**-6, 2.0**-3, 1.0, 8.0)
"""Cell widths of the binned views, in units of the outputs' spread (their pooled interquartile
range per coordinate) — or multiples 4, 64, 1024 of their grid when they are snapped."""

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


def row_hashes(values: np.ndarray) -> np.ndarray:
    """A 64-bit key per run from the bits of its float64 row: the row's words times odd
    per-coordinate constants, summed (wrapping), then mixed."""
    rows = np.ascontiguousarray(np.asarray(values, dtype=np.float64).reshape(len(values), -1))
    bits = rows.view(np.uint64)
    constants = _MIX * (2 * np.arange(bits.shape[1], dtype=np.uint64) + np.uint64(1))
    columns = np.ascontiguousarray(bits.T)  # column passes on contiguous memory
    keys = np.zeros(len(rows), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column, constant in zip(columns, constants, strict=True):
            keys += column * constant
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
        rows = np.asarray(outputs, dtype=np.float64).reshape(len(outputs), -1)
        hashes = row_hashes(rows if self.width is None else np.floor(rows / self.width))
        return (hashes >> np.uint64(11)).astype(np.float64)

    def defined(self, outputs: np.ndarray) -> np.ndarray:
        return self(outputs)

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
        scaled = rows / self.grid  # exact: a power of two
        return (scaled != np.round(scaled)).sum(axis=1).astype(float)

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
    pooled = np.concatenate([np.asarray(x, dtype=np.float64).reshape(-1) for x in (a, b)])
    values = np.abs(pooled[:: max(1, len(pooled) // GRID_SAMPLE)])
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


def key_views(a: np.ndarray, b: np.ndarray) -> list[KeyView]:
    """The views whose keys the one-sided search counts: exact values, then cells from fine to
    coarse (:data:`CELL_WIDTHS`)."""
    rows = np.concatenate([np.asarray(x, dtype=np.float64).reshape(len(x), -1) for x in (a, b)])
    grid = output_grid(a, b)
    if grid is not None:
        widths = [np.full(rows.shape[1], grid * factor) for factor in (4.0, 64.0, 1024.0)]
    else:
        low, high = np.quantile(rows, [0.25, 0.75], axis=0)
        spread = np.where(high > low, high - low, 1.0)
        widths = [spread * factor for factor in CELL_WIDTHS]
    return [KeyView(None), *(KeyView(width) for width in widths)]


def one_sided_keys(
    sorted_p: np.ndarray, sorted_q: np.ndarray, discrete: bool, scale: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Candidate one-sided sets of keys, chosen on the runs given (one half of split 1, or all of
    it with ``scale`` 2).

    Args:
        sorted_p: Keys of the producing input's runs, sorted.
        sorted_q: Keys of the other input's runs, sorted.
        discrete: Whether the outputs are discrete (a key seen once qualifies too).
        scale: The factor of the thresholds (the runs given, in halves of split 1).

    Returns:
        ``(members, sets)``: the distinct keys that belong to some set, and a boolean array
        ``(thresholds, members)`` whose row ``i`` holds the keys with at least
        ``scale · repeats(discrete)[i]`` runs of the producing input and at most
        :data:`ONE_SIDED_SHARE` of that of the other's.
    """
    thresholds = scale * repeats(discrete)
    starts = (
        np.flatnonzero(np.concatenate([[True], sorted_p[1:] != sorted_p[:-1]]))
        if len(sorted_p)
        else np.empty(0, int)
    )
    counts_p = np.diff(np.append(starts, len(sorted_p)))
    kept = counts_p >= thresholds[0]
    distinct, counts_p = sorted_p[starts[kept]], counts_p[kept]
    counts_q = key_counts(sorted_q, distinct)
    chosen = counts_q <= ONE_SIDED_SHARE * counts_p
    members, counts_p = distinct[chosen], counts_p[chosen]
    return members, counts_p[None, :] >= thresholds[:, None]


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
