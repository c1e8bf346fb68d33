"""accountant — exact, certified privacy arithmetic.

Events (:mod:`accountant.events`) record what a mechanism did; :func:`account` visits an
event tree and returns a :class:`Derivation`: the certified :class:`Guarantee` at every node
with the rule and source statement used. Knows nothing of numpy arrays or learners.
"""
from accountant.certified import exact
from accountant.guarantee import Guarantee, Verdict
from accountant.rules import Derivation, account

__all__ = ["Derivation", "Guarantee", "Verdict", "account", "exact"]
