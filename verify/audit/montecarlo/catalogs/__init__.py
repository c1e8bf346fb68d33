"""Catalogues of test mechanisms for the Monte Carlo auditor: mechanisms whose ε is known, correct
and buggy, and the suites they are audited in. They sit above the engine: they import
:mod:`~dpledger.verify.audit.montecarlo.audit` and the modules below it, never the reverse.

Modules: :mod:`~dpledger.verify.audit.montecarlo.catalogs.known_epsilon` (the catalogue of
mechanisms with known ε, from the DP-testing literature, and its audit),
:mod:`~dpledger.verify.audit.montecarlo.catalogs.suite_mechanisms` (the mechanisms DP-Sniper adds to
StatDP's suite), :mod:`~dpledger.verify.audit.montecarlo.catalogs.suites` (StatDP's and
DP-Sniper's suites, with claims, true ε and published bounds) and
:mod:`~dpledger.verify.audit.montecarlo.catalogs.optimal_limit` (the optimal-statistic limit, the
likelihood-ratio test an auditor that knew the distributions would run, and the power suite).
"""
