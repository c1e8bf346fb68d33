"""Atom-pattern scores: an empirical likelihood ratio over the markers and numbers of a
sparse-vector output.

A sparse-vector mechanism answers each query with a marker — ⊥, or "not answered" after the
cutoff — or, in its numeric variants, with a number for each ⊤ (Lyu, Su, Li 2017, "Understanding
the sparse vector technique for differential privacy", PVLDB, Algs. 1–6; NumericalSVT, Wang, Ding,
Wang, Kifer, Zhang 2019, PLDI). The markers are *atoms* of the output: exact values that a
sizeable share of the entries take (:data:`ATOM_SHARE`), where a released number, noisy, is
almost never repeated. The likelihood ratio of such an output is a function of the pattern of
its markers — which queries came out ⊤, so the position of the first ⊤ and how many there are,
through the shared threshold noise — jointly with the numbers released: in Lyu–Su–Li's Alg. 3 a
⊤ released at a low value betrays a low threshold noise, and so how likely the earlier ⊥'s were
(Lyu–Su–Li show that Alg. 3 is not ε′-DP for any ε′). Per-coordinate learned scores and coordinate counts
(:mod:`search`) see the markers and numbers as one real axis per coordinate (−1000 for ⊥) and
miss that joint dependence.

:class:`PatternScore` is a cell table. A run's cell in a block of coordinates is its atom
pattern there (each entry's atom, or "a number") with the quantile bin of the sum of its numbers
(:data:`NUMERIC_BINS` bins); its score is the empirical log-likelihood ratio of that cell between
the two inputs on the fitting runs — shrunk towards its pattern's ratio, itself shrunk towards 0,
by :data:`PSEUDO_COUNT` pseudo-runs, and made monotone in the bin within each pattern (the ratio
of a number released with Laplace noise is monotone in it) — summed over the blocks with weights.
Blocks (:func:`support_blocks`) are runs of consecutive coordinates that share values with their
neighbour — atoms, or numbers — and change where the output alphabet changes: the components of
a parallel composition of different mechanisms (DP-Sniper's SVT34Parallel, Bichsel et al. 2021),
independent given the input, so that their log-likelihood ratios add and each block's table is
fitted on all runs instead of on the few runs of every joint cell.

The search's ``pattern`` family (:mod:`search`) reads only split 1: the layout
(:func:`pattern_layout`) on its first runs, the tables on all of it, and the held-out scores
(:func:`cross_fitted`: each half scored by the table of the other) on which it weights the blocks
and chooses the thresholds — so the event is a function of split 1, as the audit's correction
requires.

Cells are identified by a wrapping 64-bit polynomial hash of the pattern and bin: two cells that
collide are one cell of the table, which is still a function fixed by the fitting runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import isotonic_regression

from dpledger.verify.audit.montecarlo.events import Block, BlockStatistic

ATOM_SHARE = 0.01
"""An exact value taken by at least this share of the entries of the fitting runs is an atom."""
ATOM_ROWS = 20_000
"""Runs per input read to find the atoms and the blocks."""
NUMERIC_BINS = 16
"""Quantile bins of the sum of a block's numbers."""
PSEUDO_COUNT = 16.0
"""Pseudo-runs per input added to a cell's (a pattern's) count, in the ratio of its pattern (of 1)."""
_HASH = np.uint64(0x9E3779B97F4A7C15)
Cells = list[tuple[np.ndarray, np.ndarray]]
"""Per block of a layout, the pattern key and the cell key of each run."""


def find_atoms(rows: np.ndarray) -> np.ndarray:
    """The exact values taken by at least :data:`ATOM_SHARE` of the entries of ``rows``."""
    values, counts = np.unique(rows, return_counts=True)
    return values[counts >= ATOM_SHARE * rows.size]


def atom_codes(rows: np.ndarray, atoms: np.ndarray) -> np.ndarray:
    """Per entry 1 + the index of its atom among the sorted ``atoms``, or 0 for a number."""
    index = np.minimum(np.searchsorted(atoms, rows), len(atoms) - 1)
    return np.where(atoms[index] == rows, index + 1, 0).astype(np.uint64)


def support_blocks(codes: np.ndarray) -> tuple[tuple[int, int], ...]:
    """Blocks ``[start, stop)`` of consecutive coordinates: a new block starts at a coordinate that
    shares no code (atom, or "a number") with the previous one — a different output alphabet."""
    supports = [set(np.unique(codes[:, j]).tolist()) for j in range(codes.shape[1])]
    starts = [0] + [j for j in range(1, len(supports)) if not supports[j] & supports[j - 1]]
    return tuple(zip(starts, [*starts[1:], len(supports)], strict=True))


