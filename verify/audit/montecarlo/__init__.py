"""Monte Carlo privacy auditing: statistically valid lower bounds on a mechanism's ε.

Modules, from the audit down:

* :mod:`~dpledger.verify.audit.montecarlo.audit` — the audit: stages, split-2 estimation, the
  correction and the verdict (:class:`MonteCarloAuditResult`);
* :mod:`~dpledger.verify.audit.montecarlo.input_search` — searching the neighbour pairs;
* :mod:`~dpledger.verify.audit.montecarlo.learner_adapter` — learners as mechanisms, on hard pairs;
* :mod:`~dpledger.verify.audit.montecarlo.schedule` — which chunks are queued when, reduced or not;
* :mod:`~dpledger.verify.audit.montecarlo.runner` — the one interface to the runs: where they are
  generated and how they come back (in process, local processes, Dask), the deadline;
* :mod:`~dpledger.verify.audit.montecarlo.store` — the runs kept (split 1 in one buffer, split 2
  per chunk, as runs or reduced) and the statistics' values on them;
* :mod:`~dpledger.verify.audit.montecarlo.tasks` — chunk tasks and their seeds, reducing tasks;
* :mod:`~dpledger.verify.audit.montecarlo.transport` — chunks through shared memory (``/dev/shm``),
  orphan cleanup;
* :mod:`~dpledger.verify.audit.montecarlo.executors` — the executors: in process, local processes,
  Dask, and the in-process timeout;
* :mod:`~dpledger.verify.audit.montecarlo.contract` — the probe of the mechanism's contract;
* :mod:`~dpledger.verify.audit.montecarlo.search` — the event search on split 1: a driver and the
  registry of event families, one module each;
* :mod:`~dpledger.verify.audit.montecarlo.events` — events and the statistics they threshold;
* :mod:`~dpledger.verify.audit.montecarlo.one_sided` — one-sided events: outputs one input
  produced and the other (almost) never;
* :mod:`~dpledger.verify.audit.montecarlo.atom_patterns` — atom-pattern scores of sparse-vector
  outputs;
* :mod:`~dpledger.verify.audit.montecarlo.decorrelation` — decorrelated coordinates (innovations)
  of correlated vector outputs;
* :mod:`~dpledger.verify.audit.montecarlo.perceptron` — DP-Sniper's perceptron score;
* :mod:`~dpledger.verify.audit.montecarlo.statistics` — Clopper–Pearson, ε and δ bounds, the
  levels of the correction;
* :mod:`~dpledger.verify.audit.montecarlo.pairs` — neighbour pairs;
* :mod:`~dpledger.verify.audit.montecarlo.mechanism` — the mechanism interface, per-sample
  fallback, loading ``module:function``, shipping to workers;
* :mod:`~dpledger.verify.audit.montecarlo.catalogs` — the test mechanisms with known ε, the
  suites of StatDP and DP-Sniper, the optimal-statistic limit (above the engine).
"""

from dpledger.accountant.deprecation import renamed_attributes
from dpledger.verify.audit.montecarlo.audit import MonteCarloAuditResult, audit
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
    "DecisionsAt",
    "FittedState",
    "InProcessExecutor",
    "Mechanism",
    "MonteCarloAuditResult",
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

__getattr__ = renamed_attributes(__name__, {"AuditResult": "MonteCarloAuditResult"}, globals())
