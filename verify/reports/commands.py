"""The command lines a report shows beside its figures (DESIGN: "say which command"): a
:class:`Command` is a service call and the ``dpledger`` command line that makes the same call, so
that a reader can rerun it (``tests/verify/test_report_commands.py`` parses each line with the CLI
and checks that it calls the same service function with the same keyword arguments)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dpledger.verify.service import Output


@dataclass(frozen=True)
class Command:
    """``dpledger *argv`` and the call ``service(**kwargs)`` it makes."""

    argv: tuple[str, ...]
    service: Callable[..., Output]
    kwargs: Mapping[str, Any]

    @property
    def line(self) -> str:
        """The command line as a report shows it."""
        return "dpledger " + " ".join(self.argv)

    def payload(self) -> Any:
        """The ``--json`` payload of the command."""
        return self.service(**self.kwargs).payload
