"""The ``lattice`` families: float-artefact events, on the low bits of the float64 (Mironov 2012).

``lattice-k`` — interval events on the outputs whose float significand ends in k zero bits;
skipped when every output is on the lattice, where it would repeat ``interval``. For vector
outputs, per coordinate (``lattice-k[j]``: intervals of coordinate j among the runs where it is
on the lattice; at most ``LATTICE_COORDINATES`` coordinates, those whose lattice frequency differs
most between the inputs on split 1) and jointly (``lattice-k-count``: intervals of the number of
coordinates on the lattice). These are the float-artefact families
(:attr:`~dpledger.verify.audit.montecarlo.events.Event.float_artefact`): the audit keeps and
corrects them apart from the real-number ones.
"""

from __future__ import annotations

import numpy as np

from dpledger.verify.audit.montecarlo.events import LatticeCount, OnLattice, on_lattice
from dpledger.verify.audit.montecarlo.search.intervals import interval_candidates
from dpledger.verify.audit.montecarlo.search.objective import Family, Objective, SearchResult

LATTICE_BITS = (4, 8, 12)
LATTICE_COORDINATES = 16


def scalar_lattice_candidates(
    a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective, fits: object
) -> list[SearchResult]:
    """Lattice events of scalar outputs, for every lattice depth that not every output is on."""
    results = []
    for bits in LATTICE_BITS:
        statistic = OnLattice(bits)
        if not statistic.keeps_all(a) or not statistic.keeps_all(b):
            results.append(interval_candidates(statistic, a, b, pair_index, f"lattice-{bits}", objective))
    return results


def vector_lattice_candidates(
    a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective
) -> list[SearchResult]:
    """Lattice events of vector outputs: per coordinate and the joint count, for every lattice depth."""
    rows_a = np.asarray(a, dtype=np.float64).reshape(len(a), -1)
    rows_b = np.asarray(b, dtype=np.float64).reshape(len(b), -1)
    results = []
    merged = [low_bits(rows) for rows in (rows_a, rows_b)]
    for bits in LATTICE_BITS:
        if all(on_lattice(low, bits)[0] for low in merged):
            continue  # every coordinate on the lattice: the events would not read low bits
        share_a, share_b = on_lattice(rows_a, bits).mean(axis=0), on_lattice(rows_b, bits).mean(axis=0)
        chosen = np.argsort(-np.abs(share_a - share_b), kind="stable")[:LATTICE_COORDINATES]
        for j in sorted(chosen.tolist()):
            family = f"lattice-{bits}[{j}]"
            results.append(
                interval_candidates(OnLattice(bits, j), rows_a, rows_b, pair_index, family, objective)
            )
        count = LatticeCount(bits)
        results.append(
            interval_candidates(count, rows_a, rows_b, pair_index, f"lattice-{bits}-count", objective)
        )
    return results


def low_bits(rows: np.ndarray) -> np.ndarray:
    """One float64 whose significand's low bits are the OR of those of all ``rows``: it lies on a
    lattice exactly when every value does (one pass over the runs instead of one per depth)."""
    merged = np.bitwise_or.reduce(
        np.ascontiguousarray(rows).view(np.uint64).reshape(-1), initial=np.uint64(0)
    )
    return np.asarray([merged & np.uint64((1 << max(LATTICE_BITS)) - 1)], dtype=np.uint64).view(np.float64)


SCALAR_LATTICE = Family("lattice", lambda a, b, kind: kind == "scalar", scalar_lattice_candidates)
VECTOR_LATTICE = Family(
    "vector lattice",
    lambda a, b, kind: kind == "vector",
    lambda a, b, pair_index, objective, fits: vector_lattice_candidates(a, b, pair_index, objective),
)
