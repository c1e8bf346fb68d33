"""Component oracles with the interface of Assumption 4.4.

An oracle maps a prefix y_{≤i−1} and a labeled sample S to a valid next component y_i. It must
be *total* (defined on every S, realizable or not) and *valid* (y_{≤i} ∈ Y_{≤i}); its privacy
guarantee is declared as an accountant event and needs to hold only on realizable prefix
states (Definition 4.3), which is how :class:`dpledger.learners.carry_forward.CarryForwardLearner`
records it (``OnRealizableInputs``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from dpledger.accountant.events import Event, ExponentialMechanism, OnRealizableInputs
from dpledger.accountant.numerics.certified import certified_floor, exact
from dpledger.learners.completion_scores import completion_runs, completion_scores
from dpledger.learners.concept_classes import Components, ConceptClass
from dpledger.learners.exponential_mechanism import (
    exponential_mechanism_ordered_release,
    exponential_mechanism_release,
)
from dpledger.learners.randomness import Randomness, as_fraction


class ComponentOracle(ABC):
    """A_i of Assumption 4.4: ``select(C, prefix, X, y, rng)`` returns y_i; ``event(C, prefix,
    sample_size)`` is the guarantee it declares for that call on a sample of ``sample_size``
    records (on C(prefix)-realizable inputs; the size is public — the active sample size m)."""

    k: int | None = None
    """The number of components the oracle is built for (None: any class)."""

    @abstractmethod
    def select(
        self, concept_class: ConceptClass, prefix: Components, X: np.ndarray, y: np.ndarray, rng: Randomness
    ) -> Any:
        """The next component y_i."""

    @abstractmethod
    def event(self, concept_class: ConceptClass, prefix: Components, sample_size: int) -> Event:
        """The privacy event of one call on ``sample_size`` records, on realizable prefix states."""


class CompletionScoreOracle(ComponentOracle):
    """The generic oracle for classes with finite component domains: the exponential mechanism
    over the next component with the completion score (largest agreement of any completion of
    the extended prefix with S; sensitivity one), hence ε_A-DP — on every input, so in
    particular on realizable prefix states. Default ε_A = 4 (Algorithm 2, line 3).

    Utility (Assumption 4.4, item 3): on a realizable state the best next value has score |S|,
    so by Proposition 3.12 the chosen value leaves a completion with empirical error ≤ τ except
    with probability |Y_i|·exp(−ε_A τ|S|/2)."""

    def __init__(self, epsilon: Any = 4) -> None:
        self.epsilon = epsilon

    def _epsilon(self) -> Fraction:
        value = as_fraction(self.epsilon, "oracle epsilon")
        if value <= 0:
            raise ValueError(f"oracle epsilon must be positive, got {self.epsilon}")
        return value

    def select(
        self, concept_class: ConceptClass, prefix: Components, X: np.ndarray, y: np.ndarray, rng: Randomness
    ) -> Any:
        epsilon = self._epsilon()
        runs = completion_runs(concept_class, prefix, X, y)
        if runs is not None:
            return exponential_mechanism_ordered_release(runs.breakpoints, runs.scores, epsilon, 1, rng)[0]
        values, scores = completion_scores(concept_class, prefix, X, y)
        return values[exponential_mechanism_release(scores, epsilon, 1, rng)[0]]

    def event(self, concept_class: ConceptClass, prefix: Components, sample_size: int) -> Event:
        """ε_A-DP (pure) whatever the sample size."""
        candidates = len(concept_class.next_values(prefix))
        return OnRealizableInputs(ExponentialMechanism(self._epsilon(), max(candidates, 1)))


def largest_component_domain(concept_class: ConceptClass) -> int:
    """max_i |Y_i| along the prefix of first values — for the grid classes (thresholds,
    intervals, rectangles) every component ranges over the N + 1 grid values whatever the prefix,
    so this is max_i |Y_i(y≤i−1)| over all prefixes."""
    prefix: Components = ()
    largest = 1
    for _ in range(concept_class.k):
        values = concept_class.next_values(prefix)
        largest = max(largest, len(values))
        prefix += (values[0],)
    return largest


def completion_oracle_m(candidates: int, tau: Any, beta_oracle: Any, epsilon_oracle: Any = 4) -> int:
    """M_A(τ, β_A, ε_A) of :class:`CompletionScoreOracle` over at most ``candidates`` next values:
    the smallest m with candidates·exp(−ε_A τ m/2) ≤ β_A (Proposition 3.12 on a realizable state,
    where the best value has score m), i.e. ⌈2 ln(candidates/β_A)/(ε_A τ)⌉ (certified)."""
    if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1:
        raise ValueError(f"candidates must be an integer ≥ 1, got {candidates!r}")
    t, b, e = exact(tau, "tau"), exact(beta_oracle, "beta_oracle"), exact(epsilon_oracle, "epsilon_oracle")
    if not (t.is_positive and b.is_positive and e.is_positive):
        raise ValueError("tau, beta_oracle and epsilon_oracle must be > 0")
    return max(1, -certified_floor(-2 * sympy.log(sympy.Integer(candidates) / b) / (e * t)))
