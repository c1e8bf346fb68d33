"""JSON round trip of event trees.

An event becomes ``{"kind": <class name>, <field>: <value>, ...}``; exact numbers are written
as sympy strings (``"1/10"``, ``"log(4*E)"``) so that reading them back gives the same exact
value; sub-events nest. Malformed input raises ``ValueError`` naming what is wrong.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

import sympy

from dpledger.accountant.events import EVENT_TYPES, Event


def to_data(event: Event) -> dict[str, Any]:
    """A JSON-ready dictionary for ``event``."""
    data: dict[str, Any] = {"kind": event.kind}
    for f in fields(event):  # type: ignore[arg-type]
        value = getattr(event, f.name)
        if isinstance(value, Event):
            data[f.name] = to_data(value)
        elif isinstance(value, tuple):
            data[f.name] = [to_data(item) for item in value]
        elif isinstance(value, sympy.Basic):
            data[f.name] = sympy.sstr(value)
        else:
            data[f.name] = value
    return data


def from_data(data: Any, path: str = "event") -> Event:
    """The event described by ``data`` (as produced by :func:`to_data`)."""
    if not isinstance(data, dict):
        raise ValueError(f"{path} must be a JSON object, got {type(data).__name__}")
    kind = data.get("kind")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"{path}.kind must be one of {sorted(EVENT_TYPES)}, got {kind!r}")
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = set(data) - names - {"kind"}
    if unknown:
        raise ValueError(f"{path} ({kind}) has unknown fields {sorted(unknown)}")
    arguments: dict[str, Any] = {}
    for name, value in data.items():
        if name == "kind":
            continue
        where = f"{path}.{name}"
        if isinstance(value, dict):
            arguments[name] = from_data(value, where)
        elif isinstance(value, list):
            arguments[name] = tuple(from_data(item, f"{where}[{i}]") for i, item in enumerate(value))
        else:
            arguments[name] = value
    try:
        return cls(**arguments)
    except TypeError as error:
        raise ValueError(f"{path} ({kind}): {error}") from error


def dumps(event: Event) -> str:
    return json.dumps(to_data(event), sort_keys=True)


def loads(text: str) -> Event:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"malformed event JSON: {error}") from error
    return from_data(data)
