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
from operator import itemgetter
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
_INT = {int}
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
        self.plans: dict[tuple[Any, ...], _Plan] = {}  # (id, keys, value types) -> plan
        self.root_lists: dict[tuple[int, bytes], _Leaves] = {}  # (id, JSON) -> leaves
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
                [self.child(parent, i) for i in range(length)], dtype=np.intp
            )
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
            self._arrays = (
                np.array(self.seed, dtype=np.int64) % SIZE,
                np.array(self.value_seed, dtype=np.int64),
            )
        return self._arrays


def _getter(keys: list[str]) -> Any:
    """``itemgetter`` that always answers a tuple (one key included)."""
    if len(keys) == 1:
        key = keys[0]
        return lambda node: (node[key],)
    return itemgetter(*keys)


#: The nesting depths of int lists a :class:`_Plan` gathers in one pass: ``[1, 2]``,
#: ``[[1], [2, 3]]``, ``[[[1]], []]`` (boards, hands per seat, modules per station per seat).
_DEPTHS = (1, 2, 3)


def _int_leaves(lists: Any, depth: int) -> tuple[tuple[int, ...], ...] | None:
    """The shape (the lengths at each level) of ``lists``, a tuple of values that are each
    ``depth`` levels of lists with ints at the bottom, or ``None`` if they are not. Empty lists
    fit any depth. C-level passes only: ``map``, ``set`` and ``chain``."""
    shape = []
    level = lists
    for _ in range(depth - 1):
        shape.append(tuple(map(len, level)))
        if not set(map(type, chain.from_iterable(level))) <= _LIST:
            return None
        level = list(chain.from_iterable(level))
    shape.append(tuple(map(len, level)))
    if not set(map(type, chain.from_iterable(level))) <= _INT:
        return None
    return tuple(shape)


def _leaves(lists: Any, depth: int) -> Any:
    """The ints of ``lists`` (checked by :func:`_int_leaves`) in document order."""
    level = chain.from_iterable(lists)
    for _ in range(depth - 1):
        level = chain.from_iterable(level)
    return level


def _ids(pid: int, value: list[Any], depth: int, paths: _Paths) -> Any:
    """The path ids of the ints of ``value`` (at path ``pid``) in document order, as
    :func:`_walk` gives them."""
    if depth == 1:
        return paths.items(pid, len(value)) if value else np.zeros(0, np.intp)
    if depth == 2:
        return paths.table(pid, value)
    parts = [_ids(paths.child(pid, i), item, depth - 1, paths) for i, item in enumerate(value)]
    return np.concatenate(parts) if parts else np.zeros(0, np.intp)


class _Group:
    """The list keys of a :class:`_Plan` that hold ints at one depth."""

    __slots__ = ("depth", "keys", "get", "ids", "key_ids")

    def __init__(self, depth: int, keys: list[str]) -> None:
        self.depth = depth
        self.keys = keys
        self.get = _getter(keys)
        self.ids: dict[tuple[tuple[int, ...], ...], Any] = {}  # shape -> path ids
        self.key_ids: list[int] = []  # the keys' path ids, filled by the first gather


class _Plan:
    """How to gather the leaves of a dict of one shape (keys and value types) in a few C-level
    passes instead of key by key: the int values by one ``itemgetter`` into one block; the
    string, boolean and null values by one ``itemgetter`` and a cache of their buckets; the
    lists that held ints at depth 1, 2 or 3 last time as one block per depth (their path ids
    cached by the lists' shape); whatever else (floats, dicts, other lists) key by key through
    :func:`_walk`.

    Why it is safe: a group is used only after a C-level check that its lists still hold ints
    at that depth (else its keys go key by key and are sorted afresh for next time), and its
    path ids are those :func:`_walk` gives, so every leaf gets the same buckets. Only the order
    of the leaves differs, which a sum of integers does not see (floats never enter a group;
    tests/envs/test_encoding.py compares with the key-by-key walk).
    """

    __slots__ = ("pid", "ints", "int_ids", "texts", "text_ids", "text_buckets", "groups", "other")

    def __init__(self, node: dict[str, Any], pid: int, paths: _Paths) -> None:
        self.pid = pid
        ints, texts, lists, other = [], [], [], []
        for key, value in node.items():
            kind = type(value)
            if kind is int:
                ints.append(key)
            elif kind is str or kind is bool or value is None:
                texts.append(key)
            elif kind is list:
                lists.append(key)
            else:  # float, dict: key by key, in order
                other.append(key)
        self.ints = _getter(ints) if ints else None
        self.int_ids = np.array([paths.child(pid, k) for k in ints], dtype=np.intp)
        self.texts = _getter(texts) if texts else None
        self.text_ids = [paths.child(pid, k) for k in texts]
        self.text_buckets: dict[tuple[Any, ...], list[int]] = {}
        self.groups: list[_Group] = []
        self.other = other
        self.sort(lists, node)

    def sort(self, keys: list[str], node: dict[str, Any]) -> None:
        """Put list ``keys`` in the group of their depth now, or key by key; a key whose value
        fits its old group (an empty list fits any) stays there."""
        old = {k: g.depth for g in self.groups for k in g.keys}
        by_depth: dict[int, list[str]] = {d: [] for d in _DEPTHS}
        loose = []
        for key in keys:
            value = (node[key],)
            depth = old.get(key)
            if depth is None or _int_leaves(value, depth) is None:
                depth = next((d for d in _DEPTHS if _int_leaves(value, d) is not None), None)
            (loose if depth is None else by_depth[depth]).append(key)
        self.groups = [_Group(d, ks) for d, ks in by_depth.items() if ks]
        self.other = [k for k in self.other if k not in keys] + loose

    def gather(self, node: dict[str, Any], out: _Leaves, paths: _Paths) -> None:
        pid = self.pid
        if self.ints is not None:
            out.blocks.append(self.int_ids)
            out.block_values += self.ints(node)
        if self.texts is not None:
            values = self.texts(node)
            got = self.text_buckets.get(values)
            if got is None:
                got = [paths.scalar(i, v) for i, v in zip(self.text_ids, values, strict=True)]
                if len(self.text_buckets) >= _SUBTREE_LIMIT:
                    self.text_buckets.clear()
                self.text_buckets[values] = got
            out.buckets += got
        failed: list[str] = []
        for group in self.groups:
            lists = group.get(node)
            shape = _int_leaves(lists, group.depth)
            if shape is None:
                failed += group.keys
                continue
            if not group.key_ids:
                group.key_ids = [paths.child(pid, k) for k in group.keys]
            ids = group.ids.get(shape)
            if ids is None:
                if len(group.ids) >= _SHAPE_LIMIT:
                    group.ids.clear()
                ids = group.ids[shape] = np.concatenate(
                    [
                        _ids(i, v, group.depth, paths)
                        for i, v in zip(group.key_ids, lists, strict=True)
                    ]
                )
            out.blocks.append(ids)
            out.block_values += _leaves(lists, group.depth)
        for key in self.other:
            _walk({key: node[key]}, pid, out, paths)
        if failed:  # those keys key by key this time (always right), sorted afresh for the next
            for key in failed:
                _walk({key: node[key]}, pid, out, paths)
            self.sort([k for g in self.groups for k in g.keys], node)


