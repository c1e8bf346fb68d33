"""Generic auditors, knowing no paper: the exact auditor (:mod:`.exact`: hockey-stick curves, pure ε,
worst case over neighbour pairs, certified verdicts) and the Monte Carlo auditor (:mod:`.montecarlo`)."""
