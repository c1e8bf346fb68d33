"""Package discovery for the build (everything else is in pyproject.toml).

pyproject.toml's ``[tool.setuptools] package-dir`` maps the top-level folders into the one import
name ``dpledger`` (``api/`` → ``dpledger``, ``accountant/`` → ``dpledger.accountant``, ...); the
packages are every folder found below a mapped one, data-only folders (``verify/paper/statements``)
included so that their files ship as package data. tests/test_layers.py reads the same table.
"""

import tomllib
from pathlib import Path

from setuptools import find_namespace_packages, setup

PACKAGE_DIR = tomllib.loads((Path(__file__).parent / "pyproject.toml").read_text())["tool"]["setuptools"][
    "package-dir"
]

setup(
    packages=[
        f"{name}.{sub}" if sub else name
        for name, folder in PACKAGE_DIR.items()
        for sub in ["", *find_namespace_packages(folder, exclude=["__pycache__", "*.__pycache__"])]
    ]
)
