"""The comparison table of docs/calibrate.md, recomputed: dpledger's certified calibrations against
dp_accounting and OpenDP for the same targets. Each figure printed in the table is recomputed (when
the library is importable) and must agree to the digits shown; dpledger's value is never below the
exact optimum where one is known (the analytic Gaussian, Laplace, the exact Gaussian composition)
and is at most the factor the table states above the best other figure where dpledger is loose."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from dpledger.accountant.mechanism_calibration import composition_noise

PAGE = Path(__file__).resolve().parents[2] / "docs" / "calibrate.md"
DELTA = 1e-5


def _dpa():
    return pytest.importorskip("dp_accounting")


def _odp():
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    return dp


def _dpa_sigma(accountant: str, event_for: Callable, guess: float = 1.0, low: float = 0.0) -> float:
    """dp_accounting's own calibration (Brent's method, tolerance 1e-9) of a noise multiplier."""
    dpa = _dpa()
    from dp_accounting import pld, rdp

    make = {
        "pld": pld.PLDAccountant,
        "pld-1e-3": lambda: pld.PLDAccountant(value_discretization_interval=1e-3),
        "rdp-replace-one": lambda: rdp.RdpAccountant(
            neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE
        ),
    }
    return dpa.calibrate_dp_mechanism(
        make[accountant], event_for, 1.0, DELTA, dpa.LowerEndpointAndGuess(low, guess), tol=1e-9
    )


def _odp_search(build: Callable, d_in: float | int, d_out) -> float:
    return _odp().binary_search_param(build, d_in=d_in, d_out=d_out)


def _odp_gaussian(scale: float, kind: type = float, k: int = 1):
    """OpenDP's Gaussian (float) or discrete Gaussian (int): ρ-zCDP, k of them composed in zCDP,
    converted to (ε, δ) at δ = 10⁻⁵."""
    dp = _odp()
    domain = dp.atom_domain(T=kind, nan=False) if kind is float else dp.atom_domain(T=kind)
    measurement = dp.m.make_gaussian(domain, dp.absolute_distance(T=kind), scale)
    if k > 1:
        measurement = dp.c.make_composition([measurement] * k)
    return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(measurement), DELTA)


def _odp_laplace(scale: float, kind: type = float, k: int = 1):
    """OpenDP's Laplace (float) or discrete Laplace (int), k of them composed (pure DP: ε adds)."""
    dp = _odp()
    domain = dp.atom_domain(T=kind, nan=False) if kind is float else dp.atom_domain(T=kind)
    measurement = dp.m.make_laplace(domain, dp.absolute_distance(T=kind), scale)
    return dp.c.make_composition([measurement] * k) if k > 1 else measurement


def _gauss(k: int, **sampling) -> Callable[[], float]:
    return lambda: composition_noise("gaussian", 1, 1, "1e-5", k=k, **sampling).value


