"""Match history (filtered, keyset-paged) and single matches.

History pages use keyset paging on ``(created_at, id)``: the page after a cursor is an index
range scan of 50 rows whatever the page number, where OFFSET paging would read and discard
every earlier row (slow on page 2,000 of 100,000 matches).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, case, exists, func, or_, select
from sqlalchemy.orm import Session, aliased

from arena.db import Bot, BotVersion, Match, MatchSeat, Tournament, qualification_matches
from arena.intake import refusals
from arena.quoting import shorten
from arena.records import stored
from referee.faults import canonical
from referee.record import without_logs

PAGE_SIZE = 50
OUTCOMES = ("win", "draw", "loss", "forfeit")
STATUSES = ("done", "running", "pending", "failed")
#: A match in one of these states is over: its seed and full record are public.
FINISHED = ("done", "failed")

#: What a group of finished seats adds up to, in this order: played, wins (rank 1), mean rank,
#: mean score, forfeits. A bot page's results by seat and a tournament's standings both read it.
SEAT_RESULTS = (
    func.count(),
    func.sum(case((MatchSeat.rank == 1, 1), else_=0)),
    func.avg(MatchSeat.rank),
    func.avg(MatchSeat.score),
    func.sum(case((MatchSeat.forfeit.is_not(None), 1), else_=0)),
)


class FilterError(ValueError):
    """A history filter the user typed that cannot be applied (shown on the page)."""


@dataclass(frozen=True)
class SeatBrief:
    seat: int
    bot_id: int
    bot_name: str
    owner: str
    version: int
    rank: int | None
    score: float | None
    forfeit: str | None


@dataclass
class MatchRow:
    id: str
    game: str
    variant: str
    players: int
    kind: str
    status: str
    created_at: datetime | None
    finished_at: datetime | None
    tournament_id: int | None
    tournament_name: str | None
    round: int
    table: int
    seats: list[SeatBrief] = field(default_factory=list)


@dataclass(frozen=True)
class HistoryFilter:
    game: str | None = None
    bot: int | None = None
    tournament: int | None = None
    outcome: str | None = None
    status: str | None = None

    def as_args(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if v not in (None, "")}


@dataclass
class HistoryPage:
    rows: list[MatchRow]
    newer: str | None  # cursor for the page of newer matches, if any
    older: str | None  # cursor for the page of older matches, if any


def encode_cursor(created_at: datetime | None, match_id: str) -> str:
    stamp = created_at.isoformat() if created_at else ""
    return f"{stamp}~{match_id}"


def decode_cursor(text: str) -> tuple[datetime, str]:
    stamp, sep, match_id = text.partition("~")
    try:
        if not sep or not match_id:
            raise ValueError(text)
        return datetime.fromisoformat(stamp), match_id
    except ValueError:
        raise FilterError(
            "that page link is damaged; start again from the newest matches"
        ) from None


def _check(f: HistoryFilter) -> None:
    """Refuse a filter that cannot be applied, with a message for the page."""
    if f.status and f.status not in STATUSES:
        raise FilterError(f"unknown status {shorten(f.status)!r}; choose one of {', '.join(STATUSES)}")
    if f.outcome and f.outcome not in OUTCOMES:
        raise FilterError(f"unknown outcome {shorten(f.outcome)!r}; choose one of {', '.join(OUTCOMES)}")
    if f.outcome in ("win", "loss") and f.bot is None:
        raise FilterError(f"choose a bot to list its matches with outcome {f.outcome!r}")


def _filtered(f: HistoryFilter) -> Any:
    """The filtered ``(id, created_at)`` query, driven by its most selective table.

    With a bot, the query starts from that bot's seats (a few hundred rows through the index on
    ``match_seats.bot_version_id``) and leaves the game out (a bot plays one game; the caller
    checks it); otherwise it walks the ``(game, created_at, id)`` index newest first. The
    filter's values are bound parameters (``bot``, ``game``, ``tournament``, ``status``): the
    statement depends only on which filters are set, so it is built once per combination
    (see :func:`_keys_statement`).
    """
    if f.bot is not None:
        query = (
            select(Match.id, Match.created_at)
            .select_from(MatchSeat)
            .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
            .join(Match, Match.id == MatchSeat.match_id)
            .where(BotVersion.bot_id == bindparam("bot"))
        )
        if f.outcome == "win":
            query = query.where(MatchSeat.rank == 1, ~_shared_first(MatchSeat.seat))
        elif f.outcome == "draw":
            query = query.where(MatchSeat.rank == 1, _shared_first(MatchSeat.seat))
        elif f.outcome == "loss":
            query = query.where(MatchSeat.rank > 1)
        elif f.outcome == "forfeit":
            query = query.where(MatchSeat.forfeit.is_not(None))
        query = query.distinct()
    else:
        query = select(Match.id, Match.created_at)
        if f.game:
            query = query.where(Match.game == bindparam("game"))
        if f.outcome == "draw":
            query = query.where(_shared_first(None))
        elif f.outcome == "forfeit":
            # Walk the matches newest first, keeping those among the matches with a forfeited
            # seat: that set is read once from the small partial index
            # ix_match_seats_forfeit_match (index-only, ~10,000 ids at 1,000,000 matches) into
            # a hash table, and each match walked costs one hash probe. Probing the index per
            # match (a correlated subquery) cost ~5 buffer reads a match, ~5,000 matches a page;
            # reading every forfeited seat's match and sorting them took 1.5 s. Written as
            # ``(id NOT IN (…)) IS false`` — an ``IN`` the planner would turn into a join with
            # every forfeited seat; ids are never NULL, so it means "id is in the set".
            forfeited = select(MatchSeat.match_id).where(MatchSeat.forfeit.is_not(None))
            query = query.where(Match.id.not_in(forfeited).is_(False))
    if f.tournament is not None:
        query = query.where(Match.tournament_id == bindparam("tournament"))
    if f.status:
        # served in created_at order by ix_matches_status_created (0007_web)
        query = query.where(Match.status == bindparam("status"))
    return query


#: Built history statements by the filters set and the paging direction: composing one cost
#: ~1-2 ms of CPU per page view, more than running it.
_KEYS: dict[tuple, Any] = {}


def _keys_statement(f: HistoryFilter, direction: str | None) -> Any:
    """The page's ``(id, created_at)`` statement: ``direction`` is ``after`` (newer than the
    cursor, oldest first), ``before`` (older) or None (the newest); ``limit`` is bound too."""
    shape = (bool(f.game), f.bot is not None, f.outcome or None, f.tournament is not None,
             bool(f.status), direction)
    statement = _KEYS.get(shape)
    if statement is None:
        query = _filtered(f)
        at, mid = bindparam("at"), bindparam("mid")
        if direction == "after":
            query = query.where(
                or_(Match.created_at > at, and_(Match.created_at == at, Match.id > mid))
            ).order_by(Match.created_at, Match.id)
        else:
            if direction == "before":
                query = query.where(
                    or_(Match.created_at < at, and_(Match.created_at == at, Match.id < mid))
                )
            query = query.order_by(Match.created_at.desc(), Match.id.desc())
        statement = _KEYS[shape] = query.limit(bindparam("limit"))
    return statement


def _shared_first(my_seat: Any) -> Any:
    """Another seat of the match is ranked first too (with ``my_seat=None``: two seats are)."""
    a = aliased(MatchSeat)
    if my_seat is not None:
        return exists().where(a.match_id == Match.id, a.rank == 1, a.seat != my_seat)
    b = aliased(MatchSeat)
    return exists().where(
        a.match_id == Match.id, a.rank == 1, b.match_id == Match.id, b.rank == 1, b.seat > a.seat
    )


def history(
    session: Session,
    f: HistoryFilter,
    before: str | None = None,
    after: str | None = None,
    page_size: int = PAGE_SIZE,
) -> HistoryPage:
    """One page of matches, newest first, older than ``before`` or newer than ``after``."""
    if f.bot is not None and f.game:
        bot_game = session.scalar(_BOT_GAME, {"bot": f.bot})
        if bot_game != f.game:
            return HistoryPage([], None, None)
    _check(f)
    params: dict[str, Any] = {
        "bot": f.bot, "game": f.game, "tournament": f.tournament, "status": f.status,
        "limit": page_size + 1,
    }
    direction = "after" if after else "before" if before else None
    if direction is not None:
        params["at"], params["mid"] = decode_cursor(after or before or "")
    keys = session.execute(_keys_statement(f, direction), params).all()
    more = len(keys) > page_size
    keys = keys[:page_size]
    if after:
        keys.reverse()
    rows = match_rows(session, [k[0] for k in keys])
    if not rows:
        return HistoryPage([], None, None)
    first, last = rows[0], rows[-1]
    has_newer = more if after else bool(before)
    has_older = more if not after else True
    return HistoryPage(
        rows,
        newer=encode_cursor(first.created_at, first.id) if has_newer else None,
        older=encode_cursor(last.created_at, last.id) if has_older else None,
    )


def match_rows(session: Session, ids: list[str]) -> list[MatchRow]:
    """Matches with their seats, in the order of ``ids`` (two queries, whatever the count)."""
    if not ids:
        return []
    found = _load_rows(session, ids)
    for match_id, seat in _seat_briefs(session, ids):
        row = found.get(match_id)
        if row is not None:
            row.seats.append(seat)
    return [found[i] for i in ids if i in found]


_BOT_GAME = select(Bot.game).where(Bot.id == bindparam("bot"))
_ROWS = (
    select(
        Match.id,
        Match.game,
        Match.variant,
        Match.players,
        Match.kind,
        Match.status,
        Match.created_at,
        Match.finished_at,
        Match.tournament_id,
        Tournament.name,
        Match.round,
        Match.table,
    )
    .outerjoin(Tournament, Tournament.id == Match.tournament_id)
    .where(Match.id.in_(bindparam("ids", expanding=True)))
)
_SEATS = (
    select(
        MatchSeat.match_id,
        MatchSeat.seat,
        Bot.id,
        Bot.name,
        Bot.owner,
        BotVersion.number,
        MatchSeat.rank,
        MatchSeat.score,
        MatchSeat.forfeit,
    )
    .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
    .join(Bot, Bot.id == BotVersion.bot_id)
    .where(MatchSeat.match_id.in_(bindparam("ids", expanding=True)))
    .order_by(MatchSeat.match_id, MatchSeat.seat)
)


def _load_rows(session: Session, ids: list[str]) -> dict[str, MatchRow]:
    result = session.execute(_ROWS, {"ids": ids}).all()
    return {r[0]: MatchRow(*r) for r in result}


def _seat_briefs(session: Session, ids: list[str]) -> list[tuple[str, SeatBrief]]:
    rows = session.execute(_SEATS, {"ids": ids}).all()
    # Forfeit reasons in their current names (records made before the vocabulary was unified).
    return [(r[0], SeatBrief(*r[1:-1], canonical(r[-1]) or r[-1])) for r in rows]


@dataclass(frozen=True)
class SeatDetail:
    seat: int
    #: None (and ``version`` None): a random bot of a qualification match, no bot of the site
    bot_id: int | None
    bot_name: str
    owner: str
    version: int | None
    rank: int | None
    score: float | None
    forfeit: str | None
    forfeit_message: str
    mu_before: float | None
    sigma_before: float | None
    mu_after: float | None
    sigma_after: float | None
    decisions: int
    time_used_ms: float | None
    bank_left_ms: float | None

    @property
    def name(self) -> str:
        return self.bot_name if self.version is None else f"{self.bot_name} v{self.version}"


@dataclass
class MatchPage:
    id: str
    game: str
    variant: str
    players: int
    seed: int | None  # None until the match is over: seed + live ids would rebuild its hands
    kind: str
    status: str
    created_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    tournament_id: int | None
    tournament_name: str | None
    round: int
    table: int
    decision_ms: int | None
    bank_ms: int | None
    error: str | None
    seats: list[SeatDetail]
    record: dict[str, Any] | None
    result_details: dict[str, Any]
    #: Why the stored record is not shown (a compact record the current engine cannot replay
    #: as it was played: :class:`arena.records.stored.RecordUnavailable`); "" when it is.
    record_refused: str = ""


def match_page(session: Session, match_id: str, viewer: tuple[str, str] | None = None,
               replay: bool = True, walk: Any = None) -> MatchPage | None:
    """A match as the site shows it. ``viewer``: the signed-in (name, role), which a
    qualification match needs — its refusal's text is its author's and the organisers' only
    (:mod:`arena.intake.refusals`). ``replay`` False: the caller shows no replay and sends no
    record (the API's match), so ``record`` holds only its summary — seats, totals, forfeits,
    result, no decisions — and a compact record is not regenerated for it
    (:func:`arena.records.stored.record_summary`). ``walk``: a :class:`web.replay.Walk` that
    a compact record's regeneration, if this read makes one, fills for the replay viewer."""
    m = session.get(Match, match_id)
    if m is None:
        qualification = qualification_matches.find(session, match_id)
        if qualification is None:
            return None
        mine = viewer is not None and refusals.may_read(viewer[0], viewer[1], qualification.bot_owner)
        return qualification_page(qualification, mine)
    # The public page: bots' crash logs and stderr tails are never shown here (their owners
    # read them signed in, web/my_pages.py, or through the API); the fault reason and message are.
    refused = ""
    try:
        data = stored.record_data(m, walk) if replay else stored.record_summary(m)
    except stored.RecordUnavailable as exc:
        data, refused = None, str(exc)
    record = without_logs(data) if isinstance(data, dict) else None
    totals = {t.get("seat"): t for t in (record or {}).get("totals") or [] if isinstance(t, dict)}
    # The page shows the reason as a badge beside the message: the message alone, so that it
    # does not read "unreachable unreachable: ...".
    messages = {
        f.get("seat"): str(f.get("message") or "")
        for f in ((record or {}).get("forfeits") or m.forfeits or [])
        if isinstance(f, dict)
    }
    counts: dict[int, int] = {}
    for d in (record or {}).get("decisions") or []:
        if isinstance(d, dict) and not d.get("forced"):
            counts[d.get("seat", -1)] = counts.get(d.get("seat", -1), 0) + 1
    seats = []
    for s, bot_id, bot_name, owner, number in session.execute(
        select(MatchSeat, Bot.id, Bot.name, Bot.owner, BotVersion.number)
        .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(MatchSeat.match_id == match_id)
        .order_by(MatchSeat.seat)
    ).all():
        t = totals.get(s.seat, {})
        seats.append(
            SeatDetail(
                seat=s.seat,
                bot_id=bot_id,
                bot_name=bot_name,
                owner=owner,
                version=number,
                rank=s.rank,
                score=s.score,
                forfeit=canonical(s.forfeit) or s.forfeit,
                forfeit_message=messages.get(s.seat, "") if s.forfeit else "",
                mu_before=s.mu_before,
                sigma_before=s.sigma_before,
                mu_after=s.mu_after,
                sigma_after=s.sigma_after,
                decisions=int(t.get("decisions", counts.get(s.seat, 0))),
                time_used_ms=t.get("time_used_ms"),
                bank_left_ms=t.get("bank_left_ms"),
            )
        )
    tournament = session.get(Tournament, m.tournament_id) if m.tournament_id else None
    result = m.result if isinstance(m.result, dict) else {}
    return MatchPage(
        id=m.id,
        game=m.game,
        variant=m.variant,
        players=m.players,
        seed=m.seed if m.status in FINISHED else None,
        kind=m.kind,
        status=m.status,
        created_at=m.created_at,
        started_at=m.started_at,
        finished_at=m.finished_at,
        tournament_id=m.tournament_id,
        tournament_name=tournament.name if tournament else None,
        round=m.round,
        table=m.table,
        decision_ms=m.decision_ms,
        bank_ms=m.bank_ms,
        error=m.error,
        seats=seats,
        record=record,
        result_details=dict(result.get("details") or {}),
        record_refused=refused,
    )


def count_matches(session: Session, game: str | None = None, status: str | None = None) -> int:
    query = select(func.count()).select_from(Match)
    if game:
        query = query.where(Match.game == game)
    if status:
        query = query.where(Match.status == status)
    return int(session.scalar(query) or 0)


def qualification_page(q: qualification_matches.QualificationMatch, mine: bool = False) -> MatchPage:
    """A qualification match (kept in its submission, not in ``matches``) as a match page: the
    id ``arena submit`` prints opens it like any other. Random bots' seats have no bot page
    (``bot_id`` None); logs are left out as for every match on the site. The failure text (a
    forfeit's message, the server's error) only when ``mine`` (its author or an organiser is
    signed in); everyone else reads the reason word. The record, which replays are built and
    cached from, never carries it (:func:`arena.intake.refusals.public_record`)."""
    record = refusals.public_record(q.record) if q.record is not None else None
    totals = {t.get("seat"): t for t in (record or {}).get("totals") or [] if isinstance(t, dict)}
    seats = [
        SeatDetail(
            seat=s.seat,
            bot_id=s.bot_id,
            bot_name=s.name,
            owner=s.owner,
            version=s.version,
            rank=s.rank,
            score=s.score,
            forfeit=canonical(s.forfeit) or s.forfeit,
            forfeit_message=s.forfeit_message if mine else "",
            mu_before=None,
            sigma_before=None,
            mu_after=None,
            sigma_after=None,
            decisions=int(totals.get(s.seat, {}).get("decisions", 0)),
            time_used_ms=totals.get(s.seat, {}).get("time_used_ms"),
            bank_left_ms=totals.get(s.seat, {}).get("bank_left_ms"),
        )
        for s in q.seats
    ]
    result = (record or {}).get("result") or {}
    tc = (record or {}).get("time_control") or {}
    return MatchPage(
        id=q.id,
        game=q.game,
        variant=q.variant,
        players=q.players,
        seed=(record or {}).get("seed"),
        kind=qualification_matches.KIND,
        status=q.status,
        created_at=q.created_at,
        started_at=None,
        finished_at=q.finished_at,
        tournament_id=None,
        tournament_name=None,
        round=0,
        table=0,
        decision_ms=tc.get("decision_ms"),
        bank_ms=tc.get("bank_ms"),
        error=((f"{q.refusal_kind}: {q.error}" if q.refusal_kind else q.error) if mine
               else (q.refusal_kind or "server_error")) if q.error else None,
        seats=seats,
        record=record,
        result_details=dict(result.get("details") or {}) if isinstance(result, dict) else {},
    )
