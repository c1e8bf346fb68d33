"""Halfspaces over a finite grid by coordinate oracles (seed 000, Sections 8.1–8.3, Appendices A, C).

Modules: :mod:`~dpledger.learners.halfspaces.domains` (Definition 8.2 / C.3, implicit),
:mod:`~dpledger.learners.halfspaces.depth` (the reduction and Q_i^S of Definition 8.1, exact for d ≤ 3),
:mod:`~dpledger.learners.halfspaces.geometry` (the class and its restricted traces),
:mod:`~dpledger.learners.halfspaces.perturbation` (Definition C.5, Lemmas C.6–C.7),
:mod:`~dpledger.learners.halfspaces.private_ip` and :mod:`~dpledger.learners.halfspaces.oracles` (the oracles).
"""

from dpledger.learners.halfspaces.depth import coordinate_objective, depth, threshold_objective
from dpledger.learners.halfspaces.domains import RationalDomain, SignDomain, coordinate_domain
from dpledger.learners.halfspaces.geometry import GridHalfspaces
from dpledger.learners.halfspaces.oracles import (
    ExponentialDepthOracle,
    IPConcaveOracle,
    OracleRound,
    QCOptOracle,
)
from dpledger.learners.halfspaces.private_ip import (
    PRIVATE_IP_SUBSTITUTE,
    QCOPT_SUBSTITUTE,
    exponential_interior_point,
)

__all__ = [
    "PRIVATE_IP_SUBSTITUTE",
    "QCOPT_SUBSTITUTE",
    "ExponentialDepthOracle",
    "GridHalfspaces",
    "IPConcaveOracle",
    "OracleRound",
    "QCOptOracle",
    "RationalDomain",
    "SignDomain",
    "coordinate_domain",
    "coordinate_objective",
    "depth",
    "exponential_interior_point",
    "threshold_objective",
]
