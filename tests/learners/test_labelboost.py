"""LabelBoostProcedure (Algorithm 1): structure, ledger, sampled = enumerated, utility (Prop 3.12, Cor 3.13)."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any, cast

import numpy as np
import pytest
from scipy import stats

from dpledger.accountant import account
from dpledger.accountant.events import (
    ExponentialMechanism,
    LabelBoostCarrier,
    LabelBoostRealizable,
    LabelBoostThen,
    PureDP,
)
from dpledger.learners.concept_classes import Halfspaces, Intervals, Rectangles, Thresholds
from dpledger.learners.halfspaces import GridHalfspaces
from dpledger.learners.labelboost import (
    Release,
    labelboost,
    labelboost_carrier,
    labelboost_then,
    realizable,
    realizable_randomized_response,
)
from dpledger.learners.randomness import Sampled, enumerate_outputs

S_X, S_Y, T_X = [1, 2, 4, 4], [0, 1, 1, 0], [3, 5, 0]


@pytest.mark.parametrize(
    "concept_class, xs, xt",
    [
        (Thresholds(6), S_X, T_X),
        (Intervals(6), S_X, T_X),
        (Rectangles(3), [(0, 1), (2, 2), (1, 1), (0, 1)], [(2, 0), (1, 2)]),
        (Halfspaces(3, 2, 1), [(0, 1), (2, 2), (1, 1), (0, 1)], [(2, 0), (1, 2)]),
    ],
    ids=repr,
)
def test_algorithm_1_relabels_s_and_t_by_a_representative_of_the_trace(concept_class, xs, xt):
    result = labelboost(concept_class, xs, S_Y, xt, Sampled(0))
    P = concept_class.distinct(np.concatenate((concept_class.points(xs), concept_class.points(xt))))
    assert result.candidates == concept_class.trace(P).size  # line 4: |H| = |Π_C(P)|
    assert concept_class.contains(result.hypothesis)
    assert (concept_class.evaluate(result.hypothesis, xs) == result.labeled).all()  # line 6
    assert (concept_class.evaluate(result.hypothesis, xt) == result.carrier).all()
    assert result.event == ExponentialMechanism(1, result.candidates)  # line 5, ε = 1
    assert realizable(
        concept_class,
        np.concatenate((concept_class.points(xs), concept_class.points(xt))),
        np.concatenate((result.labeled, result.carrier)),
    )


def test_releases_record_the_lemma_that_covers_them():
    C = Intervals(6)
    carrier = labelboost_carrier(C, S_X, S_Y, T_X, Sampled(1))
    assert isinstance(carrier.output, tuple)  # the relabeled carrier, one label a point
    assert carrier.event == LabelBoostCarrier() and len(carrier.output) == len(T_X)
    assert account(carrier.event).guarantee.epsilon_upper == pytest.approx(math.log(4 * math.e))
    realizable_only = labelboost_then(
        C, S_X, S_Y, T_X, realizable_randomized_response(C, Fraction(1, 2)), Sampled(1)
    )
    assert isinstance(realizable_only.event, LabelBoostRealizable)  # Lemma 3.15
    assert account(realizable_only.event).guarantee.epsilon_upper == pytest.approx(0.5 + math.log(4 * math.e))
    anywhere = labelboost_then(
        C, S_X, S_Y, T_X, lambda X, y, rng: Release(int(y.sum()), PureDP(1)), Sampled(1)
    )
    assert isinstance(anywhere.event, LabelBoostThen)  # Lemma 3.11: (ε + 3, 4eδ)
    assert account(anywhere.event).guarantee.epsilon_upper == pytest.approx(4.0)


def test_realizable_continuation_leaks_on_non_realizable_input():
    C = Intervals(6)
    continuation = realizable_randomized_response(C, 1)
    leaked = continuation(np.array([1, 2, 3]), np.array([1, 0, 1]), Sampled(0)).output
    assert isinstance(leaked, tuple) and leaked[0] == "not realizable"
    assert continuation(np.array([1, 2, 3]), np.array([0, 1, 1]), Sampled(0)).output in (0, 1)


@pytest.mark.parametrize("concept_class", [Intervals(6), Thresholds(6)], ids=repr)
def test_sampled_labelboost_agrees_with_the_enumerated_distribution(concept_class):
    exact = cast(
        dict[tuple[int, ...], Any],
        enumerate_outputs(lambda rng: labelboost_carrier(concept_class, S_X, S_Y, T_X, rng).output),
    )  # output -> probability interval; the outputs are relabeled carriers, tuples of labels
    probabilities = {k: float(v.mid) for k, v in exact.items()}
    rng = Sampled(2024)
    counts = Counter(labelboost_carrier(concept_class, S_X, S_Y, T_X, rng).output for _ in range(4000))
    assert set(counts) <= set(probabilities)
    keys = sorted(probabilities)
    observed = np.array([counts.get(k, 0) for k in keys], dtype=float)
    expected = np.array([probabilities[k] for k in keys]) * observed.sum()
    assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_proposition_3_12_exact_tail_of_the_exponential_mechanism():
    """Pr[err_S(h) > α + λ] ≤ |F| exp(−ελ|S|/2), exactly, for the selection of LabelBoost."""
    C, xs, ys = Intervals(8), [0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 0, 1, 1, 0, 1, 0]
    errors = cast(
        dict[int, Any],
        enumerate_outputs(lambda rng: int((labelboost(C, xs, ys, [], rng).labeled != np.array(ys)).sum())),
    )  # number of mistakes -> probability interval
    size = C.trace(xs).size
    best = min(errors) / len(xs)
    for mistakes in range(len(xs) + 1):
        lam = mistakes / len(xs) - best
        if lam <= 0:
            continue
        tail = sum(float(p.b) for e, p in errors.items() if e / len(xs) > best + lam - 1e-12)
        assert tail <= size * math.exp(-lam * len(xs) / 2)


def _noisy_intervals(
    rng: np.random.Generator, m: int, noise: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xs = rng.integers(0, 10**6, m)
    ys = ((xs >= 200_000) & (xs < 700_000)).astype(int)
    flip = rng.random(m) < noise
    return xs, np.where(flip, 1 - ys, ys), rng.integers(0, 10**6, m)


def test_proposition_3_12_excess_error_frequency_stays_within_its_tail():
    """Prop 3.12: the excess error exceeds λ with frequency ≤ |F| exp(−λ|S|/2) (+ sampling slack)."""
    data = np.random.default_rng(7)
    rng, alpha, m, runs = Sampled(8), 0.05, 400, 40
    excess = []
    for _ in range(runs):
        xs, ys, xt = _noisy_intervals(data, m, alpha / 2)
        target_error = float(np.mean(ys != ((xs >= 200_000) & (xs < 700_000))))
        result = labelboost(Intervals(10**6), xs, ys, xt, rng)
        excess.append((float(np.mean(result.labeled != ys)) - target_error, result.candidates))
    for lam in (0.02, 0.04, 0.06):
        frequency = np.mean([e > lam for e, _ in excess])
        bound = min(1.0, max(size for _, size in excess) * math.exp(-lam * m / 2))
        assert frequency <= bound + 3 * math.sqrt(max(bound, 1 / runs) / runs)


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="y_labeled"):
        labelboost(Intervals(6), [1, 2], [0], [], Sampled(0))
    with pytest.raises(ValueError, match="y_labeled"):
        labelboost(Intervals(6), [1, 2], [0, 2], [], Sampled(0))
    with pytest.raises(ValueError, match="grid"):
        labelboost(Intervals(6), [1, 9], [0, 1], [], Sampled(0))
    with pytest.raises(ValueError, match="empty"):
        labelboost(Intervals(6), [], [], [], Sampled(0))


@pytest.mark.parametrize(
    "C, records", [(GridHalfspaces(2, 8), 12_001), (GridHalfspaces(3, 8), 601), (Intervals(2**20), 40_001)]
)
def test_labelboost_refuses_more_records_than_its_trace_takes(C, records):
    """The refusal reads |S| + |T| (public sizes, repeats counted): identical records, one
    distinct point, are refused as many records."""
    x = np.zeros((records, C.dimension), dtype=np.int64)
    with pytest.raises(ValueError, match=f"too much work: .* on {records:,} records"):
        labelboost(C, x[:10], np.ones(10, dtype=np.int64), x[10:], Sampled(0))
