"""The installed distribution is one import name, ``dpledger`` (pyproject.toml maps the top-level
folders into it with ``package-dir``): the wheel ships nothing else, the console script reports the
package's version, and the folder names are not importable from outside the checkout."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import dpledger

REPO = Path(__file__).resolve().parents[1]
# Build and VCS leftovers a copy of the checkout must not carry into the build.
NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".hypothesis",
    ".pytest_cache",
    ".venv",
    ".mypy_cache",
    ".ruff_cache",
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[zipfile.ZipFile]:
    """The project's wheel, built by pip from a copy of the checkout (setuptools writes build/
    and *.egg-info next to the sources, so the checkout itself stays untouched)."""
    root = tmp_path_factory.mktemp("wheel")
    source, out = root / "src", root / "out"
    shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--quiet",
            "-w",
            str(out),
            str(source),
        ],
        check=True,
    )
    (built,) = out.glob("dpledger-*.whl")
    with zipfile.ZipFile(built) as archive:
        yield archive


def test_wheel_ships_only_the_dpledger_namespace(wheel):
    top_level = {name.split("/", 1)[0] for name in wheel.namelist()}
    assert top_level == {"dpledger", f"dpledger-{dpledger.__version__}.dist-info"}


def test_wheel_maps_every_folder_and_ships_the_statement_files(wheel):
    """Modules of each mapped folder land under dpledger/, and the package data — every
    verify/paper/statements/*.toml of the checkout — ships with them."""
    names = set(wheel.namelist())
    statements = sorted(
        f"dpledger/{path.relative_to(REPO).as_posix()}"
        for path in (REPO / "verify" / "paper" / "statements").glob("*.toml")
    )
    expected = [
        "dpledger/__init__.py",
        "dpledger/accountant/rules.py",
        "dpledger/accountant/numerics/optimal_composition.py",
        "dpledger/learners/__init__.py",
        "dpledger/verify/cli/main.py",
        *statements,
    ]
    assert [name for name in expected if name not in names] == []
    entry_points = wheel.read(f"dpledger-{dpledger.__version__}.dist-info/entry_points.txt")
    assert re.search(rb"^dpledger = dpledger\.verify\.cli\.main:main$", entry_points, re.MULTILINE)


def _package_files() -> set[str]:
    """The files of the package as the wheel names them: every module below a folder of the
    package-dir mapping (pyproject.toml), its statement tables and the ``py.typed`` marker."""
    mapping = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    files = set()
    for name, folder in mapping.items():
        for path in (REPO / folder).rglob("*"):
            if path.suffix in (".py", ".toml") or path.name == "py.typed":
                if "__pycache__" not in path.parts:
                    files.add("/".join([*name.split("."), path.relative_to(REPO / folder).as_posix()]))
    return files


def test_wheel_holds_exactly_the_package_modules_and_data(wheel):
    """Discovery misses no folder and adds nothing: the wheel's files (its metadata aside) are the
    checkout's modules, statement tables and ``py.typed``, each once."""
    shipped = [
        name
        for name in wheel.namelist()
        if not name.startswith(f"dpledger-{dpledger.__version__}.dist-info/")
    ]
    assert len(shipped) == len(set(shipped))
    assert set(shipped) == _package_files()
    assert "dpledger/py.typed" in shipped


def _version_commands() -> list[list[str]]:
    commands = [[sys.executable, "-m", "dpledger.verify.cli.main", "--version"]]
    script = shutil.which("dpledger", path=sysconfig.get_path("scripts"))
    if script is not None:
        commands.append([script, "--version"])
    return commands


@pytest.mark.parametrize("command", _version_commands(), ids=lambda c: Path(c[0]).name)
def test_dpledger_version_prints_the_package_version(command):
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == f"dpledger {dpledger.__version__}"


def test_console_script_is_installed_next_to_the_interpreter():
    assert shutil.which("dpledger", path=sysconfig.get_path("scripts")) is not None


def test_only_dpledger_is_importable_outside_the_checkout(tmp_path):
    """From an empty directory (nothing of the checkout on sys.path) ``dpledger`` imports and the
    folder names ``verify``, ``accountant``, ``learners`` do not."""
    probe = """
import importlib, sys
import dpledger
print(dpledger.__version__)
for name in ("verify", "accountant", "learners", "api"):
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as error:
        assert error.name == name, error
    else:
        sys.exit(f"{name} is importable")
"""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == dpledger.__version__