ROWS: dict[str, dict[str, Callable[[], float]]] = {
    "laplace": {
        "dpledger": lambda: composition_noise("laplace", 1, 1).value,
        "OpenDP": lambda: _odp_search(_odp_laplace, 1.0, 1.0),
    },
    "discrete-laplace": {
        "dpledger": lambda: composition_noise("discrete-laplace", 1, 1).value,
        "OpenDP": lambda: _odp_search(lambda s: _odp_laplace(s, int), 1, 1.0),
    },
    "gaussian": {
        "dpledger": _gauss(1),
        "dp_accounting": lambda: _dpa().get_sigma_gaussian(1.0, DELTA),
        "OpenDP": lambda: _odp_search(_odp_gaussian, 1.0, (1.0, DELTA)),
    },
    "discrete-gaussian": {
        "dpledger": lambda: composition_noise("discrete-gaussian", 1, 1, "1e-5").value,
        "OpenDP": lambda: _odp_search(lambda s: _odp_gaussian(s, int), 1, (1.0, DELTA)),
    },
    "gaussian-k10": {
        "dpledger": _gauss(10),
        "dp_accounting": lambda: _dpa_sigma(
            "pld", lambda s: _dpa().SelfComposedDpEvent(_dpa().GaussianDpEvent(s), 10), guess=10
        ),
        "OpenDP": lambda: _odp_search(lambda s: _odp_gaussian(s, k=10), 1.0, (1.0, DELTA)),
    },
    "laplace-k10": {
        "dpledger": lambda: composition_noise("laplace", 1, 1, "1e-5", k=10).value,
        "dp_accounting": lambda: _dpa_sigma(
            "pld", lambda s: _dpa().SelfComposedDpEvent(_dpa().LaplaceDpEvent(s), 10), guess=10
        ),
        "OpenDP": lambda: _odp_search(lambda s: _odp_laplace(s, k=10), 1.0, 1.0),
    },
    "poisson-k100": {
        "dpledger": _gauss(100, poisson_rate="0.01"),
        "dp_accounting": lambda: _dpa_sigma(
            "pld-1e-3",
            lambda s: _dpa().SelfComposedDpEvent(
                _dpa().PoissonSampledDpEvent(0.01, _dpa().GaussianDpEvent(s)), 100
            ),
        ),
    },
    "poisson-k1000": {
        "dpledger": _gauss(1000, poisson_rate="0.01"),
        "dp_accounting": lambda: _dpa_sigma(
            "pld-1e-3",
            lambda s: _dpa().SelfComposedDpEvent(
                _dpa().PoissonSampledDpEvent(0.01, _dpa().GaussianDpEvent(s)), 1000
            ),
        ),
    },
    "fixed-size-k100": {
        "dpledger": _gauss(100, sample_size=10, population_size=1000),
        "dp_accounting": lambda: _dpa_sigma(
            "rdp-replace-one",
            lambda s: _dpa().SelfComposedDpEvent(
                _dpa().SampledWithoutReplacementDpEvent(1000, 10, _dpa().GaussianDpEvent(s)), 100
            ),
            low=0.3,
        ),
    },
}
"""Row id → how each column's figure is computed."""

EXACT = {
    "laplace": "OpenDP",
    "discrete-laplace": "OpenDP",
    "gaussian": "dp_accounting",
    "gaussian-k10": "dp_accounting",
}
"""Rows where that column computes the exact optimum (up to the library's float tolerance)."""
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def table() -> dict[str, dict[str, str]]:
    """The comparison table of the page: row id → column → cell text."""
    lines = [line for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("| `")]
    header = next(
        line for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("| row |")
    )
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    rows = {}
    for line in lines:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = dict(zip(columns, cells, strict=True))
    return rows


def _figure(cell: str) -> tuple[float, int] | None:
    """The first number of a cell and its count of decimals; None for a dash."""
    found = _NUMBER.search(cell)
    if found is None or cell.startswith("—"):
        return None
    return float(found.group()), len(found.group().partition(".")[2])


def test_the_page_has_a_row_for_every_recomputed_comparison():
    assert set(table()) == set(ROWS)


@pytest.mark.slow
@pytest.mark.parametrize("row", list(ROWS))
def test_every_figure_of_the_comparison_table_recomputes(row):
    cells = table()[row]
    values = {}
    for column, compute in ROWS[row].items():
        shown = _figure(cells[column])
        assert shown is not None, f"{row}: column {column} has no figure"
        values[column] = compute()
        assert round(values[column], shown[1]) == pytest.approx(shown[0], abs=10 ** -shown[1] * 1.01), (
            row,
            column,
        )
    if row in EXACT:  # never below the exact optimum, and at it up to the search tolerances
        assert values[EXACT[row]] * (1 - 1e-8) <= values["dpledger"] <= values[EXACT[row]] * (1 + 2e-6)
    shown = _figure(cells["dpledger ÷ best"])
    best = min(value for column, value in values.items() if column != "dpledger")
    assert shown is not None and values["dpledger"] / best <= shown[0] + 10 ** -shown[1]
