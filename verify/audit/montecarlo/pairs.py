"""Neighbour pairs: given by the user or generated.

* :func:`substitute_one` — every dataset obtained from a base dataset by substituting one
  record with another value of a domain (the substitution neighbour relation).
* :func:`statdp_patterns` — the query-answer patterns of StatDP (Ding, Wang, Wang, Zhang, Kifer
  2018, "Detecting Violations of Differential Privacy", CCS, §5.1) for mechanisms whose input is
  a vector of sensitivity-1 query answers.
* :func:`small_domain_pairs` — all substitution pairs of datasets of a given size over a small
  domain (each unordered pair once; the audit tests both directions).
* :func:`canary_pairs` — a dataset and the same dataset with one record replaced by, or with an
  added, canary record (for auditing learners).
* :func:`hard_learner_pairs` — labelled datasets chosen to be hard for a learner: identical
  records with one label changed, and canaries at the extreme of the domain
  (:mod:`dpledger.verify.audit.montecarlo.learner_adapter` says why).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring inputs of a mechanism and a label naming the pair in reports."""

    a: Any
    b: Any
    label: str = "given"


def substitute_one(base: Sequence[Any], domain: Iterable[Any]) -> list[NeighbourPair]:
    """Pairs (base, base with record i replaced by v) for every position i and value v ≠ base[i]."""
    base_list = list(base)
    values = list(domain)
    pairs = []
    for i, old in enumerate(base_list):
        for value in values:
            if value == old:
                continue
            other = base_list.copy()
            other[i] = value
            pairs.append(
                NeighbourPair(np.asarray(base_list), np.asarray(other), f"record {i}: {old!r}->{value!r}")
            )
    if not pairs:
        raise ValueError(
            "substitute_one produced no pairs: the domain holds no value different from the base records"
        )
    return pairs


def statdp_patterns(n_queries: int) -> list[NeighbourPair]:
    """StatDP's neighbouring query-answer vectors (Ding et al. 2018, §5.1), each answer moving by ≤ 1.

    one above / one below / one above rest below / one below rest above / half half /
    all above / all below / x shape.
    """
    if n_queries < 2:
        raise ValueError(f"StatDP patterns need at least 2 queries, got {n_queries}")
    n = n_queries
    half = n // 2
    ones = [1.0] * n
    patterns = {
        "one above": (ones, [2.0] + [1.0] * (n - 1)),
        "one below": (ones, [0.0] + [1.0] * (n - 1)),
        "one above rest below": (ones, [2.0] + [0.0] * (n - 1)),
        "one below rest above": (ones, [0.0] + [2.0] * (n - 1)),
        "half half": (ones, [0.0] * half + [2.0] * (n - half)),
        "all above": (ones, [2.0] * n),
        "all below": (ones, [0.0] * n),
        "x shape": ([1.0] * half + [0.0] * (n - half), [0.0] * half + [1.0] * (n - half)),
    }
    return [NeighbourPair(np.asarray(a), np.asarray(b), name) for name, (a, b) in patterns.items()]


def small_domain_pairs(domain: Sequence[Any], size: int) -> list[NeighbourPair]:
    """All unordered substitution-neighbour pairs of size-``size`` datasets over ``domain``.

    Datasets are multisets (sorted tuples): the exhaustive search over small worlds used when no
    particular pair is suspected.
    """
    if size < 1:
        raise ValueError(f"dataset size must be at least 1, got {size}")
    datasets = sorted(set(itertools.combinations_with_replacement(sorted(domain), size)))
    pairs = []
    for x, y in itertools.combinations(datasets, 2):
        remaining = list(y)
        for value in x:
            if value in remaining:
                remaining.remove(value)
        if len(remaining) == 1:
            pairs.append(NeighbourPair(np.asarray(x), np.asarray(y), f"{x} vs {y}"))
    return pairs


RELATIONS = ("substitute", "both")


def canary_pairs(
    features: np.ndarray,
    labels: np.ndarray,
    canary_features: np.ndarray,
    canary_label: Any,
    index: int = 0,
    relation: str = "substitute",
) -> list[NeighbourPair]:
    """Neighbour datasets ``(X, y)`` around a canary record.

    Returns the substitution pair (record ``index`` replaced by the canary) and, for
    ``relation="both"``, also the add/remove pair (canary appended); each dataset is a tuple
    ``(X, y)`` of numpy arrays. Both seeds state privacy under substitute-one adjacency on
    fixed-size datasets, so that is the default: an add/remove pair is outside their claims.
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    X = np.asarray(features)
    y = np.asarray(labels)
    if X.shape[0] != y.shape[0] or not 0 <= index < X.shape[0]:
        raise ValueError(
            f"need len(X) == len(y) and 0 ≤ index < len(X); got {X.shape[0]}, {y.shape[0]}, {index}"
        )
    canary_x = np.asarray(canary_features, dtype=X.dtype).reshape((1, *X.shape[1:]))
    canary_y = np.asarray([canary_label], dtype=y.dtype)
    substituted_X, substituted_y = X.copy(), y.copy()
    substituted_X[index], substituted_y[index] = canary_x[0], canary_y[0]
    added = (np.concatenate([X, canary_x]), np.concatenate([y, canary_y]))
    pairs = [NeighbourPair((X, y), (substituted_X, substituted_y), f"record {index} replaced by canary")]
    if relation == "both":
        pairs.append(NeighbourPair((X, y), added, "canary added"))
    return pairs


def hard_learner_pairs(
    records: int,
    dimension: int,
    *,
    labels: tuple[Any, Any] = (-1, 1),
    extreme: float = 10.0,
) -> list[NeighbourPair]:
    """Substitute-one pairs of labelled datasets ``(X, y)`` of ``records`` identical records
    (x* = extreme·e₁, label ``labels[1]``), record 0 changed to:

    * (x*, ``labels[0]``) — one label changed: every label-weighted statistic (a correlation, a
      gradient, a mean label, an error count) moves by its full sensitivity, and nothing else
      differs between the datasets;
    * (−x*, ``labels[0]``) — the canary at the opposite extreme of the domain;
    * (extreme·e₂, ``labels[0]``) — the canary at an extreme perpendicular to the data (d ≥ 2), which
      moves the direction of a learned halfspace, not only its length.

    ``extreme`` should reach the learner's clipping radius, so that the change is the whole Δ.
    """
    if records < 1 or dimension < 1:
        raise ValueError(f"need at least 1 record and 1 dimension, got {records} and {dimension}")
    if not (math.isfinite(extreme) and extreme > 0):
        raise ValueError(f"extreme must be a finite number > 0, got {extreme}")
    if labels[0] == labels[1]:
        raise ValueError(f"the two labels must differ, got {labels!r}")
    point = np.zeros(dimension)
    point[0] = extreme
    X = np.tile(point, (records, 1))
    y = np.full(records, labels[1], dtype=np.asarray(labels).dtype)
    canaries = [
        (point, "identical records, one label changed"),
        (-point, "identical records, canary at the opposite extreme"),
    ]
    if dimension >= 2:
        perpendicular = np.zeros(dimension)
        perpendicular[1] = extreme
        canaries.append((perpendicular, "identical records, canary at a perpendicular extreme"))
    pairs = []
    for canary, label in canaries:
        X_other, y_other = X.copy(), y.copy()
        X_other[0], y_other[0] = canary, labels[0]
        pairs.append(NeighbourPair((X, y), (X_other, y_other), label))
    return pairs
