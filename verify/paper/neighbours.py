"""Worst-case substitution neighbours of a labeled sample on a concept class's grid (seed 000).

Definition 3.2's relation replaces one labeled record (x_j, y_j) by any other record of the
domain X × {0, 1}. The scores the seed-000 mechanisms release (completion scores, agreements,
depths Q_i^S, interior-point scores, disagreements q_i) change most when a record's label flips or
its point moves to where the most candidates disagree on it — an extreme of the grid, or a point
already in the sample. :func:`worst_case_neighbours` lists those substitutions:

* every record with its label flipped;
* every record moved to each corner of the grid (the extremes of every coordinate), with
  either label;
* a small search: every record replaced by each of ``searched`` grid points drawn from a seeded
  generator and by every other record of the sample (a duplicate), with either label.

The caller's check (:func:`dpledger.verify.audit.sensitivity.observed_sensitivity`) takes the
largest change over all of them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

from dpledger.learners.concept_classes import ConceptClass

Sample = tuple[np.ndarray, np.ndarray]
"""A labeled sample (X, y): points of the class's grid and 0/1 labels."""


def grid_corners(concept_class: ConceptClass) -> np.ndarray:
    """The corners of the class's grid: every combination of each coordinate's extremes.

    Args:
        concept_class: A class whose points are integer grid points (``grid_bounds`` or
            ``domain_size``).

    Returns:
        The corners as rows of the class's point shape (a 1-D array for one-dimensional classes).
    """
    low, high = grid_bounds(concept_class)
    corners = np.array(list(itertools.product(*zip(low, high, strict=True))), dtype=np.int64)
    return concept_class.points(corners.reshape(-1) if concept_class.dimension == 1 else corners)


def grid_bounds(concept_class: ConceptClass) -> tuple[list[int], list[int]]:
    """The least and largest value of every coordinate of the class's grid.

    Args:
        concept_class: A grid class: ``domain_size`` N (coordinates in [0, N)), ``grid`` X
            (coordinates in [−X, X]), an explicit finite class over {0, …, n − 1} or a Boolean
            composition of grid classes.

    Returns:
        (lows, highs), one entry per coordinate.

    Raises:
        ValueError: If the class declares neither.
    """
    d = concept_class.dimension
    if hasattr(concept_class, "grid"):
        bound = int(concept_class.grid)
        return [-bound] * d, [bound] * d
    if hasattr(concept_class, "domain_size"):
        return [0] * d, [int(concept_class.domain_size) - 1] * d
    if hasattr(concept_class, "table"):  # an explicit finite class over {0, …, n − 1}
        return [0] * d, [int(concept_class.table.shape[1]) - 1] * d
    if hasattr(concept_class, "components"):  # a Boolean composition: the grid all components share
        return [0] * d, [min(int(H.domain_size) for H in concept_class.components) - 1] * d
    raise ValueError(f"{concept_class!r} declares no grid (grid, domain_size, table or components)")


def worst_case_neighbours(
    concept_class: ConceptClass, sample: Sample, searched: int = 8, seed: int = 0
) -> Iterator[Sample]:
    """The substitution neighbours of the module docstring, flips first.

    Args:
        concept_class: The class whose grid the records live on.
        sample: (X, y), X in the class's point shape.
        searched: How many random grid points the search tries per record.
        seed: Seeds the search's generator.

    Returns:
        An iterator over neighbouring samples (X′, y′), each differing from ``sample`` in one record.

    Raises:
        ValueError: If ``searched`` is negative.
    """
    if searched < 0:
        raise ValueError(f"searched must be ≥ 0, got {searched}")
    X, y = sample
    low, high = grid_bounds(concept_class)
    rng = np.random.default_rng(seed)
    drawn = rng.integers(low, np.array(high) + 1, size=(searched, len(low)))
    pool = [*grid_corners(concept_class), *concept_class.points(drawn.reshape(-1) if X.ndim == 1 else drawn)]
    for j in range(len(y)):
        yield _replaced(X, y, j, X[j], 1 - y[j])
    for j in range(len(y)):
        others = [X[i] for i in range(len(y)) if i != j]
        for point, label in itertools.product([*pool, *others], (0, 1)):
            if label != y[j] or not np.array_equal(point, X[j]):
                yield _replaced(X, y, j, point, label)


def _replaced(X: np.ndarray, y: np.ndarray, j: int, point: np.ndarray, label: int) -> Sample:
    X2, y2 = X.copy(), y.copy()
    X2[j], y2[j] = point, label
    return X2, y2
