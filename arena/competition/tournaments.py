"""Tournaments in the database (round-robin and Swiss), standings and leaderboards.

A round-robin's matches are all created up front from :func:`arena.competition.round_robin.round_robin`, so
progress is simply finished/total (``tournaments.matches_done``/``matches_total``) and an
interrupted tournament resumes by playing whatever is still pending.

A Swiss tournament (``format="swiss"``) knows its size up front too — ``rounds`` rounds of
``N // k`` tables, so ``matches_total`` and progress work the same — but pairs one round at a
time (:mod:`arena.competition.swiss`): round 1 at creation (standing = current rating), each later round
by :func:`pair_next_round` once every match of the round before is done or failed. The task
that records a round's last result calls it (:mod:`arena.workers.tasks`), and so does every sweep (a
worker killed between the two); the round's ``tournament_rounds`` row, inserted with its
matches in one transaction, makes sure a round is paired once however many callers race.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.competition import round_robin as schedule
from arena.competition import swiss
from arena.db import session_scope
from arena.db.accounts import REFUSED, Submission
from arena.db.models import (
    Bot,
    BotVersion,
    Match,
    MatchSeat,
    Rating,
    Tournament,
    TournamentAudit,
    TournamentEntry,
    TournamentRound,
    utcnow,
)
from arena.evaluation import ratings
from arena.intake import authors
from arena.records import recording
from referee import registry
from referee.rng import match_seed

log = logging.getLogger(__name__)

FORMATS = ("round_robin", "swiss")


def create_tournament(
    session: Session,
    game: str,
    version_ids: list[int],
    players: int,
    rounds: int = 1,
    variant: str | None = None,
    seed: int = 0,  # the schedule's (seating order); match seeds are secret
    decision_ms: int | None = None,
    bank_ms: int | None = None,
    sandbox: bool = True,
    name: str = "",
    live_comments: bool = False,
    format: str = "round_robin",  # noqa: A002 - the CLI's and API's word
    entries_per_author: int = authors.DEFAULT_ENTRIES_PER_AUTHOR,
    open_entries: bool = False,
    organiser: str | None = None,
    round_deadline_s: int | None = None,
) -> Tournament:
    """Create the tournament with its matches (pending): all of them for a round-robin, the
    first round for a Swiss. Flushes; the caller commits. More than ``entries_per_author``
    entries of one author is refused (:mod:`arena.intake.authors`); where more than one is allowed, a
    table seating two of them is created unrated.

    ``open_entries``: the event opens for entries instead (status ``open``, no match yet; the
    given versions are its first entrants); :func:`arena.competition.lifecycle.start` schedules it."""
    spec = registry.get_spec(game)
    variant = spec.check(players, variant)
    if format not in FORMATS:
        raise schedule.ScheduleError(f"unknown tournament format {format!r} (one of {', '.join(FORMATS)})")
    if rounds < 1:
        raise schedule.ScheduleError("the number of rounds must be at least 1")
    if round_deadline_s is not None and round_deadline_s < 1:
        raise schedule.ScheduleError("the round deadline must be at least one second")
    tournament = Tournament(
        name=name or f"{game} {'Swiss' if format == 'swiss' else 'round-robin'}",
        game=game,
        variant=variant,
        players=players,
        rounds=rounds,
        format=format,
        seed=seed,
        status="open" if open_entries else "scheduled",
        matches_total=0,
        matches_done=0,
        live_comments=live_comments,
        entries_per_author=entries_per_author,
        entries_open=open_entries,
        organiser=organiser,
        round_deadline_s=round_deadline_s,
        decision_ms=decision_ms,
        bank_ms=bank_ms,
        sandbox=sandbox,
    )
    if open_entries:
        _check_field(session, version_ids, entries_per_author)
        session.add(tournament)
        session.flush()
        for pos, vid in enumerate(version_ids):
            session.add(TournamentEntry(tournament_id=tournament.id, bot_version_id=vid, position=pos))
        session.flush()
        return tournament
    with session.begin_nested():  # a refused field leaves nothing behind in the caller's session
        session.add(tournament)
        session.flush()
        for pos, vid in enumerate(version_ids):
            session.add(TournamentEntry(tournament_id=tournament.id, bot_version_id=vid, position=pos))
        schedule_matches(session, tournament, version_ids)
    return tournament


def _check_field(session: Session, version_ids: list[int], entries_per_author: int) -> None:
    if len(set(version_ids)) != len(version_ids):
        raise schedule.ScheduleError("each bot version may enter a tournament once")
    try:
        authors.check_entries(session, version_ids, entries_per_author)
    except authors.AuthorRuleError as exc:
        raise schedule.ScheduleError(str(exc)) from None


def schedule_matches(session: Session, tournament: Tournament, version_ids: list[int]) -> None:
    """Create the matches of a tournament whose entries are ``version_ids`` (status
    ``scheduled``): every round-robin match, or a Swiss's first round. Flushes."""
    _check_field(session, version_ids, tournament.entries_per_author)
    game, variant, rounds, players = tournament.game, tournament.variant, tournament.rounds, tournament.players
    decision_ms, bank_ms, sandbox = tournament.decision_ms, tournament.bank_ms, tournament.sandbox
    owners = authors.owners_of(session, version_ids)
    if tournament.format == "swiss":
        check_swiss(len(version_ids), players, rounds)
        tables: list[schedule.Table] = []
        tournament.matches_total = rounds * (len(version_ids) // players)
    else:
        tables = schedule.round_robin(len(version_ids), players, rounds, tournament.seed)
        tournament.matches_total = len(tables)
    if tournament.format == "swiss":
        session.flush()
        _pair_round(session, tournament, 0, version_ids, decision_ms, bank_ms, sandbox)
        session.flush()
        return
    for table in tables:
        seated = [version_ids[i] for i in table.seats]
        recording.create_match(
            session,
            game,
            variant,
            seated,
            seed=match_seed(),
            kind="tournament",
            tournament_id=tournament.id,
            round_no=table.round,
            table_no=table.index,
            decision_ms=decision_ms,
            bank_ms=bank_ms,
            sandbox=sandbox,
            rated=not authors.repeated_authors(owners.get(v) for v in seated),
        )
    session.flush()


def check_swiss(n: int, players: int, rounds: int) -> None:
    """Refuse a Swiss that cannot be played (a user mistake, said plainly)."""
    if not 2 <= players <= 5:
        raise schedule.ScheduleError("Swiss tables have 2 to 5 seats")
    if n < players:
        raise schedule.ScheduleError(f"{players}-seat tables need at least {players} bots; got {n}")
    if rounds < 1:
        raise schedule.ScheduleError("the number of rounds must be at least 1")


def swiss_promise(n: int, players: int, rounds: int) -> str:
    """What a Swiss of this shape guarantees, for the command to say before it starts."""
    free = swiss.repeat_free_rounds(n, players)
    byes = n % players
    parts = [f"{n // players} table(s) a round"]
    parts.append(f"{byes} bye(s) a round, at most one per bot" if byes and rounds * byes <= n
                 else f"{byes} bye(s) a round, spread evenly" if byes else "no byes")
    parts.append("no pair meets twice" if rounds <= free
                 else f"no pair meets twice in the first {free} round(s); later rounds avoid repeats "
                      "wherever the pairing search finds a way")
    parts.append("each bot's seats differ by at most one")
    return "; ".join(parts)


def _pair_round(
    session: Session, tournament: Tournament, round_no: int, version_ids: list[int] | None = None,
    decision_ms: int | None = None, bank_ms: int | None = None, sandbox: bool | None = None,
) -> list[str] | None:
    """Pair round ``round_no`` of a Swiss and create its matches in the session's transaction.
    None when the round's row exists already (another caller paired it)."""
    entrants = version_ids or [e.bot_version_id for e in tournament.entries]
    # Withdrawn entries are never paired again, late ones from the round they joined
    # (arena.competition.lifecycle); everyone's games so far count in the standings.
    active = set(version_ids or [e.bot_version_id for e in tournament.entries
                                 if e.withdrawn_at is None and e.joined_round <= round_no])
    history, games, byes = _swiss_history(session, tournament, entrants)
    owners = authors.owners_of(session, entrants)
    _as_met(history, entrants, owners)
    rows = [r for r in swiss.standings(entrants, games, byes, _ratings(session, tournament.game, entrants))
            if r.bot in active]
    if round_no == 0:  # nothing played: seed by rating, the best first
        rows = sorted(rows, key=lambda r: (-r.rating, entrants.index(r.bot)))
    pairing = swiss.pair_round(swiss.standing_order(rows), tournament.players, history,
                               seed=tournament.seed * 1009 + round_no, scores={r.bot: r.score for r in rows})
    try:
        with session.begin_nested():
            session.add(TournamentRound(tournament_id=tournament.id, round=round_no,
                                        byes=list(pairing.byes), repeats=pairing.repeats))
    except IntegrityError:
        return None
    if decision_ms is None and sandbox is None:  # later rounds: the settings of round 1
        first = session.scalar(select(Match).where(Match.tournament_id == tournament.id).limit(1))
        if first is not None:
            decision_ms, bank_ms, sandbox = first.decision_ms, first.bank_ms, first.sandbox
        else:
            decision_ms, bank_ms, sandbox = tournament.decision_ms, tournament.bank_ms, tournament.sandbox
    if round_no > 0:  # withdrawals and late entries change the size of the rounds left
        so_far = session.scalar(select(func.count()).select_from(Match).where(Match.tournament_id == tournament.id))
        tournament.matches_total = (so_far + len(pairing.tables)
                                    + (tournament.rounds - round_no - 1) * (len(active) // tournament.players))
    ids = []
    for index, table in enumerate(pairing.tables):
        match = recording.create_match(
            session, tournament.game, tournament.variant, list(table), seed=match_seed(),
            kind="tournament", tournament_id=tournament.id, round_no=round_no, table_no=index,
            decision_ms=decision_ms, bank_ms=bank_ms, sandbox=True if sandbox is None else sandbox,
            rated=not authors.repeated_authors(owners.get(v) for v in table),
        )
        ids.append(match.id)
    return ids


def _as_met(history: swiss.History, entrants: list[int], owners: dict[int, str]) -> None:
    """Count every two entries of one author as having met already, so the pairing keeps them
    apart as it keeps apart a pair that met (while the field allows; a table that still seats
    them is created unrated)."""
    by_author: dict[str, list[int]] = {}
    for vid in entrants:
        author = authors.author_of(owners.get(vid))
        if author is not None:
            by_author.setdefault(author, []).append(vid)
    for same in by_author.values():
        for i, a in enumerate(same):
            for b in same[i + 1:]:
                history.met[a][b] += 1
                history.met[b][a] += 1


def _ratings(session: Session, game: str, version_ids: list[int]) -> dict[int, float]:
    rows = session.execute(
        select(Rating.bot_version_id, Rating.mu, Rating.sigma)
        .where(Rating.game == game, Rating.bot_version_id.in_(version_ids))
    ).all()
    return {vid: ratings.conservative(mu, sigma) for vid, mu, sigma in rows}


def _swiss_history(
    session: Session, tournament: Tournament, entrants: list[int]
) -> tuple[swiss.History, list[swiss.Game], list[int]]:
    """Meetings, seats, byes and results of the rounds paired so far."""
    history = swiss.History(tournament.players)
    seats: dict[str, dict[int, tuple[int, int | None]]] = {}
    status: dict[str, str] = {}
    for mid, st, seat, vid, rank in session.execute(
        select(Match.id, Match.status, MatchSeat.seat, MatchSeat.bot_version_id, MatchSeat.rank)
        .join(MatchSeat, MatchSeat.match_id == Match.id)
        .where(Match.tournament_id == tournament.id)
    ):
        seats.setdefault(mid, {})[seat] = (vid, rank)
        status[mid] = st
    games = []
    for mid, by_seat in seats.items():
        bots = tuple(by_seat[s][0] for s in sorted(by_seat))
        history.add_table(bots)
        if status[mid] == "done":
            games.append(swiss.Game(bots, tuple(by_seat[s][1] for s in sorted(by_seat))))
        elif status[mid] == "failed":
            games.append(swiss.Game(bots, None))
    byes = []
    for (round_byes,) in session.execute(
        select(TournamentRound.byes).where(TournamentRound.tournament_id == tournament.id)
    ):
        for vid in round_byes or []:
            history.add_bye(vid)
            byes.append(vid)
    return history, games, byes


def unfit_entries(session: Session, t: Tournament) -> list[tuple[int, str]]:
    """Active entries that must withdraw, with why: the bot was deactivated, or its newest
    submission, made after the entered version, was refused qualification. Two queries whatever
    the field's size (it runs at every pairing and deadline sweep)."""
    rows = session.execute(
        select(TournamentEntry.bot_version_id, BotVersion.number, Bot.id.label("bot_id"), Bot.name, Bot.active)
        .join(BotVersion, BotVersion.id == TournamentEntry.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(TournamentEntry.tournament_id == t.id, TournamentEntry.withdrawn_at.is_(None))).all()
    if not rows:
        return []
    newest = (select(Submission.bot_id, func.max(Submission.number).label("number"))
              .where(Submission.bot_id.in_([r.bot_id for r in rows])).group_by(Submission.bot_id).subquery())
    refused = dict(session.execute(
        select(Submission.bot_id, Submission.number)
        .join(newest, (newest.c.bot_id == Submission.bot_id) & (newest.c.number == Submission.number))
        .where(Submission.status == REFUSED)).all())
    unfit = []
    for r in rows:
        if not r.active:
            unfit.append((r.bot_version_id, f"{r.name} was deactivated"))
        elif refused.get(r.bot_id, 0) > r.number:
            unfit.append((r.bot_version_id, f"{r.name}'s newest submission (v{refused[r.bot_id]}) failed qualification"))
    return unfit


def _withdraw_unfit_between_rounds(session: Session, t: Tournament) -> None:
    """Before a Swiss pairs its next round: withdraw the unfit entries (arena.competition.lifecycle
    says the rule; between rounds no match of theirs is left to forfeit)."""
    now = utcnow()
    by_version = {e.bot_version_id: e for e in t.entries}
    for vid, why in unfit_entries(session, t):
        entry = by_version[vid]
        entry.withdrawn_at, entry.withdrawn_by, entry.withdrawn_reason = now, "system", why
        session.add(TournamentAudit(tournament_id=t.id, at=now, actor="system", action="withdraw", reason=why,
                                    detail={"version_id": vid}))
    session.flush()


def pair_next_round(tournament_id: int) -> list[str]:
    """Pair the next round of a running Swiss when every match of its last round is finished;
    the new matches' ids (to enqueue), or [] (not Swiss, not finished, no rounds left, or
    another caller paired it first). Its own transaction; safe to call from any number of
    workers at once."""
    with session_scope() as s:
        t = s.get(Tournament, tournament_id)
        if t is None or t.format != "swiss" or t.status != "running":
            return []
        last = s.scalar(select(func.max(TournamentRound.round)).where(TournamentRound.tournament_id == t.id))
        if last is None or last + 1 >= t.rounds:
            return []
        unfinished = s.scalar(select(func.count()).select_from(Match).where(
            Match.tournament_id == t.id, Match.round == last, Match.status.not_in(("done", "failed"))))
        if unfinished:
            return []
        _withdraw_unfit_between_rounds(s, t)
        active = sum(1 for e in t.entries if e.withdrawn_at is None)
        if active < t.players:  # withdrawals left too few to seat a table: the event ends here
            done = s.scalar(select(func.count()).select_from(Match).where(Match.tournament_id == t.id))
            t.matches_total = done
            t.status, t.finished_at = "done", utcnow()
            log.info("tournament %s ended after round %d: %d active entries for %d seats",
                     tournament_id, last + 1, active, t.players)
            return []
        ids = _pair_round(s, t, last + 1)
        if ids is None:
            s.rollback()
            return []
    log.info("tournament %s: round %d paired (%d tables)", tournament_id, last + 2, len(ids))
    return ids


def stalled_swiss(tournament_id: int | None = None) -> list[int]:
    """Running Swiss tournaments (or just ``tournament_id``) with no match left to play but
    rounds left to pair: a worker died between recording a round's last result and pairing."""
    with session_scope() as s:
        query = select(Tournament.id).where(Tournament.format == "swiss", Tournament.status == "running")
        if tournament_id is not None:
            query = query.where(Tournament.id == tournament_id)
        candidates = list(s.scalars(query))
        stalled = []
        for tid in candidates:
            open_matches = s.scalar(select(func.count()).select_from(Match).where(
                Match.tournament_id == tid, Match.status.in_(("pending", "running"))))
            if not open_matches:
                stalled.append(tid)
    return stalled


@dataclass(frozen=True)
class SwissRow:
    """One line of a Swiss tournament's standings; points and tie-break sums exact."""

    place: int
    version_id: int
    label: str
    score: Fraction
    buchholz: Fraction
    sonneborn_berger: Fraction
    direct: Fraction
    rating: float
    games: int
    byes: int
    #: The first tie-break that put this line below the one above ("" when shared or first).
    decided_by: str = ""


def swiss_standings(session: Session, tournament: Tournament) -> list[SwissRow]:
    """The standings of a Swiss so far (score, Buchholz, Sonneborn-Berger, direct encounter,
    rating; see :mod:`arena.competition.swiss`)."""
    entrants = [e.bot_version_id for e in tournament.entries]
    _history, games, byes = _swiss_history(session, tournament, entrants)
    rows = swiss.standings(entrants, games, byes, _ratings(session, tournament.game, entrants))
    labels = {vid: f"{name} v{number}" for vid, name, number in session.execute(
        select(BotVersion.id, Bot.name, BotVersion.number)
        .join(Bot, Bot.id == BotVersion.bot_id).where(BotVersion.id.in_(entrants))
    )}
    return [SwissRow(r.place, r.bot, labels.get(r.bot, str(r.bot)), r.score, r.buchholz, r.sonneborn_berger,
                     r.direct, r.rating, r.games, r.byes, r.decided_by) for r in rows]


def format_swiss_standings(rows: list[SwissRow]) -> str:
    """The CLI's table: points and tie-breaks written by :func:`arena.competition.swiss.points_text`,
    the same digits as the website and the exports."""
    head = (f"{'#':>3}  {'bot':<28} {'score':>6} {'buchholz':>8} {'s-b':>7} {'direct':>6} {'mu-3σ':>7} "
            f"{'games':>5} {'byes':>4}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r.place:>3}  {r.label[:28]:<28} {swiss.points_text(r.score):>6} "
                     f"{swiss.points_text(r.buchholz):>8} {swiss.points_text(r.sonneborn_berger):>7} "
                     f"{swiss.points_text(r.direct, 1):>6} {r.rating:>7.2f} {r.games:>5} {r.byes:>4}")
    return "\n".join(lines)


def start(session: Session, tournament: Tournament) -> None:
    if tournament.status == "scheduled":
        tournament.status = "running"
        tournament.started_at = utcnow()


def start_if_scheduled(tournament_id: int) -> bool:
    """Move the tournament from ``scheduled`` to ``running`` in one conditional UPDATE (its own
    transaction). True only for the one caller that made the move, so the start message and
    the sweeper never both enqueue its matches."""
    with session_scope() as s:
        moved = s.execute(
            update(Tournament)
            .where(Tournament.id == tournament_id, Tournament.status == "scheduled")
            .values(status="running", started_at=utcnow())
            .execution_options(synchronize_session=False)
        ).rowcount
    return bool(moved)


@dataclass(frozen=True)
class LeaderRow:
    """One leaderboard line (sorted by ``conservative`` = mu − 3·sigma)."""

    place: int
    version_id: int
    label: str
    owner: str
    mu: float
    sigma: float
    conservative: float
    games: int
    distinct_opponents: int
    opponent_spread: float
    provisional: bool
    #: A house bot or automaton, an anchor of the scale (arena.evaluation.ratings.is_anchored).
    house: bool = False
    #: ... and calibrated: its rating is fixed.
    anchored: bool = False


def leaderboard(session: Session, game: str, version_ids: list[int] | None = None) -> list[LeaderRow]:
    query = (
        select(Rating, BotVersion, Bot)
        .join(BotVersion, BotVersion.id == Rating.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(Rating.game == game)
    )
    if version_ids is not None:
        query = query.where(Rating.bot_version_id.in_(version_ids))
    rows = session.execute(query).all()
    rows.sort(key=lambda r: (-ratings.conservative(r[0].mu, r[0].sigma), r[1].id))
    return [
        LeaderRow(
            place=i + 1,
            version_id=version.id,
            label=f"{bot.name} v{version.number}",
            owner=bot.owner,
            mu=rating.mu,
            sigma=rating.sigma,
            conservative=ratings.conservative(rating.mu, rating.sigma),
            games=rating.games_played,
            distinct_opponents=rating.distinct_opponents,
            opponent_spread=rating.opponent_spread,
            provisional=rating.provisional,
            house=bot.owner == ratings.ANCHOR_OWNER,
            anchored=ratings.is_anchored(bot.owner, rating.sigma),
        )
        for i, (rating, version, bot) in enumerate(rows)
    ]


def format_leaderboard(rows: list[LeaderRow]) -> str:
    head = f"{'#':>3}  {'bot':<28} {'mu-3σ':>7} {'mu':>7} {'sigma':>6} {'games':>5} {'opp':>4}  "
    lines = [head.rstrip(), "-" * len(head.rstrip())]
    for r in rows:
        flag = " ".join(f for f in (
            "provisional" if r.provisional else "",
            ("anchor (fixed)" if r.anchored else "anchor (calibrating)") if r.house else "",
        ) if f)
        lines.append(
            f"{r.place:>3}  {r.label[:28]:<28} {r.conservative:>7.2f} {r.mu:>7.2f} {r.sigma:>6.2f} "
            f"{r.games:>5} {r.distinct_opponents:>4}  {flag}".rstrip()
        )
    return "\n".join(lines)
