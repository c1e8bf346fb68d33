"""Seed 000 statements checked on their own: Lemma 6.10 (the boundary state of a reservoir's j-th
activation is determined by the start state and the previous transcript).

Tested through CarryForwardLearner's public API: the oracle is a recording wrapper around the
default oracle (passed to the constructor), and LabelBoost is observed by wrapping — not
replacing — the function the learner calls (``dpledger.learners.carry_forward.labelboost``).
"""
from __future__ import annotations

import numpy as np
import pytest

import dpledger.learners.carry_forward as carry_forward
from dpledger.learners.component_oracles import ComponentOracle, CompletionScoreOracle
from dpledger.learners.concept_classes import Rectangles
from dpledger.learners.synthetic import random_concept


class RecordingOracle(ComponentOracle):
    """The default completion-score oracle, recording the state (prefix, S) of every call and its
    output."""

    def __init__(self) -> None:
        self.inner = CompletionScoreOracle()
        self.calls: list[tuple[tuple, np.ndarray, np.ndarray, object]] = []

    def select(self, concept_class, prefix, X, y, rng):
        out = self.inner.select(concept_class, prefix, X, y, rng)
        self.calls.append((tuple(prefix), np.array(X, copy=True), np.array(y, copy=True), out))
        return out

    def event(self, concept_class, prefix, sample_size):
        return self.inner.event(concept_class, prefix, sample_size)


def _run(monkeypatch, seed: int, m: int = 10, grid: int = 16):
    """Fit on 3m distinct grid points labeled by a random rectangle (k = 4: W^(0) is activated in
    rounds 1 and 3, W^(1) in round 2); return the oracle's calls and LabelBoost's round calls."""
    boosts: list[tuple[np.ndarray, np.ndarray]] = []
    original = carry_forward.labelboost

    def labelboost(C, x_labeled, y_labeled, x_unlabeled, rng):
        result = original(C, x_labeled, y_labeled, x_unlabeled, rng)
        boosts.append((np.array(x_unlabeled, copy=True), np.array(result.carrier, copy=True)))
        return result

    monkeypatch.setattr(carry_forward, "labelboost", labelboost)
    C = Rectangles(grid)
    rng = np.random.default_rng(seed)
    cells = rng.choice(grid * grid, size=3 * m, replace=False)
    X = np.stack([cells // grid, cells % grid], axis=1)
    y = C.evaluate(random_concept(C, rng), X).astype(int)
    oracle = RecordingOracle()
    carry_forward.CarryForwardLearner(C, oracle=oracle, m=m, random_state=seed).fit(X, y)
    assert len(oracle.calls) == C.k and len(boosts) == C.k  # preliminary LabelBoost + rounds 1..k−1
    return C, oracle.calls, boosts[1:]


@pytest.mark.parametrize("seed", range(6))
def test_lemma_6_10_boundary_state_is_replayed_from_start_state_and_previous_transcript(monkeypatch, seed):
    """Lemma 6.10: for each reservoir b and its j-th activation at round i = 2j − 1 + b, the
    boundary state r_i = (y_{≤i−1}, S_{i−1}) the learner actually enters round i with equals the
    state replayed from the start state r_{1+b} and the transcript tr_{j−1} = (O_1, …, O_{j−1}),
    O_{j'} = (y_{i'}, y_{i'+1}, S_{i'+1}) at i' = 2j' − 1 + b — nothing else (no other data, no
    other carried state). Also: the carriers of W^(b)'s activations and of W^(1−b)'s are disjoint
    sets of records (the value-independent partition), and S_{i−1} entering a W^(b) activation
    holds records of W^(1−b) only."""
    C, calls, boosts = _run(monkeypatch, seed)
    k = C.k
    entry = {i: (calls[i - 1][0], calls[i - 1][1], calls[i - 1][2]) for i in range(1, k + 1)}
    component = {i: calls[i - 1][3] for i in range(1, k + 1)}
    active = {i: (boosts[i - 1][0], boosts[i - 1][1]) for i in range(1, k)}  # S_i = U(T_i)^{h_i}
    records = {b: {tuple(p) for i in range(1 + b, k, 2) for p in active[i][0]} for b in (0, 1)}
    assert not records[0] & records[1]
    for b in (0, 1):
        start_prefix, start_X, start_y = entry[1 + b]
        for j, i in enumerate(range(1 + b, k + 1, 2), start=1):
            prefix, (X, y) = start_prefix, (start_X, start_y)
            for i_prev in range(1 + b, i, 2):  # O_{j'} for j' < j
                prefix = prefix + (component[i_prev], component[i_prev + 1])
                X, y = active[i_prev + 1]
            actual_prefix, actual_X, actual_y = entry[i]
            assert actual_prefix == prefix, (b, j)
            assert np.array_equal(actual_X, X) and np.array_equal(actual_y, y), (b, j)
            if j >= 2:
                assert {tuple(p) for p in actual_X} <= records[1 - b]
