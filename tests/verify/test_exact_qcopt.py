"""Exact audits of QCOpt / PrivateIP as implemented (RecConcave, Proposition 8.6, Theorem 8.9):
the measured ε at the claimed δ of the choosing mechanism and of one level's steps sits within a
few per cent of the claim (a mechanism leaking twice the claim would fail these), and the whole
optimiser meets the accountant's composed guarantee."""

import pytest

from dpledger.verify.paper.qcopt_audits import audit_choosing, audit_level, audit_recconcave


def test_choosing_mechanism_exact_epsilon_at_its_delta_is_within_its_claim_and_near_it():
    """ε = 2 (weights e^s), reserve t = 10, k = 3 candidates, scores in [0, 16]: claim
    (2 + ln(1 + 3e^{−10}), 3e^{−9}) = (2.0001, 3.7·10⁻⁴)."""
    claim, result = audit_choosing(2, 10, 3, 16)
    low, high = result.epsilon_at_delta or (0.0, 0.0)
    assert result.holds is True and high <= float(claim.epsilon)
    assert low > 0.95 * float(claim.epsilon)  # measured 1.961


def test_proposition_8_6_one_level_exact_epsilon_within_the_composed_claim_and_near_it():
    """Steps 3–4 given k = 0 (blocks of one position) of the one-level plan at (ε, δ) = (6, 10⁻³):
    the choosing mechanism and the two-candidate exponential mechanism composed, claim
    (3.9991, 3.7·10⁻⁴), on every quasi-concave quality of 3 positions in [θ − 1, θ + 14]."""
    claim, result = audit_level(6, "1/1000")
    low, high = result.epsilon_at_delta or (0.0, 0.0)
    assert result.holds is True and high <= float(claim.epsilon)
    assert low > 0.9 * float(claim.epsilon)  # measured 3.768


@pytest.mark.slow
def test_proposition_8_6_recconcave_meets_the_accountants_composed_guarantee():
    """The whole optimiser, depth 1 on 4 positions, (ε, δ) = (8, 3/10): every quasi-concave
    quality in [0, 8] against the basic composition of its three mechanisms (7.78, 0.281). The
    steps' worst cases do not coincide: the measured ε is about a tenth of the claim."""
    claim, result = audit_recconcave(8, "3/10", size=4, top=8)
    low, high = result.epsilon_at_delta or (0.0, 0.0)
    assert result.holds is True and result.pairs > 10_000
    assert 0 < low <= high <= float(claim.epsilon)


def test_dpledger_audit_qcopt_prints_the_choosing_mechanisms_measured_epsilon(capsys):
    from dpledger.verify.cli.main import main

    assert main(["audit", "qcopt", "--step", "choosing", "--json"]) == 0
    import json

    payload = json.loads(capsys.readouterr().out)
    assert payload["holds"] is True and 0.95 < payload["tightness"] <= 1
    with pytest.raises(SystemExit) as refused:
        main(["audit", "qcopt", "--step", "everything"])
    assert refused.value.code == 2


def test_proposition_8_6_depth_0_is_the_exponential_mechanism_exactly_at_its_epsilon():
    """Below the crossover the plan has no recursion: the base exponential mechanism over the
    positions, ε = 1 pure, on every quasi-concave quality of 4 positions in [0, 6]."""
    claim, result = audit_recconcave(1, 0, size=4, top=6, depth=0)
    assert float(claim.epsilon) == 1 and claim.delta == 0
    assert result.holds is True and 0.9 < result.epsilon[0] <= result.epsilon[1] <= 1
