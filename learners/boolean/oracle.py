"""The component oracle A_i of Proposition 8.16 (relabel-and-learn) with the guarantee of
Corollary 8.17.

A_i(h≤i−1; S): (S̃, ∅) ← ARelabel(S, ∅; H_i, q_i) — P = the distinct points of S, one
representative per labeling of Π_{H_i}(P), the exponential mechanism with ε = 1 and score −q_i
(equation (3), matched sensitivity 1, Appendix B), S̃ = U(S)^{h̃} —, then y_i ← B̂_i(S̃)
(Lemma 8.15 on the proper ε_B-DP learner B_i). Only y_i is released.

Privacy (Appendix B): Lemma 25 of Alon et al. — ARelabel followed by an (ε_B, δ_B)-DP
continuation is (ε_B + 3, 4eδ_B)-DP on arbitrary inputs. dpledger has no dedicated event for
ARelabel; the accountant rule of Lemma 3.11 (``LabelBoostThen``: LabelBoost, i.e. the same
exponential-mechanism relabeling with ε = 1, followed by an (ε, δ)-DP algorithm) has the same
form and value, so it is recorded as ``LabelBoostThen`` under a ``Claim("Corollary 8.17")``.
B̂'s guarantee is derived by the accountant's rule for sampling with replacement
(``SubsampleWithReplacement``: a hybrid over the draws) under a ``Claim("Lemma 8.15")``: with
draws ≤ |S|/9 it is far below the ε_B the lemma claims (at most (e^{ε_B} − 1)/9). The exact audit
(:mod:`tests.verify.test_boolean_oracle_audit`) measures the whole oracle on tiny instances.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpledger.accountant.events import (
    Claim,
    Event,
    ExponentialMechanism,
    LabelBoostThen,
    OnRealizableInputs,
    SubsampleWithReplacement,
)
from dpledger.learners.boolean.composition import BooleanComposition
from dpledger.learners.boolean.local_learners import empirical_draws, empirical_learner
from dpledger.learners.calibration.boolean import exponential_learner_m
from dpledger.learners.component_oracles import ComponentOracle
from dpledger.learners.concept_classes import Components, ConceptClass
from dpledger.learners.exponential_mechanism import exponential_mechanism_release
from dpledger.learners.randomness import Randomness, as_fraction

RELABEL_EPSILON = 1
"""The ε of ARelabel's exponential mechanism (as Algorithm 1 line 5)."""


class RelabelOracle(ComponentOracle):
    """A_i of Proposition 8.16 for a :class:`BooleanComposition`.

    ``epsilon_b`` ∈ (0, 1] is B_i's ε_B (default 1 = :data:`~dpledger.learners.calibration.boolean.EPSILON_B`,
    Theorem 8.19); B_i is pure, so δ_B = 0.
    ``tau``, ``beta_a``: the utility target (τ, β_A) from which B_i's sample size
    m_i(τ/2, β_A/2, ε_B) (:func:`~dpledger.learners.calibration.boolean.exponential_learner_m`) is
    computed per component class — B̂_i draws that many examples (fewer when |S| < 9m_i, see
    :func:`~dpledger.learners.boolean.local_learners.empirical_draws`). The defaults are Algorithm 2's
    τ = α/(40k), β_A = β/(4k) at α = β = 0.1, k = 1; CarryForwardLearner users pass their own."""

    def __init__(
        self, epsilon_b: Any = 1, tau: Any = Fraction(1, 400), beta_a: Any = Fraction(1, 40)
    ) -> None:
        self.epsilon_b = epsilon_b
        self.tau = tau
        self.beta_a = beta_a

    def _epsilon_b(self) -> Fraction:
        value = as_fraction(self.epsilon_b, "epsilon_b")
        if not 0 < value <= 1:
            raise ValueError(f"epsilon_b must be in (0, 1] (Proposition 8.16), got {self.epsilon_b}")
        return value

    @staticmethod
    def _composition(concept_class: ConceptClass) -> BooleanComposition:
        if not isinstance(concept_class, BooleanComposition):
            raise ValueError(f"concept_class must be a BooleanComposition, got {concept_class!r}")
        return concept_class

    def m_b(self, concept_class: ConceptClass, i: int) -> int:
        """m_i(τ/2, β_A/2, ε_B) for component class H_{i+1}."""
        C = self._composition(concept_class)
        tau, beta_a = Fraction(self.tau), Fraction(self.beta_a)
        return exponential_learner_m(len(C.spaces[i]), tau / 2, beta_a / 2, self._epsilon_b())

    def relabel(
        self,
        C: BooleanComposition,
        prefix: Components,
        X: np.ndarray,
        y: np.ndarray,
        rng: Randomness,
    ) -> Components:
        """ARelabel's choice h̃ ∈ H_i: the exponential mechanism (ε = 1) with score −q_i(S, h) over one
        representative per labeling of Π_{H_i}(P)."""
        i = len(prefix)
        P = C.distinct(X)
        trace = C.component_trace(i, P)
        disagreements = C.completion_disagreements(prefix, trace.labelings, X, y)
        chosen, _ = exponential_mechanism_release(
            -disagreements, RELABEL_EPSILON, 1, rng, candidates=P.tobytes()
        )
        return trace.representatives[chosen]

    def select(
        self, concept_class: ConceptClass, prefix: Components, X: np.ndarray, y: np.ndarray, rng: Randomness
    ) -> Any:
        C = self._composition(concept_class)
        i = len(prefix)
        points = C.points(X)
        chosen = self.relabel(C, tuple(prefix), points, np.asarray(y, dtype=np.int64), rng)
        projected = C.project(points, i)
        relabeled = C.components[i].evaluate(chosen, projected)  # S̃ = U(S)^{h̃}
        return empirical_learner(
            C.components[i], projected, relabeled, self._epsilon_b(), self.m_b(C, i), rng
        )

    def event(self, concept_class: ConceptClass, prefix: Components, sample_size: int) -> Event:
        """Corollary 8.17: (ε_B + 3, 4eδ_B) = (ε_B + 3, 0), on realizable prefix states (and in fact
        on all inputs); B̂ is B's exponential mechanism on :func:`empirical_draws` records drawn with
        replacement from the ``sample_size`` relabeled ones (Lemma 8.15, derived by the accountant)."""
        C = self._composition(concept_class)
        epsilon_b = self._epsilon_b()
        i = len(prefix)
        if isinstance(sample_size, bool) or not isinstance(sample_size, int) or sample_size < 1:
            raise ValueError(f"sample_size must be an integer ≥ 1, got {sample_size!r}")
        draws = empirical_draws(sample_size, self.m_b(C, i))
        learner = Claim(
            "Lemma 8.15",
            SubsampleWithReplacement(ExponentialMechanism(epsilon_b, len(C.spaces[i])), draws, sample_size),
            epsilon_b,
            0,
        )
        return OnRealizableInputs(Claim("Corollary 8.17", LabelBoostThen(learner), epsilon_b + 3, 0))
