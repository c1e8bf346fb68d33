"""``dpledger run carry-forward`` and ``dpledger audit macro-block``: JSON keys and verdicts."""
import json

from dpledger.verify.cli.main import main


def run_json(capsys, *argv, status=0):
    """The JSON a command prints, after checking its exit status (1: a claim fails)."""
    assert main([*argv, "--json"]) == status
    return json.loads(capsys.readouterr().out)


def test_run_carry_forward_json_reports_guarantee_for_the_m_used(capsys):
    out = run_json(capsys, "run", "carry-forward", "--class", "intervals", "--n", "200000", "--m", "300", "--seed", "4",
                   status=1)  # the guarantee misses the target: exit status 1
    for key in ("hypothesis", "test_error", "guarantee", "claimed", "holds", "m", "rounds", "trace"):
        assert key in out
    assert out["m"] == 300 and len(out["rounds"]) == 2
    assert out["guarantee"]["epsilon"] > out["claimed"]["epsilon"] and out["holds"] is False
    assert out["trace"]["claim"]["statement"] == "Lemma 6.12"


def test_run_carry_forward_with_paper_m_meets_its_target(capsys):
    out = run_json(capsys, "run", "carry-forward", "--class", "thresholds", "--domain-size", "1024",
                   "--n", "400000", "--seed", "1")
    assert out["holds"] is True and out["m"] >= 1
    assert out["guarantee"]["epsilon"] <= 1


def test_audit_macro_block_json(capsys):
    out = run_json(capsys, "audit", "macro-block", "--class", "intervals", "--domain-size", "4", "--m", "2", "--exact")
    for key in ("epsilon_exact", "bound", "holds", "pairs"):
        assert key in out
    assert out["holds"] is True and out["epsilon_exact"] <= out["bound"]
