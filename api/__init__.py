"""dpledger — executable privacy proofs: certified accounting, calibration and audits.

The installed package is one namespace:

* :mod:`dpledger.accountant` — exact, certified privacy arithmetic (events, rules, guarantees,
  calibration; certified numerics in :mod:`dpledger.accountant.numerics`);
* :mod:`dpledger.learners` — the seeds' algorithms, each private step recorded as an event;
* :mod:`dpledger.verify` — auditors (:mod:`dpledger.verify.audit`), the seeds' statements
  (:mod:`dpledger.verify.paper`), one service function per command
  (:mod:`dpledger.verify.service`), the reports and the ``dpledger`` command line.

Imports point down only (``verify`` → ``learners`` → ``accountant``); ``tests/test_layers.py``
enforces it.
"""
__version__ = "0.1.0"
