"""Halfspaces over a finite grid by coordinate oracles (seed 000, Sections 8.1–8.3, Appendices A, C).

Modules: :mod:`~learners.halfspaces.domains` (Definition 8.2 / C.3, implicit),
:mod:`~learners.halfspaces.depth` (the reduction and Q_i^S of Definition 8.1, exact for d ≤ 2),
:mod:`~learners.halfspaces.geometry` (the class and its restricted traces),
:mod:`~learners.halfspaces.perturbation` (Definition C.5, Lemmas C.6–C.7),
:mod:`~learners.halfspaces.private_ip` and :mod:`~learners.halfspaces.oracles` (the oracles).
"""
from learners.halfspaces.depth import coordinate_objective, depth, threshold_objective
from learners.halfspaces.domains import RationalDomain, SignDomain, coordinate_domain
from learners.halfspaces.geometry import GridHalfspaces
from learners.halfspaces.oracles import ExponentialDepthOracle, IPConcaveOracle, OracleRound, QCOptOracle
from learners.halfspaces.private_ip import PRIVATE_IP_SUBSTITUTE, QCOPT_SUBSTITUTE, exponential_interior_point

__all__ = [
    "GridHalfspaces", "RationalDomain", "SignDomain", "coordinate_domain", "coordinate_objective", "depth",
    "threshold_objective", "ExponentialDepthOracle", "IPConcaveOracle", "OracleRound", "QCOptOracle", "PRIVATE_IP_SUBSTITUTE",
    "QCOPT_SUBSTITUTE",
    "exponential_interior_point",
]
