"""verify — checking privacy claims: exact and Monte Carlo auditors, theorem chains,
calibration reports and the ``dpledger`` command line. Imports ``learners`` and ``accountant``."""
