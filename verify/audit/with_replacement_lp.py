"""The exact privacy of sampling with replacement over *every* (ε, δ)-DP child, by linear programming.

The accountant's rule for :class:`~dpledger.accountant.events.SubsampleWithReplacement` (m draws
with replacement from N records, then a child) is proven in that event's docstring; this module
computes the truth it bounds on small instances, knowing nothing of the proof.

Model. S and S′ differ in one record (x in S, x′ in S′); the other N − 1 records are distinct from
each other and from x, x′ (duplicates only restrict the child, and records outside S ∪ S′ can be
mapped to x without breaking privacy, so this is the worst case). The child is any randomised
function of the sequence of m drawn records from the universe U = {x, x′, r_1, …, r_{N−1}}; for a
fixed output event O it is described by f(s) = Pr[child(s) ∈ O] ∈ [0, 1], and it is (ε, δ)-DP
exactly when f(s) ≤ e^ε f(s′) + δ and 1 − f(s) ≤ e^ε(1 − f(s′)) + δ for all sequences s, s′
differing in one slot (an event and its complement: for the binary child 1[child(s) ∈ O] these
are all the constraints). The subsampled mechanism gives O probability P = N^{−m} Σ_{s ∈ S^m} f(s)
on S and Q = N^{−m} Σ_{s ∈ S′^m} f(s) on S′. Then

* :func:`exact_delta`: max over children of P − e^{ε′}Q, the smallest δ′ at ε′ (a linear program);
* :func:`exact_epsilon`: max over pure (δ = 0) children of log(P/Q), by the Charnes–Cooper
  transformation (y = f·t, Q(y) = 1) into a linear program.

Solved by HiGHS (``scipy.optimize.linprog(method="highs")``) in floating point: the values carry
the solver's tolerances (about 10⁻⁹ absolute), so they check a rule, they do not certify one.
The size is (N + 1)^m variables; instances are refused beyond :data:`MAX_SEQUENCES`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix, csr_matrix, hstack, identity, vstack

__all__ = ["MAX_SEQUENCES", "exact_delta", "exact_epsilon"]

MAX_SEQUENCES = 20_000
"""Largest (N + 1)^m the linear programs are built for."""

_X, _X_PRIME = 0, 1  # the changed record in S and in S′; the others are 2..N


def _check(epsilon: float, delta: float, draws: int, population: int) -> None:
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    if not 0 <= delta < 1:
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    for name, value in (("draws", draws), ("population", population)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if (population + 1) ** draws > MAX_SEQUENCES:
        raise ValueError(
            f"(population + 1)**draws must be at most {MAX_SEQUENCES}, got {(population + 1) ** draws}"
        )


def _sequences(draws: int, population: int) -> np.ndarray:
    """Every sequence over U = {0, …, N} as a row of digits; row index = the base-(N+1) number."""
    base = population + 1
    codes = np.arange(base**draws)
    return np.stack([(codes // base**t) % base for t in range(draws)], axis=1)


def _neighbour_pairs(draws: int, population: int) -> tuple[np.ndarray, np.ndarray]:
    """All ordered pairs (s, s′) of sequences differing in exactly one slot."""
    base = population + 1
    digits = _sequences(draws, population)
    codes = np.arange(base**draws)
    left, right = [], []
    for t in range(draws):
        for shift in range(1, base):
            other = (digits[:, t] + shift) % base
            left.append(codes)
            right.append(codes + (other - digits[:, t]) * base**t)
    return np.concatenate(left), np.concatenate(right)


def _weights(draws: int, population: int) -> tuple[np.ndarray, np.ndarray]:
    """P and Q as linear forms in f: N^{−m} on the sequences drawn from S (resp. S′)."""
    digits = _sequences(draws, population)
    mass = float(population) ** -draws
    p = np.where(np.all(digits != _X_PRIME, axis=1), mass, 0.0)
    q = np.where(np.all(digits != _X, axis=1), mass, 0.0)
    return p, q


def _privacy_rows(draws: int, population: int, epsilon: float) -> csr_matrix:
    """Rows f(s) − e^ε f(s′) (each ordered neighbour pair), then −f(s) + e^ε f(s′)."""
    left, right = _neighbour_pairs(draws, population)
    size, pairs, scale = (population + 1) ** draws, left.size, math.exp(epsilon)
    rows = np.concatenate((np.arange(pairs), np.arange(pairs)))
    cols = np.concatenate((left, right))
    forward = coo_matrix(
        (np.concatenate((np.ones(pairs), -scale * np.ones(pairs))), (rows, cols)), shape=(pairs, size)
    )
    return vstack([forward, -forward]).tocsr()


def _solve(
    objective: np.ndarray,
    a_ub: csr_matrix,
    b_ub: np.ndarray,
    a_eq: np.ndarray | None = None,
    b_eq: np.ndarray | None = None,
    bounds: tuple[float, float | None] = (0, 1),
) -> float:
    """max objective·x subject to the constraints, by HiGHS."""
    result = linprog(-objective, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if result.status != 0:
        raise RuntimeError(f"HiGHS did not solve the linear program: {result.message}")
    return float(-result.fun)


def exact_delta(epsilon: float, delta: float, draws: int, population: int, at_epsilon: float) -> float:
    """max over (ε, δ)-DP children of P − e^{ε′}Q at ε′ = ``at_epsilon``: the smallest δ′ for
    which m draws with replacement from N records are (ε′, δ′)-DP for every such child."""
    _check(epsilon, delta, draws, population)
    rows = _privacy_rows(draws, population, epsilon)
    pairs = rows.shape[0] // 2
    slack = np.concatenate((np.full(pairs, delta), np.full(pairs, delta + math.expm1(epsilon))))
    p, q = _weights(draws, population)
    return max(0.0, _solve(p - math.exp(at_epsilon) * q, rows, slack))


def exact_epsilon(epsilon: float, draws: int, population: int) -> float:
    """max over ε-DP (pure) children and events of log(P/Q): the exact ε of m draws with
    replacement from N records. Charnes–Cooper: y = t·f with t ≥ 0 (the last variable) and
    Q(y) = 1 turn the ratio into a linear program (y ≤ t, and the privacy rows with their
    constant terms multiplied by t)."""
    _check(epsilon, 0.0, draws, population)
    rows = _privacy_rows(draws, population, epsilon)
    pairs, size = rows.shape[0] // 2, rows.shape[1]
    constants = np.concatenate((np.zeros(pairs), np.full(pairs, math.expm1(epsilon))))
    privacy = hstack([rows, csr_matrix(-constants[:, None])])
    below_t = hstack([identity(size), csr_matrix(-np.ones((size, 1)))])
    p, q = _weights(draws, population)
    value = _solve(
        np.append(p, 0.0),
        vstack([privacy, below_t]).tocsr(),
        np.zeros(2 * pairs + size),
        np.append(q, 0.0)[None, :],
        np.array([1.0]),
        bounds=(0, None),
    )
    return math.log(value)
