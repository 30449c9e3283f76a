"""The fixed-shape numeric observation: a hashed feature vector of the referee's observation.

Why hashing: the three games' observations are nested JSON of varying length (hands, stations,
logs), and a toolkit wants one float32 vector of fixed shape. Each leaf of the observation
becomes features keyed by its path ``p`` (list positions included, e.g. ``/seats/1/vp``):

* a number ``v`` adds ``v`` to bucket ``crc32(p)`` and 1 to bucket
  ``crc32(p + "=") + int(v) * 0x9E3779B1`` (mod 2^32; ``int`` truncates) — its value as a
  category;
* a string, boolean or null adds 1 to bucket ``crc32(f"{p}={value}")`` (Python's spelling:
  ``True``, ``None``).

A bucket is that number mod :data:`SIZE` — stable across processes and Python versions. The only
input is ``state.observation(seat)``, the very dict the referee sends the seat, so the vector
can encode nothing the seat may not know (tests/envs check it against a re-sampled state).
Collisions are possible and harmless for learning; the structured observation is always in
``infos`` for anyone who wants an exact encoder of their own.

Why the value bucket of a number is arithmetic rather than ``crc32(f"{p}={v}")``: it lets a list
of numbers (most of an observation: the engines' ``raw`` arrays, boards, hands) be encoded by
numpy in one pass instead of leaf by leaf in Python, about ten times faster (docs/environments.md,
Speed). Paths are interned as small integers (:class:`_Paths`), so a path string is built and
hashed once per process, not once per step.
"""

from __future__ import annotations

import zlib
from itertools import chain
from typing import Any

import orjson

from arena.envs import require

np = require("numpy", "numpy")

SIZE = 2048
#: Values are clipped to this magnitude so the Box has finite bounds.
LIMIT = 1.0e6
#: The multiplier that spreads a number's value over the buckets (Knuth's 2^32 / golden ratio).
VALUE_STEP = 0x9E3779B1

_NUMBERS = frozenset((int, float))
_LIST = {list}
#: Interned paths beyond this are forgotten (observations of the three games use a few thousand).
_PATH_LIMIT = 1_000_000


class _Paths:
    """Every path met so far as an integer id, with its two bucket seeds as numpy arrays."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.ids: dict[tuple[int, Any], int] = {}
        self.text: list[str] = [""]
        self.seed: list[int] = [zlib.crc32(b"")]  # crc32(p): the bucket of the value itself
        self.value_seed: list[int] = [zlib.crc32(b"=")]  # crc32(p + "="): where categories start
        self.lists: dict[tuple[int, int], Any] = {}  # (parent id, length) -> ids of its items
        self.tables: dict[tuple[int, ...], Any] = {}  # (parent id, row lengths...) -> ids
        self.scalars: dict[tuple[int, Any, type], int] = {}  # (id, value, type) -> bucket
        self._arrays: tuple[Any, Any] | None = None

    def child(self, parent: int, key: Any) -> int:
        pid = self.ids.get((parent, key))
        if pid is None:
            if len(self.text) >= _PATH_LIMIT:
                raise _Overflow
            pid = self.ids[(parent, key)] = len(self.text)
            text = f"{self.text[parent]}/{key}"
            self.text.append(text)
            raw = text.encode()
            self.seed.append(zlib.crc32(raw))
            self.value_seed.append(zlib.crc32(raw + b"="))
            self._arrays = None
        return pid

    def items(self, parent: int, length: int) -> Any:
        """The ids of ``parent``'s list items 0..length-1, as an int array (cached)."""
        got = self.lists.get((parent, length))
        if got is None:
            got = self.lists[(parent, length)] = np.array(
                [self.child(parent, i) for i in range(length)], dtype=np.intp)
        return got

    def table(self, parent: int, rows: list[list[Any]]) -> Any:
        """The ids of every number of a list of lists of numbers, row by row (cached by shape)."""
        shape = (parent, *map(len, rows))
        got = self.tables.get(shape)
        if got is None:
            parts = [self.items(self.child(parent, i), n) for i, n in enumerate(shape[1:])]
            got = self.tables[shape] = np.concatenate(parts) if parts else np.zeros(0, np.intp)
        return got

    def scalar(self, pid: int, value: Any) -> int:
        """The bucket of a string, boolean or null ``value`` at path ``pid``."""
        key = (pid, value, type(value))
        got = self.scalars.get(key)
        if got is None:
            got = self.scalars[key] = zlib.crc32(f"{self.text[pid]}={value}".encode()) % SIZE
        return got

    def arrays(self) -> tuple[Any, Any]:
        if self._arrays is None:
            self._arrays = (np.array(self.seed, dtype=np.int64) % SIZE,
                            np.array(self.value_seed, dtype=np.int64))
        return self._arrays


class _Overflow(Exception):
    """More distinct paths than :data:`_PATH_LIMIT`: start the interning afresh."""


_PATHS = _Paths()


class _Leaves:
    """The leaves of one observation, gathered for one numpy pass."""

    __slots__ = ("blocks", "block_values", "ids", "values", "buckets")

    def __init__(self) -> None:
        self.blocks: list[Any] = []  # arrays of path ids of numeric lists ...
        self.block_values: list[float] = []  # ... and their values, in the same order
        self.ids: list[int] = []  # path ids of single numbers ...
        self.values: list[float] = []  # ... and their values
        self.buckets: list[int] = []  # buckets of strings, booleans and nulls (weight 1)


#: (path id, JSON bytes of a subtree) -> its leaves, so a subtree met before at the same path
#: (a card's description, an unchanged station) is not walked again.
_SUBTREES: dict[tuple[int, bytes], _Leaves] = {}
_SUBTREE_LIMIT = 100_000
#: Containers with fewer items than this are walked, not looked up (cheaper than serialising).
_MIN_CACHED_ITEMS = 4


