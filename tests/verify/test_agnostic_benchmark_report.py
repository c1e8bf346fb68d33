"""``verify/reports/agnostic_benchmark.py``: the goal verdicts read off benchmark results,
and one figure per scenario."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def _results() -> dict:
    rows = []
    for noise, excess in (("random", 0.01), ("adversarial", 0.025), ("two-sided", 0.01)):
        for method, eps, error, seconds in (
            ("improper", 1.0, 0.1 + excess, 0.2),
            ("proper", 1.0, 0.11, 0.4),
            ("semi-agnostic", 1.0, 0.12, 0.1),
            ("diffprivlib-logreg", 1.0, 0.103, 0.05),
            ("diffprivlib-logreg", 0.5, 0.2, 0.05),
            ("proper", 0.5, 0.2, 0.4),
        ):
            rows.append(
                {
                    "marginal": "gaussian",
                    "noise_model": noise,
                    "n": 100_000,
                    "seed": 0,
                    "opt": 0.1,
                    "method": method,
                    "epsilon": eps,
                    "error": error,
                    "cpu_seconds": seconds,
                }
            )
    return {"dim": 10, "noise": 0.1, "delta": 1e-5, "test_n": 20_000, "seeds": 1, "missing": {}, "rows": rows}


def test_benchmark_report_checks_the_goals_against_the_results() -> None:
    from dpledger.verify.reports.agnostic_benchmark import summary_lines

    text = "\n".join(summary_lines(_results()))
    assert "| improper (≤ 0.02) | +0.0100 | +0.0250 | +0.0100 | NOT met |" in text
    assert "| proper (≤ 0.02) | +0.0100 | +0.0100 | +0.0100 | met |" in text
    assert "| semi-agnostic (≤ 0.03) | +0.0200 | +0.0200 | +0.0200 | met |" in text
    assert "| proper | +0.0070 | gaussian, n = 100,000, ε = 1 | 1 of 2 |" in text


@pytest.mark.slow
def test_benchmark_report_writes_one_figure_per_scenario(tmp_path: Path) -> None:
    from dpledger.verify.reports.agnostic_benchmark import write

    results = _results()
    half = len(results["rows"]) // 2
    for index, rows in enumerate((results["rows"][:half], results["rows"][half:])):
        (tmp_path / f"agnostic_grid_{index}.json").write_text(json.dumps({**results, "rows": rows}))
    paths, _ = write(tmp_path, tmp_path)
    assert paths[0].read_text().count("![gaussian") == 3 and all(p.exists() for p in paths)


def test_report_lists_the_semi_agnostic_block_schedule_at_each_n_and_epsilon() -> None:
    from dpledger.verify.reports.agnostic_benchmark import schedule_lines

    # ε = 0.5, 1 at d = 10, δ = 1e-5, half the records after validation spent on the logistic candidate
    assert "| 100,000 | 1 × 8 | 1 × 8 |" in schedule_lines(_results())


def test_report_gives_the_heavy_tailed_seed_spread_and_the_far_flip_wins() -> None:
    from dpledger.verify.reports.agnostic_benchmark import far_flip_lines, spread_lines

    results = _results()
    for seed, (ours, theirs) in enumerate([(0.105, 0.12), (0.12, 0.11)]):
        for method, error in (("improper", ours), ("diffprivlib-logreg", theirs)):
            row = {"marginal": "student-t", "noise_model": "random", "n": 20_000, "seed": seed, "opt": 0.1}
            results["rows"].append(
                {**row, "method": method, "epsilon": 1.0, "error": error, "cpu_seconds": 0.1}
            )
    spread = "\n".join(spread_lines(results))
    assert "| improper | 0.0150 (NOT met) | n = 20,000, ε = 1 |" in spread
    assert "| diffprivlib-logreg | 0.0100 | n = 20,000, ε = 1 |" in spread
    wins = "\n".join(
        far_flip_lines(results)
    )  # one far-flip cell per noise model, ε = 1: 0.125 and 0.11 vs 0.103
    assert "| improper | 0 of 1 | 0 of 1 |" in wins and "| semi-agnostic | 0 of 1 | 0 of 1 |" in wins


def _bench():
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_agnostic.py"
    spec = importlib.util.spec_from_file_location("bench_agnostic", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_update_keeps_the_datasets_not_rerun_and_refuses_other_settings(
    tmp_path: Path, capsys
) -> None:
    bench = _bench()
    results = _results()
    results["rows"].append({**results["rows"][0], "marginal": "uniform"})
    path = tmp_path / "grid.json"
    path.write_text(json.dumps(results))
    args = bench.argparse.Namespace(
        dim=10,
        noise=0.1,
        test_n=20_000,
        seeds=1,
        marginals=["gaussian"],
        noise_models=["random", "two-sided"],
        n=[100_000],
    )
    kept = bench.kept_rows(path, args)
    assert {(r["marginal"], r["noise_model"]) for r in kept} == {
        ("gaussian", "adversarial"),
        ("uniform", "random"),
    }
    assert bench.main(["--json", str(path), "--update", "--seeds", "2", "--n", "100"]) == 2
    assert "seeds = 1 differs" in capsys.readouterr().err
