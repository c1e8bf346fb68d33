"""Ridge-penalised logistic regression by Newton's method, on one BLAS thread.

The learned score (:func:`~dpledger.verify.audit.montecarlo.search.learned.fit_distinguisher`) and
the weights of the pattern family's blocks
(:func:`~dpledger.verify.audit.montecarlo.search.patterns.pattern_candidates`) are fitted with it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

try:  # optional: scikit-learn brings it; without it BLAS keeps its default threads
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover — exercised only where threadpoolctl is absent
    threadpool_limits = None


def logistic(design: np.ndarray, positives: int, ridge: float, iterations: int) -> np.ndarray:
    """Weights (without intercept) of a ridge-penalised logistic regression of "row < positives"."""
    return logistic_in_place(
        np.concatenate([design, np.ones((len(design), 1))], axis=1), positives, ridge, iterations
    )


def logistic_in_place(design: np.ndarray, positives: int, ridge: float, iterations: int) -> np.ndarray:
    """:func:`logistic` of a design whose last column already holds the intercept's ones (a matrix
    the caller filled in place: nothing of its size is copied)."""
    with one_blas_thread():
        return _newton(design, positives, ridge, iterations)


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread (threadpoolctl, when installed): the workers generating runs hold the
    other cores, and a multithreaded Newton step on an oversubscribed machine runs several times
    slower than a single-threaded one (the audit holds it for its whole run, where the caller's
    estimation threads would otherwise each wake BLAS threads that spin)."""
    if threadpool_limits is None:
        yield
        return
    with threadpool_limits(1, "blas"):
        yield


def _newton(design: np.ndarray, positives: int, ridge: float, iterations: int) -> np.ndarray:
    """IRLS for the ridge-penalised logistic regression; the last column is the intercept."""
    target = np.zeros(len(design))
    target[:positives] = 1.0
    weights = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], ridge * len(design))
    penalty[-1] = 1e-9
    weighted = np.empty_like(design)  # the rows weighted by the logistic variances, one buffer
    for _ in range(iterations):
        fitted = 1.0 / (1.0 + np.exp(-np.clip(design @ weights, -30, 30)))
        gradient = design.T @ (fitted - target) + penalty * weights
        np.multiply(design, (fitted * (1 - fitted))[:, None], out=weighted)
        hessian = weighted.T @ design + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if np.max(np.abs(step)) < 1e-6:
            break
    return weights[:-1]
