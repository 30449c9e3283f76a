"""The observation vector kept up to date from the engine state, step by step.

Why: :func:`arena.envs.encoding.encode` of ``views.compact(state, seat)`` builds the seat's
observation as a fresh tree of lists and dicts and then walks it — about ten times a bare
engine step. But the vector is a *sum* over the observation's leaves (each number ``v`` at path
``p`` adds ``v`` to one bucket and 1 to another; each string, boolean or null adds 1 to one
bucket: :mod:`arena.envs.encoding`), so it can be kept as a running sum: after a move, only the
leaves that changed are taken out (their old contribution subtracted) and put back with their
new value. Between two decisions a move changes a handful of leaves out of several hundred.

How the changed leaves are found without building the observation: per game, :data:`LAYOUTS`
lists the observation's leaves-bearing parts (``/seat``, ``/raw/mc``, ``/hand`` …) with a
function that reads them *straight from the engine state* — references to the engine's own
lists where ``views.compact`` copies them, the few derived parts (sizes, sorted piles, card
dicts, what only the seat to move may see) computed as ``compact`` computes them (the costlier
ones again only when their engine source changed: :func:`_last`). One C-level
``==`` per part against this encoder's private snapshot says whether it changed; a changed part
is diffed position by position (lists) and key by key (dicts), and its snapshot is updated.

Why the values stay identical to ``encode(compact(state, seat))``: the paths and buckets are
those of :mod:`arena.envs.encoding` (the same path table), the sums are of integers (no engine
puts a float in an observation; a float would make the running sum drift, so
:meth:`IncrementalEncoder.vector` refuses one), kept unclipped in float64 and clipped on the way
out as ``encode`` does. tests/envs/test_incremental.py compares the two on every decision of
random games of every configuration, seat by seat, including seats observed only now and then.
The parts a layout reads are exactly ``compact``'s keys (:func:`check_layout`, run by the tests
for every configuration), so nothing a seat may not see reaches its vector: the
hidden-information tests of tests/envs run through this encoder.
"""

from __future__ import annotations

import copy
import importlib
from array import array
from collections.abc import Callable
from functools import cache
from itertools import compress
from operator import attrgetter, ne
from typing import Any

from arena.envs.encoding import LIMIT, SIZE, VALUE_STEP, _Paths, np

_MASK = SIZE - 1
_INT = {int}
#: Up to this many changed buckets are added one by one, more with one ``np.bincount``.
_LOOP_LIMIT = 64


class _Absent:
    """A part not seen yet (before the first vector): every leaf of the new value is added."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"

    def __deepcopy__(self, memo: dict[int, Any]) -> _Absent:
        return self  # a singleton: compared by identity

    def __reduce__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


class Card(dict):
    """A card's dict as the engine's view gives it, made once per card and game by a layout and
    never changed: so the encoder keeps it as its own snapshot (no copy), compares it by
    identity and caches its leaves per path for good (a game has a few hundred cards)."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> Card:
        return self  # immutable and shared: a copy would break the identity caches

    def __copy__(self) -> Card:
        return self


#: A layout: the paths (from the observation's root) of its parts, and the function that reads
#: them from ``(state, seat)`` in the same order.
Layout = tuple[tuple[tuple[str, ...], ...], Callable[[Any, int], tuple[Any, ...]]]


@cache
def _views(game: str) -> Any:
    return importlib.import_module(f"referee.{game}.views")


@cache
def layout(game: str) -> Layout:
    """The layout of ``game`` (:data:`LAYOUTS`), built on first use."""
    try:
        make = LAYOUTS[game]
    except KeyError:
        raise ValueError(f"no incremental layout for game {str(game)[:80]!r}") from None
    return make()


def _copy2(lists: list[list[Any]]) -> list[list[Any]]:
    return [x[:] for x in lists]


