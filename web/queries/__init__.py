"""Read-only queries behind the pages and the JSON API, one module per subject.

Each function returns plain dataclasses/dicts (JSON-ready through :func:`web.queries.jsonable`),
so the HTML pages and the API show exactly the same data.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any


def jsonable(value: Any) -> Any:
    """Dataclasses, datetimes and containers as JSON-ready data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return value.isoformat() + ("" if value.tzinfo else "Z")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and value != value:  # NaN is not JSON
        return None
    return value
