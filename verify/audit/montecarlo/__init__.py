"""Monte Carlo privacy auditing: statistically valid lower bounds on a mechanism's ε.

Modules: :mod:`~dpledger.verify.audit.montecarlo.mechanism` (interface, per-sample fallback, loading
``module:function``), :mod:`~dpledger.verify.audit.montecarlo.pairs` (neighbour pairs),
:mod:`~dpledger.verify.audit.montecarlo.events` and :mod:`~dpledger.verify.audit.montecarlo.search` (events and their search
on split 1), :mod:`~dpledger.verify.audit.montecarlo.statistics` (Clopper–Pearson, ε and δ bounds),
:mod:`~dpledger.verify.audit.montecarlo.executors` (deterministic chunking, local processes, Dask),
:mod:`~dpledger.verify.audit.montecarlo.audit` (the audit), :mod:`~dpledger.verify.audit.montecarlo.catalog` (mechanisms with
known ε), :mod:`~dpledger.verify.audit.montecarlo.limit` (the optimal-statistic limit and the power
suite), :mod:`~dpledger.verify.audit.montecarlo.suites` (StatDP's and DP-Sniper's suites),
:mod:`~dpledger.verify.audit.montecarlo.input_search` (searching neighbour pairs) and
:mod:`~dpledger.verify.audit.montecarlo.learner_adapter` (learners as mechanisms, on hard pairs).
"""

from dpledger.verify.audit.montecarlo.audit import AuditResult, audit
from dpledger.verify.audit.montecarlo.executors import (
    InProcessExecutor,
    dask_executor,
    local_processes,
    open_executor,
)
from dpledger.verify.audit.montecarlo.input_search import search_inputs
from dpledger.verify.audit.montecarlo.learner_adapter import (
    DecisionsAt,
    FittedState,
    PredictionsAt,
    audit_learner,
    audit_learner_hard,
    learner_mechanism,
    probe_points,
    smallest_size,
)
from dpledger.verify.audit.montecarlo.mechanism import Mechanism, load_mechanism, per_sample
from dpledger.verify.audit.montecarlo.pairs import (
    NeighbourPair,
    canary_pairs,
    hard_learner_pairs,
    small_domain_pairs,
    statdp_patterns,
    substitute_one,
)
from dpledger.verify.audit.montecarlo.statistics import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    delta_lower,
    epsilon_lower,
)

__all__ = [
    "AuditResult",
    "DecisionsAt",
    "FittedState",
    "InProcessExecutor",
    "Mechanism",
    "NeighbourPair",
    "PredictionsAt",
    "audit",
    "audit_learner",
    "audit_learner_hard",
    "canary_pairs",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "dask_executor",
    "delta_lower",
    "epsilon_lower",
    "hard_learner_pairs",
    "learner_mechanism",
    "load_mechanism",
    "local_processes",
    "open_executor",
    "per_sample",
    "probe_points",
    "search_inputs",
    "small_domain_pairs",
    "smallest_size",
    "statdp_patterns",
    "substitute_one",
]
