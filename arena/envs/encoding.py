"""The fixed-shape numeric observation: a hashed feature vector of the referee's observation.

Why hashing: the three games' observations are nested JSON of varying length (hands, stations,
logs), and a toolkit wants one float32 vector of fixed shape. Each leaf of the observation
becomes features keyed by its path (list positions included): a number adds its value to the
bucket of its path and a one to the bucket of ``path=value``; a string, boolean or null adds a
one to ``path=value``. Buckets are ``crc32(key) % SIZE`` — stable across processes and Python
versions. The only input is ``state.observation(seat)``, the very dict the referee sends the
seat, so the vector can encode nothing the seat may not know (tests/envs check it against a
re-sampled state). Collisions are possible and harmless for learning; the structured
observation is always in ``infos`` for anyone who wants an exact encoder of their own.
"""

from __future__ import annotations

import zlib
from typing import Any

from arena.envs import require

np = require("numpy", "numpy")

SIZE = 2048
#: Values are clipped to this magnitude so the Box has finite bounds.
LIMIT = 1.0e6


def _walk(node: Any, path: str, out: list[tuple[str, float]]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            _walk(value, f"{path}/{key}", out)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _walk(value, f"{path}/{i}", out)
    elif isinstance(node, bool) or node is None or isinstance(node, str):
        out.append((f"{path}={node}", 1.0))
    elif isinstance(node, int | float):
        out.append((path, float(node)))
        out.append((f"{path}={node}", 1.0))


def encode(observation: dict[str, Any]) -> Any:
    """The float32 vector of length :data:`SIZE` for one seat's observation."""
    leaves: list[tuple[str, float]] = []
    _walk(observation, "", leaves)
    vec = np.zeros(SIZE, dtype=np.float64)
    for key, value in leaves:
        vec[zlib.crc32(key.encode()) % SIZE] += value
    return np.clip(vec, -LIMIT, LIMIT).astype(np.float32)
