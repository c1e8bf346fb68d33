"""Names renamed in the public API — keyword arguments, classes, fields: the old name keeps working
for one release, with a ``DeprecationWarning`` that names the new one."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any


def renamed_keyword(function: str, old: str, new: str, old_value: Any, value: Any) -> Any:
    """The argument of a keyword renamed from ``old`` to ``new``.

    Args:
        function: The public function's name, for the messages.
        old: The keyword's former name.
        new: Its name now.
        old_value: What the caller passed as ``old`` (None: not passed).
        value: What the caller passed as ``new`` (or its default).

    Returns:
        ``value`` when ``old`` was not passed, else ``old_value`` (after a ``DeprecationWarning``).

    Raises:
        TypeError: both names were passed.
    """
    if old_value is None:
        return value
    if value is not None:
        raise TypeError(f"{function}() got {new}= and its former name {old}=; pass {new}= only")
    warn_renamed(f"{function}({old}=...)", f"{new}=", stacklevel=4)
    return old_value


def warn_renamed(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn that the public name ``old`` is now ``new`` (a class, a module attribute, a field).

    Args:
        old: The former name, qualified as a user writes it (``dpledger.AuditResult``).
        new: The name now, qualified the same way.
        stacklevel: The frame the warning points at (the default: the caller of the function that
            warns).
    """
    warnings.warn(
        f"{old} is deprecated and goes in the next release: use {new}",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def renamed_attributes(
    module: str, renamed: dict[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) that serves former names of the module's attributes.

    Args:
        module: The module's name (``__name__``).
        renamed: Former name → name now.
        namespace: The module's globals, where the names now are found.

    Returns:
        The ``__getattr__``: a former name gives its attribute after a ``DeprecationWarning``; any
        other missing name raises ``AttributeError``.
    """

    def __getattr__(name: str) -> Any:
        if name not in renamed:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warn_renamed(f"{module}.{name}", f"{module}.{renamed[name]}")
        return namespace[renamed[name]]

    return __getattr__
