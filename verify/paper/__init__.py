"""The seeds' statements as checks: the proof registry (:mod:`.registry`, statement data in
``statements/``), the theorem calibrations (:mod:`.theorem_calibration`), exact audits of LabelBoost
(:mod:`.labelboost_audit`) and of CarryForwardLearner's blocks (:mod:`.block_audits`), and the
synthetic learning problems of ``dpledger run carry-forward`` (:mod:`.setups`)."""
