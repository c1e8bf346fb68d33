"""learners — the algorithms of the seeds on data. Every random choice goes through
:mod:`dpledger.learners.randomness`; every private step records an :mod:`dpledger.accountant` event in the
estimator's trace. Imports ``accountant`` only (never ``verify``)."""
