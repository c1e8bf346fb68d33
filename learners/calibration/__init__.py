"""Calibration of the learners: sample sizes from a utility target (α, β, ε, δ) and noise scales
from a privacy target, one module per family, computed with certified arithmetic.

* :mod:`.sample_size` — Theorem 7.2 / Corollary 7.3 of seed 000 (shared by Theorems 5.1, 8.5,
  8.8, 8.14, 8.19): m, the paper's n and the tight certified n.
* :mod:`.halfspaces` — Theorems 8.5, 8.8, 8.14 (Lemmas 8.7, 8.13, C.7).
* :mod:`.boolean` — Section 8.4: Corollary 8.17, Theorem 8.19 and the separate-samples baseline.
* :mod:`.agnostic_noise` — Gaussian and Laplace noise of the seed-002 learners, certified.
* :mod:`.agnostic_sample_size` — Theorems 2.1, 3.1, 4.1 of seed 002, rebuilt as the learners' chains.

The privacy side of CarryForwardLearner (Section 6, the tight m) is pure accounting and lives in
:mod:`dpledger.accountant.section6`.
"""
