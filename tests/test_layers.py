"""The layers of docs/ARCHITECTURE.md, enforced: every import in the package (function-level and
``TYPE_CHECKING`` imports included) points down or sideways, never up.

Bottom to top: ``accountant.numerics`` < ``accountant`` < ``learners`` < ``verify.audit`` <
``verify.audit.montecarlo.catalogs`` (the test mechanisms, above the engine that audits them) <
``verify.paper`` < ``verify.service`` < ``verify.reports`` < ``verify.cli`` < ``dpledger`` (the
public API). ``learners.randomness`` draws exactly with certified numerics and must not depend on
the accounting above them. ``from dpledger import __version__`` is allowed anywhere (the version is
a constant of the package root, set before anything is imported).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
    "package-dir"
]
"""The build's package-dir mapping (pyproject.toml), import name → folder."""

LAYERS = (
    ("dpledger.accountant.numerics", 0),
    ("dpledger.accountant", 1),
    ("dpledger.learners", 2),
    ("dpledger.verify.audit", 3),
    ("dpledger.verify.audit.montecarlo.catalogs", 4),
    ("dpledger.verify.paper", 5),
    ("dpledger.verify.service", 6),
    ("dpledger.verify.reports", 7),
    ("dpledger.verify.cli", 8),
    ("dpledger.verify", 3),
    ("dpledger", 9),
)
"""Module-name prefix → layer (the longest matching prefix decides)."""

NARROWER = {"dpledger.learners.randomness": ("dpledger.accountant.numerics",)}
"""Modules that may import from the layers below them only these prefixes."""


def layer(module: str) -> int | None:
    """The layer of ``module``, or None for a module outside the package."""
    matches = [
        (len(prefix), number)
        for prefix, number in LAYERS
        if module == prefix or module.startswith(prefix + ".")
    ]
    return max(matches)[1] if matches else None


def package_modules(root: Path) -> dict[str, Path]:
    """Every module of the package under ``root``, by import name."""
    modules: dict[str, Path] = {}
    for package, folder in PACKAGE_DIRS.items():
        base = root / folder
        for path in base.rglob("*.py"):
            relative = path.relative_to(base).with_suffix("").parts
            parts = relative[:-1] if relative[-1] == "__init__" else relative
            modules[".".join((package, *parts))] = path
    return modules


def imports(module: str, path: Path, known: set[str]) -> list[tuple[int, str]]:
    """``(line, imported module)`` for every import statement anywhere in the file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base == "dpledger" and all(alias.name == "__version__" for alias in node.names):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.append((node.lineno, candidate if candidate in known else base))
    return found


def violations(root: Path) -> list[str]:
    """Every import that runs up a layer, or outside a narrower module's allowance."""
    modules = package_modules(root)
    problems: list[str] = []
    for module, path in sorted(modules.items()):
        own = layer(module)
        assert own is not None, f"{module} is in no layer"
        for line, target in imports(module, path, set(modules)):
            theirs = layer(target)
            if theirs is None:
                continue
            where = f"{path.relative_to(root)}:{line}: {module} imports {target}"
            if theirs > own:
                problems.append(f"{where} (layer {own} imports layer {theirs})")
            allowed = NARROWER.get(module)
            if (
                allowed
                and theirs < own
                and not any(target == p or target.startswith(p + ".") for p in allowed)
            ):
                problems.append(f"{where} (allowed below: {', '.join(allowed)})")
    return problems


def test_no_import_runs_up_a_layer_or_into_the_cli():
    modules = package_modules(ROOT)
    assert {
        "dpledger.accountant.numerics.certified",
        "dpledger.learners.randomness",
        "dpledger.verify.cli.main",
    } <= set(modules)
    assert violations(ROOT) == []


def test_layer_check_sees_function_level_and_relative_upward_imports(tmp_path):
    for folder in PACKAGE_DIRS.values():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "accountant" / "rules.py").write_text(
        "def f():\n    from dpledger.learners import randomness\n    return randomness\n"
    )
    (tmp_path / "learners" / "randomness.py").write_text("from ..accountant import rules\n")
    (tmp_path / "verify" / "reports.py").write_text("from dpledger import __version__\n")
    found = violations(tmp_path)
    assert len(found) == 2
    assert found[0].startswith(
        "accountant/rules.py:2: dpledger.accountant.rules imports dpledger.learners.randomness"
    )
    assert "allowed below: dpledger.accountant.numerics" in found[1]
