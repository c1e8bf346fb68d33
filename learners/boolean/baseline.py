"""The baseline Section 8.4 improves on: Alon et al.'s closure with a separate sample per component.

SUBSTITUTE (a model of the baseline, not Alon et al.'s text): the n records are split,
independently of their values, into k blocks; round i draws a uniform size-m subset of block i
without replacement and runs the same oracle A_i (Proposition 8.16) on it with the records'
own labels, given the components already chosen. No sample is carried between rounds (no
LabelBoost). Privacy: each block is touched once, by A_i — (ε_B + 3, 0)-DP on arbitrary inputs
(Appendix B) — amplified by subsampling (Theorem 3.4), and the blocks are disjoint (parallel
composition). Utility is not covered by Assumption 4.4 (block i's sample is realizable by C,
not necessarily by C(h≤i−1)); it is measured, not claimed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpledger.accountant.events import (
    Event,
    OnRealizableInputs,
    ParallelComposition,
    SubsampleWithoutReplacement,
)
from dpledger.learners.boolean.composition import BooleanComposition
from dpledger.learners.boolean.oracle import RelabelOracle
from dpledger.learners.carry_forward import grid_points
from dpledger.learners.concept_classes import Components
from dpledger.learners.estimator import PrivateClassifier, positive_mask, refuse_fit_params, require_y


class SeparateSampleLearner(PrivateClassifier):
    """The per-component baseline (SUBSTITUTE model, see the module docstring) with scikit-learn's
    estimator contract (:class:`~dpledger.learners.estimator.PrivateClassifier`):
    ``concept_class`` a :class:`BooleanComposition`, ``oracle`` a :class:`RelabelOracle` (default
    ε_B = 1), ``m`` the subsample each oracle call gets, ``labels`` the public label pair
    (default (0, 1)), ``random_state`` as in :mod:`dpledger.learners.estimator`."""

    def __init__(
        self,
        concept_class: BooleanComposition,
        oracle: RelabelOracle | None = None,
        m: int = 100,
        random_state: Any = None,
        labels: tuple[Any, Any] = (0, 1),
    ) -> None:
        self.concept_class = concept_class
        self.oracle = oracle
        self.m = m
        self.random_state = random_state
        self.labels = labels

    def fit(self, X: Any, y: Any, **fit_params: Any) -> SeparateSampleLearner:
        """Fit each component on its own sample; no keyword argument, ``sample_weight`` among them
        (:func:`~dpledger.learners.estimator.refuse_fit_params`)."""
        refuse_fit_params(fit_params)
        require_y(y)
        C = self.concept_class
        if not isinstance(C, BooleanComposition):
            raise ValueError(f"concept_class must be a BooleanComposition, got {type(C).__name__}")
        points = grid_points(C, X, type(self).__name__, min_samples=2)
        # the labels are compared with the declared pair, never cast: 0.7 is refused, not read as 0
        labels = positive_mask(y, len(points), self._declare_classes(C.dimension)).astype(np.int64)
        block = len(points) // C.k
        if isinstance(self.m, bool) or not isinstance(self.m, (int, np.integer)) or not 1 <= self.m <= block:
            raise ValueError(f"m must be an integer in [1, ⌊n/k⌋ = {block}], got {self.m!r}")
        oracle = self.oracle if self.oracle is not None else RelabelOracle()
        rng = self._sampler()
        order = rng.permutation(len(points))
        prefix: Components = ()
        events: list[Event] = []
        for i in range(C.k):
            chosen = order[i * block : (i + 1) * block][rng.subset(block, int(self.m))]
            declared = oracle.event(C, prefix, int(self.m))
            prefix += (oracle.select(C, prefix, points[chosen], labels[chosen], rng),)
            arbitrary = declared.child if isinstance(declared, OnRealizableInputs) else declared  # Appendix B
            events.append(SubsampleWithoutReplacement(arbitrary, int(self.m), block))
        self.hypothesis_ = prefix
        self._record(ParallelComposition(tuple(events)))
        return self

    def _positive(self, X: Any) -> np.ndarray:
        """Where the learned composition is 1 on the grid points X."""
        return (
            self.concept_class.evaluate(
                self.hypothesis_, grid_points(self.concept_class, X, type(self).__name__)
            )
            == 1
        )
