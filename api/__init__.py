"""dpledger — executable privacy proofs: certified accounting, calibration and audits.

The public API is the names below, importable from ``dpledger`` itself (``from dpledger import
audit``), and the module :mod:`dpledger.testing` for pytest. They are stable within a minor
version; every other module is internal and may change. Docs: ``docs/README.md``.

Audit a mechanism

* :func:`audit` — Monte Carlo audit of any mechanism ``mechanism(data, n_samples, rng) -> array``
  on neighbour pairs: a lower bound on ε that holds with a stated confidence, the verdict and its
  witness (:class:`MonteCarloAuditResult`); :class:`NeighbourPair`, :func:`per_sample` (a per-run
  ``f(data, rng)``), :func:`load_mechanism` (``"module:function"``), executors
  (:class:`InProcessExecutor`, :func:`dask_executor`).
* :func:`audit_exact` — the exact worst pure ε of a small discrete mechanism over all neighbour
  pairs, from its exact output distributions (:class:`ExactAuditResult`; :class:`Randomness`,
  :func:`enumerate_outputs`);
  :func:`hockey_stick`, :func:`pure_epsilon`, :func:`privacy_profile` on two distributions. A
  certified number is an :class:`Enclosure`: ``lower`` and ``upper`` floats rounded outward (the
  true value lies between them) beside the exact ``mpmath`` ``interval``.

Account and calibrate

* :mod:`events` — the event tree a mechanism records (``events.Gaussian``, ``events.Composition``,
  ``events.PoissonSubsample``, ``events.Claim`` …); :func:`account` derives its certified
  :class:`Guarantee` (a :class:`Derivation` that shows every rule used); :func:`exact` turns a
  decimal string or number into the exact value the accountant computes with.
* calibration for a target (ε, δ): :func:`laplace_scale`, :func:`gaussian_sigma`,
  :func:`discrete_laplace_scale`, :func:`discrete_gaussian_sigma`, :func:`composition_epsilon`,
  :func:`composition_noise` — each a certified :class:`Calibration` (the value rounded the safe
  way, the event tree that proves it, its guarantee); ``method="pld"`` composes
  privacy-loss distributions (subsampled mechanisms at the tightness of dp_accounting's PLD).
* DP-SGD: :func:`dp_sgd_epsilon` (the certified ε of a run) and :func:`dp_sgd_noise` (the noise
  multiplier for a target), with Poisson or fixed-size batches, stated with each result.
* floating-point-safe release: :func:`snapping_laplace` (Mironov 2012's snapping mechanism),
  :func:`snapping_epsilon`, :func:`snapping_scale`; exact discrete samplers behind
  :func:`discrete_laplace_scale` and :func:`discrete_gaussian_sigma` live in
  :mod:`dpledger.learners.randomness`.

Learners

* the two papers' learners are scikit-learn estimators (:mod:`dpledger.learners`, docs/learners.md);
  model selection is a release too: :class:`PrivateScorer` scores folds with exact discrete noise
  and :func:`search_guarantee` accounts a whole ``GridSearchCV`` run.

Imports point down only (``verify`` → ``learners`` → ``accountant``; this package's root sits on
top); ``tests/test_layers.py`` enforces it. Names are loaded on first use, so ``import dpledger``
stays light (``dpledger --version`` does not import numpy).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS: dict[str, tuple[str, str | None]] = {
    # audit
    "audit": ("dpledger.verify.audit.montecarlo.audit", "audit"),
    "MonteCarloAuditResult": ("dpledger.verify.audit.montecarlo.audit", "MonteCarloAuditResult"),
    "NeighbourPair": ("dpledger.verify.audit.montecarlo.pairs", "NeighbourPair"),
    "per_sample": ("dpledger.verify.audit.montecarlo.mechanism", "per_sample"),
    "load_mechanism": ("dpledger.verify.audit.montecarlo.mechanism", "load_mechanism"),
    "InProcessExecutor": ("dpledger.verify.audit.montecarlo.executors", "InProcessExecutor"),
    "dask_executor": ("dpledger.verify.audit.montecarlo.executors", "dask_executor"),
    "audit_exact": ("dpledger.verify.audit.exact", "worst_case"),
    "ExactAuditResult": ("dpledger.verify.audit.exact", "ExactAuditResult"),
    "hockey_stick": ("dpledger.verify.audit.exact", "hockey_stick_enclosure"),
    "pure_epsilon": ("dpledger.verify.audit.exact", "pure_epsilon_enclosure"),
    "privacy_profile": ("dpledger.verify.audit.exact", "privacy_profile"),
    "Randomness": ("dpledger.learners.randomness", "Randomness"),
    "enumerate_outputs": ("dpledger.learners.randomness", "enumerate_enclosures"),
    "Enclosure": ("dpledger.accountant.numerics.certified", "Enclosure"),
    # account
    "events": ("dpledger.events", None),
    "account": ("dpledger.accountant.rules", "account"),
    "Derivation": ("dpledger.accountant.rules", "Derivation"),
    "Guarantee": ("dpledger.accountant.guarantee", "Guarantee"),
    "exact": ("dpledger.accountant.numerics.certified", "exact"),
    # calibrate
    "Calibration": ("dpledger.accountant.mechanism_calibration", "Calibration"),
    "laplace_scale": ("dpledger.accountant.mechanism_calibration", "laplace_scale"),
    "gaussian_sigma": ("dpledger.accountant.mechanism_calibration", "gaussian_sigma"),
    "discrete_laplace_scale": ("dpledger.accountant.mechanism_calibration", "discrete_laplace_scale"),
    "discrete_gaussian_sigma": ("dpledger.accountant.mechanism_calibration", "discrete_gaussian_sigma"),
    "composition_epsilon": ("dpledger.accountant.mechanism_calibration", "composition_epsilon"),
    "composition_noise": ("dpledger.accountant.mechanism_calibration", "composition_noise"),
    "dp_sgd_epsilon": ("dpledger.accountant.dp_sgd", "dp_sgd_epsilon"),
    "dp_sgd_noise": ("dpledger.accountant.dp_sgd", "dp_sgd_noise"),
    # release without a floating-point leak
    "snapping_laplace": ("dpledger.learners.snapping", "snapping_laplace"),
    "snapping_epsilon": ("dpledger.learners.snapping", "snapping_epsilon"),
    "snapping_scale": ("dpledger.learners.snapping", "snapping_scale"),
    # learners with scikit-learn
    "PrivateScorer": ("dpledger.learners.estimator", "PrivateScorer"),
    "search_guarantee": ("dpledger.learners.estimator", "search_guarantee"),
}

__all__ = ["__version__", *_EXPORTS]

_RENAMED = {"AuditResult": "MonteCarloAuditResult"}
"""Former public names, still served for one release with a ``DeprecationWarning``."""


def __getattr__(name: str) -> Any:
    """Load a public name on first use (PEP 562)."""
    if name in _RENAMED:
        from dpledger.accountant.deprecation import warn_renamed

        warn_renamed(f"dpledger.{name}", f"dpledger.{_RENAMED[name]}")
        return __getattr__(_RENAMED[name])
    if name not in _EXPORTS:
        raise AttributeError(f"module 'dpledger' has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    value = importlib.import_module(module)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