def _walk(node: Any, pid: int, out: _Leaves, paths: _Paths) -> None:
    """Gather the leaves below ``node`` (at path ``pid``) into ``out``; larger dicts and lists of
    anything but numbers below it go through :func:`_subtree`."""
    kind = type(node)
    if kind is dict:
        for key, value in node.items():
            vk = type(value)
            if vk is int or vk is float:  # the common cases first, without a call
                out.ids.append(paths.child(pid, key))
                out.values.append(value)
            elif vk is list:
                if not value:
                    continue
                kinds = set(map(type, value))
                if kinds <= _NUMBERS:
                    out.blocks.append(paths.items(paths.child(pid, key), len(value)))
                    out.block_values += value
                elif kinds == _LIST and set(map(type, chain.from_iterable(value))) <= _NUMBERS:
                    out.blocks.append(paths.table(paths.child(pid, key), value))
                    out.block_values += chain.from_iterable(value)
                elif len(value) >= _MIN_CACHED_ITEMS:
                    _subtree(value, paths.child(pid, key), out, paths)
                else:
                    _walk(value, paths.child(pid, key), out, paths)
            elif vk is dict:
                if len(value) >= _MIN_CACHED_ITEMS:
                    _subtree(value, paths.child(pid, key), out, paths)
                elif value:
                    _walk(value, paths.child(pid, key), out, paths)
            else:  # str, bool, None
                out.buckets.append(paths.scalar(paths.child(pid, key), value))
    elif kind is list:
        if not node:
            return
        kinds = set(map(type, node))
        if kinds <= _NUMBERS:
            out.blocks.append(paths.items(pid, len(node)))
            out.block_values += node
        elif kinds == _LIST and set(map(type, chain.from_iterable(node))) <= _NUMBERS:
            out.blocks.append(paths.table(pid, node))
            out.block_values += chain.from_iterable(node)
        else:
            for i, value in enumerate(node):
                vk = type(value)
                if (vk is dict or vk is list) and len(value) >= _MIN_CACHED_ITEMS:
                    _subtree(value, paths.child(pid, i), out, paths)
                else:
                    _walk(value, paths.child(pid, i), out, paths)
    elif kind is int or kind is float:
        out.ids.append(pid)
        out.values.append(node)
    else:  # str, bool, None (and any other JSON scalar)
        out.buckets.append(paths.scalar(pid, node))


def _subtree(node: Any, pid: int, out: _Leaves, paths: _Paths) -> None:
    """:func:`_walk` through :data:`_SUBTREES`. Why content, not identity: an engine builds a
    new observation per call (and may share and later mutate parts), so only the serialised
    content says reliably that a subtree is the one met before; orjson serialises in C, many
    times faster than walking the leaves in Python."""
    key = (pid, orjson.dumps(node, option=orjson.OPT_NON_STR_KEYS))
    got = _SUBTREES.get(key)
    if got is None:
        got = _Leaves()
        _walk(node, pid, got, paths)
        if len(_SUBTREES) >= _SUBTREE_LIMIT:
            _SUBTREES.clear()
        _SUBTREES[key] = got
    out.blocks += got.blocks
    out.block_values += got.block_values
    out.ids += got.ids
    out.values += got.values
    out.buckets += got.buckets


#: Per game, the keys of an observation that determine all of it: the engine's
#: ``from_observation`` rebuilds a state from these alone whose observation equals the whole
#: (the conformance tests check that), so they hold everything the seat knows.
SUFFICIENT: dict[str, tuple[str, ...]] = {
    "black_angel": ("seat", "raw"),
    "solenia": ("seat", "raw", "hand"),
    "orbital": ("seat", "raw", "hand", "peek"),
}


def encode(observation: dict[str, Any], whole: bool = False) -> Any:
    """The float32 vector of length :data:`SIZE` for one seat's observation.

    By default only the game's :data:`SUFFICIENT` keys are encoded (the rest of the observation
    is a readable expansion of them: card texts, names, derived totals); ``whole=True`` encodes
    every leaf, at several times the cost.
    """
    global _PATHS
    keys = None if whole else SUFFICIENT.get(observation.get("game"))  # type: ignore[arg-type]
    root = observation if keys is None else {k: observation[k] for k in keys if k in observation}
    out = _Leaves()
    try:
        _top(root, out, _PATHS)
    except _Overflow:
        _PATHS = _Paths()
        _SUBTREES.clear()
        out = _Leaves()
        _top(root, out, _PATHS)
    seed, value_seed = _PATHS.arrays()
    ids = np.concatenate([np.array(out.ids, dtype=np.intp), *out.blocks])
    values = np.array(out.values + out.block_values, dtype=np.float64)
    # (crc32(p + "=") + int(v) * VALUE_STEP) mod 2^32 mod SIZE; SIZE divides 2^32, so one mask
    categories = (value_seed[ids] + values.astype(np.int64) * VALUE_STEP) & (SIZE - 1)
    buckets = np.concatenate([seed[ids], categories, np.array(out.buckets, dtype=np.int64)])
    weights = np.ones(len(buckets))
    weights[:len(values)] = values
    vec = np.bincount(buckets, weights=weights, minlength=SIZE)
    np.clip(vec, -LIMIT, LIMIT, out=vec)
    return vec.astype(np.float32)


def _top(root: dict[str, Any], out: _Leaves, paths: _Paths) -> None:
    """The root's children are walked, not cached: they change nearly every step (``raw`` always
    does), so caching them would only fill :data:`_SUBTREES`; their own children are cached."""
    for key, value in root.items():
        _walk(value, paths.child(0, key), out, paths)

