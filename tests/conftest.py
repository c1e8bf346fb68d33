"""Shared test settings: hypothesis profiles sized for a 2-core CI machine, and the one parser of
the docs pages' code blocks (``docs_blocks``) that the docs tests share.

The ``mutation`` profile (``pytest --hypothesis-profile=mutation``, what the privacy-mutant runs of
:mod:`dpledger.verify.paper.mutation_runs` use) stops at the first failing example: a failure is all
a mutation run needs, so nothing is shrunk, and no example database carries one mutant's failures
into later runs."""

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

settings.register_profile("dpledger", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "mutation",
    parent=settings.get_profile("dpledger"),
    phases=(Phase.explicit, Phase.generate),
    database=None,
)
settings.load_profile("dpledger")

DOCS = Path(__file__).resolve().parent.parent / "docs"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def doc_blocks(page: Path) -> list[tuple[str, str, int]]:
    """``(language, code, first line number)`` of each fenced block of a docs page."""
    text = page.read_text(encoding="utf-8")
    return [
        (match.group(1), match.group(2), text.count("\n", 0, match.start()) + 2)
        for match in FENCE.finditer(text)
    ]


@pytest.fixture
def docs_blocks() -> Callable[[Path], list[tuple[str, str, int]]]:
    """:func:`doc_blocks`, for tests that run a docs page's code."""
    return doc_blocks
