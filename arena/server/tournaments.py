"""Tournament and ladder calls: thin wrappers over the platform's scheduling (arena.workers.tasks,
arena.competition.ladder), plus the progress figures clients poll."""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from arena.competition import ladder, lifecycle
from arena.competition import tournaments as arena_tournaments
from arena.competition.round_robin import ScheduleError
from arena.competition.swiss import fraction_text
from arena.db import Ladder, Match, Tournament, TournamentRound, session_scope, utcnow
from arena.db.accounts import ROLE_ORGANISER, User
from arena.intake import authors, bots, house
from arena.play import events
from arena.server import convert
from arena.server.errors import ApiError, invalid, not_found
from arena.server.submissions import check_game, get_bot
from arena.workers import tasks
from referee._proto import arena_pb2 as pb

log = logging.getLogger("arena.server.tournaments")


def _match_counts(session: Session, *where: ColumnElement[bool]) -> dict[str, int]:
    """Matches by status among those matching ``where``."""
    return dict(session.execute(select(Match.status, func.count()).where(*where).group_by(Match.status)).all())


def tournament_message(session: Session, t: Tournament, detail: bool = False) -> pb.Tournament:
    """A tournament as the API shows it; ``detail`` adds a Swiss's standings and rounds (one
    tournament's call, not a list's)."""
    counts = _match_counts(session, Match.tournament_id == t.id)
    progress = t.progress()
    eta = progress.get("eta_seconds")
    swiss = t.format == "swiss"
    message = pb.Tournament(
        id=t.id, name=t.name, game=t.game, variant=t.variant, kind=t.format, status=t.status,
        players=t.players, rounds=t.rounds, matches_total=t.matches_total,
        matches_done=counts.get("done", 0), matches_running=counts.get("running", 0),
        matches_failed=counts.get("failed", 0), eta_seconds=-1.0 if eta is None else float(eta),
        created_at=convert.timestamp(t.created_at),
        bot_ids=sorted({e.version.bot_id for e in t.entries}),
        tournament_kind=pb.TOURNAMENT_KIND_SWISS if swiss else pb.TOURNAMENT_KIND_ROUND_ROBIN,
        tournament_status=convert.enum_of(pb.TournamentStatus, "TOURNAMENT_STATUS_", t.status),
        create_time=convert.time_of(t.created_at),
        live_comments=bool(t.live_comments),
        entries_open=bool(t.entries_open), round_deadline_seconds=t.round_deadline_s or 0,
        organiser=t.organiser or "",
    )
    if detail:
        for e in t.entries:
            message.entries.add(
                bot_id=e.version.bot_id, bot_version_id=e.bot_version_id, label=e.version.label,
                first_round=e.joined_round + 1, withdrawn=e.withdrawn_at is not None,
                withdrawn_reason=e.withdrawn_reason or "", withdrawn_by=e.withdrawn_by or "",
                withdraw_time=convert.time_of(e.withdrawn_at))
    if swiss and detail:
        _add_swiss(session, t, message)
    return message


def _add_swiss(session: Session, t: Tournament, message: pb.Tournament) -> None:
    bot_of = {e.bot_version_id: e.version.bot_id for e in t.entries}
    for r in arena_tournaments.swiss_standings(session, t):
        message.swiss_standings.add(
            place=r.place, bot_id=bot_of[r.version_id], bot_version_id=r.version_id, label=r.label,
            score=float(r.score), buchholz=float(r.buchholz), rating=r.rating, games=r.games, byes=r.byes,
            score_exact=fraction_text(r.score), buchholz_exact=fraction_text(r.buchholz),
            sonneborn_berger_exact=fraction_text(r.sonneborn_berger), direct_exact=fraction_text(r.direct),
            decided_by=r.decided_by)
    tables: dict[int, list[int]] = {}
    for round_no, status, count in session.execute(
        select(Match.round, Match.status, func.count()).where(Match.tournament_id == t.id)
        .group_by(Match.round, Match.status)
    ):
        entry = tables.setdefault(round_no, [0, 0])
        entry[0] += count
        entry[1] += count if status in ("done", "failed") else 0
    for r in session.scalars(select(TournamentRound).where(TournamentRound.tournament_id == t.id)
                             .order_by(TournamentRound.round)):
        total, finished = tables.get(r.round, [0, 0])
        message.swiss_rounds.add(number=r.round + 1, tables=total, tables_finished=finished,
                                 bye_version_ids=list(r.byes or []), repeats=r.repeats)


