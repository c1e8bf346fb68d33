"""Closure under Boolean composition (seed 000, Section 8.4 and Appendix B) on CarryForwardLearner.

* :mod:`.formula` — G: {0,1}^k → {0,1} from a formula (``ast``-parsed, never ``eval``) or a truth table.
* :mod:`.composition` — the composed class C = G(H_1, …, H_k) with the k-component
  parameterisation of Lemma 8.18 (component i is a hypothesis h_i ∈ H_i), its traces built from
  the component classes' traces, and the completion score q_i of equation (3).
* :mod:`.local_learners` — proper pure-ε_B local learners B_i (exponential mechanism over H_i)
  and the empirical learner B̂_i of Lemma 8.15.
* :mod:`.oracle` — the component oracle A_i of Proposition 8.16 (relabel, then B̂_i) with the
  guarantee of Corollary 8.17.
Sample requirements m_i, M_{A,i} (Corollary 8.17) and Theorem 8.19's calibration with the
per-component baseline: :mod:`dpledger.learners.calibration.boolean`.
"""