def _cells(rows: np.ndarray, codes: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pattern key and the cell key of each run in one block: a hash of its atom pattern, and
    of the pattern with its numeric bin (0 when the block holds no number, else 1 + the bin of
    the numbers' sum among ``edges``)."""
    pattern = np.zeros(len(rows), dtype=np.uint64)
    for j in range(codes.shape[1]):
        pattern = pattern * _HASH + codes[:, j]
    numeric = codes == 0
    total = np.where(numeric, rows, 0.0).sum(axis=1)
    numeric_bin = np.where(numeric.any(axis=1), np.searchsorted(edges, total, side="right") + 1, 0)
    return pattern, pattern * _HASH + numeric_bin.astype(np.uint64)


def _log_ratios(
    inverse: np.ndarray, runs_a: int, runs_b: int, size: int, prior: np.ndarray | float = 0.0
) -> np.ndarray:
    """Per key the log-ratio of its frequencies on a (the first ``runs_a`` entries of
    ``inverse``) and on b, with :data:`PSEUDO_COUNT` pseudo-runs per input whose ratio is
    ``prior``: a key seen in few runs keeps about the prior's ratio, one seen in many its own."""
    count_a = np.bincount(inverse[:runs_a], minlength=size)
    count_b = np.bincount(inverse[runs_a:], minlength=size)
    mean = (runs_a + runs_b) / 2
    pseudo_a = PSEUDO_COUNT * np.exp(np.asarray(prior) / 2) * runs_a / mean
    pseudo_b = PSEUDO_COUNT * np.exp(-np.asarray(prior) / 2) * runs_b / mean
    return np.log((count_a + pseudo_a) / runs_a) - np.log((count_b + pseudo_b) / runs_b)


@dataclass(frozen=True, eq=False)
class PatternLayout:
    """What a cell is: the ``atoms``, the ``blocks`` of coordinates and, per block, the inner
    ``edges`` of the bins of its numbers' sum (:func:`pattern_layout`)."""

    atoms: np.ndarray
    blocks: tuple[tuple[int, int], ...]
    edges: tuple[np.ndarray, ...]

    def cells(self, outputs: np.ndarray) -> Cells:
        """Per block the pattern and cell keys of each run (:func:`_cells`)."""
        rows = np.asarray(outputs, dtype=float).reshape(len(outputs), -1)
        codes = atom_codes(rows, self.atoms)
        return [
            _cells(rows[:, start:stop], codes[:, start:stop], edges)
            for (start, stop), edges in zip(self.blocks, self.edges, strict=True)
        ]

    def describe(self) -> dict[str, Any]:
        return {
            "atoms": self.atoms.tolist(),
            "blocks": [list(block) for block in self.blocks],
            "numeric_bin_edges": [edges.tolist() for edges in self.edges],
        }


def pattern_layout(a: np.ndarray, b: np.ndarray) -> PatternLayout | None:
    """The layout read from the first :data:`ATOM_ROWS` runs of ``a`` and of ``b``: their atoms,
    the blocks of :func:`support_blocks`, and per block the quantiles of the numbers' sum over the
    runs holding a number (:data:`NUMERIC_BINS` bins); None without atoms."""
    head = np.concatenate([a[:ATOM_ROWS], b[:ATOM_ROWS]])
    rows = np.asarray(head, dtype=float).reshape(len(head), -1)
    atoms = find_atoms(rows)
    if len(atoms) == 0:
        return None
    codes = atom_codes(rows, atoms)
    blocks = support_blocks(codes)
    levels = np.arange(1, NUMERIC_BINS) / NUMERIC_BINS
    edges = []
    for start, stop in blocks:
        numeric = codes[:, start:stop] == 0
        sums = np.where(numeric, rows[:, start:stop], 0.0).sum(axis=1)[numeric.any(axis=1)]
        edges.append(np.unique(np.quantile(sums, levels)) if len(sums) else np.empty(0))
    return PatternLayout(atoms, blocks, tuple(edges))


@dataclass(frozen=True, eq=False)
class PatternScore(BlockStatistic):
    """``Σ_blocks weight_block · ratio_block[cell_block(y)]``: per block of coordinates of the
    ``layout``, the empirical log-likelihood ratio of the run's cell (atom pattern, bin of its
    numbers' sum) on the fitting runs, 0 for a cell never seen there (:func:`fit_pattern_score`);
    ``weights`` (one per block, 1 unless given) let a block whose table is mostly noise count less.
    """

    layout: PatternLayout
    keys: tuple[np.ndarray, ...]
    ratios: tuple[np.ndarray, ...]
    weights: np.ndarray | None = None

    def on_block(self, block: Block) -> np.ndarray:
        return self.of_cells(self.layout.cells(block.rows))

    def of_cells(self, cells: Cells) -> np.ndarray:
        """The score of runs given their cells (:meth:`PatternLayout.cells`)."""
        blocks = self.block_scores(cells)
        return blocks.sum(axis=1) if self.weights is None else blocks @ self.weights

    def block_scores(self, cells: Cells) -> np.ndarray:
        """Per run (row) and block (column), the log-ratio of the run's cell in that block."""
        scores = np.zeros((len(cells[0][1]), len(cells)))
        for column, ((_, cell), keys, ratios) in enumerate(zip(cells, self.keys, self.ratios, strict=True)):
            index = np.minimum(np.searchsorted(keys, cell), len(keys) - 1)
            scores[:, column] = np.where(keys[index] == cell, ratios[index], 0.0)
        return scores

    def describe(self) -> dict[str, Any]:
        return {
            "statistic": "atom-pattern score: empirical log-likelihood ratio of the run's pattern of atoms "
            "(exact repeated values) and bin of its numbers' sum, summed over blocks of coordinates",
            **self.layout.describe(),
            "cells": [len(keys) for keys in self.keys],
            "block_weights": None if self.weights is None else self.weights.tolist(),
        }


def fit_pattern_score(layout: PatternLayout, cells_a: Cells, cells_b: Cells) -> PatternScore:
    """The cell tables of the runs of a and b whose cells are ``cells_a`` and ``cells_b``
    (:meth:`PatternLayout.cells`; :class:`PatternScore`): per block, each pattern's log-ratio
    shrunk towards 0, and each cell's towards its pattern's, then made monotone in the bin."""
    keys_, ratios_ = [], []
    runs_a, runs_b = len(cells_a[0][1]), len(cells_b[0][1])
    for (patterns_a, block_a), (patterns_b, block_b) in zip(cells_a, cells_b, strict=True):
        patterns, cells = np.concatenate([patterns_a, patterns_b]), np.concatenate([block_a, block_b])
        pattern_keys, pattern_of = np.unique(patterns, return_inverse=True)
        pattern_of = pattern_of.reshape(-1)
        pattern_ratio = _log_ratios(pattern_of, runs_a, runs_b, len(pattern_keys))
        keys, first, inverse = np.unique(cells, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        ratios = _log_ratios(inverse, runs_a, runs_b, len(keys), pattern_ratio[pattern_of[first]])
        keys_.append(keys)
        ratios_.append(
            _monotone_in_bins(
                ratios, np.bincount(inverse, minlength=len(keys)), pattern_of[first], cells[first]
            )
        )
    return PatternScore(layout, tuple(keys_), tuple(ratios_))


def cross_fitted(
    layout: PatternLayout, a: np.ndarray, b: np.ndarray
) -> tuple[PatternScore, np.ndarray, np.ndarray]:
    """The table fitted on all runs ``a`` and ``b``, and the held-out block scores of the runs
    (:meth:`PatternScore.block_scores`): those of each half by the table fitted on the other half
    (halves: the first and last ``len // 2`` runs of each input), in the runs' order."""
    cells_a, cells_b = layout.cells(a), layout.cells(b)
    half_a, half_b = len(a) // 2, len(b) // 2

    def part(cells: Cells, rows: slice) -> Cells:
        return [(patterns[rows], block[rows]) for patterns, block in cells]

    heads, tails = (slice(None, half_a), slice(None, half_b)), (slice(half_a, None), slice(half_b, None))
    first = fit_pattern_score(layout, part(cells_a, heads[0]), part(cells_b, heads[1]))
    second = fit_pattern_score(layout, part(cells_a, tails[0]), part(cells_b, tails[1]))
    held_out = [
        np.concatenate([second.block_scores(part(cells, head)), first.block_scores(part(cells, tail))])
        for cells, head, tail in ((cells_a, heads[0], tails[0]), (cells_b, heads[1], tails[1]))
    ]
    return fit_pattern_score(layout, cells_a, cells_b), held_out[0], held_out[1]


def _monotone_in_bins(
    ratios: np.ndarray, weights: np.ndarray, pattern: np.ndarray, cell: np.ndarray
) -> np.ndarray:
    """The cells' log-ratios made monotone in the numeric bin within each pattern (weighted
    isotonic regression, ``scipy.optimize.isotonic_regression``, increasing or decreasing,
    whichever fits better): the log-likelihood ratio of a number released with Laplace noise is
    monotone in it, and pooling neighbouring bins whose estimates cross halves their noise."""
    smooth = ratios.copy()
    order = np.lexsort((cell, pattern))
    starts = np.flatnonzero(np.diff(pattern[order], prepend=-1))
    for group in np.split(order, starts[1:]):
        if len(group) > 2:
            fits = [
                isotonic_regression(sign * ratios[group], weights=np.maximum(weights[group], 1e-12)).x * sign
                for sign in (1.0, -1.0)
            ]
            smooth[group] = min(fits, key=lambda fit: float(weights[group] @ (fit - ratios[group]) ** 2))
    return smooth