def get_tournament(url: str | None, tournament_id: int) -> pb.Tournament:
    with session_scope(url) as s:
        t = s.get(Tournament, tournament_id)
        if t is None:
            raise not_found(f"no tournament with id {tournament_id}")
        return tournament_message(s, t, detail=True)


def list_tournaments(url: str | None, request: pb.ListTournamentsRequest) -> pb.ListTournamentsReply:
    """One page of tournaments, newest first."""
    offset, size = convert.offset_page(request.page_size, request.page_token, 50, 500)
    with session_scope(url) as s:
        query = select(Tournament).order_by(Tournament.id.desc())
        if request.game:
            query = query.where(Tournament.game == check_game(request.game))
        rows = s.scalars(query.offset(offset).limit(size + 1)).all()
        return pb.ListTournamentsReply(tournaments=[tournament_message(s, t) for t in rows[:size]],
                                       next_page_token=convert.next_offset_token(offset, size, len(rows)))


def ladder_message(session: Session, ladder: Ladder | None, game: str) -> pb.Ladder:
    counts = _match_counts(session, Match.game == game, Match.kind == "ladder")
    return pb.Ladder(
        game=game, variant=ladder.variant if ladder else "", enabled=bool(ladder and ladder.enabled),
        matches_pending=counts.get("pending", 0), matches_running=counts.get("running", 0),
        matches_done=counts.get("done", 0), matches_failed=counts.get("failed", 0),
        house_bots=house.active_house_bots(session, game),
    )


def get_ladder(url: str | None, game: str) -> pb.Ladder:
    check_game(game)
    with session_scope(url) as s:
        return ladder_message(s, s.get(Ladder, game), game)


def _time_control(decision_ms: int, bank_ms: int) -> tuple[int | None, int | None]:
    if bool(decision_ms) != bool(bank_ms) and not decision_ms:
        raise invalid("bank_ms given without decision_ms")
    return (decision_ms or None), (bank_ms if decision_ms else None)


MAX_ROUNDS = 100


def _entrants(session: Session, game: str, bot_ids: list[int],
              per_author: int = authors.DEFAULT_ENTRIES_PER_AUTHOR) -> tuple[list[int], str]:
    """The playing version of each bot, and a notice. With no bot named: every active bot of the
    game, but of each author (:mod:`arena.intake.authors`) only the ``per_author`` best-rated, and the
    notice says how many were left out."""
    if not bot_ids:
        every = [v.id for v in bots.latest_versions(session, game)]
        keep, left = authors.keep_per_author(session, every, per_author,
                                             arena_tournaments._ratings(session, game, every))
        notice = (f"{len(left)} bot(s) left out: {per_author} entr{'y' if per_author == 1 else 'ies'} per "
                  "author, each author's best-rated bots play" if left else "")
        return keep, notice
    if len(set(bot_ids)) != len(bot_ids):
        raise invalid("a bot is named twice in bot_ids")
    version_ids = []
    for bot_id in bot_ids:
        bot = get_bot(session, bot_id)
        if bot.game != game:
            raise invalid(f"bot {bot_id} ({bot.name!r}) plays {bot.game}, not {game}")
        version = bot.playing_version
        if not bot.active or version is None:
            raise invalid(f"bot {bot_id} ({bot.name!r}) has no active qualified version")
        if version.kind == "automaton":
            raise invalid(f"bot {bot_id} ({bot.name!r}) is a solo automaton: rated in solo games, never seated")
        version_ids.append(version.id)
    return version_ids, ""


