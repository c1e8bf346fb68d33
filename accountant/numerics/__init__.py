"""Certified numerics at the bottom of :mod:`dpledger.accountant`: exact conversion of input and
outward-rounded interval evaluation (:mod:`.certified`), special functions without a closed form
(:mod:`.special`) and the optimal-composition numerics behind them (:mod:`.optimal_composition`).
Knows nothing of events or guarantees: :mod:`dpledger.learners.randomness` uses it for exact
sampling without depending on the accounting."""