def _gather_dict(node: dict[str, Any], pid: int, out: _Leaves, paths: _Paths) -> None:
    """:func:`_walk` of a large dict through its shape's :class:`_Plan`."""
    shape = (pid, tuple(node), tuple(map(type, node.values())))
    plan = paths.plans.get(shape)
    if plan is None:
        if len(paths.plans) >= _SUBTREE_LIMIT:
            paths.plans.clear()
        plan = paths.plans[shape] = _Plan(node, pid, paths)
    plan.gather(node, out, paths)


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
#: Shapes of a plan group's lists kept with their path ids (an entry is an array of a few
#: hundred ids: this bounds a group to a few MB however many shapes a long run meets).
_SHAPE_LIMIT = 4096
#: Whole lists at the root (a hand of cards) are cached in ``_Paths.root_lists``: a hand
#: changes every few moves, so they have a smaller bound of their own (an entry holds every
#: leaf of a hand).
_ROOT_LIST_LIMIT = 10_000
#: Containers with fewer items than this are walked, not looked up (cheaper than serialising).
_MIN_CACHED_ITEMS = 4
#: A root child dict with this many keys goes through a :class:`_Plan` (the engines' ``raw``).
_MIN_PLANNED_KEYS = 8


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


def _subtree(
    node: Any,
    pid: int,
    out: _Leaves,
    paths: _Paths,
    cache: dict[tuple[int, bytes], _Leaves] | None = None,
    limit: int = _SUBTREE_LIMIT,
) -> None:
    """:func:`_walk` through :data:`_SUBTREES`. Why content, not identity: an engine builds a
    new observation per call (and may share and later mutate parts), so only the serialised
    content says reliably that a subtree is the one met before; orjson serialises in C, many
    times faster than walking the leaves in Python."""
    if cache is None:
        cache = _SUBTREES
    key = (pid, orjson.dumps(node, option=orjson.OPT_NON_STR_KEYS))
    got = cache.get(key)
    if got is None:
        got = _Leaves()
        _walk(node, pid, got, paths)
        if len(cache) >= limit:
            cache.clear()
        cache[key] = got
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
    weights[: len(values)] = values
    vec = np.bincount(buckets, weights=weights, minlength=SIZE)
    vec.clip(-LIMIT, LIMIT, out=vec)  # the method: np.clip's wrapper costs more than the clip
    return vec.astype(np.float32)


def _top(root: dict[str, Any], out: _Leaves, paths: _Paths) -> None:
    """The root's children: a large dict (the engine's ``raw``, new nearly every step) through
    its shape's :class:`_Plan`; a list of four or more items (a hand) through its own cache
    (``root_lists``); anything else walked."""
    for key, value in root.items():
        if type(value) is dict and len(value) >= _MIN_PLANNED_KEYS:
            _gather_dict(value, paths.child(0, key), out, paths)
        elif type(value) is list and len(value) >= _MIN_CACHED_ITEMS:
            _subtree(value, paths.child(0, key), out, paths, paths.root_lists, _ROOT_LIST_LIMIT)
        else:
            _walk(value, paths.child(0, key), out, paths)