def create_round_robin(url: str | None, request: pb.CreateTournamentRequest, sandbox: bool,
                       entries_per_author: int = authors.DEFAULT_ENTRIES_PER_AUTHOR,
                       organiser: str | None = None) -> pb.Tournament:
    """CreateTournament: a round-robin, or a Swiss when ``format`` says so; with
    ``open_entries``, an event opened for entries (arena.play.events)."""
    check_game(request.game)
    if request.players < 2:
        raise invalid("players (seats per table) must be at least 2")
    formats = {pb.TOURNAMENT_KIND_UNSPECIFIED: "round_robin", pb.TOURNAMENT_KIND_ROUND_ROBIN: "round_robin",
               pb.TOURNAMENT_KIND_SWISS: "swiss"}
    if request.format not in formats:
        raise invalid(f"unknown tournament format {request.format}")
    rounds = request.rounds or 1
    if rounds > MAX_ROUNDS:
        raise invalid(f"rounds must be at most {MAX_ROUNDS}")
    decision_ms, bank_ms = _time_control(request.decision_ms, request.bank_ms)
    if request.open_entries:
        with session_scope(url) as s:
            version_ids = _entrants(s, request.game, list(request.bot_ids), entries_per_author)[0] \
                if request.bot_ids else []
        with lifecycle_errors():
            tid, _ = events.create(
                url, events.Actor(organiser or lifecycle.OPERATOR, ROLE_ORGANISER), game=request.game,
                players=request.players, rounds=rounds, variant=request.variant or None,
                format=formats[request.format], version_ids=version_ids, decision_ms=decision_ms,
                bank_ms=bank_ms, live_comments=request.live_comments, open_entries=True,
                round_deadline_s=request.round_deadline_seconds or None, name=request.name,
                entries_per_author=entries_per_author, sandbox=sandbox, seed=secrets.randbits(31))
        return get_tournament(url, tid)
    with session_scope(url) as s:
        version_ids, entry_notice = _entrants(s, request.game, list(request.bot_ids), entries_per_author)
        if len(version_ids) < request.players:
            raise ApiError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"{request.players}-seat tables need at least {request.players} bots with an active version; "
                f"{len(version_ids)} available",
            )
        try:
            t = arena_tournaments.create_tournament(
                s, request.game, version_ids, request.players, rounds=rounds,
                variant=request.variant or None, seed=secrets.randbits(31),
                decision_ms=decision_ms, bank_ms=bank_ms, sandbox=sandbox,
                name=request.name[:200], live_comments=request.live_comments,
                format=formats[request.format], entries_per_author=entries_per_author,
                organiser=organiser, round_deadline_s=request.round_deadline_seconds or None,
            )
        except ScheduleError as exc:
            raise invalid(str(exc)) from None
        tournament_id = t.id
    notice = entry_notice
    try:
        tasks.schedule_tournament.delay(tournament_id)
    except Exception as exc:  # noqa: BLE001 - kombu's connection errors vary by transport
        # Stored and committed: the sweeper (beat) starts a tournament left `scheduled`, so the
        # call succeeded; only the start is late.
        log.warning("tournament %s stored; its start message could not be sent: %s", tournament_id, exc)
        pending = (f"start pending: the broker cannot be reached now ({' '.join(str(exc).split())[:200]}); "
                   "the tournament is stored and the sweeper starts it once the broker is back")
        notice = f"{notice}; {pending}" if notice else pending
    reply = get_tournament(url, tournament_id)
    reply.notice = notice
    return reply


