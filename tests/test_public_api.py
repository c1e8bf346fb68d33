"""``import dpledger`` is the documented API: every public name resolves, is documented and typed,
and importing the package stays light."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import subprocess
import sys

import numpy as np
import pytest

import dpledger
from dpledger.verify.audit.results import AuditResultBase


@pytest.mark.parametrize("name", [name for name in dpledger.__all__ if name != "__version__"])
def test_every_public_name_resolves_and_is_documented(name: str) -> None:
    value = getattr(dpledger, name)
    assert inspect.getdoc(value), f"dpledger.{name} has no docstring"
    if inspect.isfunction(value):
        signature = inspect.signature(value)
        untyped = [
            p
            for p in signature.parameters.values()
            if p.annotation is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        assert not untyped, f"dpledger.{name}: parameters without type hints: {[p.name for p in untyped]}"
        assert signature.return_annotation is not inspect.Signature.empty, (
            f"dpledger.{name} has no return type"
        )


@pytest.mark.parametrize(
    "name", [name for name in dpledger.__all__ if inspect.isfunction(inspect.unwrap(getattr(dpledger, name)))]
)
def test_every_public_function_documents_its_arguments_and_its_result(name: str) -> None:
    """Google style, as the package's docstrings are written: an Args: and a Returns: section."""
    doc = inspect.getdoc(inspect.unwrap(getattr(dpledger, name))) or ""
    missing = [section for section in ("Args:", "Returns:") if f"\n{section}\n" not in doc]
    assert not missing, f"dpledger.{name}: no {' or '.join(missing)} section"


def test_former_names_warn_and_keep_working() -> None:
    """One release of grace: dpledger.AuditResult, audit_exact(bound=) and
    composition_noise(composition=) still work, each with a DeprecationWarning naming the new name."""
    with pytest.warns(DeprecationWarning, match="MonteCarloAuditResult"):
        assert dpledger.AuditResult is dpledger.MonteCarloAuditResult
    with pytest.warns(DeprecationWarning, match="use method="):
        old = dpledger.composition_noise("gaussian", 1, 1, "1e-5", k=10, composition="basic")
    assert old.value == dpledger.composition_noise("gaussian", 1, 1, "1e-5", k=10, method="basic").value

    with pytest.warns(DeprecationWarning, match="use claimed_epsilon="):
        old_audit = dpledger.audit_exact(
            _coin, [0, 1], lambda d: [1 - d], bound=1, leaves_per_run=2, workers=1
        )
    new_audit = dpledger.audit_exact(
        _coin, [0, 1], lambda d: [1 - d], claimed_epsilon=1, leaves_per_run=2, workers=1
    )
    assert (old_audit.epsilon, old_audit.holds) == (new_audit.epsilon, new_audit.holds)
    with pytest.raises(TypeError, match="pass claimed_epsilon= only"):
        dpledger.audit_exact(_coin, [0, 1], lambda d: [1 - d], 1, bound=1, leaves_per_run=2, workers=1)


def _coin(data, rng):
    return rng.choice([3 - data, 1 + data])  # weights 3:1 and 2:2


def _flip(data, n, rng):
    return (rng.random(n) < (0.75 if data else 0.25)).astype(np.int64)  # randomized response, ε = ln 3


def test_both_audit_results_share_the_claim_and_the_verdict() -> None:
    """The Monte Carlo and the exact result extend one base: the claim (ε, δ) and ``holds`` —
    the exact audit proves (True) what the Monte Carlo audit can only refute (False) or leave
    undecided (None)."""
    shared = [field.name for field in dataclasses.fields(AuditResultBase)]
    assert shared == ["claimed_epsilon", "claimed_delta", "holds"]
    for result_class in (dpledger.MonteCarloAuditResult, dpledger.ExactAuditResult):
        assert issubclass(result_class, AuditResultBase)
    exact = dpledger.audit_exact(
        _coin, [0, 1], lambda d: [1 - d], claimed_epsilon=1, leaves_per_run=2, workers=1
    )
    assert (exact.claimed_epsilon, exact.claimed_delta, exact.holds, exact.violation) == (1, 0, True, False)
    pairs = [dpledger.NeighbourPair(0, 1)]
    serial = dpledger.InProcessExecutor()
    refuted = dpledger.audit(_flip, pairs, claimed_epsilon=0.5, samples=20_000, executor=serial)
    undecided = dpledger.audit(_flip, pairs, claimed_epsilon=2.0, samples=20_000, executor=serial)
    assert (refuted.claimed_epsilon, refuted.claimed_delta, refuted.holds, refuted.violation) == (
        0.5,
        0,
        False,
        True,
    )
    assert (undecided.holds, undecided.violation) == (None, False)


def test_former_result_names_warn_where_they_were_public_and_keep_working() -> None:
    montecarlo = importlib.import_module("dpledger.verify.audit.montecarlo")
    montecarlo_audit = importlib.import_module("dpledger.verify.audit.montecarlo.audit")
    exact_audit = importlib.import_module("dpledger.verify.audit.exact")
    for module, now in (
        (montecarlo, dpledger.MonteCarloAuditResult),
        (montecarlo_audit, dpledger.MonteCarloAuditResult),
        (exact_audit, dpledger.ExactAuditResult),
    ):
        with pytest.warns(DeprecationWarning, match=f"use {module.__name__}.{now.__name__}"):
            assert module.AuditResult is now
    exact = dpledger.audit_exact(
        _coin, [0, 1], lambda d: [1 - d], claimed_epsilon=1, leaves_per_run=2, workers=1
    )
    with pytest.warns(DeprecationWarning, match="use ExactAuditResult.claimed_epsilon"):
        assert exact.bound == exact.claimed_epsilon
    result = dpledger.audit(
        _flip,
        [dpledger.NeighbourPair(0, 1)],
        claimed_epsilon=0.5,
        samples=20_000,
        executor=dpledger.InProcessExecutor(),
    )
    with pytest.warns(DeprecationWarning, match="use MonteCarloAuditResult.claimed_delta"):
        assert result.delta == result.claimed_delta


def test_the_package_docstring_names_every_public_name() -> None:
    for name in dpledger.__all__:
        if name != "__version__":
            assert f"{name}`" in dpledger.__doc__, f"the package docstring does not present dpledger.{name}"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        dpledger.no_such_name  # noqa: B018


def test_importing_dpledger_does_not_load_numpy_or_the_auditors() -> None:
    code = "import sys, dpledger; print(sorted(m for m in ('numpy', 'sympy', 'dpledger.verify') if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


PUBLIC_MODULE = """
import dpledger.events
from dpledger.events import Composition, Gaussian
from dpledger.accountant import events
import dpledger
assert dpledger.events is events and Gaussian is events.Gaussian and Composition is events.Composition
print("ok")
"""


def test_the_public_module_events_imports_under_its_documented_name_as_the_accountants_module() -> None:
    done = subprocess.run([sys.executable, "-c", PUBLIC_MODULE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
