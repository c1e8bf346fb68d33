"""LabelBoostProcedure (Algorithm 1, Section 3.4; Beimel et al. Algorithm 2) and its releases.

:func:`labelboost` is Algorithm 1 with score q(S, g) = Σ_j 1[g(x_j) = y_j] and D = ∅:
P = the distinct points of S∘T (line 3), one representative per labeling of Π_C(P) (line 4, the
class's canonical representative, see :mod:`dpledger.learners.concept_classes`), the exponential
mechanism with ε = 1 (line 5; the score has sensitivity 1 under substitution of one labeled
record) and the relabeled S∘T (line 6). Its ledger entry is the exponential mechanism
(``ExponentialMechanism(1, |H|)``); the releases below record the event of the lemma that
covers them:

* :func:`labelboost_carrier` — the relabeled carrier T^h only: ``LabelBoostCarrier``
  ((ln 4e, 0)-DP in S, Lemma 3.17);
* :func:`labelboost_then` — a continuation A run on (S∘T)^h: ``LabelBoostThen(child)``
  ((ε + 3, 4eδ), Lemma 3.11) or ``LabelBoostRealizable(child)`` ((ε + ln 4e, 4eδ) for A private
  on C-realizable inputs only, Lemma 3.15).

**Sampling without listing.** Under :class:`~dpledger.learners.randomness.Sampled` randomness, a
class whose trace can be counted by score (Boolean compositions of thresholds and intervals and
their restrictions, :mod:`dpledger.learners.trace_counting`; halfspaces on [[±X]]^d, d ≤ 2, and
their restrictions, :mod:`dpledger.learners.halfspaces.arrangement_counting`) is never listed: the
score group is drawn from the counts N_s and a labeling uniformly inside it — the same
distribution over labelings, the same two random draws. The representative is the listed one for
compositions and for one free halfspace coefficient; with two free halfspace coefficients it is
another exact rational point of the labeling's cell, a function of the labeling (line 4 allows
"an arbitrary g"), used by CarryForwardLearner only as its internal witness. Under
:class:`~dpledger.learners.randomness.Enumerated` (the exact auditor) the trace is always listed,
so the audit checks the listed mechanism, and the tests check the counted one against it.

Releasing the selected representative h itself is *not* covered by any lemma (its candidate set
H depends on P); :func:`labelboost` exposes it for the exact auditor to measure.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from dpledger.accountant.events import (
    Event,
    ExponentialMechanism,
    LabelBoostCarrier,
    LabelBoostRealizable,
    LabelBoostThen,
    OnRealizableInputs,
    RandomizedResponse,
)
from dpledger.accountant.rules import LABELBOOST_EPSILON
from dpledger.learners.concept_classes import Components, ConceptClass, Trace
from dpledger.learners.exponential_mechanism import (
    exponential_mechanism_counted_release,
    exponential_mechanism_release,
)
from dpledger.learners.randomness import Number, Randomness, Sampled
from dpledger.learners.trace_counting import best_agreement, counted_trace


@dataclass(frozen=True)
class LabelBoostResult:
    """One run of Algorithm 1: the selected representative ``hypothesis`` (line 5), the labels
    of S∘T under it (line 6), split as ``labeled`` (S^h) and ``carrier`` (T^h), the labeling of P
    it induces, the size |H| of the candidate set and the ledger ``event``."""

    hypothesis: Components
    labeled: np.ndarray
    carrier: np.ndarray
    points: np.ndarray
    labeling: np.ndarray
    candidates: int
    event: ExponentialMechanism


@dataclass(frozen=True)
class Release:
    """What a mechanism released and the ledger event that accounts for it."""

    output: Hashable
    event: Event


Continuation = Callable[[np.ndarray, np.ndarray, Randomness], Release]
"""A continuation A(X, y, rng): runs on the relabeled sample, returns its release and event."""


def _labeled_sample(
    concept_class: ConceptClass,
    x_labeled: Any,
    y_labeled: Any,
    x_unlabeled: Any,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated S = (x, y) and T as arrays of the class's point shape."""
    xs, xt = concept_class.points(x_labeled), concept_class.points(x_unlabeled)
    ys = np.asarray(y_labeled, dtype=np.int64).reshape(-1)
    if len(ys) != len(xs):
        raise ValueError(f"y_labeled must have one label per labeled point ({len(xs)}), got {len(ys)}")
    if not ((ys == 0) | (ys == 1)).all():
        raise ValueError("y_labeled must be 0/1 labels")
    if len(xs) + len(xt) == 0:
        raise ValueError("x_labeled and x_unlabeled are both empty: LabelBoost needs at least one point")
    return xs, ys, xt


