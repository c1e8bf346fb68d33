"""Laws of the suites benchmark (issue 18, item 6): the optimal-statistic limit never exceeds the
true ε and grows with the runs; the suites command reports DP-Sniper's figures beside its bounds."""

from __future__ import annotations

import json
import math

import pytest

from dpledger.verify.audit.montecarlo.suites import CONFIDENCE, suite
from dpledger.verify.cli.main import main

WITH_LIMIT = [row for row in suite() if row.limit is not None]
BY_NAME = {row.name: row for row in suite()}


@pytest.mark.parametrize("row", WITH_LIMIT, ids=lambda row: row.name)
def test_optimal_statistic_limit_stays_below_the_true_epsilon_and_grows_with_runs(row):
    limits = [row.limit(n, CONFIDENCE) for n in (10**4, 10**6)]
    assert limits[0] <= limits[1] <= row.true_epsilon


def test_suites_are_dp_snipers_mechanisms_with_its_published_bounds():
    names = {row.name for row in suite()}
    assert {"NoisyHist2", "ReportNoisyMax4", "LaplaceParallel", "SVT5"} <= names
    assert all(0 < row.dp_sniper <= row.true_epsilon for row in suite())


def test_audit_suites_json_sets_the_bound_beside_the_limit_and_dp_snipers_figure(capsys):
    status = main(["audit", "suites", "--only", "NoisyHist2", "--samples", "20000", "--workers", "1", "--json"])
    payload = json.loads(capsys.readouterr().out)
    (entry,) = payload["mechanisms"]
    assert status == 0 and entry["flagged"] and entry["dp_sniper_published"] == 4.602
    assert 4.602 < entry["epsilon_lower"] <= 10 and math.isclose(entry["optimal_limit"], BY_NAME["NoisyHist2"].limit(20000, 0.95))


def test_audit_suites_refuses_unknown_names_with_status_2(capsys):
    assert main(["audit", "suites", "--only", "NoisyHist3"]) == 2
    assert "unknown suite mechanism" in capsys.readouterr().err