def start_ladder(url: str | None, request: pb.StartLadderRequest, sandbox: bool) -> pb.Ladder:
    check_game(request.game)
    decision_ms, bank_ms = _time_control(request.decision_ms, request.bank_ms)
    with session_scope(url) as s:
        ladder.ensure_ladder(
            s, request.game, request.variant or None, decision_ms=decision_ms, bank_ms=bank_ms, sandbox=sandbox,
            # Anchored by the house bots unless the request says house=false.
            house=request.house if request.HasField("house") else True,
        )
    try:
        tasks.ladder_tick.delay(request.game)
    except Exception as exc:  # noqa: BLE001 - stored: beat's next ladder tick fills its queue
        log.warning("ladder %s enabled; its first tick could not be sent: %s", request.game, exc)
    return get_ladder(url, request.game)


def stop_ladder(url: str | None, game: str) -> pb.Ladder:
    check_game(game)
    with session_scope(url) as s:
        row = s.get(Ladder, game)
        if row is None or not row.enabled:
            raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, f"no ladder is running for {game}")
        row.enabled = False
        row.updated_at = utcnow()
    return get_ladder(url, game)


# --- an event's lifecycle (arena.play.events) ---------------------------------------------------


@contextmanager
def lifecycle_errors() -> Iterator[None]:
    """A refused step as the API says it: PERMISSION_DENIED for who may not, NOT_FOUND for no
    such event, FAILED_PRECONDITION for a step the event's state does not allow."""
    try:
        yield
    except lifecycle.Forbidden as exc:
        raise ApiError(grpc.StatusCode.PERMISSION_DENIED, str(exc)) from None
    except events.EventNotFound as exc:
        raise not_found(str(exc)) from None
    except lifecycle.LifecycleError as exc:
        raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, str(exc)) from None


def _id(tournament_id: int) -> int:
    if tournament_id <= 0:
        raise invalid("tournament_id must be a positive tournament id")
    return tournament_id


def event_step(url: str | None, user: User, request: object) -> pb.Tournament:
    """One lifecycle call (StartTournament ... CorrectResult) by ``user``; the event after it."""
    actor = events.Actor(user.name, user.role)
    tid = _id(request.tournament_id)  # type: ignore[attr-defined]
    notice = ""
    with lifecycle_errors():
        if isinstance(request, pb.StartTournamentRequest):
            notice = events.start(url, tid, actor)
        elif isinstance(request, pb.SetTournamentEntriesRequest):
            events.set_entries(url, tid, request.open, actor, request.reason)
        elif isinstance(request, pb.EnterTournamentRequest):
            events.enter(url, tid, request.bot_id, actor)
        elif isinstance(request, pb.WithdrawEntryRequest):
            events.withdraw(url, tid, request.bot_id, actor, request.reason)
        elif isinstance(request, pb.PauseTournamentRequest):
            events.pause(url, tid, actor, request.reason)
        elif isinstance(request, pb.ResumeTournamentRequest):
            events.resume(url, tid, actor, request.reason)
        elif isinstance(request, pb.SetRoundDeadlineRequest):
            events.set_deadline(url, tid, request.seconds or None, actor)
        elif isinstance(request, pb.CorrectResultRequest):
            events.correct(url, tid, request.match_id, list(request.ranks), actor, request.reason)
        else:  # pragma: no cover - the servicer sends only the calls above
            raise TypeError(type(request).__name__)
    reply = get_tournament(url, tid)
    reply.notice = notice
    return reply


def list_audit(url: str | None, tournament_id: int) -> pb.ListTournamentAuditReply:
    with session_scope(url) as s:
        t = s.get(Tournament, _id(tournament_id))
        if t is None:
            raise not_found(f"no tournament with id {tournament_id}")
        return pb.ListTournamentAuditReply(entries=[
            pb.TournamentAuditEntry(time=convert.time_of(a.at), actor=a.actor, action=a.action,
                                    match_id=a.match_id or "", reason=a.reason or "",
                                    detail_json=json.dumps(a.detail) if a.detail else "")
            for a in lifecycle.audit_log(s, t)])