def labelboost(
    concept_class: ConceptClass, x_labeled: Any, y_labeled: Any, x_unlabeled: Any, rng: Randomness
) -> LabelBoostResult:
    """LabelBoostProcedure(S∘T, C) — Algorithm 1 — on S = (x_labeled, y_labeled), T = x_unlabeled.

    Raises:
        ValueError: malformed samples, or more records than the class's trace takes
            (:func:`check_trace_work`)."""
    xs, ys, xt = _labeled_sample(concept_class, x_labeled, y_labeled, x_unlabeled)
    check_trace_work(concept_class, len(xs) + len(xt))
    if isinstance(rng, Sampled):
        counted = labelboost_counted(concept_class, xs, ys, xt, rng)
        if counted is not None:
            return counted
    points, position, trace, scores = _candidates(
        concept_class, xs.tobytes(), xs.shape, ys.tobytes(), xt.tobytes()
    )
    chosen, _ = exponential_mechanism_release(scores, LABELBOOST_EPSILON, 1, rng, points.tobytes())  # line 5
    labeling = trace.labeling(chosen)
    labels = labeling[position]  # line 6: (S∘T)^h
    return LabelBoostResult(
        trace.representative(chosen),
        labels[: len(xs)],
        labels[len(xs) :],
        points,
        labeling,
        trace.size,
        _selection_event(trace.size),
    )


def check_trace_work(concept_class: ConceptClass, records: int, detail: str = "") -> None:
    """Refuse, before any work, a LabelBoost on more records than the class's trace takes
    (:meth:`~dpledger.learners.concept_classes.ConceptClass.trace_records_limit`). The count is
    of records with repeats — a public size — so the refusal says nothing about the data.

    Args:
        concept_class: The class LabelBoost runs over.
        records: |S| + |T|.
        detail: What the caller can change, appended to the message.

    Raises:
        ValueError: ``records`` above the limit.
    """
    limit = concept_class.trace_records_limit()
    if limit is not None and records > limit:
        raise ValueError(
            f"too much work: LabelBoost's trace of {concept_class!r} on {records:,} records (|S| + |T|) "
            f"exceeds the {limit:,} it builds in about a minute and 6 GB (its work grows as a power of the "
            f"records){detail}"
        )


def labelboost_counted(
    concept_class: ConceptClass, x_labeled: Any, y_labeled: Any, x_unlabeled: Any, rng: Randomness
) -> LabelBoostResult | None:
    """Algorithm 1 through the trace counted by score, never listed (None when the class has no
    counted trace, :func:`dpledger.learners.trace_counting.counted_trace`): line 5's score group by
    :func:`exponential_mechanism_counted`, then a uniform labeling of that score. The same
    distribution over labelings as :func:`labelboost` with the listed trace, under any randomness
    (and over representatives where the counted trace keeps the listed ones; see the module docstring)."""
    xs, ys, xt = _labeled_sample(concept_class, x_labeled, y_labeled, x_unlabeled)
    points, position = np.unique(np.concatenate((xs, xt), axis=0), axis=0, return_inverse=True)  # line 3
    position = position.reshape(-1)
    counted = counted_trace(concept_class, points, position[: len(xs)], ys)
    if counted is None:
        return None
    table = counted.score_counts()
    labeling, _ = exponential_mechanism_counted_release(  # line 5
        table.scores,
        table.counts,
        LABELBOOST_EPSILON,
        1,
        rng,
        lambda group: counted.labeling(table.scores[group], rng.integer(table.counts[group])),
        points.tobytes(),
    )
    labels = labeling[position]  # line 6
    return LabelBoostResult(
        counted.representative(labeling),
        labels[: len(xs)],
        labels[len(xs) :],
        points,
        labeling,
        table.size,
        _selection_event(table.size),
    )


