"""Issue 15 item 5's acceptance: docs/learners.md's own code — fit, read the ledger, tune with
GridSearchCV and account for the search — runs as written, blocks in order in one namespace."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "learners.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


@pytest.mark.slow
def test_the_learners_page_code_runs_and_its_grid_search_is_accounted(tmp_path, monkeypatch) -> None:
    pytest.importorskip("sklearn")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    blocks = python_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) == 4
    for block in blocks:
        exec(compile(block, str(PAGE), "exec"), namespace)  # the page's own code, not user input
    search, scorer = namespace["search"], namespace["scorer"]
    assert len(scorer.fits) == 4 * 3 and namespace["g"].epsilon_upper >= 19
    assert namespace["learner"].claim_holds()
