"""Seasons: a competition per game over a period, ending in frozen final standings (issue 39 item 6).

A season gathers a period of ladder play into one ranking, the way Halite, Kaggle's simulation
competitions and CodinGame contests end. Its steps, each one call here (and one ``arena season``
command, arena/cli/season.py):

1. **Open** (:func:`create_season`): a game, a name, a submission deadline, the size K of the
   final and its format. Bots of that game are **entered** (:func:`enter`) until the deadline;
   meanwhile they play the ladder as usual, and their rating is what qualifies them.
2. **Freeze** at the deadline (:func:`freeze`; an organiser may close submissions early, which
   moves the deadline to that moment): each entry's version is fixed — the newest version that
   plays (not held by an SPRT) uploaded before the deadline — with its rating then (mu − 3·sigma).
   From the deadline until the standings are published, a new version of an entered bot is
   refused at upload with the season named (:mod:`arena.intake.freeze`); the season would not
   use it anyway, since everything after the freeze reads the frozen version.
3. **Final evaluation** (:func:`start_final`): the top K entries by rating at the freeze play a
   tournament of the existing machinery (:mod:`arena.competition.tournaments`): by default a
   round-robin of several full cycles (each cycle a balanced schedule: every finalist meets
   every other and sits in every seat about equally often, so many more games each than one
   ladder day); a Swiss for a large K.
4. **Close** (:func:`finish`): once every match of the final is finished, the **final standings**
   are computed and stored once (``seasons.final_standings``, each entry's ``final_place``),
   then never recomputed: a later rating rebuild or correction does not move a published place.
   Finalists are ranked by the final's points — per game, the share of the table's other bots
   finished ahead of, a tie counting half, exact fractions (:func:`arena.competition.swiss.table_points`)
   — then Buchholz, Sonneborn-Berger, direct encounter and rating, as a Swiss's standings
   (:func:`arena.competition.swiss.standings`). Entries outside the top K follow, by their
   rating at the freeze. An entry with no playing version before the deadline, or whose bot
   was not active then (switched off: withdrawn), is listed unplaced.

The published standings export as CSV or JSON (:func:`render`), the same bytes from the CLI
(``arena season export``) and the season page's download links.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.competition import round_robin as schedule
from arena.competition import swiss, tournaments
from arena.competition.export import csv_text
from arena.db.models import (
    Bot,
    BotVersion,
    Match,
    MatchSeat,
    Rating,
    Tournament,
    TournamentRound,
    utcnow,
)
from arena.db.seasons import Season, SeasonEntry
from arena.evaluation import ratings
from referee import registry

#: A season's states, in order.
STATUSES = ("open", "frozen", "final", "done")
#: What the final evaluation can be (arena.competition.tournaments.FORMATS).
FINAL_FORMATS = tournaments.FORMATS
#: The standings can be written as these.
FORMATS = ("csv", "json")
#: Defaults: the eight best by rating play four full round-robin cycles.
DEFAULT_TOP_K = 8
DEFAULT_FINAL_ROUNDS = 4


class SeasonError(ValueError):
    """A season step that cannot be taken now (the message says why and what to do)."""


def create_season(
    session: Session, game: str, name: str, deadline: datetime, *, players: int | None = None,
    variant: str | None = None, top_k: int = DEFAULT_TOP_K, final_format: str = "round_robin",
    final_rounds: int = DEFAULT_FINAL_ROUNDS, seed: int = 0, description: str = "",
    now: datetime | None = None,
) -> Season:
    """Open a season of ``game`` taking entries until ``deadline`` (UTC, naive). Flushes."""
    now = now or utcnow()
    spec = registry.get_spec(game)  # an unknown game: ConfigError naming the games
    if players is None:
        counts = [c for c in spec.player_counts if c >= 2]
        if not counts:
            raise SeasonError(f"{game} has no multi-player configuration for a final")
        players = 2 if 2 in counts else counts[0]
    variant = spec.check(players, variant)
    name = " ".join(name.split())
    if not name:
        raise SeasonError("a season needs a name")
    if deadline <= now:
        raise SeasonError(f"the submission deadline {deadline:%Y-%m-%d %H:%M} UTC has already passed")
    if final_format not in FINAL_FORMATS:
        raise SeasonError(f"unknown final format {final_format!r} (one of {', '.join(FINAL_FORMATS)})")
    if top_k < players:
        raise SeasonError(f"the final needs at least {players} entries for {players}-seat tables; top K is {top_k}")
    if final_rounds < 1:
        raise SeasonError("the final needs at least one round")
    season = Season(name=name, game=game, variant=variant, players=players, status="open", opens_at=now,
                    deadline=deadline, top_k=top_k, final_format=final_format, final_rounds=final_rounds,
                    seed=seed, description=description.strip())
    session.add(season)
    session.flush()
    return season


def get(session: Session, season_id: int) -> Season:
    season = session.get(Season, season_id)
    if season is None:
        raise SeasonError(f"there is no season {season_id}")
    return season


def enter(session: Session, season: Season, bot: Bot, now: datetime | None = None) -> SeasonEntry:
    """Enter ``bot`` in ``season`` (open, before its deadline, a bot of its game). Flushes."""
    now = now or utcnow()
    if season.status != "open" or now >= season.deadline:
        raise SeasonError(f"season {season.id} ({season.name}) takes no more entries: its submissions "
                          f"closed at {season.deadline:%Y-%m-%d %H:%M} UTC")
    if bot.game != season.game:
        raise SeasonError(f"{bot.name} plays {bot.game}; season {season.id} is a {season.game} season")
    if not bot.active:
        raise SeasonError(f"{bot.name} is not active (no qualified version, or switched off): it cannot enter")
    if session.get(SeasonEntry, (season.id, bot.id)) is not None:
        raise SeasonError(f"{bot.name} is already entered in season {season.id}")
    entry = SeasonEntry(season_id=season.id, bot_id=bot.id, entered_at=now)
    session.add(entry)
    session.flush()
    return entry


def freeze(session: Session, season: Season, now: datetime | None = None, early: bool = False) -> int:
    """Close submissions: fix each entry's version and rating. Before the deadline only with
    ``early`` (the deadline then moves to now, so the upload refusal starts at once). Returns
    how many entries have a frozen version. Flushes."""
    now = now or utcnow()
    if season.status != "open":
        raise SeasonError(f"season {season.id}'s submissions are already closed (status {season.status})")
    if now < season.deadline:
        if not early:
            raise SeasonError(f"season {season.id}'s submissions close at {season.deadline:%Y-%m-%d %H:%M} UTC; "
                              "to close them now, say so (arena season freeze ID --now)")
        season.deadline = now
    frozen = 0
    for entry in season.entries:
        bot = session.get(Bot, entry.bot_id)
        if bot is None or not bot.active:  # switched off by its owner or an admin: withdrawn
            entry.frozen_version_id, entry.frozen_rating = None, None
            continue
        row = session.execute(
            select(BotVersion.id, Rating.mu, Rating.sigma)
            .join(Rating, (Rating.bot_version_id == BotVersion.id) & (Rating.game == season.game))
            .where(BotVersion.bot_id == entry.bot_id, BotVersion.held.is_(False),
                   BotVersion.created_at <= season.deadline)
            .order_by(BotVersion.number.desc()).limit(1)
        ).first()
        if row is None:
            entry.frozen_version_id, entry.frozen_rating = None, None
            continue
        entry.frozen_version_id = row[0]
        entry.frozen_rating = ratings.conservative(row[1], row[2])
        frozen += 1
    season.status = "frozen"
    season.frozen_at = now
    session.flush()
    return frozen


def finalists(season: Season) -> list[SeasonEntry]:
    """The top K frozen entries by rating at the freeze (earlier entry first on equal ratings)."""
    ranked = sorted((e for e in season.entries if e.frozen_version_id is not None),
                    key=lambda e: (-(e.frozen_rating or 0.0), e.entered_at, e.bot_id))
    return ranked[: season.top_k]


def start_final(session: Session, season: Season, decision_ms: int | None = None, bank_ms: int | None = None,
                sandbox: bool = True) -> Tournament:
    """Create the final evaluation's tournament (its matches pending; the caller plays it).
    Flushes."""
    if season.status != "frozen":
        what = {"open": "close its submissions first (arena season freeze)",
                "final": f"its final is tournament {season.final_tournament_id}",
                "done": "it is over"}[season.status]
        raise SeasonError(f"season {season.id} cannot start a final now: {what}")
    chosen = finalists(season)
    if len(chosen) < season.players:
        raise SeasonError(f"season {season.id} has {len(chosen)} entrie(s) with a version frozen at the deadline; "
                          f"a final of {season.players}-seat tables needs at least {season.players}")
    try:
        final = tournaments.create_tournament(
            session, season.game, [e.frozen_version_id for e in chosen if e.frozen_version_id is not None],
            season.players, season.final_rounds, season.variant, season.seed, decision_ms, bank_ms, sandbox,
            name=f"{season.name}: final", format=season.final_format,
            # every finalist plays; a table seating two entries of one author is unrated
            entries_per_author=len(chosen),
        )
    except schedule.ScheduleError as exc:
        raise SeasonError(str(exc)) from None
    season.final_tournament_id = final.id
    season.status = "final"
    session.flush()
    return final


def final_open_matches(session: Session, season: Season) -> int:
    """Matches of the final not yet finished (pending or running)."""
    if season.final_tournament_id is None:
        return 0
    return session.scalar(select(func.count()).select_from(Match).where(
        Match.tournament_id == season.final_tournament_id, Match.status.in_(("pending", "running")))) or 0


def finish(session: Session, season: Season, now: datetime | None = None) -> list[dict[str, Any]]:
    """Publish the final standings once every match of the final is finished: stored on the
    season and each entry, never recomputed. Returns them. Flushes."""
    if season.status != "final":
        raise SeasonError(f"season {season.id} has no final to close (status {season.status})")
    final = session.get(Tournament, season.final_tournament_id)
    open_matches = final_open_matches(session, season)
    if final is None or final.status != "done" or open_matches:
        raise SeasonError(f"season {season.id}'s final (tournament {season.final_tournament_id}) is still "
                          f"being played: {open_matches} match(es) left")
    rows = _compute(session, season)
    season.final_standings = rows
    places = {r["bot_id"]: r["place"] for r in rows}
    for entry in season.entries:
        entry.final_place = places.get(entry.bot_id)
    season.status = "done"
    season.finished_at = now or utcnow()
    session.flush()
    return rows


def standings(session: Session, season: Season) -> list[dict[str, Any]]:
    """The season's standings: the published ones when it is over, else the current state
    (provisional: the final's points so far, or the ratings before the final)."""
    if season.status == "done" and season.final_standings is not None:
        return list(season.final_standings)
    return _compute(session, season)


def _compute(session: Session, season: Season) -> list[dict[str, Any]]:
    """Standings from the database now: finalists by the final's points and tie-breaks, then
    the other frozen entries by rating at the freeze, then entries with nothing frozen. Before
    the freeze, every entry by its current rating (playing version)."""
    bots = {b.id: b for b in session.scalars(select(Bot).where(Bot.id.in_([e.bot_id for e in season.entries])))}
    labels = dict(session.execute(
        select(BotVersion.id, BotVersion.number).where(BotVersion.bot_id.in_(list(bots)))).all())
    rows: list[dict[str, Any]] = []

    def base(entry: SeasonEntry, place: int | None) -> dict[str, Any]:
        bot = bots[entry.bot_id]
        vid = entry.frozen_version_id
        return {"place": place, "bot": bot.name, "bot_id": bot.id, "owner": bot.owner,
                "version": None if vid is None else f"{bot.name} v{labels.get(vid, '?')}", "version_id": vid,
                "finalist": False, "score": None, "score_shown": None, "buchholz": None, "buchholz_shown": None,
                "sonneborn_berger": None, "sonneborn_berger_shown": None, "games": 0,
                "rating_at_freeze": None if entry.frozen_rating is None else round(entry.frozen_rating, 6),
                "decided_by": ""}

    if season.status == "open":
        current = _current_ratings(session, season)
        ordered = sorted(season.entries, key=lambda e: (-current.get(e.bot_id, float("-inf")), e.entered_at))
        for entry in ordered:
            row = base(entry, None)
            row["rating_now"] = None if entry.bot_id not in current else round(current[entry.bot_id], 6)
            rows.append(row)
        return rows
    chosen = finalists(season)
    chosen_ids = {e.bot_id for e in chosen}
    place = 0
    if season.final_tournament_id is not None:
        by_version = {e.frozen_version_id: e for e in chosen}
        entrants = [e.frozen_version_id for e in chosen if e.frozen_version_id is not None]
        rating = {e.frozen_version_id: e.frozen_rating or 0.0 for e in chosen}
        games, byes = _final_games(session, season.final_tournament_id)
        for r in swiss.standings(entrants, games, byes, rating):
            row = base(by_version[r.bot], r.place)
            row.update({"finalist": True, "score": swiss.fraction_text(r.score), "score_shown": swiss.points_text(r.score),
                        "buchholz": swiss.fraction_text(r.buchholz), "buchholz_shown": swiss.points_text(r.buchholz),
                        "sonneborn_berger": swiss.fraction_text(r.sonneborn_berger),
                        "sonneborn_berger_shown": swiss.points_text(r.sonneborn_berger), "games": r.games,
                        "decided_by": r.decided_by})
            rows.append(row)
        place = len(rows)  # the next entry's place follows every finalist, shared places or not
    else:  # frozen, final not started: the finalists-to-be by rating
        for entry in chosen:
            place += 1
            row = base(entry, place)
            row["finalist"] = True
            row["decided_by"] = "rating at the freeze" if place > 1 else ""
            rows.append(row)
    rest = sorted((e for e in season.entries if e.bot_id not in chosen_ids and e.frozen_version_id is not None),
                  key=lambda e: (-(e.frozen_rating or 0.0), e.entered_at, e.bot_id))
    for entry in rest:
        place += 1
        row = base(entry, place)
        row["decided_by"] = "rating at the freeze (not in the final)"
        rows.append(row)
    for entry in season.entries:
        if entry.frozen_version_id is None:
            row = base(entry, None)
            row["decided_by"] = "no version before the deadline, or not active then"
            rows.append(row)
    return rows


def _current_ratings(session: Session, season: Season) -> dict[int, float]:
    """Each entered bot's rating now (its newest version that plays), for an open season."""
    out: dict[int, float] = {}
    for bot_id, mu, sigma in session.execute(
        select(BotVersion.bot_id, Rating.mu, Rating.sigma)
        .join(Rating, (Rating.bot_version_id == BotVersion.id) & (Rating.game == season.game))
        .where(BotVersion.bot_id.in_([e.bot_id for e in season.entries]), BotVersion.held.is_(False))
        .order_by(BotVersion.bot_id, BotVersion.number)
    ):
        out[bot_id] = ratings.conservative(mu, sigma)  # the newest wins: ordered by number
    return out


def _final_games(session: Session, tournament_id: int) -> tuple[list[swiss.Game], list[int]]:
    """The final's finished tables (a failed match scores nothing), seats in order, and a Swiss
    final's byes (each scores a win, :data:`arena.competition.swiss.BYE_POINTS`)."""
    seats: dict[str, dict[int, tuple[int, int | None]]] = {}
    status: dict[str, str] = {}
    for mid, st, seat, vid, rank in session.execute(
        select(Match.id, Match.status, MatchSeat.seat, MatchSeat.bot_version_id, MatchSeat.rank)
        .join(MatchSeat, MatchSeat.match_id == Match.id).where(Match.tournament_id == tournament_id)
    ):
        seats.setdefault(mid, {})[seat] = (vid, rank)
        status[mid] = st
    games = []
    for mid, by_seat in seats.items():
        order = sorted(by_seat)
        bots = tuple(by_seat[s][0] for s in order)
        if status[mid] == "done":
            games.append(swiss.Game(bots, tuple(by_seat[s][1] for s in order)))
        elif status[mid] == "failed":
            games.append(swiss.Game(bots, None))
    byes = [vid for (round_byes,) in session.execute(
        select(TournamentRound.byes).where(TournamentRound.tournament_id == tournament_id)) for vid in round_byes or []]
    return games, byes


@dataclass(frozen=True)
class SeasonBrief:
    """A season in a list (CLI, website)."""

    id: int
    name: str
    game: str
    status: str
    deadline: datetime
    entries: int
    top_k: int
    final_tournament_id: int | None
    finished_at: datetime | None
    winner: str | None


def briefs(session: Session, game: str | None = None) -> list[SeasonBrief]:
    """Every season (or one game's), newest first."""
    query = select(Season).order_by(Season.created_at.desc(), Season.id.desc())
    if game is not None:
        query = query.where(Season.game == game)
    out = []
    for s in session.scalars(query):
        winner = None
        if s.status == "done" and s.final_standings:
            firsts = [r["bot"] for r in s.final_standings if r.get("place") == 1]
            winner = ", ".join(firsts) or None
        out.append(SeasonBrief(s.id, s.name, s.game, s.status, s.deadline, len(s.entries), s.top_k,
                               s.final_tournament_id, s.finished_at, winner))
    return out


@dataclass(frozen=True)
class BotPlace:
    """One season a bot entered, for its page: its place once published."""

    season_id: int
    season_name: str
    status: str
    place: int | None
    entries: int
    finalist: bool


def places_of_bot(session: Session, bot_id: int) -> list[BotPlace]:
    """The seasons ``bot_id`` entered, newest first, with its published place where there is one."""
    out = []
    for season, entry in session.execute(
        select(Season, SeasonEntry).join(SeasonEntry, SeasonEntry.season_id == Season.id)
        .where(SeasonEntry.bot_id == bot_id).order_by(Season.created_at.desc(), Season.id.desc())
    ):
        finalist = False
        if season.status == "done" and season.final_standings:
            finalist = any(r["bot_id"] == bot_id and r.get("finalist") for r in season.final_standings)
        out.append(BotPlace(season.id, season.name, season.status, entry.final_place, len(season.entries), finalist))
    return out


def head(season: Season) -> dict[str, Any]:
    """The season's facts, as the JSON export's header."""
    return {"id": season.id, "name": season.name, "game": season.game, "variant": season.variant,
            "players": season.players, "status": season.status, "deadline": season.deadline.isoformat() + "Z",
            "top_k": season.top_k, "final_format": season.final_format, "final_rounds": season.final_rounds,
            "final_tournament": season.final_tournament_id,
            "finished_at": None if season.finished_at is None else season.finished_at.isoformat() + "Z",
            "published": season.status == "done"}


def render(season: Season, rows: list[dict[str, Any]], fmt: str) -> str:
    """The standings as CSV (a header row; cells that a spreadsheet would run as a formula get
    a leading apostrophe) or JSON (with the season's facts)."""
    if fmt not in FORMATS:
        raise SeasonError(f"no format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "json":
        return json.dumps({"season": head(season), "standings": rows}, indent=1, ensure_ascii=False) + "\n"
    return csv_text(rows)


_RELATIVE = re.compile(r"\+(\d{1,5})([dhm])")


def parse_deadline(text: str, now: datetime | None = None) -> datetime:
    """A deadline as the CLI takes it: ``+7d``, ``+12h``, ``+30m`` from now, or a UTC date and
    time (``2026-12-31 18:00``, ``2026-12-31T18:00``, ``2026-12-31``: midnight)."""
    now = now or utcnow()
    text = text.strip()
    found = _RELATIVE.fullmatch(text)
    if found:
        amount, unit = int(found.group(1)), found.group(2)
        return now + {"d": timedelta(days=amount), "h": timedelta(hours=amount), "m": timedelta(minutes=amount)}[unit]
    try:
        moment = datetime.fromisoformat(text.removesuffix("Z").replace(" ", "T", 1))
    except ValueError:
        raise SeasonError(f"{text[:40]!r} is not a deadline: write +7d, +12h, +30m or a UTC time like "
                          "2026-12-31 18:00") from None
    if moment.tzinfo is not None:
        raise SeasonError("write the deadline in UTC without an offset (2026-12-31 18:00)")
    return moment
