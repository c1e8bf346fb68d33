"""The docs cannot rot: every code block of every page in ``docs/`` runs.

Convention (stated in ``docs/README.md``): the ```` ```python ```` blocks of a page run in order in one
namespace, in a fresh working directory; every line of a ```` ```console ```` block that starts
with ``$ `` runs (``dpledger …`` or ``python …``, no shell) and must exit 0, or the status its
trailing ``# exit N`` comment names. A page whose first line is ``<!-- slow -->`` joins the slow
group; a page with a line ``<!-- requires: module, … -->`` is skipped where one of those optional
modules is missing (``dask``: ``pip install 'dpledger[dist]'``). Plain ```` ``` ```` blocks show
outputs and do not run.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
README = DOCS.parent / "README.md"
REQUIRES = re.compile(r"^<!-- requires: ([\w., ]+) -->$", re.MULTILINE)
EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")
PAGES = sorted(DOCS.glob("*.md"))


def command_line(line: str) -> tuple[list[str], int]:
    """The argv of a console line (after ``$ ``) and the exit status it expects."""
    expected = 0
    found = EXIT.search(line)
    if found:
        expected, line = int(found.group(1)), line[: found.start()]
    argv = shlex.split(line, comments=True)
    programs = {"dpledger": str(Path(sys.executable).with_name("dpledger")), "python": sys.executable}
    if not argv or argv[0] not in programs:
        raise AssertionError(f"a docs console line must run dpledger or python, got {line!r}")
    return [programs[argv[0]], *argv[1:]], expected


def _marks(page: Path) -> list:
    return [pytest.mark.slow] if page.read_text(encoding="utf-8").startswith("<!-- slow -->") else []


@pytest.mark.parametrize("page", [pytest.param(page, id=page.name, marks=_marks(page)) for page in PAGES])
def test_every_code_block_of_the_page_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, docs_blocks
) -> None:
    for needed in REQUIRES.findall(page.read_text(encoding="utf-8")):
        for module in needed.split(","):
            pytest.importorskip(module.strip())
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for language, code, line in docs_blocks(page):
        where = f"{page.name}, block at line {line}"
        if language == "python":
            exec(compile(code, where, "exec"), namespace)
        elif language == "console":
            for command in (row[2:] for row in code.splitlines() if row.startswith("$ ")):
                argv, expected = command_line(command)
                done = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=tmp_path)
                assert done.returncode == expected, (
                    f"{where}: `{command}` exited {done.returncode}, the page says {expected}\n"
                    f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
                )


def test_the_readme_links_every_docs_page() -> None:
    readme = README.read_text(encoding="utf-8")
    missing = [page.name for page in PAGES if f"docs/{page.name}" not in readme]
    assert not missing, f"README.md does not link {missing}"


def test_console_lines_expect_their_stated_status() -> None:
    assert command_line("dpledger audit catalog --json   # exit 1")[1] == 1
    assert command_line("python -c 'print(1)'")[1] == 0
    with pytest.raises(AssertionError, match="must run dpledger or python"):
        command_line("rm -rf /")