def _last(derive: Callable[[Any], Any], copy: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``derive`` remembering its last input (a private copy) and answer: a derived part whose
    engine source did not change since the last call (one C-level ``==``) is not derived again.
    The answer is shared between calls, so it must not be changed: the encoder only reads it."""
    last: list[Any] = [None]  # (input copy, answer), replaced in one assignment

    def get(source: Any) -> Any:
        got = last[0]
        if got is None or got[0] != source:
            got = last[0] = (copy(source), derive(source))
        return got[1]

    return get


def _black_angel() -> Layout:
    from referee.black_angel import data as D  # noqa: N812 - the engine's own alias
    from referee.black_angel import observed as O  # noqa: N812

    scalars, lists, lists2 = O._SCALARS, O._LISTS, O._LISTS2
    attrs = attrgetter(*scalars, *lists, *lists2, "ej_cards")
    colour = D.MISSION_COLOUR
    back = O._back
    private = O._PRIVATE_CTX
    derived = ("cards", "rav_deck_size", "m_deck_sizes", "a_deck_tiles", "t_stack_top",
               "t_stack_below", "hal_deck_size", "hand_m_colours", "hand_r_sizes", "slot_backs",
               "own_hand_m", "own_hand_r", "own_slots", "ctx")

    cards = _last(lambda d: [[k, v[0], v[1]] for k, v in sorted(d.items())],
                  lambda d: {k: v[:] for k, v in d.items()})
    below = _last(lambda t: [sorted(st[:-1]) for st in t], _copy2)
    colours = _last(lambda hands: [[sum(1 for m in h if colour[m] == c) for c in range(3)]
                                   for h in hands], _copy2)
    backs = _last(lambda slots: [[back(c) for c in sl] for sl in slots], _copy2)

    def read(s: Any, seat: int) -> tuple[Any, ...]:
        if seat == s.seat and not s.over:
            ctx = s.ctx
        else:
            ctx = {k: v for k, v in s.ctx.items() if k not in private}
        return (seat, *attrs(s),
                cards(s.cards),
                len(s.rav_deck),
                [len(d) for d in s.m_deck],
                sorted(s.a_deck),
                [st[-1] if st else -1 for st in s.t_stack],
                below(s.t_stack),
                len(s.hal_deck),
                colours(s.hand_m),
                [len(h) for h in s.hand_r],
                backs(s.slots),
                s.hand_m[seat], s.hand_r[seat], s.slots[seat], ctx)

    paths = (("seat",), *(("raw", k) for k in (*scalars, *lists, *lists2, "ej_cards", *derived)))
    return paths, read


def _solenia() -> Layout:
    from referee.solenia import views as V  # noqa: N812
    from referee.solenia.fields import FLAT_LISTS, SCALARS

    scalars = tuple(k for k in SCALARS if k not in ("sel_card", "seed"))
    flat = tuple(k for k in FLAT_LISTS if k != "vp_deck")
    nested = ("market", "res", "out_cards", "tech3", "tech_pts", "offer3", "rows")
    attrs = attrgetter(*scalars, *flat, *nested)
    cards: dict[int, Card] = {}

    def card(c: int) -> Card:
        got = cards.get(c)
        if got is None:
            got = cards[c] = Card(V._hand(_One(c), 0)[0])
        return got

    def read(st: Any, seat: int) -> tuple[Any, ...]:
        return (seat, *attrs(st),
                [len(h) for h in st.hand],
                [len(d) for d in st.deck],
                [len(d) for d in st.tile_deck],
                len(st.vp_deck),
                V._sel_card(st, seat),
                [card(c) for c in st.hand[seat]])

    paths = (("seat",), *(("raw", k) for k in (*scalars, *flat, *nested)),
             ("raw", "hand_sizes"), ("raw", "deck_sizes"), ("raw", "tile_deck_sizes"),
             ("raw", "vp_deck_size"), ("raw", "sel_card"), ("hand",))
    return paths, read


class _One:
    """A stand-in state holding one hand of one card, to build a card's dict with the engine's
    own view function (``views._hand``) rather than a copy of it."""

    __slots__ = ("hand",)

    def __init__(self, card: int) -> None:
        self.hand = [[card]]


def _orbital() -> Layout:
    from referee.orbital import views as V  # noqa: N812
    from referee.orbital.data import card_json
    from referee.orbital.state import P_OBS

    attrs = attrgetter(*V.RAW_SCALARS, *V.RAW_FLAT, "track", "mods", "known", "maybe", "gone")
    cards: dict[int, Card] = {}
    discard_layout = V.discard_layout

    def card(c: int) -> Card:
        got = cards.get(c)
        if got is None:
            got = cards[c] = Card(card_json(c))
        return got

    def read(st: Any, seat: int) -> tuple[Any, ...]:
        peek = [card(c) for c in st.peek] if st.phase == P_OBS and st.cur == seat else []
        return (seat, *attrs(st),
                [len(h) for h in st.hands],
                len(st.deck), len(st.discard), discard_layout(st), len(st.peek),
                [card(c) for c in st.hands[seat]], peek)

    paths = (("seat",),
             *(("raw", k) for k in (*V.RAW_SCALARS, *V.RAW_FLAT, "track", "mods", "known_hands",
                                    "maybe_hands", "maybe_gone", "hand_sizes", "deck_size",
                                    "discard_size", "discard", "peek_size")),
             ("hand",), ("peek",))
    return paths, read


#: Per game, how to make its layout (the parts of ``views.compact`` read from the engine state).
LAYOUTS: dict[str, Callable[[], Layout]] = {
    "black_angel": _black_angel,
    "solenia": _solenia,
    "orbital": _orbital,
}


class IncrementalEncoder:
    """One seat's vector of one game, kept as a running sum over the engine states it is shown.

    ``vector(state, seat)`` equals ``encode(views.compact(state, seat))``; call it with any
    state of the game (a new game, an assigned state, a state many moves on): it diffs against
    whatever it saw last. Not thread-safe; one per environment and seat.

    Why the changes are gathered as (bucket, weight) lists and added at the end: a dict met again
    at the same path (a :class:`Card` in a hand) adds its cached lists, and the additions run in one
    tight loop (cheaper than ``np.add.at`` for the tens of changes a move makes).
    """

    __slots__ = ("_paths", "_read", "_pids", "_snap", "_view", "_seed", "_vseed", "_kids",
                 "_bk", "_wt", "_acc", "_big", "_cards")

    def __init__(self, game: str) -> None:
        paths, read = layout(game)
        self._paths = _Paths()
        self._read = read
        self._pids = []
        for path in paths:
            pid = 0
            for key in path:
                pid = self._paths.child(pid, key)
            self._pids.append(pid)
        self._seed = self._paths.seed
        self._vseed = self._paths.value_seed
        self._kids: dict[int, list[int]] = {}  # pid -> ids of its list items 0, 1, ...
        self._cards: dict[tuple[int, int], tuple[list[int], list[float], list[float]]] = {}
        self._snap: list[Any] = [ABSENT] * len(paths)
        # The running sum: an array.array (item updates from Python cost a fraction of a numpy
        # array's, and of one np.add.at) that numpy reads through ``_view`` without a copy.
        self._acc = array("d", bytes(8 * SIZE))
        self._view = np.frombuffer(self._acc, dtype=np.float64)
        self._big = False  # whether a bucket ever left [-LIMIT, LIMIT] (then clip)
        self._bk: list[int] = []
        self._wt: list[float] = []

    def vector(self, state: Any, seat: int) -> Any:
        """The float32 vector of ``seat``'s observation of ``state`` (a new array)."""
        new = self._read(state, seat)
        snap = self._snap
        changed = list(map(ne, snap, new))
        if True in changed:
            pids = self._pids
            update = self._update
            for i in compress(range(len(changed)), changed):
                a = snap[i]
                b = new[i]
                if type(a) is int and type(b) is int:  # inline: a scalar of the engine
                    k = pids[i]
                    vs = self._vseed[k]
                    self._bk += (self._seed[k] & _MASK, (vs + a * VALUE_STEP) & _MASK,
                                 (vs + b * VALUE_STEP) & _MASK)
                    self._wt += (b - a, -1.0, 1.0)
                    snap[i] = b
                else:
                    snap[i] = update(pids[i], a, b)
        if self._bk:
            if len(self._bk) > _LOOP_LIMIT:  # many (a hand shifted): one numpy pass is cheaper
                view = self._view
                view += np.bincount(self._bk, weights=self._wt, minlength=SIZE)
                if not self._big:
                    self._big = bool(view.max() > LIMIT or view.min() < -LIMIT)
            else:
                acc = self._acc
                for b, w in zip(self._bk, self._wt, strict=True):
                    v = acc[b] = acc[b] + w
                    if v > LIMIT or v < -LIMIT:
                        self._big = True
            self._bk = []
            self._wt = []
        out = self._view.astype(np.float32)
        if self._big:  # a bucket beyond the bounds once: clip as encode does (after the cast:
            out.clip(-LIMIT, LIMIT, out=out)  # the same, rounding is monotone)
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> IncrementalEncoder:
        """A copy whose numpy view reads its own running sum (a plain deep copy would copy the
        view apart from the array it must read). Environments are deep-copied by some tools."""
        other = IncrementalEncoder.__new__(IncrementalEncoder)
        for name in self.__slots__:
            if name != "_view":
                setattr(other, name, copy.deepcopy(getattr(self, name), memo))
        other._view = np.frombuffer(other._acc, dtype=np.float64)
        other._seed = other._paths.seed
        other._vseed = other._paths.value_seed
        return other

    def reset(self) -> None:
        """Forget everything (the next vector is built from scratch)."""
        self._snap = [ABSENT] * len(self._snap)
        self._view[:] = 0.0
        self._big = False

    def _items(self, pid: int, n: int) -> list[int]:
        kids = self._kids.get(pid)
        if kids is None:
            kids = self._kids[pid] = []
        if len(kids) < n:
            child = self._paths.child
            kids.extend(child(pid, i) for i in range(len(kids), n))
        return kids

    def _update(self, pid: int, old: Any, new: Any) -> Any:
        """Replace ``old``'s leaves at ``pid`` by ``new``'s; answer the snapshot of ``new``."""
        tn = type(new)
        to = type(old)
        if tn is int and to is int:
            vs = self._vseed[pid]
            self._bk += (self._seed[pid] & _MASK, (vs + old * VALUE_STEP) & _MASK,
                         (vs + new * VALUE_STEP) & _MASK)
            self._wt += (new - old, -1.0, 1.0)
            return new
        if tn is list and to is list:
            lo, ln = len(old), len(new)
            shared, most = (lo, ln) if lo < ln else (ln, lo)
            kids = self._kids.get(pid)
            if kids is None or len(kids) < most:
                kids = self._items(pid, most)
            out = old[:shared]
            update = self._update
            seed, vseed, bk, wt = self._seed, self._vseed, self._bk, self._wt
            for i in compress(range(shared), map(ne, old, new)):
                a = old[i]
                b = out[i] = new[i]
                if type(a) is int and type(b) is int:  # inline: most changes are of a number
                    k = kids[i]
                    vs = vseed[k]
                    bk += (seed[k] & _MASK, (vs + a * VALUE_STEP) & _MASK, (vs + b * VALUE_STEP) & _MASK)
                    wt += (b - a, -1.0, 1.0)
                else:
                    out[i] = update(kids[i], a, b)
            for i in range(shared, lo):
                self._add(kids[i], old[i], -1.0)
            for i in range(shared, ln):
                out.append(self._add(kids[i], new[i], 1.0))
            return out
        if tn is dict and to is dict:  # an engine's dict (a context): key by key
            child = self._paths.child
            out = {}
            for key, b in new.items():
                a = old.get(key, ABSENT)
                out[key] = a if type(a) is type(b) and a == b else self._update(child(pid, key), a, b)
            for key, a in old.items():
                if key not in new:
                    self._add(child(pid, key), a, -1.0)
            return out
        # anything else (a card, a number that became a list ...) is taken out and put back whole
        self._add(pid, old, -1.0)
        return self._add(pid, new, 1.0)

    def _add(self, pid: int, value: Any, sign: float) -> Any:
        """Add (``sign`` 1) or take out (-1) every leaf of ``value`` at ``pid``, as
        :func:`arena.envs.encoding._walk` finds them; answer a snapshot of ``value``."""
        kind = type(value)
        if kind is int:
            self._bk += (self._seed[pid] & _MASK, (self._vseed[pid] + value * VALUE_STEP) & _MASK)
            self._wt += (sign * value, sign)
            return value
        if kind is list:
            n = len(value)
            kids = self._items(pid, n)
            if set(map(type, value)) <= _INT:  # a list of ints (most lists) in a few passes
                seed, vseed = self._seed, self._vseed
                kids = kids[:n]
                self._bk += [seed[k] & _MASK for k in kids]
                self._bk += [(vseed[k] + v * VALUE_STEP) & _MASK for k, v in zip(kids, value, strict=False)]
                self._wt += [sign * v for v in value] if sign > 0 else [-v for v in value]
                self._wt += [sign] * n
                return value[:]
            return [self._add(kids[i], v, sign) for i, v in enumerate(value)]
        if kind is Card:  # immutable: its own snapshot, its leaves cached by (path, identity)
            key = (pid, id(value))
            got = self._cards.get(key)
            if got is None:
                bk, wt = self._bk, self._wt
                self._bk, self._wt = [], []
                child = self._paths.child
                for k, v in value.items():
                    self._add(child(pid, k), v, 1.0)
                got = self._cards[key] = (self._bk, self._wt, [-w for w in self._wt])
                self._bk, self._wt = bk, wt
            self._bk += got[0]
            self._wt += got[1] if sign > 0 else got[2]
            return value
        if kind is dict:  # an engine's dict: walked (a new one each step; cards are Card)
            child = self._paths.child
            return {k: self._add(child(pid, k), v, sign) for k, v in value.items()}
        if value is ABSENT:
            return ABSENT
        if kind is float:
            raise TypeError("a float in an observation: the running sum would drift; "
                            "use arena.envs.encoding.encode")
        self._bk.append(self._paths.scalar(pid, value))
        self._wt.append(sign)
        return value


def check_layout(game: str, state: Any, seat: int) -> None:
    """Raise ``AssertionError`` if the layout's parts are not ``views.compact``'s keys (an
    engine that gained or lost a key since the layout was written)."""
    paths, _read = layout(game)
    compact = _views(game).compact(state, seat)
    want = {(k,) for k in compact if k != "raw"} | {("raw", k) for k in compact["raw"]}
    got = set(paths)
    if got != want:
        raise AssertionError(f"{game}: the incremental layout reads {sorted(got - want)} that "
                             f"compact lacks and lacks {sorted(want - got)}")
