"""Short, path-free descriptions of schema validation failures."""

from __future__ import annotations

from pydantic import ValidationError


def describe(exc: ValidationError) -> str:
    """``where: what`` for the first error, e.g. ``prompt.0.text: Field required``."""
    errors = exc.errors()
    if not errors:
        return "invalid"
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else first["msg"]
