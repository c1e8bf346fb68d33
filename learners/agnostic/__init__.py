"""Private agnostic halfspace learners of seed 002 (*Privacy for Free in Efficient Agnostic
Halfspace Learning*): improper polynomial regression (Theorem 2.1, Algorithm 1; log-concave
variant Theorem D.1), proper subspace-and-cover learner (Theorem 3.1, Algorithm 2) and the
semi-agnostic gradient learner (Theorem 4.1, Algorithms 3–4).

Every private step appends an :mod:`dpledger.accountant.events` event to the estimator's ``trace_``;
``guarantee_`` is the accountant's derivation of that trace. ``epsilon=None`` switches privacy
off (no noise, arg-max selection, no trace): the non-private baseline of the same algorithm.
"""

from dpledger.learners.agnostic.data import halfspace_data
from dpledger.learners.agnostic.hermite import hermite_features
from dpledger.learners.agnostic.improper import PrivateImproperLearner
from dpledger.learners.agnostic.logconcave_basis import MomentBasis, ProductMarginal
from dpledger.learners.agnostic.private_l1 import exact_l1_regression, private_l1_regression
from dpledger.learners.agnostic.proper import PrivateProperLearner
from dpledger.learners.agnostic.repeated_fits import LEARNERS, LearnerFactory, neighbour_runs, substitute_one
from dpledger.learners.agnostic.semi_agnostic import PrivateSemiAgnosticLearner

__all__ = [
    "LEARNERS",
    "LearnerFactory",
    "MomentBasis",
    "PrivateImproperLearner",
    "PrivateProperLearner",
    "PrivateSemiAgnosticLearner",
    "ProductMarginal",
    "exact_l1_regression",
    "halfspace_data",
    "hermite_features",
    "neighbour_runs",
    "private_l1_regression",
    "substitute_one",
]
