"""The ladder's population kept between ticks, so a tick reads only what changed since the last.

Why: :func:`arena.competition.ladder.load_candidates` reads every active bot's rating row — with its seat
and opponent counts as JSON — on every tick: ~0.2 s of CPU at 10,000 bots, shared by only the
few matches a tick queues (4 by default), which put the cost per match chosen above the 50 ms
goal (docs/tournaments-and-ratings.md, "A ladder for 10,000 bots"). Almost none of those rows
change between two ticks seconds apart.

What a tick reads with the cache (:meth:`PopulationCache.candidates`):

1. **Who plays** — every tick, in full, without ratings: the playing version of every active
   bot (bot id, version number and id, kind, source; ~20 ms at 10,000 bots). So a bot added,
   deactivated, reactivated or retired, a new version, an SPRT holding a version back or
   releasing it, are seen at once, whichever process made the change: no marker to forget.
2. **Ratings that moved** — every rating update is a rated match, recorded under the game's
   rating lock, which draws the next ``rating_seq`` (:mod:`arena.records.recording`): the lock orders
   them, so sequence order is commit order and ``rating_locks.last_seq`` is a watermark with
   no gaps behind it. A tick reads that one row; when it moved past the cache's watermark,
   the rating rows of the seats of the matches rated since (``matches.rating_seq`` is
   indexed with the game) are read again. When it did not move, nothing is read.
3. **Versions the cache has not seen** (a new version, a bot reactivated, a version released
   by its SPRT) — their rating rows, by id. A playing version without a rating row is not a
   candidate (as in ``load_candidates``) and is looked up again on the next tick, so a row
   created later without a rated match is never missed.

Safety net: a full reload (``load_candidates``' query) every :attr:`PopulationCache.full_every_s`
seconds or :attr:`PopulationCache.full_every_ticks` ticks, and whenever the watermark went
backwards (a database rebuilt or replaced under the same URL). Writes that change a rating
without a rated match — ``arena ratings --rebuild --write`` (:func:`arena.evaluation.ratings.write_rebuilt`)
— are seen at that reload.

Bounds: one entry per (database, game), at most :attr:`PopulationCache.max_games` of them (the
least recently ticked dropped first), each holding the playing versions' ratings only (a
version that stops playing is dropped on the next tick). The entry of 10,000 bots takes the
memory ``arena bench ladder`` reports (``cache_mb``).

The candidates handed out are new objects on every tick; their seat and opponent counts are
the cache's own dicts, which :func:`arena.competition.ladder.tick` copies before counting a queued seat in
them (:func:`arena.competition.ladder.count_seat`), so a tick never changes the cache.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from arena.competition import dialin_presence as dialin
from arena.competition.ladder import Candidate, _json_dict, load_candidates
from arena.db.models import Bot, BotVersion, Match, MatchSeat, Rating, RatingLock
from arena.intake.authors import author_of
from referee import dialin_client

#: A cached rating: (mu, sigma, games played, seat counts, opponent counts).
Cached = tuple[float, float, int, dict, dict]

_B, _V = Bot.__table__, BotVersion.__table__

#: Rating rows looked up by version id per statement (bound parameters stay well below limits).
_CHUNK = 500


@dataclass
class _Game:
    """The cache of one (database, game)."""

    seq: int  # rating_locks.last_seq when the ratings below were read
    loaded_at: float  # time.monotonic() of the last full reload
    ticks: int = 0  # ticks since the last full reload
    ratings: dict[int, Cached] = field(default_factory=dict)  # by version id: the playing versions
    #: (kind, source, dials in, author) by version id: the playing versions
    versions: dict[int, tuple[str, str, bool, str | None]] = field(default_factory=dict)


@dataclass
class Stats:
    """What the cache did, for the benchmark and the tests: reloads in full, incremental ticks,
    and rating rows read (by both)."""

    full: int = 0
    incremental: int = 0
    rows_read: int = 0


class PopulationCache:
    """The population of each laddered game between ticks (module docstring). Thread-safe: the
    ticks of one process (beat's worker, ``arena ladder run``, ``arena serve``'s ticker, a tick a
    submission triggers) share one (:data:`arena.workers.tasks.POPULATION`)."""

    def __init__(self, full_every_s: float = 300.0, full_every_ticks: int = 200, max_games: int = 32) -> None:
        self.full_every_s = full_every_s
        self.full_every_ticks = full_every_ticks
        self.max_games = max_games
        self.stats = Stats()
        self._games: OrderedDict[tuple[str, str], _Game] = OrderedDict()
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._games.clear()

    def entries(self) -> int:
        """Rating rows held, over every game."""
        return sum(len(g.ratings) for g in self._games.values())

    def memory_bytes(self) -> int:
        """Bytes the cached entries take (every object counted once: ``arena bench ladder``'s
        ``cache_mb``)."""
        with self._lock:
            return deep_size(self._games)

    def candidates(self, session: Session, game: str) -> dict[int, Candidate]:
        """What :func:`arena.competition.ladder.load_candidates` returns — the same candidates, in the same
        order — reading only what changed since this cache's last tick of ``game`` on this
        database."""
        key = (session.get_bind().url.render_as_string(hide_password=True), game)
        with self._lock:
            seq = session.scalar(select(RatingLock.last_seq).where(RatingLock.game == game)) or 0
            state = self._games.get(key)
            now = time.monotonic()
            if (state is None or seq < state.seq or state.ticks >= self.full_every_ticks
                    or now - state.loaded_at >= self.full_every_s):
                state = self._reload(session, game, seq, now)
                self._games[key] = state
                playing = self._playing(session, game, state)
            else:
                state.ticks += 1
                playing = self._playing(session, game, state)
                self._refresh(session, game, state, seq, playing)
            self._games.move_to_end(key)
            while len(self._games) > self.max_games:
                self._games.popitem(last=False)
            dialing = [source for vid, source, dials, _ in playing if dials and vid in state.ratings]
            absent = set(dialing) - set(dialin.connected_among(dialing)) if dialing else set()
            ratings = state.ratings
            out = {}
            for vid, source, dials, author in playing:
                row = ratings.get(vid)
                if row is not None and not (dials and source in absent):
                    out[vid] = Candidate(vid, *row, author=author)
            return out

    # --- reading ------------------------------------------------------------------------------

    def _playing(self, session: Session, game: str, state: _Game) -> list[tuple[int, str, bool, str | None]]:
        """(version id, source, dials in, author: :func:`arena.intake.authors.author_of` its owner) of the playing version of every active bot of ``game``, by bot
        id: the newest version not held back, a solo automaton never (as ``load_candidates``).
        Reads two integers a bot (Core rows: the ORM's row handling cost as much as the query);
        a version's kind and source never change, so only those of versions new to the cache
        are read, by id."""
        # Ordered by bot, then version number: the dict keeps each bot's newest (last) one.
        newest = dict(session.connection().execute(
            select(_V.c.bot_id, _V.c.id)
            .join(_B, _B.c.id == _V.c.bot_id)
            .where(_B.c.game == game, _B.c.active.is_(True), _V.c.held.is_(False))
            .order_by(_V.c.bot_id, _V.c.number)
        ).all())
        ids = list(newest.values())
        known = state.versions
        unknown = [vid for vid in ids if vid not in known]
        for start in range(0, len(unknown), _CHUNK):
            chunk = unknown[start:start + _CHUNK]
            for vid, kind, source, owner in session.connection().execute(
                    select(_V.c.id, _V.c.kind, _V.c.source, _B.c.owner)
                    .join(_B, _B.c.id == _V.c.bot_id).where(_V.c.id.in_(chunk))):
                known[vid] = (kind, source, dialin_client.is_source(source), author_of(owner))
        if len(known) > len(ids):  # versions that stopped playing: bounded by the population
            playing = set(ids)
            for vid in [v for v in known if v not in playing]:
                del known[vid]
        return [(vid, known[vid][1], known[vid][2], known[vid][3]) for vid in ids if known[vid][0] != "automaton"]

    def _reload(self, session: Session, game: str, seq: int, now: float) -> _Game:
        self.stats.full += 1
        found = load_candidates(session, game, connected_only=False)
        self.stats.rows_read += len(found)
        return _Game(seq, now, 0, {vid: (c.mu, c.sigma, c.games, c.seat_counts, c.opponent_counts)
                                   for vid, c in found.items()})

    def _refresh(self, session: Session, game: str, state: _Game, seq: int,
                 playing: list[tuple[int, str, bool, str | None]]) -> None:
        """Bring ``state`` up to ``seq`` and to the versions playing now (module docstring)."""
        self.stats.incremental += 1
        ids = {vid for vid, _, _, _ in playing}
        for vid in [v for v in state.ratings if v not in ids]:  # stopped playing: bounded
            del state.ratings[vid]
        if seq > state.seq:
            rated = (select(MatchSeat.bot_version_id)
                     .join(Match, Match.id == MatchSeat.match_id)
                     .where(Match.game == game, Match.rating_seq > state.seq))
            for vid, row in _rating_rows(session, game, Rating.bot_version_id.in_(rated)):
                self.stats.rows_read += 1
                if vid in ids:
                    state.ratings[vid] = row
            state.seq = seq
        unseen = [vid for vid in ids if vid not in state.ratings]
        for start in range(0, len(unseen), _CHUNK):
            chunk = unseen[start:start + _CHUNK]
            for vid, row in _rating_rows(session, game, Rating.bot_version_id.in_(chunk)):
                self.stats.rows_read += 1
                state.ratings[vid] = row


def _rating_rows(session: Session, game: str, where) -> list[tuple[int, Cached]]:  # noqa: ANN001
    rows = session.execute(
        select(Rating.bot_version_id, Rating.mu, Rating.sigma, Rating.games_played,
               cast(Rating.seat_counts, Text), cast(Rating.opponent_counts, Text))
        .where(Rating.game == game, where)
    ).all()
    return [(vid, (mu, sigma, games, _json_dict(seats), _json_dict(opponents)))
            for vid, mu, sigma, games, seats, opponents in map(tuple, rows)]


def deep_size(obj: object, seen: set[int] | None = None) -> int:
    """Bytes held by ``obj`` and everything it refers to through dicts, lists, tuples, sets and
    dataclass fields, each object counted once (shared small ints and strings included)."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, list | tuple | set | frozenset):
        size += sum(deep_size(v, seen) for v in obj)
    elif hasattr(obj, "__dataclass_fields__"):
        size += sum(deep_size(getattr(obj, f), seen) for f in obj.__dataclass_fields__)
    return size
