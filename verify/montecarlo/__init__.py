"""Monte Carlo privacy auditing: statistically valid lower bounds on a mechanism's ε.

Modules: :mod:`~verify.montecarlo.mechanism` (interface, per-sample fallback, loading
``module:function``), :mod:`~verify.montecarlo.pairs` (neighbour pairs),
:mod:`~verify.montecarlo.events` and :mod:`~verify.montecarlo.search` (events and their search
on split 1), :mod:`~verify.montecarlo.statistics` (Clopper–Pearson, ε and δ bounds),
:mod:`~verify.montecarlo.executors` (deterministic chunking, local processes, Dask),
:mod:`~verify.montecarlo.audit` (the audit), :mod:`~verify.montecarlo.catalog` (mechanisms with
known ε) and :mod:`~verify.montecarlo.learner_adapter` (learners as mechanisms).
"""

from verify.montecarlo.audit import AuditResult, audit
from verify.montecarlo.executors import InProcessExecutor, dask_executor, local_processes, open_executor
from verify.montecarlo.learner_adapter import PredictionsAt, audit_learner, learner_mechanism
from verify.montecarlo.mechanism import Mechanism, load_mechanism, per_sample
from verify.montecarlo.pairs import (
    NeighbourPair,
    canary_pairs,
    small_domain_pairs,
    statdp_patterns,
    substitute_one,
)
from verify.montecarlo.statistics import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    delta_lower,
    epsilon_lower,
)

__all__ = [
    "AuditResult",
    "InProcessExecutor",
    "Mechanism",
    "NeighbourPair",
    "PredictionsAt",
    "audit",
    "audit_learner",
    "canary_pairs",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "dask_executor",
    "delta_lower",
    "epsilon_lower",
    "learner_mechanism",
    "load_mechanism",
    "local_processes",
    "open_executor",
    "per_sample",
    "small_domain_pairs",
    "statdp_patterns",
    "substitute_one",
]
