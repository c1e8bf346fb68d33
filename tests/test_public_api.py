"""``import dpledger`` is the documented API: every public name resolves, is documented and typed,
and importing the package stays light."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import dpledger


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

    def coin(data, rng):
        return rng.choice([3 - data, 1 + data])  # weights 3:1 and 2:2

    with pytest.warns(DeprecationWarning, match="use claimed_epsilon="):
        old_audit = dpledger.audit_exact(
            coin, [0, 1], lambda d: [1 - d], bound=1, leaves_per_run=2, workers=1
        )
    new_audit = dpledger.audit_exact(
        coin, [0, 1], lambda d: [1 - d], claimed_epsilon=1, leaves_per_run=2, workers=1
    )
    assert (old_audit.epsilon, old_audit.holds) == (new_audit.epsilon, new_audit.holds)
    with pytest.raises(TypeError, match="pass claimed_epsilon= only"):
        dpledger.audit_exact(coin, [0, 1], lambda d: [1 - d], 1, bound=1, leaves_per_run=2, workers=1)


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
