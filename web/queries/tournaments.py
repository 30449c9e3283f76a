"""Tournaments: the list, one tournament's standings and schedule, and live ladders."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from arena.competition import swiss
from arena.competition import tournaments as arena_tournaments
from arena.db import (
    Bot,
    BotVersion,
    Ladder,
    Match,
    MatchSeat,
    Tournament,
    TournamentEntry,
    TournamentRound,
)
from web.queries.matches import SEAT_RESULTS, MatchRow, match_rows


@dataclass(frozen=True)
class TournamentBrief:
    id: int
    name: str
    game: str
    variant: str
    players: int
    rounds: int
    status: str
    created_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    progress: dict[str, Any]
    format: str = "round_robin"

    @property
    def title(self) -> str:
        return self.name or f"Tournament {self.id}"

    @property
    def format_label(self) -> str:
        """The format as its name is written: "Swiss" (a proper name), "round-robin"."""
        return "Swiss" if self.format == "swiss" else "round-robin"


@dataclass(frozen=True)
class Standing:
    rank: int
    bot_id: int
    bot_name: str
    owner: str
    version: int
    played: int
    wins: int
    avg_rank: float | None
    avg_score: float | None
    forfeits: int


@dataclass(frozen=True)
class SwissStanding:
    """A line of a Swiss tournament's standings (arena.competition.tournaments.swiss_standings).
    Points and tie-break sums are exact fractions in ``*_exact`` ("7/3") and written with
    :func:`arena.competition.swiss.points_text` in ``*_text`` (the page's, the CLI's and the
    exports' digits); ``score`` and ``buchholz`` are the nearest doubles, as in the gRPC API."""

    place: int
    bot_id: int
    bot_name: str
    owner: str
    version: int
    score: float
    buchholz: float
    rating: float
    games: int
    byes: int
    score_exact: str = ""
    score_text: str = ""
    buchholz_exact: str = ""
    buchholz_text: str = ""
    sonneborn_berger_exact: str = ""
    sonneborn_berger_text: str = ""
    direct_exact: str = ""
    direct_text: str = ""
    #: The first tie-break that put this line below the one above ("" when shared or first).
    decided_by: str = ""
    #: True when the line above has the same place (a tie no tie-break separates).
    shared: bool = False


@dataclass(frozen=True)
class SwissRound:
    """One paired round of a Swiss: its tables (finished of all), byes and repeated meetings."""

    number: int  # 1-based, as shown
    tables: int
    finished: int
    byes: list[str]
    repeats: int


@dataclass(frozen=True)
class CrossCell:
    """One round of one bot in the crosstable. ``text``: at two seats ``+12`` (won against the
    bot now in place 12), ``=12`` (drew), ``−12`` (lost), ``12`` (paired, not played yet),
    ``×12`` (the match failed), ``bye``; at k seats the place at the table (``2/4``) then the
    others' places. ``title`` says it in words."""

    text: str
    title: str
    kind: str  # win, draw, loss, place, pending, failed, bye, none


@dataclass(frozen=True)
class CrossLine:
    place: int
    bot_name: str
    version: int
    score_text: str
    cells: list[CrossCell]


#: Tables of the schedule shown at once: a tournament of 500 matches rendered whole took
#: ~100 ms of CPU; the rest is a link away (``schedule_from``).
SCHEDULE_PAGE = 100


@dataclass
class TournamentPage:
    tournament: TournamentBrief
    standings: list[Standing]
    #: ``SCHEDULE_PAGE`` tables from position ``schedule_from`` (round, then table order).
    schedule: list[MatchRow]
    schedule_from: int = 0
    #: Where the next and the previous part of the schedule start, if there are.
    schedule_next: int | None = None
    schedule_prev: int | None = None
    #: Swiss only: standings by score, Buchholz, rating; and the rounds paired so far.
    swiss_standings: list[SwissStanding] | None = None
    rounds: list[SwissRound] | None = None
    #: Swiss only: the crosstable, one line per standings line, one cell per paired round.
    crosstable: list[CrossLine] | None = None


def _brief(t: Tournament) -> TournamentBrief:
    return TournamentBrief(
        t.id,
        t.name,
        t.game,
        t.variant,
        t.players,
        t.rounds,
        t.status,
        t.created_at,
        t.started_at,
        t.finished_at,
        t.progress(),
        t.format,
    )


def tournaments(
    session: Session, status: str | None = None, limit: int = 200
) -> list[TournamentBrief]:
    query = select(Tournament).order_by(Tournament.created_at.desc(), Tournament.id.desc())
    if status:
        query = query.where(Tournament.status == status)
    return [_brief(t) for t in session.scalars(query.limit(limit)).all()]


# The page's statements, built once with bound parameters: composing them cost more CPU than
# running them (the schedule and standings are index-only reads of one tournament).
_ENTRANTS = (
    select(BotVersion.id, Bot.id, Bot.name, Bot.owner, BotVersion.number)
    .join(Bot, Bot.id == BotVersion.bot_id)
    .join(TournamentEntry, TournamentEntry.bot_version_id == BotVersion.id)
    .where(TournamentEntry.tournament_id == bindparam("tournament"))
    .order_by(TournamentEntry.position)
)
_SCHEDULE = (
    select(Match.id)
    .where(Match.tournament_id == bindparam("tournament"))
    .order_by(Match.round, Match.table, Match.created_at, Match.id)
    .offset(bindparam("offset"))
    .limit(bindparam("limit"))
)
_PLAYED = (
    select(MatchSeat.bot_version_id, *SEAT_RESULTS)
    .join(Match, Match.id == MatchSeat.match_id)
    .where(Match.tournament_id == bindparam("tournament"), Match.status == "done")
    .group_by(MatchSeat.bot_version_id)
)


def tournament_page(
    session: Session, tournament_id: int, schedule_from: int = 0, page_size: int | None = None
) -> TournamentPage | None:
    t = session.get(Tournament, tournament_id)
    if t is None:
        return None
    page_size = page_size or SCHEDULE_PAGE
    stats = _finished_stats(session, t)
    entrants = session.execute(_ENTRANTS, {"tournament": tournament_id}).all()
    rows = []
    for vid, bid, name, owner, number in entrants:
        n, w, r, s, ff = stats.get(vid, (0, 0, None, None, 0))
        rows.append((vid, bid, name, owner, number, int(n), int(w or 0), r, s, int(ff or 0)))
    # Wins first, then the better average rank, then the higher average score.
    rows.sort(key=lambda x: (-x[6], x[7] if x[7] is not None else 99, -(x[8] or 0), x[2]))
    standings = []
    for i, (_vid, bid, name, owner, number, n, w, r, s, ff) in enumerate(rows):
        standings.append(
            Standing(
                i + 1,
                bid,
                name,
                owner,
                number,
                n,
                w,
                None if r is None else float(r),
                None if s is None else float(s),
                ff,
            )
        )
    # OFFSET is bounded by the tournament's own matches (found through its index), so a late
    # part of the schedule costs no more than sorting one tournament.
    ids = list(session.scalars(
        _SCHEDULE,
        {"tournament": tournament_id, "offset": schedule_from, "limit": page_size + 1},
    ).all())
    more = len(ids) > page_size
    page = TournamentPage(
        _brief(t), standings, match_rows(session, ids[:page_size]), schedule_from,
        schedule_from + page_size if more else None,
        max(0, schedule_from - page_size) if schedule_from else None,
    )
    if t.format == "swiss":
        _add_swiss(session, t, page, {vid: (bid, name, owner, number) for vid, bid, name, owner, number in entrants})
    return page


def _add_swiss(session: Session, t: Tournament, page: TournamentPage, who: dict[int, tuple]) -> None:
    """A Swiss page's standings and rounds."""
    rows = arena_tournaments.swiss_standings(session, t)
    page.swiss_standings = [swiss_line(r, who[r.version_id], i > 0 and rows[i - 1].place == r.place)
                            for i, r in enumerate(rows)]
    tables: dict[int, list[int]] = {}
    for round_no, status, count in session.execute(
        select(Match.round, Match.status, func.count()).where(Match.tournament_id == t.id)
        .group_by(Match.round, Match.status)
    ):
        entry = tables.setdefault(round_no, [0, 0])
        entry[0] += count
        if status in ("done", "failed"):
            entry[1] += count
    page.crosstable = _crosstable(session, t, rows, who)
    page.rounds = [
        SwissRound(r.round + 1, *tables.get(r.round, [0, 0]),
                   [f"{who[v][1]} v{who[v][3]}" for v in r.byes or [] if v in who], r.repeats)
        for r in session.scalars(select(TournamentRound).where(TournamentRound.tournament_id == t.id)
                                 .order_by(TournamentRound.round))
    ]


def _crosstable(session: Session, t: Tournament, rows: list, who: dict[int, tuple]) -> list[CrossLine]:
    """Each bot's rounds, opponents named by their place now (as chess crosstables do): filled
    as soon as a round is paired, so the pairings are public before the games are played."""
    place = {r.version_id: r.place for r in rows}
    paired = session.scalar(select(func.count()).select_from(TournamentRound)
                            .where(TournamentRound.tournament_id == t.id)) or 0
    cells: dict[int, dict[int, CrossCell]] = {r.version_id: {} for r in rows}
    tables: dict[str, tuple[int, str, list[tuple[int, int | None]]]] = {}
    for mid, rnd, status, vid, rank in session.execute(
        select(Match.id, Match.round, Match.status, MatchSeat.bot_version_id, MatchSeat.rank)
        .join(MatchSeat, MatchSeat.match_id == Match.id).where(Match.tournament_id == t.id)
        .order_by(Match.id, MatchSeat.seat)
    ):
        tables.setdefault(mid, (rnd, status, []))[2].append((vid, rank))
    k = t.players
    for rnd, status, seats in tables.values():
        for vid, rank in seats:
            others = [(o, r) for o, r in seats if o != vid]
            names = ", ".join(f"{who[o][1]} (#{place.get(o, '?')})" for o, _r in others if o in who)
            where = " ".join(str(place.get(o, "?")) for o, _r in others)
            if status == "failed":
                cell = CrossCell(f"×{where}", f"Round {rnd + 1}: failed, no points; with {names}", "failed")
            elif status != "done" or rank is None:
                cell = CrossCell(where, f"Round {rnd + 1}: paired with {names}, not played yet", "pending")
            elif k == 2:
                other = others[0][1] if others and others[0][1] is not None else rank
                sign, word, kind = ("+", "won against", "win") if rank < other else \
                    ("=", "drew with", "draw") if rank == other else ("−", "lost to", "loss")
                cell = CrossCell(f"{sign}{where}", f"Round {rnd + 1}: {word} {names}", kind)
            else:
                cell = CrossCell(f"{rank}/{k} · {where}", f"Round {rnd + 1}: place {rank} of {k}, with {names}",
                                 "place")
            if vid in cells:
                cells[vid][rnd] = cell
    for rnd, byes in session.execute(select(TournamentRound.round, TournamentRound.byes)
                                     .where(TournamentRound.tournament_id == t.id)):
        for vid in byes or []:
            if vid in cells:
                cells[vid][rnd] = CrossCell("bye", f"Round {rnd + 1}: a bye (1 point, no game)", "bye")
    none = CrossCell("", "", "none")
    return [CrossLine(r.place, who[r.version_id][1], who[r.version_id][3], swiss.points_text(r.score),
                      [cells[r.version_id].get(n, none) for n in range(paired)]) for r in rows]


def swiss_line(r: arena_tournaments.SwissRow, who: tuple, shared: bool) -> SwissStanding:
    """One standings line for the page and the JSON API, from the exact row."""
    exact, text = swiss.fraction_text, swiss.points_text
    return SwissStanding(
        r.place, who[0], who[1], who[2], who[3], float(r.score), float(r.buchholz), r.rating, r.games, r.byes,
        exact(r.score), text(r.score), exact(r.buchholz), text(r.buchholz),
        exact(r.sonneborn_berger), text(r.sonneborn_berger), exact(r.direct), text(r.direct, 1),
        r.decided_by, shared,
    )


#: Standings of finished tournaments (immutable: every match is done), per database and
#: tournament; a tournament of 500 matches is ~2,000 index probes, ~130 ms on a busy machine.
_FINISHED: OrderedDict[tuple, dict[int, tuple]] = OrderedDict()
_FINISHED_MAX = 256
_FINISHED_LOCK = threading.Lock()


def _finished_stats(session: Session, t: Tournament) -> dict[int, tuple]:
    """``{version id: (played, wins, avg rank, avg score, forfeits)}`` over the tournament's
    finished matches; kept once the tournament itself is finished."""
    key = (str(session.get_bind().url), t.id, t.finished_at)  # a reused id is another key
    if t.status == "done":
        with _FINISHED_LOCK:
            hit = _FINISHED.get(key)
            if hit is not None:
                _FINISHED.move_to_end(key)
                return hit
    played = session.execute(_PLAYED, {"tournament": t.id}).all()
    stats = {vid: tuple(rest) for vid, *rest in played}
    if t.status == "done":
        with _FINISHED_LOCK:
            _FINISHED[key] = stats
            while len(_FINISHED) > _FINISHED_MAX:
                _FINISHED.popitem(last=False)
    return stats


@dataclass(frozen=True)
class LadderInfo:
    game: str
    variant: str
    enabled: bool
    running: int
    queued: int


def ladders(session: Session) -> list[LadderInfo]:
    """Every ladder with its running and queued matches (counted through the status index)."""
    out = []
    counts: dict[tuple[str, str], int] = {
        (g, s): n
        for g, s, n in session.execute(
            select(Match.game, Match.status, func.count())
            .where(Match.status.in_(("running", "pending")), Match.kind == "ladder")
            .group_by(Match.game, Match.status)
        ).all()
    }
    for lad in session.scalars(select(Ladder).order_by(Ladder.game)).all():
        out.append(
            LadderInfo(
                lad.game,
                lad.variant,
                lad.enabled,
                counts.get((lad.game, "running"), 0),
                counts.get((lad.game, "pending"), 0),
            )
        )
    return out
