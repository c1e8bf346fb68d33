"""accountant — exact, certified privacy arithmetic.

Events (:mod:`dpledger.accountant.events`) record what a mechanism did; :func:`account` visits an
event tree and returns a :class:`Derivation`: the certified :class:`Guarantee` at every node
with the rule and source statement used. Knows nothing of numpy arrays or learners.
"""

from dpledger.accountant.guarantee import Guarantee, Verdict
from dpledger.accountant.numerics.certified import exact
from dpledger.accountant.rules import Derivation, account

__all__ = ["Derivation", "Guarantee", "Verdict", "account", "exact"]
