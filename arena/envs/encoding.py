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


#: key -> bucket, so each distinct key is hashed once per process (paths repeat every step).
_BUCKETS: dict[str, int] = {}
_CACHE_LIMIT = 500_000


def _bucket(key: str) -> int:
    b = _BUCKETS.get(key)
    if b is None:
        if len(_BUCKETS) >= _CACHE_LIMIT:
            _BUCKETS.clear()
        b = _BUCKETS[key] = zlib.crc32(key.encode()) % SIZE
    return b


def _walk(node: Any, path: str, idx: list[int], val: list[float]) -> None:
    kind = type(node)
    if kind is dict:
        for key, value in node.items():
            _walk(value, f"{path}/{key}", idx, val)
    elif kind is list:
        for i, value in enumerate(node):
            _walk(value, f"{path}/{i}", idx, val)
    elif kind is int or kind is float:
        idx.append(_bucket(path))
        val.append(float(node))
        idx.append(_bucket(f"{path}={node}"))
        val.append(1.0)
    else:  # str, bool, None (and any other JSON scalar)
        idx.append(_bucket(f"{path}={node}"))
        val.append(1.0)


def encode(observation: dict[str, Any]) -> Any:
    """The float32 vector of length :data:`SIZE` for one seat's observation."""
    idx: list[int] = []
    val: list[float] = []
    _walk(observation, "", idx, val)
    vec = np.bincount(np.asarray(idx, dtype=np.intp), weights=np.asarray(val), minlength=SIZE)
    return np.clip(vec, -LIMIT, LIMIT).astype(np.float32)