@lru_cache(maxsize=16)
def _candidates(
    concept_class: ConceptClass,
    xs: bytes,
    shape: tuple[int, ...],
    ys: bytes,
    xt: bytes,
) -> tuple[np.ndarray, np.ndarray, Trace, np.ndarray]:
    """Algorithm 1 lines 3–4 and the scores of line 5: P, the position in P of every record of
    S∘T, the trace Π_C(P) and q(S, g) for every representative. Deterministic, so memoised on the
    input bytes (an exact enumeration replays LabelBoost once per candidate)."""
    x_labeled = np.frombuffer(xs, dtype=np.int64).reshape(shape)
    x_unlabeled = np.frombuffer(xt, dtype=np.int64).reshape((-1, *shape[1:]))
    labels = np.frombuffer(ys, dtype=np.int64)
    combined = np.concatenate((x_labeled, x_unlabeled), axis=0)
    points, position = np.unique(combined, axis=0, return_inverse=True)  # line 3: P
    position = position.reshape(-1)
    trace = concept_class.trace(points)  # line 4: one representative per labeling of P
    scores = trace.agreement(position[: len(labels)], labels)  # q(S, g) = Σ_j 1[g(x_j) = y_j]
    for shared in (points, position, scores):
        shared.setflags(write=False)  # memoised: callers must not mutate them
    return points, position, trace, scores


@lru_cache(maxsize=1024)
def _selection_event(candidates: int) -> ExponentialMechanism:
    """The ledger entry of Algorithm 1 line 5 (events are immutable, so they can be shared)."""
    return ExponentialMechanism(LABELBOOST_EPSILON, candidates)


def labelboost_carrier(
    concept_class: ConceptClass, x_labeled: Any, y_labeled: Any, carrier: Any, rng: Randomness
) -> Release:
    """M_T(S) of Lemma 3.17: the relabeled carrier T^h as a tuple of labels; (ln 4e, 0)-DP in S."""
    result = labelboost(concept_class, x_labeled, y_labeled, carrier, rng)
    return Release(tuple(result.carrier.tolist()), LabelBoostCarrier())


def labelboost_then(
    concept_class: ConceptClass,
    x_labeled: Any,
    y_labeled: Any,
    x_unlabeled: Any,
    continuation: Continuation,
    rng: Randomness,
) -> Release:
    """B(S, T) = A((S∘T)^h) of Lemma 3.11 / Lemma 3.15: LabelBoost, then the continuation on the
    relabeled sample. A continuation whose event is ``OnRealizableInputs`` (private on
    C-realizable inputs only) is accounted by Lemma 3.15 (``LabelBoostRealizable``), any other by
    Lemma 3.11 (``LabelBoostThen``)."""
    result = labelboost(concept_class, x_labeled, y_labeled, x_unlabeled, rng)
    xs, _, xt = _labeled_sample(concept_class, x_labeled, y_labeled, x_unlabeled)
    inner = continuation(
        np.concatenate((xs, xt), axis=0), np.concatenate((result.labeled, result.carrier)), rng
    )
    wrap = LabelBoostRealizable if isinstance(inner.event, OnRealizableInputs) else LabelBoostThen
    return Release(inner.output, wrap(inner.event))


def realizable(concept_class: ConceptClass, X: Any, y: Any) -> bool:
    """Whether the labeled sample (X, y) is C-realizable (Definition 3.6)."""
    labels = np.asarray(y, dtype=np.int64).reshape(-1)
    return len(labels) == 0 or best_agreement(concept_class, X, labels) == len(labels)


def realizable_randomized_response(concept_class: ConceptClass, epsilon: Number) -> Continuation:
    """A continuation that is ε-DP on C-realizable inputs only (Definition 3.6), for Lemma 3.15.

    On a C-realizable sample it releases the label of the smallest point by binary randomized
    response (kept with probability e^ε/(e^ε + 1), exact); on a non-realizable sample it
    releases the sample itself — blatantly non-private, but never reached after LabelBoost,
    which always hands A a sample realizable by h."""
    eps = Fraction(epsilon)
    if eps <= 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")

    def continuation(X: np.ndarray, y: np.ndarray, rng: Randomness) -> Release:
        event = OnRealizableInputs(RandomizedResponse(epsilon, 2))
        rows = [tuple(point) for point in np.asarray(X).reshape(len(y), -1).tolist()]
        if not realizable(concept_class, X, y):
            return Release(("not realizable", tuple(sorted(zip(rows, y.tolist(), strict=True)))), event)
        bit = int(y[min(range(len(rows)), key=rows.__getitem__)])
        keep = rng.choice_log_weights([eps, 0]) == 0
        return Release(bit if keep else 1 - bit, event)

    return continuation
