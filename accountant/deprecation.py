"""Keyword arguments renamed in the public API: the old name keeps working for one release, with a
``DeprecationWarning`` that names the new one."""

from __future__ import annotations

import warnings
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
    warnings.warn(
        f"{function}({old}=...) is deprecated and goes in the next release: use {new}=",
        DeprecationWarning,
        stacklevel=3,
    )
    return old_value
